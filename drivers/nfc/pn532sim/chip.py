"""The PN532's command processor: registers, the RF field, selected targets.

What is emulated: Diagnose, GetFirmwareVersion (PN532 v1.6), GetGeneralStatus,
Read/WriteRegister (a register file; ``CIU_FIFOData`` reads ``26`` after an
InListPassiveTarget that found nothing, as nfcpy checks), Read/WriteGPIO,
SetSerialBaudrate, SetParameters, SAMConfiguration, PowerDown,
RFConfiguration (item 1 switches the field; field off resets the cards),
InListPassiveTarget (106 kbps type A only; other modulations find nothing),
InDataExchange, InCommunicateThru, InSelect, InDeselect, InRelease; unknown
commands get the application-level error frame (:meth:`Pn532Core.execute`
answers ``None``). CRC_A is appended to tag answers when the host has switched
the receive CRC off (``CIU_RxMode`` bit 7), as nfcpy does for type 2 tags.

Measured facts and documented behaviour (modelled as such):

* REQA and WUPA can be sent raw (InCommunicateThru with ``CIU_BitFraming``
  TxLastBits = 7, as libnfc's ``nfc-anticol`` does).
* The PN532's InListPassiveTarget sends REQA, not WUPA: nfcpy's PN53x driver
  (``nfc/clf/pn53x.py``, ``sense_tta``) reads ``CIU_FIFOData`` after an empty
  poll and expects the SENS_REQ ``26`` still there.
* InListPassiveTarget takes MaxTg 1 or 2 (PN532 user manual UM0701-02,
  InListPassiveTarget; nfcpy's ``pn532.Chipset.in_list_passive_target_max_target = 2``).
* InDeselect with target 0 deselects every selected target, and a tag so
  deselected does not answer the next listing: libnfc's
  ``nfc_initiator_list_passive_targets`` (``libnfc/nfc.c``) lists a field by
  select, ``nfc_initiator_deselect_target`` (``pn53x.c``: InDeselect 0),
  select again, until nothing answers, stopping on a tag seen twice.

Strict as the chip (a test each in ``tests/drivers/test_pn532sim_strict.py``, sending the frames
a careless host would send):

* InDataExchange takes its data as MIFARE commands (UM0701-02, §7.3.8 InDataExchange,
  the table of MIFARE commands: ``60``/``61`` authentication A/B with a block address,
  a key and the UID; ``30`` read; ``A0``/``A2`` write...). An authentication needs a
  MIFARE Classic target (SAK bit 3, Crypto1); a Type 2 tag (NTAG213, SAK ``00``) has
  none, so ``D4 40 01 60`` (meant as GET_VERSION) fails with status ``14`` (*MIFARE:
  authentication error*, the manual's error table, §7.1) and the tag is not asked.
  Real-chip reports: libfreefare issue 112 and pull request 124 (NTAG GET_VERSION
  answered only as a one-byte InCommunicateThru on a PN532). Assumption: the exact
  status (the manual lists no status for an authentication to a Type 2 target).
* InListPassiveTarget's InitiatorData names a tag by whole cascade levels with their
  cascade tags (UM0701-02, §7.3.5; :func:`~drivers.nfc.pn532sim.field.names`): a bare
  7-byte UID selects nothing.
* A target's answer to InCommunicateThru garbled by the field's noise
  (:mod:`~drivers.nfc.pn532sim.noise`) gives status ``03`` (parity error) or, two errors in one
  byte, ``02`` (CRC error) with the receive CRC on, an answer with a wrong CRC_A with it off; one
  lost gives ``01`` after the response timeout (UM0701-02, §7.1, the error table). A collision
  spoils one activation attempt of a listing among two tags or more.
* InCommunicateThru sends its data to the target as it is (UM0701-02, §7.3.9: no
  protocol handling): it selects nothing, so a halted target stays silent (a timeout);
  InSelect (§7.3.12) or InDataExchange select a target first.

Time on the air and the wire (applied only when the simulator is paced; see
:data:`AIR_BIT` and the constants after it):

* 106 kbit/s is fc/128 (ISO/IEC 14443-2, Type A bit rate), and a byte is 9 bits on
  the air: 8 data bits and odd parity (ISO/IEC 14443-3, standard frame), plus a start
  and an end of frame; a frame delay time (at least 1172/fc, ISO/IEC 14443-3) after
  every frame.
* After the field comes on, an unmodulated field for at least 5.1 ms before the first
  REQA (ISO/IEC 14443-3, the guard time of *Polling*): every field reset costs it.
* HLTA is acknowledged by silence: the reader waits 1 ms for an answer that would mean
  NAK (ISO/IEC 14443-3, *HLTA command*). Every HLTA costs it: the chip's own (MaxTg=2,
  InSelect) and InDeselect's or InRelease's, one for each selected (ACTIVE) target it halts (a halted
  one is not spoken to).
* Listing runs an anticollision round (``93 20``, ``95 20``) before each SELECT
  (ISO/IEC 14443-3, *Anticollision and select*).

Assumptions (the simplest model consistent with the above; not measured):

* With MaxTg=2 the chip halts the first target (HLTA) to find a second, which
  stays selected; InSelect, or an InDataExchange to the other target, wakes
  it again (WUPA + SELECT by UID) and halts the one that was selected. Not shown by
  nfcpy (it never sends InSelect) nor by any public trace: :attr:`Pn532Core.in_select_wakes`
  ``False`` models a chip that wakes nothing so (the reader falls back on a listing by UID).
* A listing with a UID (InListPassiveTarget with InitiatorData) sends REQA and
  selects that tag only, as nfcpy's ``sense`` with ``sel_req`` expects.
* Selecting by UID (InitiatorData, InSelect) sends REQA or WUPA and SELECT level by
  level without an anticollision round (the manual does not say).
* How long the PN532 waits for an ATQA that does not come (:data:`NO_ATQA_WAIT`):
  1 ms a REQA, not in the manual. Extra anticollision rounds of a collision are not
  counted (a few tenths of a millisecond each).
* A card laid in a field that is already on answers at once (no power-up time).
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable
from typing import ClassVar

from drivers.nfc.pn532sim.field import Field, anticollision_order, cascade_levels, names
from drivers.nfc.pn532sim.noise import Garble
from drivers.nfc.pn532sim.ntag213 import Ntag213, crc_a

FIRMWARE_VERSION = bytes([0x32, 0x01, 0x06, 0x07])
"""GetFirmwareVersion answer: IC PN532, version 1.6, supports ISO A, B and 18092."""

FC = 13.56e6
"""The carrier frequency, Hz (ISO/IEC 14443-2)."""
AIR_BIT = 128 / FC
"""Seconds a bit at 106 kbit/s (fc/128, ISO/IEC 14443-2): 9.44 µs."""
AIR_BITS_PER_BYTE = 9
"""Bits a byte on the air: 8 data bits and an odd parity bit (ISO/IEC 14443-3, standard frame)."""
FRAME_DELAY = 1172 / FC
"""Seconds between the end of a frame and the next (the least frame delay time ISO/IEC 14443-3
allows, 86.4 µs), counted after every frame."""
GUARD_TIME = 5.1e-3
"""Seconds of unmodulated field after it comes on before the first REQA (ISO/IEC 14443-3, *Polling*)."""
HLTA_WAIT = 1e-3
"""Seconds the reader listens after a HLTA: an answer within 1 ms would be a NAK (ISO/IEC 14443-3)."""
NO_ATQA_WAIT = 1e-3
"""Seconds the PN532 waits for an ATQA that does not come (an assumption, not measured)."""


def air_time(*sizes: int) -> float:
    """Seconds on the air of standard frames of these many bytes (CRC included), one after another.

    Each: start of frame, 9 bits a byte, end of frame, then a frame delay.

    >>> round(air_time(34) * 1e6)  # READ_SIG's answer, 32 bytes and the CRC_A
    2994
    """
    return sum((2 + AIR_BITS_PER_BYTE * size) * AIR_BIT + FRAME_DELAY for size in sizes)


SHORT_FRAME = (2 + 7) * AIR_BIT + FRAME_DELAY
"""Seconds of a 7-bit short frame (REQA, WUPA) on the air."""
FOUR_BITS = (2 + 4) * AIR_BIT + FRAME_DELAY
"""Seconds of a 4-bit ACK or NAK on the air."""
EMPTY_REQA = SHORT_FRAME + NO_ATQA_WAIT
"""Seconds of a REQA nobody answers."""
HLTA = air_time(4) + HLTA_WAIT
"""Seconds of a HLTA (``50 00`` and the CRC_A) and the silence after it."""


def activation_time(uid: bytes, *, by_uid: bool) -> float:
    """Seconds to wake and select a tag: REQA (or WUPA) and ATQA, then each cascade level's
    anticollision round (``93 20`` → 4 bytes and the BCC; not when selecting by UID) and its
    SELECT (7 bytes and the CRC_A) → SAK (and the CRC_A)."""
    level = air_time(9, 3) + (0.0 if by_uid else air_time(2, 5))
    return SHORT_FRAME + air_time(2) + level * len(cascade_levels(uid))


def exchange_time(command: int, answer: int | None) -> float:
    """Seconds of a Type 2 command of ``command`` bytes and its answer of ``answer`` bytes (CRC_A
    added to both; an answer of 1 byte is a 4-bit ACK or NAK; ``None``: none)."""
    sent = air_time(command + 2)
    if answer is None:
        return sent
    return sent + (FOUR_BITS if answer == 1 else air_time(answer + 2))

# CIU register addresses nfcpy reads or writes.
CIU_TX_MODE = 0x6302
CIU_RX_MODE = 0x6303
CIU_TX_CONTROL = 0x6304
CIU_TX_AUTO = 0x6305
CIU_FIFO_DATA = 0x6339
CIU_BIT_FRAMING = 0x633D
_CRC_ENABLE = 0x80

_REGISTER_DEFAULTS = {
    CIU_TX_MODE: 0x80,
    CIU_RX_MODE: 0x80,
    CIU_TX_CONTROL: 0x80,
    CIU_TX_AUTO: 0x40,
    CIU_FIFO_DATA: 0x26,
}

# PN532 status codes used in answers.
_STATUS_OK = 0x00
_STATUS_TIMEOUT = 0x01
_STATUS_CRC = 0x02
_STATUS_PARITY = 0x03
_STATUS_MIFARE = 0x14
_MIFARE_CLASSIC = 0x08  # SAK bit 3: a MIFARE Classic (Crypto1) target
_AUTHENTICATION = (0x60, 0x61)  # InDataExchange's MIFARE authentication A and B (UM0701-02, §7.3.8)
_STATUS_CONTEXT = 0x27


class Pn532Core:
    """The PN532's command processor: registers, RF field, selected targets.

    :param field: the tags on the pad, which of them couple to the antenna
        and which miss a poll.
    """

    def __init__(self, field: Field, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.field = field
        self._clock = clock
        self.field_changes: collections.deque[tuple[float, bool]] = collections.deque(maxlen=100_000)
        """When the RF field went on (``True``) or off (``False``), in ``clock`` seconds (monotonic),
        oldest first: how long a pad's field is on while its neighbour's is (bench/pad_fields.py)."""
        self.registers: dict[int, int] = dict(_REGISTER_DEFAULTS)
        self.rf_on = False
        self._fresh_field = False
        self.powered_down = False
        self.host_baud = 115200
        self.rf_config: dict[int, bytes] = {}
        self.targets: list[Ntag213] = []
        self.current = 0
        self.rf_time = 0.0
        """Seconds the last command spent on the air (for pacing)."""
        self.polls = 0
        """InListPassiveTarget commands answered so far."""
        self.in_select_wakes = True
        """Whether InSelect (and InDataExchange) wakes a target that is no longer ACTIVE (halted by
        the chip's own MaxTg=2 listing, or IDLE after a NAK): the assumption below, nowhere shown;
        ``False`` models a chip that does not (InSelect finds nothing, status 27)."""

    def execute(self, command: bytes) -> bytes | None:
        """Answer one command (code and parameters, TFI stripped).

        :returns: the answer (code + 1 and data), or ``None`` for a command
            the chip rejects with an error frame.
        """
        self.rf_time = 0.0
        self.powered_down = False
        if not command:
            return None
        code, params = command[0], command[1:]
        handler = self._HANDLERS.get(code)
        if handler is None:
            return None
        data = handler(self, params)
        return None if data is None else bytes([code + 1]) + data

    def field_off(self) -> None:
        """Switch the RF field off: every card loses power and its state.

        A poll ends (see :meth:`end_poll`).
        """
        if self.rf_on:
            self.field_changes.append((self._clock(), False))
        self.rf_on = False
        self.registers[CIU_TX_CONTROL] = 0x80
        self.targets = []
        self.field.power_off()

    def reqa(self, *, wake_up: bool = False) -> list[Ntag213]:
        """Send a REQA (or a WUPA with ``wake_up``): the tags that answer with an ATQA.

        Only tags coupled to the antenna and not missing this poll hear it.
        """
        self._field_on()
        if self._fresh_field:
            self._fresh_field = False
            self.rf_time += GUARD_TIME  # no card may be spoken to before the guard time is over
        return self.field.reqa(wake_up=wake_up)

    def _activate_one(self, wanted: bytes, attempts: int) -> Ntag213 | None:
        """REQA, anticollision and SELECT of one tag (``wanted``: SELECT that UID).

        The tags that answered but were not selected drop back to ``idle``.
        """
        for _ in range(attempts):
            answered = self.reqa()
            if not wanted and self.field.noise.collides(len(answered)):
                # the anticollision garbled (noise): nobody selected, this attempt spent
                for tag in answered:
                    tag.state = "idle"
                self.rf_time += SHORT_FRAME + air_time(2, 9) + NO_ATQA_WAIT
                continue
            # SELECT by UID (InListPassiveTarget with a UID) or bit anticollision.
            named = [t for t in answered if names(t.uid, wanted)] if wanted else answered
            chosen = anticollision_order(named)[:1]
            for tag in answered:
                tag.state = "idle"
            if chosen:
                chosen[0].state = "active"
                self.rf_time += activation_time(chosen[0].uid, by_uid=bool(wanted))
                return chosen[0]
            self.rf_time += EMPTY_REQA if not answered else SHORT_FRAME + air_time(2, 9) + NO_ATQA_WAIT
        return None

    def _field_on(self) -> None:
        if not self.rf_on:
            self._fresh_field = True  # the first REQA waits for the guard time
            self.rf_on = True
            self.registers[CIU_TX_CONTROL] = 0x83
            self.field_changes.append((self._clock(), True))

    def _in_range(self, tag: Ntag213) -> bool:
        return self.rf_on and self.field.hears(tag)

    def _reselect(self, number: int) -> Ntag213 | None:
        """Make target ``number`` the active one (WUPA + SELECT by UID), halting the other.

        :returns: the tag, or ``None`` if it does not answer (gone, uncoupled).
        """
        tag = self._target(number)
        if tag is None or not self._in_range(tag):
            return None
        if tag.state != "active":
            if not self.in_select_wakes:
                self.rf_time += EMPTY_REQA
                return None  # the pessimistic chip: it wakes no target that left the ACTIVE state
            for other in self.targets:
                if other is not tag and other.state == "active":
                    other.state = "halt"  # the chip sends HLTA before selecting another
                    self.rf_time += HLTA
            if tag.wupa() is None:
                self.rf_time += EMPTY_REQA
                return None
            tag.state = "active"
            self.rf_time += activation_time(tag.uid, by_uid=True)
        self.current = number - 1
        return tag

    def _diagnose(self, params: bytes) -> bytes | None:
        if not params:
            return None
        return params if params[0] == 0x00 else b"\x00"

    def _firmware_version(self, params: bytes) -> bytes:
        return FIRMWARE_VERSION

    def _general_status(self, params: bytes) -> bytes:
        out = bytearray([0x00, int(self.rf_on), len(self.targets)])
        for number, _tag in enumerate(self.targets, start=1):
            out += bytes([number, 0x00, 0x00, 0x00])
        return bytes(out + b"\x00")

    def _read_register(self, params: bytes) -> bytes | None:
        if not params or len(params) % 2:
            return None
        addresses = [params[i] << 8 | params[i + 1] for i in range(0, len(params), 2)]
        return bytes(self.registers.get(address, 0x00) for address in addresses)

    def _write_register(self, params: bytes) -> bytes | None:
        if not params or len(params) % 3:
            return None
        for i in range(0, len(params), 3):
            address = params[i] << 8 | params[i + 1]
            if address == CIU_FIFO_DATA:
                continue  # writing the FIFO pushes data; reading it back is not modelled
            self.registers[address] = params[i + 2]
        return b""

    def _read_gpio(self, params: bytes) -> bytes:
        return b"\xff\xff\x00"

    def _accept(self, params: bytes) -> bytes:
        return b""

    def _set_serial_baudrate(self, params: bytes) -> bytes | None:
        rates = (9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600, 1288000)
        if len(params) != 1 or params[0] >= len(rates):
            return None
        self.host_baud = rates[params[0]]
        return b""

    def _power_down(self, params: bytes) -> bytes:
        self.field_off()
        self.powered_down = True
        return b"\x00"

    def _rf_configuration(self, params: bytes) -> bytes | None:
        if not params:
            return None
        item, data = params[0], bytes(params[1:])
        self.rf_config[item] = data
        if item == 0x01 and data:
            if data[0] & 0x01:
                self._field_on()
            else:
                self.field_off()
        return b""

    def _in_list_passive_target(self, params: bytes) -> bytes | None:
        if len(params) < 2 or params[0] not in (1, 2) or params[1] > 8:
            return None
        max_tg, brty, wanted = params[0], params[1], params[2:]
        self.targets = []
        self.polls += 1
        self._field_on()
        if brty != 0:  # only 106 kbps type A cards are simulated
            self.rf_time += EMPTY_REQA
            return b"\x00"
        uid = bytes(wanted)
        retries = self.rf_config.get(0x05, b"\x01\x00\x01")[2:3] or b"\x01"
        attempts = 2 if retries[0] else 1
        for _ in range(max_tg):
            if self.targets:
                self.targets[-1].state = "halt"  # HLTA, so that the next REQA finds another
                self.rf_time += HLTA
            tag = self._activate_one(uid, attempts)
            if tag is None:
                break
            self.targets.append(tag)
            if uid:
                break
        if not self.targets:
            self.registers[CIU_FIFO_DATA] = 0x26  # our REQA is still in the FIFO
            self.field.end_poll()
            return b"\x00"
        self.current = len(self.targets) - 1
        out = bytearray([len(self.targets)])
        for number, tag in enumerate(self.targets, start=1):
            out += bytes([number]) + tag.ATQA + bytes([tag.SAK, len(tag.uid)]) + tag.uid
        self.registers[CIU_FIFO_DATA] = 0x00
        self.registers[CIU_TX_MODE] |= _CRC_ENABLE
        self.registers[CIU_RX_MODE] |= _CRC_ENABLE
        return bytes(out)

    def waits_for_card(self, command: bytes) -> bool:
        """Whether ``command`` is an InListPassiveTarget the chip keeps retrying.

        With MxRtyPassiveActivation set to FF (RFConfiguration item 5) the
        PN532 polls until a card answers; the host may abort with an ACK.
        """
        if len(command) < 3 or command[0] != 0x4A or command[2] != 0:
            return False
        retries = self.rf_config.get(0x05, b"\x01\x00\x01")
        if retries[2:3] != b"\xff":
            return False
        self._field_on()
        self.field.begin_poll()
        wanted = bytes(command[3:])
        waits = not any(
            tag.state != "halt" and not self.field.silent(tag) and (not wanted or names(tag.uid, wanted))
            for tag in self.field.coupled()
        )
        if waits:
            self._fresh_field = False  # the guard time is long over when a card comes
        return waits

    def _target(self, number: int) -> Ntag213 | None:
        if 1 <= number <= len(self.targets):
            return self.targets[number - 1]
        return None

    def _in_data_exchange(self, params: bytes) -> bytes | None:
        if len(params) < 2:
            return None
        number = params[0] & 0x3F
        if self._target(number) is None:
            return bytes([_STATUS_CONTEXT])
        tag = self._reselect(number)
        if tag is not None and params[1] in _AUTHENTICATION and not tag.SAK & _MIFARE_CLASSIC:
            # a MIFARE Classic authentication to a tag without Crypto1: it fails, the tag is not asked
            self.rf_time += exchange_time(len(params) - 1, None) + self._timeout()
            return bytes([_STATUS_MIFARE])
        answer = tag.answer(params[1:]) if tag is not None else None
        self.rf_time += exchange_time(len(params) - 1, None if answer is None else len(answer))
        if answer is None:
            self.rf_time += self._timeout()
            return bytes([_STATUS_TIMEOUT])
        if len(answer) == 1:  # the chip turns the 4-bit ACK into plain success
            return bytes([_STATUS_OK if answer == b"\x0a" else _STATUS_MIFARE])
        return bytes([_STATUS_OK]) + answer

    def _in_communicate_thru(self, params: bytes) -> bytes | None:
        if not params:
            return None
        if self.registers.get(CIU_BIT_FRAMING, 0) & 0x07 == 7 and len(params) == 1:
            return self._short_frame(params[0])
        tag = self._target(self.current + 1)
        command = bytes(params)
        if not self.registers[CIU_TX_MODE] & _CRC_ENABLE:
            # The host sends the CRC itself; a tag ignores a frame whose CRC is wrong.
            if len(command) < 3 or crc_a(command[:-2]) != command[-2:]:
                tag = None
            command = command[:-2]
        answer = tag.answer(command) if tag is not None and self._in_range(tag) else None
        noise = self.field.answer_noise(tag) if tag is not None and answer is not None else None
        if noise is Garble.LOST or (noise is not None and answer is not None and len(answer) == 1):
            answer = None  # lost on the air (the chip's timeout runs from its command): the tag's state is as if heard
        self.rf_time += exchange_time(len(command), None if answer is None else len(answer))
        if answer is None:
            self.rf_time += self._timeout()
            return bytes([_STATUS_TIMEOUT])
        if noise is Garble.PARITY:
            return bytes([_STATUS_PARITY])
        if noise is Garble.CRC:
            if self.registers[CIU_RX_MODE] & _CRC_ENABLE:
                return bytes([_STATUS_CRC])
            return bytes([_STATUS_OK]) + self.field.noise.flip(answer) + crc_a(answer)
        if len(answer) == 1:
            if self.registers[CIU_RX_MODE] & _CRC_ENABLE:
                return bytes([_STATUS_CRC])  # a 4-bit frame carries no CRC
            return bytes([_STATUS_OK]) + answer
        if not self.registers[CIU_RX_MODE] & _CRC_ENABLE:
            answer += crc_a(answer)
        return bytes([_STATUS_OK]) + answer

    def _timeout(self) -> float:
        """Seconds the chip waits for an answer that does not come: RFConfiguration item 2's
        third byte *n*, 100 µs × 2^(n-1) (UM0701-02, §7.3.1; nfcpy's ``send_cmd_recv_rsp``)."""
        index = self.rf_config.get(0x02, b"\x00\x0b\x0a")[-1:] or b"\x0a"
        return (100 << max(index[0] - 1, 0)) / 1e6 if index[0] else 0.0

    def _short_frame(self, code: int) -> bytes:
        """A 7-bit frame sent raw: REQA (``26``) or WUPA (``52``); the ATQA back."""
        if code not in (0x26, 0x52):
            return bytes([_STATUS_TIMEOUT])
        self.targets = []
        answered = self.reqa(wake_up=code == 0x52)
        if not answered:
            self.rf_time += EMPTY_REQA
            return bytes([_STATUS_TIMEOUT])
        self.rf_time += SHORT_FRAME + air_time(2)
        # Every NTAG213 sends the same ATQA: the answers overlap without a collision.
        return bytes([_STATUS_OK]) + answered[0].ATQA[::-1]

    def _in_select(self, params: bytes) -> bytes | None:
        if len(params) != 1:
            return None
        if self._reselect(params[0]) is None:
            return bytes([_STATUS_CONTEXT])
        return bytes([_STATUS_OK])

    def _in_deselect(self, params: bytes) -> bytes | None:
        return self._let_go(params, forget=False)

    def _in_release(self, params: bytes) -> bytes | None:
        return self._let_go(params, forget=True)

    def _let_go(self, params: bytes, *, forget: bool) -> bytes | None:
        if len(params) != 1:
            return None
        number = params[0]
        if number == 0:
            chosen = list(self.targets)
        else:
            tag = self._target(number)
            if tag is None:
                return bytes([_STATUS_CONTEXT])
            chosen = [tag]
        for tag in chosen:
            if tag.state == "active":
                tag.state = "halt"  # the chip sends it a HLTA
                self.rf_time += HLTA
        if forget:
            self.targets = [t for t in self.targets if all(t is not c for c in chosen)]
            self.current = 0
        return bytes([_STATUS_OK])

    _HANDLERS: ClassVar[dict[int, Callable[[Pn532Core, bytes], bytes | None]]] = {
        0x00: _diagnose,
        0x02: _firmware_version,
        0x04: _general_status,
        0x06: _read_register,
        0x08: _write_register,
        0x0C: _read_gpio,
        0x0E: _accept,
        0x10: _set_serial_baudrate,
        0x12: _accept,
        0x14: _accept,
        0x16: _power_down,
        0x32: _rf_configuration,
        0x40: _in_data_exchange,
        0x42: _in_communicate_thru,
        0x44: _in_deselect,
        0x4A: _in_list_passive_target,
        0x52: _in_release,
        0x54: _in_select,
    }
