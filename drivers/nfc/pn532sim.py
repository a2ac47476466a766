"""An emulated PN532 on a pseudo-terminal, with NTAG213 cards to lay on it.

The simulator speaks the PN532's high-speed-UART frame protocol (user manual
UM0701-02, §6.2) on the master side of a pty, so the real nfcpy driver talks
to it through its ordinary serial transport::

    >>> import nfc.clf.pn532, nfc.clf.transport
    >>> with Pn532Simulator() as sim:                   # doctest: +SKIP
    ...     device = nfc.clf.pn532.init(nfc.clf.transport.TTY(sim.path))
    ...     sim.place("04A224B2C31D80", ndef_text="ecarte:KS")

``sim.path`` is a symlink in a private temporary directory. It is re-pointed at
a fresh pty by :meth:`Pn532Simulator.replug`, so a reader reopens the same
path after an :meth:`~Pn532Simulator.unplug`, as it would reopen
``/dev/ttyUSB0`` after the USB cable was pulled and plugged back.

What is emulated:

* frames: preamble/wake-up bytes (``55`` or ``00``) are skipped, normal and
  extended frames with LEN/LCS/DCS checksums, ACK after every good command,
  NACK from the host resends the last answer, a host ACK (cancel) is ignored,
  frames with a bad checksum get no answer (the chip waits for a good one),
  unknown commands get the application-level error frame ``7F``;
* commands: Diagnose, GetFirmwareVersion (PN532 v1.6), GetGeneralStatus,
  Read/WriteRegister (a register file; ``CIU_FIFOData`` reads ``26`` after an
  InListPassiveTarget that found nothing, as nfcpy checks), Read/WriteGPIO,
  SetSerialBaudrate, SetParameters, SAMConfiguration, PowerDown,
  RFConfiguration (item 1 switches the field; field off resets the cards),
  InListPassiveTarget (106 kbps type A only; other modulations find nothing),
  InDataExchange, InCommunicateThru, InSelect, InDeselect, InRelease;
* the NTAG213 (:class:`Ntag213`): 45 pages, READ, FAST_READ, WRITE,
  COMPATIBILITY_WRITE, GET_VERSION, READ_SIG, READ_CNT, PWD_AUTH, HLTA; a NAK
  for anything else (the tag then goes idle, as a real one does). CRC_A is
  appended to answers when the host has switched the receive CRC off
  (``CIU_RxMode`` bit 7), as nfcpy does for type 2 tags. Static lock bits
  are stored but not enforced; password protection is (below).

Originality and password (NXP NTAG213/215/216 data sheet, rev. 3.2: *Memory
organization*, *Configuration pages*, *Password verification protection*,
*Originality signature*, and the command sections *GET_VERSION*, *PWD_AUTH*,
*READ_SIG*; AN11350):

* ``GET_VERSION`` (``60``) answers ``00 04 04 02 01 00 0F 03`` (NTAG213);
  ``READ_SIG`` (``3C 00``) the 32-byte signature (``r || s``, ECDSA over the UID
  on secp128r1); a genuine tag's is given by the simulator's ``signer``.
* Configuration pages ``29``-``2C``: CFG0 (AUTH0 in byte 3, factory ``FF``:
  nothing protected), CFG1 (ACCESS, bit 7 PROT: 1 protects reading too), PWD
  (factory ``FFFFFFFF``), PACK (2 bytes). PWD and PACK read as zeros.
* ``PWD_AUTH`` (``1B`` + 4 bytes) with the right PWD answers PACK and the tag
  is authenticated until it leaves the ACTIVE state (HLTA, field off, a new
  REQA); a wrong one NAKs. WRITE and COMPATIBILITY_WRITE to a page from AUTH0 on,
  and with PROT also READ and FAST_READ, NAK unless authenticated.

Assumptions: AUTH0 takes effect at once when written (an NXP community report
says a write right after setting AUTH0 failed; the data sheet does not say), so
a tag is locked by writing PWD, PACK and ACCESS first and AUTH0 last; AUTHLIM
(a limit on wrong passwords), CFGLCK and the NFC counter are not modelled. A
clone (a "magic" UID-writable NTAG) answers ``GET_VERSION`` as an NTAG213 and
``READ_SIG`` with 32 zero bytes (what such tags hold until someone programs a
signature, which some can: then only the deck check catches them); a
counterfeit chip NAKs ``GET_VERSION``, ``READ_SIG`` and ``PWD_AUTH``.

Stacks. Cards lie on a pad as a stack (:meth:`Pn532Simulator.place_stack` lays
a packet at once, :meth:`~Pn532Simulator.place` one card on top,
:meth:`~Pn532Simulator.lift_top` and :meth:`~Pn532Simulator.lift_all` take
them off, :meth:`~Pn532Simulator.remove` pulls one from anywhere). What the
simulated chip and tags do, and on what it rests:

Measured facts and documented behaviour (modelled as such):

* ISO/IEC 14443-3 tag states: a REQA (``26``) wakes only IDLE tags, a WUPA
  (``52``) IDLE and HALT ones; HLTA (``50 00``) puts the selected tag in HALT;
  the field switched off resets every tag to IDLE (it loses power). Both
  short frames can be sent raw (InCommunicateThru with ``CIU_BitFraming``
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
* Stacked tags couple badly: builders of an RFID poker table report that their
  reader "seemingly can only read up to 2 cards in a stack, 3 is iffy"
  (pokerchipforum.com, "Experimenting with a DIY RFID table and broadcast
  overlay"); nfcpy's maintainer: "Consumer NFC chipsets either support one or
  two simultaneous tags for selected technologies" (nfcpy issue #134); a
  PN532/RC522 experimenter saw his reader hang on a two-card stack
  (electronics.stackexchange.com question 519993).

Assumptions (the simplest model consistent with the above; not measured):

* Readable depth: the lowest ``depth`` tags of a stack (the cloth side, nearest
  the antenna) couple and behave perfectly; the tags above answer nothing at
  all. Default 2, after the poker-table report. A real pad's depth depends on
  its antenna, the stickers and the cards: measure it (``docs/nfc.md``).
* Misses: while two tags or more lie on the pad, each coupled tag stays silent
  for a whole poll with probability ``miss`` (default 1 %), drawn from a
  seeded generator at the first listing of each field period. A poll lasts
  from the field going on until it goes off or a listing finds nothing.
  A lone tag never misses.
* Bit anticollision picks, where the UIDs first differ (bits in air order:
  cascade-level bytes in order, least significant bit first), the tag sending
  a 1 (NXP's reader reference code does so; the PN532 manual does not say).
* With MaxTg=2 the chip halts the first target (HLTA) to find a second, which
  stays selected; InSelect, or an InDataExchange to the other target, wakes
  it again (WUPA + SELECT by UID) and halts the one that was selected.
* A READY or ACTIVE tag that receives a REQA drops back to IDLE without
  answering; the PN532's one activation retry (MxRtyPassiveActivation 1) then
  finds it.
* A listing with a UID (InListPassiveTarget with InitiatorData) sends REQA and
  selects that tag only, as nfcpy's ``sense`` with ``sel_req`` expects.

Timing: with ``baud`` set, every frame is delivered whole after the time its
bytes take on the wire (10 bits a byte: 86.8 µs at 115200 baud); commands
also take that long to arrive, and the RF part of InListPassiveTarget and of
tag exchanges adds a rough fixed time. Without ``baud`` answers come at once.
A SetSerialBaudrate is acknowledged and recorded (:attr:`host_baud`) but does
not change the pacing: ``baud`` models the slowest link on the way.
"""

from __future__ import annotations

import collections
import errno
import logging
import os
import random
import select
import shutil
import tempfile
import threading
import time
import tty
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar

from drivers.closing import Closing

logger = logging.getLogger(__name__)

WIRE = logging.DEBUG - 1
"""Log level of the byte dumps (below DEBUG, as nfcpy's own)."""

ACK = bytes.fromhex("0000FF00FF00")
NACK = bytes.fromhex("0000FFFF0000")
ERROR_FRAME = bytes.fromhex("0000FF01FF7F8100")
"""The application-level error frame the PN532 sends for a command it rejects."""

HOST_TFI = 0xD4
CHIP_TFI = 0xD5
FIRMWARE_VERSION = bytes([0x32, 0x01, 0x06, 0x07])
"""GetFirmwareVersion answer: IC PN532, version 1.6, supports ISO A, B and 18092."""

DEFAULT_DEPTH = 2
"""Tags of a stack a simulated pad reads by default (the poker-table builders' "up to 2")."""
DEFAULT_MISS = 0.01
"""Default probability that a stacked tag misses one poll (an assumption: small)."""

# Rough RF times (seconds), applied only when the simulator is paced.
_RF_EMPTY_POLL = 0.001  # REQA with one retry and nobody answering
_RF_ACTIVATION = 0.0025  # REQA, two cascade levels of anticollision + SELECT
_RF_EXCHANGE = 0.0012  # one type 2 command and its answer at 106 kbps

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
_STATUS_MIFARE = 0x14
_STATUS_CONTEXT = 0x27


def crc_a(data: bytes) -> bytes:
    """ISO/IEC 14443-3 CRC_A of ``data``, two bytes, least significant first.

    >>> crc_a(bytes([0x30, 0x00])).hex()
    '02a8'
    """
    reg = 0x6363
    for octet in data:
        for pos in range(8):
            bit = (reg ^ (octet >> pos)) & 1
            reg >>= 1
            if bit:
                reg ^= 0x8408
    return bytes([reg & 0xFF, reg >> 8])


def frame(payload: bytes) -> bytes:
    """A PN532 information frame around ``payload`` (TFI and data).

    Normal frame up to 255 bytes of payload, extended frame above.

    >>> frame(bytes([0xD4, 0x02])).hex()
    '0000ff02fed4022a00'
    """
    size = len(payload)
    dcs = (-sum(payload)) & 0xFF
    if size < 256:
        head = bytes([0x00, 0x00, 0xFF, size, (-size) & 0xFF])
    else:
        hi, lo = size >> 8, size & 0xFF
        head = bytes([0x00, 0x00, 0xFF, 0xFF, 0xFF, hi, lo, (-(hi + lo)) & 0xFF])
    return head + payload + bytes([dcs, 0x00])


@dataclass(frozen=True, slots=True)
class HostFrame:
    """One unit the host sent: ``kind`` is ``command``, ``ack``, ``nack`` or ``bad``.

    ``payload`` holds TFI and data of a command (empty otherwise), ``size``
    the number of bytes the frame took on the wire, ``reason`` why a ``bad``
    frame was rejected.
    """

    kind: str
    payload: bytes = b""
    size: int = 0
    reason: str = ""


class FrameParser:
    """Cuts the host's byte stream into frames, skipping wake-up bytes."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> Iterator[HostFrame]:
        """Add received bytes and yield every frame they complete."""
        self._buffer += data
        while True:
            item = self._next()
            if item is None:
                return
            yield item

    def _next(self) -> HostFrame | None:
        buf = self._buffer
        start = buf.find(b"\x00\xff")
        if start < 0:
            # Keep a trailing 00: it may be the first byte of a start code.
            del buf[: len(buf) - 1 if buf.endswith(b"\x00") else len(buf)]
            return None
        del buf[:start]
        if len(buf) < 4:
            return None
        if buf[2:4] == b"\x00\xff":
            del buf[:4]
            return HostFrame("ack", size=6)
        if buf[2:4] == b"\xff\x00":
            del buf[:4]
            return HostFrame("nack", size=6)
        if buf[2:4] == b"\xff\xff":
            if len(buf) < 7:
                return None
            if (buf[4] + buf[5] + buf[6]) & 0xFF:
                del buf[:2]
                return HostFrame("bad", reason="extended length checksum", size=7)
            length, body = buf[4] << 8 | buf[5], 7
        else:
            if (buf[2] + buf[3]) & 0xFF:
                del buf[:2]
                return HostFrame("bad", reason="length checksum", size=4)
            length, body = buf[2], 4
        if len(buf) < body + length + 1:
            return None
        payload = bytes(buf[body : body + length])
        dcs = buf[body + length]
        del buf[: body + length + 1]
        size = body + length + 3  # preamble and postamble included
        if (sum(payload) + dcs) & 0xFF:
            return HostFrame("bad", reason="data checksum", size=size)
        if not payload or payload[0] != HOST_TFI:
            return HostFrame("bad", reason="frame identifier", size=size)
        return HostFrame("command", payload, size)


def ndef_text_message(text: str, language: str = "en") -> bytes:
    """An NDEF message holding one well-known text record (UTF-8).

    >>> ndef_text_message("ecarte:KS").hex()
    'd1010c5402656e6563617274653a4b53'
    """
    body = text.encode()
    payload = bytes([len(language)]) + language.encode("ascii") + body
    if len(payload) < 256:
        return bytes([0xD1, 0x01, len(payload)]) + b"T" + payload
    return bytes([0xC1, 0x01]) + len(payload).to_bytes(4, "big") + b"T" + payload


def parse_ndef_text(message: bytes) -> str | None:
    """The text of the first record of ``message`` if it is a text record."""
    if len(message) < 3:
        return None
    header, type_length = message[0], message[1]
    short = bool(header & 0x10)
    if short:
        size, at = message[2], 3
    else:
        size, at = int.from_bytes(message[2:6], "big"), 6
    if header & 0x08:  # ID length present
        at += 1
    record_type = message[at : at + type_length]
    payload = message[at + type_length : at + type_length + size]
    if header & 0x07 != 0x01 or record_type != b"T" or not payload:
        return None
    lang = payload[0] & 0x3F
    encoding = "utf-16" if payload[0] & 0x80 else "utf-8"
    return payload[1 + lang :].decode(encoding, errors="replace")


class Ntag213:
    """An NXP NTAG213: 45 pages of 4 bytes, a 7-byte UID, and its state.

    ``state`` follows ISO/IEC 14443-3: ``idle`` (powered, answers REQA and
    WUPA), ``ready`` (answered, taking part in anticollision), ``active``
    (selected: answers type 2 commands) or ``halt`` (after HLTA: answers WUPA
    only). The reader field going off resets it to ``idle``.

    :raises ValueError: ``uid`` is not 7 bytes.
    """

    PAGES = 45
    USER_PAGES = range(4, 40)
    VERSION = bytes.fromhex("0004040201000F03")
    ATQA = bytes.fromhex("0044")
    SAK = 0x00
    CC = bytes.fromhex("E1101200")
    CFG0_PAGE, CFG1_PAGE, PWD_PAGE, PACK_PAGE = 0x29, 0x2A, 0x2B, 0x2C

    KINDS = ("genuine", "clone", "counterfeit")
    """What a tag is: an NXP NTAG213 (signed if the simulator has a signing key), a
    clone (a blank "magic" NTAG written with a copied UID: its ``READ_SIG`` answers 32
    zero bytes) or a counterfeit chip (no ``GET_VERSION``, ``READ_SIG`` or ``PWD_AUTH``:
    it answers NAK)."""

    def __init__(
        self,
        uid: bytes | str,
        *,
        ndef_text: str | None = None,
        signature: bytes = bytes(32),
        kind: str = "genuine",
    ) -> None:
        uid = bytes.fromhex(uid) if isinstance(uid, str) else bytes(uid)
        if len(uid) != 7:
            raise ValueError(f"an NTAG213 UID is 7 bytes, not {len(uid)}: {uid.hex().upper()}")
        if kind not in self.KINDS:
            raise ValueError(f"a tag is one of {', '.join(self.KINDS)}, not {kind!r}")
        if len(signature) != 32:
            raise ValueError(f"an originality signature is 32 bytes, not {len(signature)}")
        self.uid = uid
        self.kind = kind
        self.state = "idle"
        self.authenticated = False
        self.signature = signature if kind == "genuine" else bytes(32)
        self.memory = bytearray(self.PAGES * 4)
        bcc0 = 0x88 ^ uid[0] ^ uid[1] ^ uid[2]
        bcc1 = uid[3] ^ uid[4] ^ uid[5] ^ uid[6]
        self.memory[0:12] = uid[0:3] + bytes([bcc0]) + uid[3:7] + bytes([bcc1, 0x48, 0, 0])
        self.memory[12:16] = self.CC
        self.memory[41 * 4 : 42 * 4] = bytes([0x04, 0x00, 0x00, 0xFF])  # CFG0: AUTH0 = FF
        self.memory[43 * 4 : 44 * 4] = b"\xff\xff\xff\xff"  # PWD: factory default FFFFFFFF
        self.set_ndef_text(ndef_text)

    @property
    def uid_hex(self) -> str:
        """The UID in upper-case hex, as the tag registry keys it."""
        return self.uid.hex().upper()

    def set_ndef_text(self, text: str | None) -> None:
        """Store an NDEF text record (or an empty NDEF message) from page 4.

        :raises ValueError: the record does not fit in the 144 user bytes.
        """
        message = ndef_text_message(text) if text is not None else b""
        if len(message) < 255:
            tlv = bytes([0x03, len(message)]) + message + b"\xfe"
        else:
            tlv = b"\x03\xff" + len(message).to_bytes(2, "big") + message + b"\xfe"
        user = 4 * len(self.USER_PAGES)
        if len(tlv) > user:
            raise ValueError(f"NDEF message of {len(message)} bytes does not fit in {user}")
        self.memory[16 : 16 + user] = tlv + bytes(user - len(tlv))

    def ndef_message(self) -> bytes | None:
        """The NDEF message in the first NDEF TLV of the user memory, if any."""
        at, end = 16, 16 + 4 * len(self.USER_PAGES)
        while at < end:
            kind = self.memory[at]
            if kind == 0x00:
                at += 1
                continue
            if kind == 0xFE:
                return None
            size, head = self.memory[at + 1], 2
            if size == 0xFF:
                size, head = int.from_bytes(self.memory[at + 2 : at + 4], "big"), 4
            if kind == 0x03:
                return bytes(self.memory[at + head : at + head + size])
            at += head + size
        return None

    def ndef_text(self) -> str | None:
        """The text of the NDEF text record on the tag, if there is one."""
        message = self.ndef_message()
        return parse_ndef_text(message) if message else None

    def reqa(self) -> bytes | None:
        """A REQA (7-bit ``26``): the ATQA if the tag is ``idle``, else ``None``.

        A halted tag stays silent and halted; a ``ready`` or ``active`` tag
        takes the frame as unexpected and drops back to ``idle`` (silent).
        """
        self.authenticated = False  # lost with the ACTIVE state (HLTA, power, a new REQA)
        if self.state == "idle":
            self.state = "ready"
            return self.ATQA
        if self.state != "halt":
            self.state = "idle"
        return None

    def wupa(self) -> bytes | None:
        """A WUPA (7-bit ``52``): the ATQA if ``idle`` or ``halt``, else ``None``."""
        self.authenticated = False
        if self.state in ("idle", "halt"):
            self.state = "ready"
            return self.ATQA
        self.state = "idle"
        return None

    def answer(self, command: bytes) -> bytes | None:
        """The tag's answer to a type 2 command (CRC excluded), ``None`` if silent.

        A one-byte answer is a 4-bit ACK (``0A``) or NAK (``00``).
        """
        if self.state != "active" or not command:
            return None
        code, args = command[0], command[1:]
        if code == 0x30 and len(args) >= 1:  # READ
            if args[0] >= self.PAGES or not self._may_read(args[0]):
                return self._nak()
            return self._read(args[0])
        if code == 0x3A and len(args) >= 2:  # FAST_READ
            first, last = args[0], args[1]
            if first > last or last >= self.PAGES or not self._may_read(last):
                return self._nak()
            return bytes(self.memory[4 * first : 4 * last + 4])
        if code == 0xA2 and len(args) >= 5:  # WRITE
            return self._write(args[0], args[1:5])
        if code == 0xA0 and len(args) >= 1:  # COMPATIBILITY_WRITE, first part
            return b"\x0a" if 2 <= args[0] < 40 and self._may_write(args[0]) else self._nak()
        if code in (0x60, 0x3C, 0x1B) and self.kind == "counterfeit":
            return self._nak()
        if code == 0x60:  # GET_VERSION
            return self.VERSION
        if code == 0x3C:  # READ_SIG
            return self.signature
        if code == 0x39:  # READ_CNT
            return bytes(3)
        if code == 0x1B and len(args) >= 4:  # PWD_AUTH: PACK if the password matches
            if bytes(args[:4]) != self.memory[4 * self.PWD_PAGE : 4 * self.PWD_PAGE + 4]:
                return self._nak()
            self.authenticated = True
            return bytes(self.memory[4 * self.PACK_PAGE : 4 * self.PACK_PAGE + 2])
        if code == 0x50:  # HLTA
            self.state = "halt"
            return None
        return self._nak()

    def _nak(self) -> bytes:
        self.state = "idle"
        self.authenticated = False
        return b"\x00"

    @property
    def auth0(self) -> int:
        """The first page the password protects (CFG0 byte 3; ``FF``: none)."""
        return self.memory[4 * self.CFG0_PAGE + 3]

    @property
    def read_protected(self) -> bool:
        """Whether the password also protects reading (ACCESS bit 7, PROT)."""
        return bool(self.memory[4 * self.CFG1_PAGE] & 0x80)

    @property
    def locked(self) -> bool:
        """Whether part of the memory is password protected (AUTH0 within the memory)."""
        return self.auth0 < self.PAGES

    def _may_write(self, page: int) -> bool:
        return self.authenticated or page < self.auth0

    def _may_read(self, page: int) -> bool:
        return self.authenticated or not self.read_protected or page < self.auth0

    def _read(self, page: int) -> bytes:
        out = bytearray()
        for offset in range(4):
            at = (page + offset) % self.PAGES
            # PWD and PACK always read as zeros.
            out += bytes(4) if at >= 43 else self.memory[4 * at : 4 * at + 4]
        return bytes(out)

    def _write(self, page: int, data: bytes) -> bytes:
        if page < 2 or page >= self.PAGES or not self._may_write(page):
            return self._nak()
        at = 4 * page
        if page == 2:  # only the static lock bytes, and only ever set bits
            self.memory[at + 2] |= data[2]
            self.memory[at + 3] |= data[3]
        elif page == 3:  # capability container: one-time programmable
            for i in range(4):
                self.memory[at + i] |= data[i]
        else:
            self.memory[at : at + 4] = data
        return b"\x0a"


def _uid_key(uid: str | bytes) -> str:
    return (bytes.fromhex(uid) if isinstance(uid, str) else bytes(uid)).hex().upper()


def _bit_reversed(octet: int) -> int:
    return int(f"{octet:08b}"[::-1], 2)


def _cascade_bytes(uid: bytes) -> bytes:
    """The UID bytes in the order anticollision sends them (cascade tags in)."""
    if len(uid) == 4:
        return uid
    if len(uid) == 7:
        return b"\x88" + uid[:3] + uid[3:]
    return b"\x88" + uid[:3] + b"\x88" + uid[3:6] + uid[6:]


def _strip_cascade_tags(sel: bytes) -> bytes:
    """The UID in a selection request that has cascade tags (88) in it."""
    if len(sel) == 8 and sel[0] == 0x88:
        return sel[1:]
    if len(sel) == 12 and sel[0] == 0x88 and sel[4] == 0x88:
        return sel[1:4] + sel[5:]
    return sel


def anticollision_order(tags: Sequence[Ntag213]) -> list[Ntag213]:
    """``tags`` in the order bit anticollision selects them (winner first).

    At the first bit (in air order) where they differ the tag sending 1 wins.
    """
    return sorted(
        tags,
        key=lambda tag: bytes(_bit_reversed(b) for b in _cascade_bytes(tag.uid)),
        reverse=True,
    )


class Pn532Core:
    """The PN532's command processor: registers, RF field, selected targets.

    :param field: the tags coupled to the antenna (those that can answer),
        bottom of the stack first.
    :param stacked: whether the pad holds two tags or more (their coupling
        is then shaky: each may miss a poll with probability ``miss``).
    :param miss: probability that a stacked tag stays silent for one field
        period (0 to 1).
    :param seed: seeds the draws of those misses (the same commands give the
        same misses).
    """

    def __init__(
        self,
        *,
        field: Callable[[], Sequence[Ntag213]],
        stacked: Callable[[], bool] = lambda: False,
        miss: float = 0.0,
        seed: int = 0,
    ) -> None:
        self._field = field
        self._stacked = stacked
        self.miss = miss
        self._rng = random.Random(seed)
        self._period_polled = False
        self._period_missed: set[int] = set()
        self._period_silenced: set[int] = set()
        self.registers: dict[int, int] = dict(_REGISTER_DEFAULTS)
        self.rf_on = False
        self.powered_down = False
        self.host_baud = 115200
        self.rf_config: dict[int, bytes] = {}
        self.targets: list[Ntag213] = []
        self.current = 0
        self.rf_time = 0.0
        """Seconds the last command spent on the air (for pacing)."""
        self.polls = 0
        """InListPassiveTarget commands answered so far."""
        self.hidden: dict[int, int] = {}
        """id(tag) → number of coming field periods with a poll the tag misses."""
        self.misses = 0
        """Random misses drawn so far (a stacked tag silent for a field period)."""

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
        self.rf_on = False
        self.registers[CIU_TX_CONTROL] = 0x80
        self.targets = []
        for tag in self._field():
            tag.state = "idle"
        self.end_poll()

    def end_poll(self) -> None:
        """A poll is over: the field went off, or a listing found nothing.

        A flickering tag has missed one more poll; the random misses are drawn
        anew at the next poll.
        """
        for key in self._period_silenced:
            if key in self.hidden:
                self.hidden[key] -= 1
                if self.hidden[key] <= 0:
                    del self.hidden[key]
        self._period_polled = False
        self._period_missed = set()
        self._period_silenced = set()

    def _begin_poll(self) -> None:
        """The first poll of a field period: draw which stacked tags miss it."""
        if self._period_polled:
            return
        self._period_polled = True
        if self.miss > 0 and self._stacked():
            for tag in self._field():
                if self._rng.random() < self.miss:
                    self._period_missed.add(id(tag))
                    self.misses += 1

    def _silent(self, tag: Ntag213) -> bool:
        if self.hidden.get(id(tag), 0) > 0:
            self._period_silenced.add(id(tag))  # it missed this poll
            return True
        return id(tag) in self._period_missed

    def reqa(self, *, wake_up: bool = False) -> list[Ntag213]:
        """Send a REQA (or a WUPA with ``wake_up``): the tags that answer with an ATQA.

        Only tags coupled to the antenna and not missing this poll hear it.
        """
        self._field_on()
        self._begin_poll()
        answered = []
        for tag in self._field():
            if self._silent(tag):
                continue
            if (tag.wupa() if wake_up else tag.reqa()) is not None:
                answered.append(tag)
        return answered

    def _activate_one(self, wanted: bytes, attempts: int) -> Ntag213 | None:
        """REQA, anticollision and SELECT of one tag (``wanted``: SELECT that UID).

        The tags that answered but were not selected drop back to ``idle``.
        """
        for _ in range(attempts):
            answered = self.reqa()
            # SELECT by UID (InListPassiveTarget with a UID) or bit anticollision.
            chosen = [t for t in answered if t.uid == wanted] if wanted else anticollision_order(answered)[:1]
            for tag in answered:
                tag.state = "idle"
            if chosen:
                chosen[0].state = "active"
                return chosen[0]
        return None

    def _field_on(self) -> None:
        if not self.rf_on:
            self.rf_on = True
            self.registers[CIU_TX_CONTROL] = 0x83

    def _in_range(self, tag: Ntag213) -> bool:
        return self.rf_on and not self._silent(tag) and any(t is tag for t in self._field())

    def _reselect(self, number: int) -> Ntag213 | None:
        """Make target ``number`` the active one (WUPA + SELECT by UID), halting the other.

        :returns: the tag, or ``None`` if it does not answer (gone, uncoupled).
        """
        tag = self._target(number)
        if tag is None or not self._in_range(tag):
            return None
        if tag.state != "active":
            for other in self.targets:
                if other is not tag and other.state == "active":
                    other.state = "halt"  # the chip sends HLTA before selecting another
            if tag.wupa() is None:
                return None
            tag.state = "active"
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
            self.rf_time = _RF_EMPTY_POLL
            return b"\x00"
        uid = _strip_cascade_tags(bytes(wanted)) if wanted else b""
        retries = self.rf_config.get(0x05, b"\x01\x00\x01")[2:3] or b"\x01"
        attempts = 2 if retries[0] else 1
        for _ in range(max_tg):
            if self.targets:
                self.targets[-1].state = "halt"  # HLTA, so that the next REQA finds another
            tag = self._activate_one(uid, attempts)
            if tag is None:
                break
            self.targets.append(tag)
            if uid:
                break
        if not self.targets:
            self.registers[CIU_FIFO_DATA] = 0x26  # our REQA is still in the FIFO
            self.rf_time = _RF_EMPTY_POLL
            self.end_poll()
            return b"\x00"
        if len(self.targets) < max_tg:
            self.rf_time += _RF_EMPTY_POLL
        self.current = len(self.targets) - 1
        out = bytearray([len(self.targets)])
        for number, tag in enumerate(self.targets, start=1):
            out += bytes([number]) + tag.ATQA + bytes([tag.SAK, len(tag.uid)]) + tag.uid
        self.registers[CIU_FIFO_DATA] = 0x00
        self.registers[CIU_TX_MODE] |= _CRC_ENABLE
        self.registers[CIU_RX_MODE] |= _CRC_ENABLE
        self.rf_time += _RF_ACTIVATION * len(self.targets)
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
        self._begin_poll()
        wanted = _strip_cascade_tags(bytes(command[3:]))
        return not any(
            tag.state != "halt" and not self._silent(tag) and (not wanted or tag.uid == wanted)
            for tag in self._field()
        )

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
        self.rf_time = _RF_EXCHANGE
        tag = self._reselect(number)
        answer = tag.answer(params[1:]) if tag is not None else None
        if answer is None:
            return bytes([_STATUS_TIMEOUT])
        if len(answer) == 1:  # the chip turns the 4-bit ACK into plain success
            return bytes([_STATUS_OK if answer == b"\x0a" else _STATUS_MIFARE])
        return bytes([_STATUS_OK]) + answer

    def _in_communicate_thru(self, params: bytes) -> bytes | None:
        if not params:
            return None
        self.rf_time = _RF_EXCHANGE
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
        if answer is None:
            index = self.rf_config.get(0x02, b"\x00\x0b\x0a")[-1:] or b"\x0a"
            self.rf_time = (100 << max(index[0] - 1, 0)) / 1e6 if index[0] else 0.0
            return bytes([_STATUS_TIMEOUT])
        if len(answer) == 1:
            if self.registers[CIU_RX_MODE] & _CRC_ENABLE:
                return bytes([_STATUS_CRC])  # a 4-bit frame carries no CRC
            return bytes([_STATUS_OK]) + answer
        if not self.registers[CIU_RX_MODE] & _CRC_ENABLE:
            answer += crc_a(answer)
        return bytes([_STATUS_OK]) + answer

    def _short_frame(self, code: int) -> bytes:
        """A 7-bit frame sent raw: REQA (``26``) or WUPA (``52``); the ATQA back."""
        if code not in (0x26, 0x52):
            return bytes([_STATUS_TIMEOUT])
        self.targets = []
        answered = self.reqa(wake_up=code == 0x52)
        if not answered:
            return bytes([_STATUS_TIMEOUT])
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
                tag.state = "halt"
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


@dataclass(frozen=True, slots=True)
class SimStats:
    """What the simulator has seen so far (counts since it was created)."""

    commands: int
    polls: int
    acks: int
    nacks: int
    bad_frames: int
    dropped: int
    corrupted: int
    late: int = 0


FOLDER_PREFIX = "pn532sim-"
"""The simulators' folders (``/tmp/pn532sim-<pid>-<random>``, each holding a port's symlink)."""


def sweep_folders(directory: str | None = None) -> list[str]:
    """Remove the folders of simulators whose process is gone (killed before it could); those removed.

    A folder is known by its name, ``pn532sim-<pid>-...``: only a process that no longer exists
    loses its folders (another user's, or a live process's, are left alone).
    """
    base = directory or tempfile.gettempdir()
    removed: list[str] = []
    try:
        names = os.listdir(base)
    except OSError:
        return removed
    for name in names:
        pid_text = name[len(FOLDER_PREFIX):].split("-", 1)[0] if name.startswith(FOLDER_PREFIX) else ""
        if not pid_text.isdigit() or _alive(int(pid_text)):
            continue
        shutil.rmtree(os.path.join(base, name), ignore_errors=True)
        removed.append(name)
    return removed


_swept = False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


class Pn532Simulator(Closing):
    """A PN532 on a pty with NTAG213 cards stacked on it and lifted by code.

    :param baud: pace frames as a UART at this many bits a second would
        (``None``: no pacing).
    :param name: file name of the :attr:`path` symlink.
    :param depth: how many tags of a stack couple to the antenna, counted from
        the bottom (the cloth side); the tags above answer nothing.
    :param miss: probability that a tag of a stack (two tags or more) misses
        one poll (stays silent for one field period); 0 for none.
    :param seed: seeds the misses (the same polls give the same misses).
    :param signer: gives each genuine tag its originality signature (UID → 32
        bytes ``r || s``; :func:`hardware.originality.sim_signer` signs with a
        TEST key); ``None``: genuine tags answer ``READ_SIG`` with zeros.
    :raises OSError: no pty could be allocated.
    :raises ValueError: ``depth`` below 1 or ``miss`` outside 0..1.
    """

    def __init__(
        self,
        *,
        baud: int | None = None,
        name: str = "ttyPN532",
        depth: int = DEFAULT_DEPTH,
        miss: float = DEFAULT_MISS,
        seed: int = 0,
        signer: Callable[[bytes], bytes] | None = None,
    ) -> None:
        if depth < 1:
            raise ValueError(f"a pad reads at least 1 tag deep, not {depth}")
        if not 0.0 <= miss <= 1.0:
            raise ValueError(f"miss is a probability (0 to 1), not {miss}")
        self._depth = depth
        self._byte_time = 10.0 / baud if baud else 0.0
        global _swept
        if not _swept:  # once a process: what killed processes left
            _swept = True
            sweep_folders()
        self._directory = tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-")
        # the folder goes when the simulator closes, or is collected, or the process exits; a
        # process killed outright leaves it to the next simulator started (sweep_folders)
        self._finalizer = weakref.finalize(self, shutil.rmtree, self._directory, True)
        self.path = os.path.join(self._directory, name)
        """Stable path of the serial port (a symlink to the current pty)."""
        self._lock = threading.Lock()
        self._box: dict[tuple[str, str], Ntag213] = {}  # (UID, kind) → the tag
        self._signer = signer
        self._stack: list[Ntag213] = []  # bottom (cloth side) first
        self._core = Pn532Core(
            field=self._field, stacked=lambda: len(self._stack) > 1, miss=miss, seed=seed
        )
        self._parser = FrameParser()
        self._last_answer = b""
        self._pending: bytes | None = None  # an InListPassiveTarget waiting for a card
        self._drop = 0
        self._late = 0
        self._late_by = 0.0
        self._corrupt = 0
        self._counts = collections.Counter[str]()
        self.commands: collections.deque[bytes] = collections.deque(maxlen=4096)
        """Every command received (code and parameters), oldest first."""
        self._master: int | None = None
        self._slave: int | None = None
        self._want_plugged = True
        self._closed = False
        self._changed = threading.Condition(self._lock)
        self._wake_r, self._wake_w = os.pipe()
        try:
            self._plug()
        except OSError:
            self._close_pipe()
            shutil.rmtree(self._directory, ignore_errors=True)
            raise
        self._thread = threading.Thread(target=self._serve, name=f"pn532sim-{name}", daemon=True)
        self._thread.start()

    # -- the cards ---------------------------------------------------------

    def place(self, uid: str | bytes, ndef_text: str | None = None, *, kind: str = "genuine") -> Ntag213:
        """Lay the tag ``uid`` on top of the pad's stack and return it.

        A tag seen before keeps its memory (what a reader wrote to it) unless
        ``ndef_text`` is given, which rewrites its NDEF text record. A tag
        already on the pad stays where it is.

        :param kind: ``genuine`` (signed with :attr:`signer`), ``clone`` (another
            physical tag with the same UID, unsigned) or ``counterfeit`` (a chip
            without ``GET_VERSION``): see :attr:`Ntag213.KINDS`. Each kind of a UID
            is its own tag, with its own memory.
        :raises ValueError: ``uid`` is not a 7-byte UID, or an unknown ``kind``.
        """
        return self.place_stack([uid], None if ndef_text is None else [ndef_text], kind=kind)[0]

    def place_stack(
        self, uids: Sequence[str | bytes], ndef_texts: Sequence[str | None] | None = None,
        *, kind: str = "genuine",
    ) -> list[Ntag213]:
        """Lay a packet of tags on top of the stack at once, ``uids[0]`` lowest.

        :param ndef_texts: one NDEF text (or ``None``: keep) per tag.
        :param kind: what the tags are (see :meth:`place`).
        :raises ValueError: a UID is not 7 bytes, ``ndef_texts`` has
            another length, or an unknown ``kind``.
        """
        if ndef_texts is not None and len(ndef_texts) != len(uids):
            raise ValueError(f"{len(uids)} tags but {len(ndef_texts)} NDEF texts")
        if kind not in Ntag213.KINDS:
            raise ValueError(f"a tag is one of {', '.join(Ntag213.KINDS)}, not {kind!r}")
        keys = [_uid_key(uid) for uid in uids]
        texts = list(ndef_texts) if ndef_texts is not None else [None] * len(keys)
        placed = []
        with self._lock:
            for key, text in zip(keys, texts, strict=True):
                tag = self._box.get((key, kind))
                if tag is None:
                    signature = self._signer(bytes.fromhex(key)) if self._signer is not None else bytes(32)
                    tag = self._box[key, kind] = Ntag213(key, ndef_text=text, signature=signature, kind=kind)
                elif text is not None:
                    tag.set_ndef_text(text)
                if all(t is not tag for t in self._stack):
                    tag.state = "idle"
                    self._stack.append(tag)
                placed.append(tag)
            if self._pending is not None:
                os.write(self._wake_w, b"p")  # a waiting InListPassiveTarget may answer now
        logger.debug("%s: tags %s placed", self.path, " ".join(keys))
        return placed

    def remove(self, uid: str | bytes) -> None:
        """Lift the tag ``uid`` off the pad, wherever it lies in the stack.

        :raises KeyError: the tag is not on the pad.
        """
        key = _uid_key(uid)
        with self._lock:
            for index, tag in enumerate(self._stack):
                if tag.uid_hex == key:
                    del self._stack[index]
                    tag.state = "idle"
                    break
            else:
                raise KeyError(f"tag {key} is not on the pad")
        logger.debug("%s: tag %s removed", self.path, key)

    def lift_top(self) -> str:
        """Lift the top tag of the stack; its UID.

        :raises KeyError: the pad is empty.
        """
        with self._lock:
            if not self._stack:
                raise KeyError("the pad is empty")
            tag = self._stack.pop()
            tag.state = "idle"
        logger.debug("%s: tag %s lifted off the top", self.path, tag.uid_hex)
        return tag.uid_hex

    def lift_all(self) -> tuple[str, ...]:
        """Lift the whole stack; the UIDs lifted, bottom first."""
        with self._lock:
            lifted, self._stack = self._stack, []
            for tag in lifted:
                tag.state = "idle"
        logger.debug("%s: stack of %d lifted", self.path, len(lifted))
        return tuple(tag.uid_hex for tag in lifted)

    def tag(self, uid: str, kind: str = "genuine") -> Ntag213:
        """The tag ``uid`` (of that ``kind``) as placed before (to inspect its memory).

        :raises KeyError: the tag was never placed on this simulator.
        """
        with self._lock:
            return self._box[bytes.fromhex(uid).hex().upper(), kind]

    @property
    def on_pad(self) -> tuple[str, ...]:
        """UIDs of the tags on the pad, bottom of the stack first."""
        with self._lock:
            return tuple(tag.uid_hex for tag in self._stack)

    @property
    def readable(self) -> tuple[str, ...]:
        """UIDs of the tags coupled to the antenna (the lowest :attr:`depth`)."""
        with self._lock:
            return tuple(tag.uid_hex for tag in self._field())

    @property
    def depth(self) -> int:
        """How many tags of the stack couple to the antenna, from the bottom."""
        return self._depth

    @depth.setter
    def depth(self, value: int) -> None:
        if value < 1:
            raise ValueError(f"a pad reads at least 1 tag deep, not {value}")
        with self._lock:
            self._depth = value

    @property
    def misses(self) -> int:
        """Random misses of stacked tags drawn so far."""
        with self._lock:
            return self._core.misses

    def _field(self) -> Sequence[Ntag213]:
        return self._stack[: self._depth]

    # -- faults --------------------------------------------------------------

    def corrupt_answers(self, count: int = 1) -> None:
        """Send the next ``count`` answers with a wrong data checksum (DCS)."""
        with self._lock:
            self._corrupt += count

    def ignore_commands(self, count: int = 1) -> None:
        """Answer neither ACK nor response to the next ``count`` commands."""
        with self._lock:
            self._drop += count

    def answer_late(self, count: int = 1, seconds: float = 0.3) -> None:
        """Send the ACK and the answer of the next ``count`` commands ``seconds`` late
        (a chip stalled past the host's ACK timeout: the late answer then meets the
        host's next command)."""
        with self._lock:
            self._late += count
            self._late_by = seconds

    def flicker(self, uid: str, polls: int = 1) -> None:
        """Let tag ``uid`` miss the next ``polls`` polls.

        A poll is a field period in which the reader sent an
        InListPassiveTarget (from field on to field off): the tag stays silent
        for the whole of it, however often the reader asks. A tag lying badly
        on the antenna does that; it answers again after.

        :raises KeyError: the tag is not on the pad.
        """
        key = _uid_key(uid)
        with self._lock:
            tag = next((t for t in self._stack if t.uid_hex == key), None)
            if tag is None:
                raise KeyError(f"tag {key} is not on the pad")
            self._core.hidden[id(tag)] = polls

    def unplug(self) -> None:
        """Pull the cable: the pty goes away and :attr:`path` dangles.

        The reader's open port then fails with EIO. Returns once done.
        """
        self._request(plugged=False)

    def replug(self) -> None:
        """Plug back in: a fresh pty behind the same :attr:`path`."""
        self._request(plugged=True)

    @property
    def plugged(self) -> bool:
        """Whether the port exists."""
        with self._lock:
            return self._master is not None

    @property
    def host_baud(self) -> int:
        """The serial speed the host last asked for with SetSerialBaudrate."""
        with self._lock:
            return self._core.host_baud

    @property
    def rf_on(self) -> bool:
        """Whether the RF field is on."""
        with self._lock:
            return self._core.rf_on

    @property
    def polls(self) -> int:
        """InListPassiveTarget commands answered so far."""
        with self._lock:
            return self._core.polls

    @property
    def stats(self) -> SimStats:
        """Counts of frames seen, dropped and corrupted so far."""
        with self._lock:
            c = self._counts
            return SimStats(
                commands=c["command"],
                polls=self._core.polls,
                acks=c["ack"],
                nacks=c["nack"],
                bad_frames=c["bad"],
                dropped=c["dropped"],
                corrupted=c["corrupted"],
                late=c["late"],
            )

    def _request(self, *, plugged: bool) -> None:
        with self._changed:
            if self._closed:
                return
            self._want_plugged = plugged
            os.write(self._wake_w, b"x")
            while (self._master is not None) != plugged and self._thread.is_alive():
                self._changed.wait(0.1)

    # -- lifetime ------------------------------------------------------------

    def close(self) -> None:
        """Stop serving, close the pty, delete the symlink. Safe to call twice."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            os.write(self._wake_w, b"x")
        self._thread.join(timeout=5.0)
        with self._lock:
            self._unplug()
        self._close_pipe()
        self._finalizer()  # the folder and its symlink

    def __repr__(self) -> str:
        return f"<Pn532Simulator {self.path} on_pad={list(self.on_pad)}>"

    def _close_pipe(self) -> None:
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                logger.debug("wake pipe already closed")

    def _plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        self._master, self._slave = master, slave
        self._parser = FrameParser()
        self._pending = None
        self._core.field_off()
        self._core.powered_down = False
        link = f"{self.path}.{os.getpid()}.new"
        os.symlink(os.ttyname(slave), link)
        os.replace(link, self.path)
        logger.debug("%s -> %s plugged in", self.path, os.ttyname(slave))

    def _unplug(self) -> None:
        if self._master is None:
            return
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            logger.debug("%s already gone", self.path)
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        self._pending = None
        self._core.field_off()
        logger.debug("%s unplugged", self.path)

    # -- the serving thread ----------------------------------------------------

    def _serve(self) -> None:
        while True:
            with self._changed:
                if self._closed:
                    return
                if self._want_plugged and self._master is None:
                    try:
                        self._plug()
                    except OSError as error:
                        logger.warning("%s: cannot open a pty: %s", self.path, error)
                        self._want_plugged = False
                elif not self._want_plugged and self._master is not None:
                    self._unplug()
                self._changed.notify_all()
                master = self._master
            watched = [self._wake_r] if master is None else [self._wake_r, master]
            ready, _, _ = select.select(watched, [], [], 1.0)
            if self._wake_r in ready:
                os.read(self._wake_r, 512)
                if master is not None:
                    self._answer_pending(master)
                continue
            if master is None or master not in ready:
                continue
            try:
                data = os.read(master, 4096)
            except OSError as error:
                if error.errno != errno.EIO:
                    raise
                # No slave open at the moment (we hold one, so rarely): wait a little.
                time.sleep(0.01)
                continue
            logger.log(WIRE, "%s <<< %s", self.path, data.hex())
            for item in self._parser.feed(data):
                self._answer(master, item)

    def _answer(self, master: int, item: HostFrame) -> None:
        with self._lock:
            self._counts[item.kind] += 1
            if item.kind == "nack":
                answer = self._last_answer
            elif item.kind == "command" and self._drop > 0:
                self._drop -= 1
                self._counts["dropped"] += 1
                return
            elif item.kind != "command":
                if item.kind == "bad":
                    logger.debug("%s: rejected frame: %s", self.path, item.reason)
                elif item.kind == "ack" and self._pending is not None:
                    logger.debug("%s: host aborted the waiting poll", self.path)
                    self._pending = None
                    self._core.end_poll()
                return
            else:
                answer = b""
                self._pending = None  # a new command aborts a waiting one
            late = 0.0
            if item.kind == "command" and self._late > 0:
                self._late -= 1
                self._counts["late"] += 1
                late = self._late_by
        if late:
            time.sleep(late)
        self._pace(item.size)
        if item.kind == "nack":
            self._send(master, answer)
            return
        self._send(master, ACK)
        with self._lock:
            command = item.payload[1:]
            self.commands.append(command)
            if self._core.waits_for_card(command):
                self._pending = command
                return
        self._execute(master, command)

    def _answer_pending(self, master: int) -> None:
        with self._lock:
            command = self._pending
            if command is None or self._core.waits_for_card(command):
                return
            self._pending = None
        self._execute(master, command)

    def _execute(self, master: int, command: bytes) -> None:
        with self._lock:
            result = self._core.execute(command)
            rf_time = self._core.rf_time
            answer = ERROR_FRAME if result is None else frame(bytes([CHIP_TFI]) + result)
            if self._corrupt > 0:
                self._corrupt -= 1
                self._counts["corrupted"] += 1
                answer = answer[:-2] + bytes([(answer[-2] + 1) & 0xFF, 0x00])
            self._last_answer = answer
        if self._byte_time:
            time.sleep(rf_time)
        self._send(master, answer)

    def _pace(self, size: int) -> None:
        if self._byte_time:
            time.sleep(size * self._byte_time)

    def _send(self, master: int, data: bytes) -> None:
        self._pace(len(data))
        logger.log(WIRE, "%s >>> %s", self.path, data.hex())
        view = memoryview(data)
        while view:
            try:
                written = os.write(master, view)
            except OSError as error:
                logger.debug("%s: write failed: %s", self.path, error)
                return
            view = view[written:]
