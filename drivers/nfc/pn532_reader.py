"""The pad's reader: one PN532 on nfcpy, listing every tag its field can read.

:class:`NfcpyReader` is the real :class:`~drivers.nfc.reader.Reader` (what a
:class:`~drivers.nfc.pad.Pad` needs of a reader), a PN532 on a serial port driven by nfcpy's
own PN532 driver. What it writes and reads in a tag's memory (the NDEF text, the password)
is :mod:`drivers.nfc.ntag_memory`; the frames nfcpy sends again are counted by
:mod:`drivers.nfc.retried_frames`.

How a reader polls (see ``docs/nfc.md`` for the figures): every
:attr:`~drivers.nfc.pad.PadTiming.poll_interval` a pad has it list every tag its field can read, through
nfcpy's PN532 driver, the way libnfc's ``nfc_initiator_list_passive_targets``
does: the field is reset (off, then on with the next command: every tag back
to IDLE), then InListPassiveTarget with MaxTg=2 (106 kbps type A) selects up to
two tags; if it found two, InDeselect halts them (HLTA: a halted tag ignores
REQA until the field is reset) and the listing goes on, until a listing finds
fewer than two. A stack of n tags costs 1 + n//2 listings and n//2 deselects.
While the pad is empty the field stays on and the PN532 itself keeps polling
(MxRtyPassiveActivation FF), so a card laid on it is answered at once.
A tag that must be asked for its originality (``READ_SIG``, and ``GET_VERSION``
if no signature came) is asked while the listing that found it holds it, before
the InDeselect that halts it; from then on, and on an empty pad, the listings take one tag each
(MaxTg=1), so that each is asked as it is selected: a packet of n new tags
costs n + 1 listings, n deselects and no field reset in between.
``clf.sense()`` sends four commands a poll (field off, poll, a type 1 tag check,
field off) and lists one tag; it is still used, with the card's UID and after
a field reset, before every exchange with a card itself (reading or writing its
NDEF record), which selects that one card wherever it lies in the stack.
"""

from __future__ import annotations

import dataclasses
import errno
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import nfc
import nfc.clf
import nfc.clf.pn53x
import nfc.clf.pn532
import nfc.tag

from drivers.closing import Closing
from drivers.device_errors import DeviceNotFoundError, DevicePermissionError
from drivers.nfc import hsu, ntag_memory
from drivers.nfc.originality import TagFacts
from drivers.nfc.reader import READER_ERRORS, Inquiry, TagWriteError
from drivers.nfc.retried_frames import CountingLog, Frames
from drivers.nfc.target_list import listed_uids, select_request
from drivers.nfc.tty import RawTty

logger = logging.getLogger(__name__)


LINK_BAUD = hsu.FAST
"""The rate a reader's serial link runs at: nfcpy's 921,600, and a chip a killed host left there
found and set back at the next start (:func:`drivers.nfc.hsu.recover`). Chosen by measuring
(``bench/restart.py``; the figures in docs/nfc.md, *A reader after a crash*)."""

MAX_TG = 2
"""Targets one PN532 InListPassiveTarget can select (user manual UM0701-02)."""

MAX_LISTINGS = 16
"""Listings in one poll cycle at most (32 tags): a guard against a chip that
wakes halted tags again (libnfc stops on a tag seen twice, and so do we)."""
_IN_LIST_PASSIVE_TARGET = 0x4A
_IN_DESELECT = 0x44
_IN_COMMUNICATE_THRU = 0x42
_IN_SELECT = 0x54

TT2_RETRIES = 2
"""Times a Type 2 command is sent again after a transmission error (a garbled answer, a timeout):
nfcpy's ``Type2Tag.transceive(..., retries=2)`` (``nfc/tag/tt2.py``). A 4-bit NAK is an answer and is
not sent again."""
READ_SIG = b"\x3c\x00"
GET_VERSION = b"\x60"
READ_SIG_TIMEOUT = 11
"""RFConfiguration item 02's timeout index for ``READ_SIG``: 100 µs × 2^10 = 102.4 ms, what nfcpy's
``send_cmd_recv_rsp`` sets for ``transceive``'s 0.1 s (``nfc/clf/pn53x.py``; UM0701-02, §7.3.1)."""
GET_VERSION_TIMEOUT = 8
"""The same for ``GET_VERSION``: 100 µs × 2^7 = 12.8 ms, what nfcpy sets for its ``exchange(b'\\x60',
timeout=0.01)`` (``nfc/tag/tt2_nxp.py``, ``activate``)."""
NAK_SIZE = 1
"""A Type 2 tag's 4-bit ACK or NAK reaches the host as one byte (the receive CRC off)."""


def response_timeout(index: int) -> float:
    """Seconds the PN532 waits for a target's answer at RFConfiguration item 02 timeout ``index``
    (UM0701-02, §7.3.1: 100 µs × 2^(index-1)).

    >>> response_timeout(READ_SIG_TIMEOUT), response_timeout(GET_VERSION_TIMEOUT)
    (0.1024, 0.0128)
    """
    return (100 << (index - 1)) / 1e6


@dataclass(frozen=True, slots=True)
class Reselections:
    """How a reader selected tags again (:meth:`NfcpyReader._reselect`): by InSelect, by a listing
    with the UID, by a field reset and that listing, or not at all (the tag had left); and how many
    InSelects found nothing (the chip did not wake the tag, or it had left)."""

    in_select: int = 0
    in_select_missed: int = 0
    by_uid: int = 0
    field_reset: int = 0
    lost: int = 0

    def add(self, **counts: int) -> Reselections:
        """These counts added."""
        return dataclasses.replace(self, **{name: getattr(self, name) + n for name, n in counts.items()})


class NfcpyReader(Closing):
    """One PN532 on a serial port, driven by nfcpy's own PN532 driver.

    :param path: the serial port (``/dev/ttyUSB0``, ``/dev/serial/by-path/…``, ``/dev/serial0``, a
        simulator's path), opened as the device node it names (:attr:`port`), so that nfcpy's choices
        by name hold for a udev name too.
    :param transport: makes the nfcpy transport for :attr:`port`;
        :class:`~drivers.nfc.tty.RawTty` by default, ``nfc.clf.transport.TTY``
        works too (pyserial, more CPU).
    :param link_baud: the serial link's rate, bits a second: 115,200 keeps the chip's power-on
        rate, anything else (:data:`LINK_BAUD`) lets nfcpy move it to 921,600 (where the port
        takes it), but never on a mini UART (``/dev/ttyS*``, :func:`drivers.nfc.hsu.link_rate`).
        Either way a chip a killed host left at a faster rate is found and set back
        (:func:`drivers.nfc.hsu.recover`; :attr:`recovered_from`).
    :param in_select: select a tag of the last listing again by InSelect first (UM0701-02, §7.3.12),
        falling back on a listing by its UID when InSelect finds nothing (:meth:`_reselect`);
        ``False``: never InSelect, the listing by UID at once (the path nfcpy proves).
    :raises DeviceNotFoundError: no such port, or no PN532 answers on it.
    :raises DevicePermissionError: the port exists but this user may not
        open it (EACCES: add the user to the ``dialout`` group), or a unit's
        device policy refuses it (EPERM: its USB-serial driver loaded after
        the unit started).
    :raises OSError: any other failure to open the port.
    """

    def __init__(
        self, path: str, *, transport: Callable[[str], Any] = RawTty, link_baud: int = LINK_BAUD,
        in_select: bool = True,
    ) -> None:
        self.path = path
        self.port = hsu.node(path)
        """The device node ``path`` names (:func:`drivers.nfc.hsu.node`): what the transport opens and
        nfcpy decides by (its 1,500 ms first wait on a ``/dev/ttyUSB*``, 115,200 kept on ``/dev/ttyS0``)."""
        self.recovered_from: int | None = None
        """The rate the chip was found left at by a host that did not close it (``None``: it
        answered at 115,200, as after power-on)."""
        try:
            self._transport = transport(self.port)
        except OSError as error:
            if error.errno == errno.ENOENT:
                raise DeviceNotFoundError(f"NFC reader port not found: {path}") from error
            if error.errno == errno.EPERM:
                # EPERM is the device cgroup's refusal (a unit's DevicePolicy=), never the node's mode,
                # which is EACCES: a unit resolves DeviceAllow=char-ttyUSB when it starts, so a
                # USB-serial driver loaded after it leaves its ports refused until it restarts
                raise DevicePermissionError(
                    errno.EPERM,
                    f"the service's device policy refuses {path} (not a group: EPERM): its "
                    "DeviceAllow=char-ttyUSB (char-ttyACM) was resolved before the USB-serial driver loaded; load "
                    "cp210x, ftdi_sio, ch341 and cdc_acm at boot (/etc/modules-load.d/ecarte-table.conf, "
                    "systemd/install.sh installs it) and restart the service",
                ) from error
            if isinstance(error, PermissionError) or error.errno == errno.EACCES:
                raise DevicePermissionError(
                    errno.EACCES, f"no permission to open {path}: add the user to the dialout group"
                ) from error
            raise
        try:
            device = self._open_device(hsu.link_rate(self.port, link_baud))
        except READER_ERRORS as error:
            self._close_transport()
            raise DeviceNotFoundError(f"no PN532 answers on {path}: {error}") from error
        device._path = path  # what nfcpy's device.connect() sets; used by str(device)
        # the chipset's logger is nfcpy's to give (pn53x.Chipset(transport, logger)): this reader's counts it
        self._log = CountingLog(device.chipset.log)
        device.chipset.log = self._log
        self._clf = nfc.ContactlessFrontend()
        self._clf.device = device
        self._field_dirty = True
        self._selected: str | None = None  # the card the last listing left selected alone
        self._facts: dict[str, TagFacts | None] = {}  # what the last poll asked, for read_facts
        self._rx_mode: int | None = None  # CIU_RxMode as a 106 kbps type A listing leaves it
        self._retries = 0x01
        self._timeout_index: int | None = None  # RFConfiguration item 02 as last set (None: not by us)
        self._listing: list[str] = []  # the targets of the last listing, target 1 first
        self.in_select = in_select
        self.reselections = Reselections()
        """How the reader selected a tag again (InSelect, a listing by UID, a field reset first)."""
        self._waiting = False
        self._aborted = False
        logger.debug("%s: %s", path, device)

    def _open_device(self, link_baud: int) -> Any:
        """nfcpy's PN532 device, at ``link_baud`` (115,200: the power-on rate kept; more: nfcpy's
        own move to 921,600, its ``stty`` probe asked without a shell: :func:`drivers.nfc.hsu.init_at`).
        The chip is woken first (:func:`drivers.nfc.hsu.wake_up`: the last close put it in PowerDown,
        and nfcpy's ``init`` sends its wake-up bytes and its first frame in one write, which a chip
        still starting its oscillator loses). If it does not answer, a
        chip left at a faster rate is found and set back (:func:`drivers.nfc.hsu.recover`), and it
        is asked once more at 115,200 (a chip whose oscillator took longer than the wait, or a first
        frame lost on the way, answers the next)."""
        try:
            hsu.wake_up(self._transport)
            return hsu.init_at(self._transport, link_baud)
        except READER_ERRORS as error:
            if isinstance(error, OSError) and error.errno not in (errno.ENODEV, errno.ETIMEDOUT):
                raise  # the port itself failed: no rate to look for
            self.recovered_from = hsu.recover(self._transport)
        return hsu.init_at(self._transport, link_baud)

    @property
    def frames(self) -> Frames:
        """The command frames this reader has sent since it was opened, and how many were retried
        (``sent`` 0 on a transport that does not count them)."""
        return Frames(int(getattr(self._transport, "commands", 0)), self._log.retried)

    @property
    def late(self) -> int:
        """Frames the chip sent after the host had given up on them (:attr:`drivers.nfc.tty.RawTty.late`;
        0 on a transport that does not tell): the chip was late, not gone."""
        return int(getattr(self._transport, "late", 0))

    def poll(self, wait: float = 0.0, *, ask: Inquiry | None = None) -> tuple[str, ...]:
        """List every tag in the field: one poll cycle.

        The field is reset first if a tag was selected or halted since it was
        last switched on. Then InListPassiveTarget (MaxTg=2) and, as long as
        it finds two, InDeselect (HLTA for both) and InListPassiveTarget again.

        With ``ask``, each tag newly listed that ``ask.wants`` is asked for its
        ``READ_SIG`` (and ``GET_VERSION`` if no signature came) while this listing
        holds it, before the InDeselect that halts it (:meth:`_read_listed`): no
        field reset and no reselection by UID per tag. ``ask.answered`` hears each
        answer at once (a pad reports the tag's arrival then, before the poll cycle
        ends), and :meth:`read_facts` gives one it did not take, until the next
        poll. Once a listing held such a tag (and on an empty pad waiting for one)
        the listings take one tag each (MaxTg=1): each tag is then asked as the
        listing selected it, where MaxTg=2 would have halted the first to find a
        second (a reselection, 4.4 ms of air, per pair).

        :param wait: 0 for one quick look; else seconds the PN532 keeps
            retrying on its own (MxRtyPassiveActivation FF) until a tag
            answers, after which the host aborts the command with an ACK.
        :param ask: ``ask.wants(uid)``, called once per tag listed this cycle: whether
            to ask it now; ``None``: ask none.
        :returns: the UIDs found (upper-case hex), in the order listed; empty
            if none.
        :raises OSError: the reader failed to answer properly.
        """
        device = self._device()
        found: list[str] = []
        with self._clf.lock:
            self._selected = None
            self._facts = {}
            if self._field_dirty:
                device.mute()
            self._field_dirty = True
            # on an empty pad every tag that comes is new: list it alone, to ask it at once
            max_tg = 1 if ask is not None and wait > 0 else MAX_TG
            targets, listings = self._list(device, wait, max_tg), 1
            while True:
                fresh = [uid for uid in targets if uid not in found]
                found += fresh
                wanted = [uid for uid in fresh if ask.wants(uid)] if ask is not None else []
                asked = self._read_listed(device, targets, wanted, ask, whole=len(targets) == max_tg)
                if len(targets) < max_tg or not fresh or listings >= MAX_LISTINGS:
                    break
                device.chipset.command(_IN_DESELECT, bytearray([0]), timeout=0.1)  # 0: all
                if asked:
                    max_tg = 1  # new tags come in packets: list the rest one by one
                targets, listings = self._list(device, 0.0, max_tg), listings + 1
            if len(self._listing) == 1:
                self._selected = self._listing[0]  # the last listing left it as target 1
            if not found and not self._aborted:
                self._field_dirty = False  # nothing selected or halted: the field stays on
        return tuple(found)

    def _read_listed(
        self, device: Any, targets: list[str], wanted: list[str], ask: Inquiry | None, *, whole: bool
    ) -> bool:
        """Ask the ``wanted`` of the targets the last listing holds for their ``READ_SIG`` (and
        ``GET_VERSION``: :meth:`_read_target`; told to ``ask.answered``, kept for :meth:`read_facts`),
        the last listed first. A listing that found as many as it could (``whole``) left the last
        selected: it halted the one before to find it (UM0701-02, §7.3.5; the chip's MaxTg=2); one
        that found fewer halted its last too, looking for another. A target not selected is selected
        again (:meth:`_reselect`: InSelect, else a listing by its UID). A tag that gave no valid answer
        (``None``: it left, or its answers were garbled every time) is asked again at the next poll.
        Whether any was asked."""
        self._listing = list(targets)
        selected = targets[-1] if whole and targets else None  # the target the listing left selected
        for uid in reversed(targets):
            if uid not in wanted:
                continue
            if uid != selected:
                if not self._reselect(device, uid, halted=True):
                    self._facts[uid] = None  # it left between the listing and now
                    continue
                selected = uid
            else:
                self._rx_crc_off(device)
            facts = self._facts[uid] = self._read_target(device, uid)
            selected = None if facts is None else selected
            if ask is not None and facts is not None and ask.answered(uid, facts):
                del self._facts[uid]  # taken: a later read_facts asks the tag itself
        return bool(wanted)

    def _read_target(self, device: Any, uid: str) -> TagFacts | None:
        """Tag ``uid``'s ``READ_SIG``, selected (its receive CRC off), then ``GET_VERSION`` only if
        the signature is NAKed or zeros: a signature that verifies is NXP's over this UID whatever
        chip it is, and one that does not is refused whatever ``GET_VERSION`` says
        (:func:`hardware.ntag_signature.judge`); the version tells a copy on an NTAG21x
        (``no_signature``) from a chip that is none (``counterfeit``). This saves ``GET_VERSION``
        (1.3 ms on the air) for every genuine tag. A tag that NAKed went back to IDLE (NTAG21x data
        sheet, *NAK*): it is selected again before the next command, and after its last so that the
        next InDeselect halts it (an IDLE tag would answer the next listing's REQA).

        ``None`` if the tag gave no valid answer to one of them after the retries (:meth:`_tt2_command`)
        or did not answer a selection: no verdict from silence, the tag is asked again later."""
        signature = self._tt2_command(device, uid, READ_SIG, 32, READ_SIG_TIMEOUT)
        if signature is None:
            return None
        if len(signature) == 32 and any(signature):
            return TagFacts(None, signature)
        if len(signature) == NAK_SIZE and not self._reselect(device, uid):
            return None
        version = self._tt2_command(device, uid, GET_VERSION, 8, GET_VERSION_TIMEOUT)
        if version is None:
            return None
        if len(version) == NAK_SIZE:
            self._reselect(device, uid)
        return TagFacts(version if len(version) == 8 else None, signature if len(signature) == 32 else None)

    def _in_select(self, device: Any, number: int) -> bool:
        """InSelect of target ``number`` of the last listing (UM0701-02, §7.3.12): whether it answered."""
        answer = device.chipset.command(_IN_SELECT, bytearray([number]), timeout=0.1)
        return bool(answer) and answer[0] == 0

    def _reselect(self, device: Any, uid: str, *, halted: bool = False) -> bool:
        """Select tag ``uid`` again, its receive CRC off: after a NAK or a transmission error (the tag
        may be IDLE), or to ask a target of the last listing that is not the one selected (the chip
        halted it looking for a second). Whether it answered.

        1. InSelect of its number in the last listing (UM0701-02, §7.3.12), when :attr:`in_select`:
           one frame, but whether a real PN532 wakes a target it halted itself is nowhere shown
           (nfcpy never sends InSelect; no public trace shows it on a halted type A target);
        2. when that finds nothing (or without :attr:`in_select`), InListPassiveTarget with its UID
           and cascade tag (:func:`select_request`): an IDLE tag (after a NAK, or a garbled command)
           answers its REQA, and no other tag of the stack is woken; not for a tag the chip
           ``halted`` (a halted tag answers no REQA: ISO/IEC 14443-3);
        3. when that finds nothing, the path nfcpy proves (``clf.sense`` with the UID: ``tt2.py``
           after a NAK): a field reset (every tag of the pad back to IDLE, halted ones too) and the
           same listing. The poll then lists again tags it found (it stops there: the others are
           found at the next poll).

        :attr:`reselections` counts which step found it."""
        if self.in_select and uid in self._listing:
            if self._in_select(device, self._listing.index(uid) + 1):
                self.reselections = self.reselections.add(in_select=1)
                self._rx_crc_off(device)
                return True
            self.reselections = self.reselections.add(in_select_missed=1)
        for reset in (False, True) if not halted else (True,):
            if self._list_by_uid(device, uid, reset=reset):
                self.reselections = self.reselections.add(field_reset=1) if reset else \
                    self.reselections.add(by_uid=1)
                return True
        self.reselections = self.reselections.add(lost=1)
        return False

    def _list_by_uid(self, device: Any, uid: str, *, reset: bool) -> bool:
        """InListPassiveTarget of tag ``uid`` alone (its cascade tag and UID: :func:`select_request`),
        after a field reset if ``reset`` (a tag the chip halted answers no REQA), its receive CRC off
        after: whether it answered. The listing switched the CRC on both ways; nfcpy's ``sense_tta``
        then switches the receive CRC off for a Type 2 tag (CIU_RxMode bit 7 cleared), and so do we."""
        if reset:
            device.mute()
        self._field_dirty = True
        self._set_retries(device, 0x01)
        listed = device.chipset.command(_IN_LIST_PASSIVE_TARGET, bytearray([1, 0]) + select_request(uid), timeout=0.1)
        self._listing = listed_uids(listed)
        if uid not in self._listing:
            return False
        self._rx_crc_off(device)
        return True

    def _set_retries(self, device: Any, retries: int) -> None:
        """MxRtyPassiveActivation (RFConfiguration item 05), if it is not set so already."""
        if retries != self._retries:
            # nfcpy's own setting is 01 00 01: one retry for ATR and activation.
            device.chipset.rf_configuration(0x05, bytes([0x01, 0x00, retries]))
            self._retries = retries

    def _rx_crc_off(self, device: Any) -> None:
        """Switch the receive CRC off after a selection, as nfcpy's ``sense_tta`` does for a Type 2
        tag (read ``CIU_RxMode``, clear bit 7, write it), so that a tag's 4-bit NAK comes through and
        the host checks the CRC_A of a longer answer. The register is read once (again after a
        resync or nfcpy's own activation): every 106 kbps type A listing sets it alike, the CRC
        bit on (the CIU's other bits there are the bit rate and framing, 106 kbps type A each
        time)."""
        if self._rx_mode is None:
            self._rx_mode = device.chipset.read_register("CIU_RxMode")
        device.chipset.write_register("CIU_RxMode", self._rx_mode & 0x7F)

    def _read_selected(self, device: Any, uid: str) -> TagFacts | None:
        """``GET_VERSION``, then ``READ_SIG`` if it answered, to the selected tag ``uid`` (its receive
        CRC off); ``None`` if either gave no valid answer after the retries (no verdict from silence)."""
        version = self._tt2_command(device, uid, GET_VERSION, 8, GET_VERSION_TIMEOUT)
        if version is None:
            return None
        if len(version) != 8:
            return TagFacts(None, None)  # a NAK: not an NTAG21x (READ_SIG not asked)
        signature = self._tt2_command(device, uid, READ_SIG, 32, READ_SIG_TIMEOUT)
        if signature is None:
            return None
        return TagFacts(version, signature if len(signature) == 32 else None)

    def _list(self, device: Any, wait: float, max_tg: int = MAX_TG) -> list[str]:
        """One InListPassiveTarget, ``max_tg`` targets at most at 106 kbps type A: the UIDs selected."""
        self._set_retries(device, 0xFF if wait > 0 else 0x01)
        self._waiting = wait > 0
        self._aborted = False
        try:
            data = device.chipset.command(
                _IN_LIST_PASSIVE_TARGET, bytearray([max_tg, 0]), timeout=wait or 1.0
            )
        except OSError as error:
            if wait > 0 and error.errno == errno.ETIMEDOUT:
                # nfcpy aborted the waiting command. A tag that came just then may
                # have been selected, even halted (MaxTg=2), by the answer we gave
                # up on: the next poll resets the field.
                self._aborted = True
                self._listing = []
                return []
            raise
        finally:
            self._waiting = False
        self._listing = listed_uids(data)
        return list(self._listing)

    def firmware(self) -> bytes:
        """The PN532's GetFirmwareVersion answer: IC (``32``: PN532), version, revision, and the
        protocols it supports (bit 0 ISO/IEC 14443 type A, bit 1 type B, bit 2 ISO 18092);
        UM0701-02, §7.2.2.

        :raises OSError: the reader failed to answer properly.
        """
        device = self._device()
        with self._clf.lock:
            return bytes(device.chipset.get_firmware_version())

    def resync(self) -> None:
        """After a failed command: put the reader and the host back in step.

        :raises OSError: the port is gone.
        """
        resync = getattr(self._transport, "resync", None)
        if resync is not None:
            with self._clf.lock:
                resync()
                self._field_dirty = True
                self._selected = None
                self._facts = {}
                self._rx_mode = None
                self._timeout_index = None
                self._listing = []

    def interrupt(self) -> None:
        """Cut short a poll that waits for a card (from any thread)."""
        interrupt = getattr(self._transport, "interrupt", None)
        if interrupt is not None and self._waiting:
            interrupt()

    def read_text(self, uid: str) -> str | None:
        """The first NDEF text record on card ``uid``, ``None`` if none or unreadable
        (:func:`drivers.nfc.ntag_memory.first_text`).

        :raises OSError: the reader failed to answer properly.
        """
        tag = self._activate(uid)
        return None if tag is None else ntag_memory.first_text(tag, uid, self.path)

    def write_text(self, uid: str, text: str, *, password: bytes | None = None) -> None:
        """Write one NDEF text record ``text`` to card ``uid`` (formats a blank tag:
        :func:`drivers.nfc.ntag_memory.write_text`).

        :param password: for a locked tag, its 4-byte PWD and 2-byte PACK
            (:meth:`lock`): sent with ``PWD_AUTH`` first.
        :raises TagWriteError: the card is not on the reader, is read-only, the
            password is wrong or the write failed.
        :raises OSError: the reader failed to answer properly.
        """
        tag = self._activate(uid)
        if tag is None:
            raise TagWriteError(f"tag {uid} is not on the reader {self.path}")
        if password is not None and not ntag_memory.authenticate(tag, uid, password, self.path):
            raise TagWriteError(f"tag {uid} refused the password")
        ntag_memory.write_text(tag, uid, text)

    def read_facts(self, uid: str) -> TagFacts | None:
        """Ask card ``uid`` for its ``GET_VERSION`` and ``READ_SIG`` (NTAG21x, ``60`` and ``3C 00``).

        Through nfcpy's PN532 driver (``device.chipset.command``), not nfcpy's
        whole activation (about twelve commands), but as nfcpy sends every Type 2
        command (``pn53x._tt2_send_cmd_recv_rsp``): InCommunicateThru, the PN532
        adding the CRC_A and the receive CRC switched off (``sense_tta`` clears
        ``CIU_RxMode`` bit 7 after selecting a Type 2 tag), so that the tag's
        one-byte NAK comes through and the host checks the CRC_A of a longer answer.
        Never InDataExchange: the PN532 takes its data as MIFARE commands
        (UM0701-02, §7.3.8: ``60`` is a MIFARE Classic authentication), and a real
        chip answers ``GET_VERSION`` only as InCommunicateThru (libfreefare issue
        112, pull request 124). The card is selected first (:meth:`_select`): by
        InSelect if the last poll's last listing found it alone (it is target 1),
        else by a field reset and InListPassiveTarget with its UID and cascade tag
        (:func:`select_request`: that card only, wherever it lies in the stack).
        A card the last :meth:`poll` asked (its ``ask``) is not asked again: the
        answers it gave then, once.

        :returns: the answers (``version`` ``None`` for a chip that NAKs or
            ignores ``GET_VERSION``; then ``READ_SIG`` is not asked), or ``None``
            if the card did not answer its selection (it left).
        :raises OSError: the reader failed to answer properly.
        """
        device = self._device()
        with self._clf.lock:
            if uid in self._facts:
                return self._facts.pop(uid)  # the last poll asked it while its listing held it
            if not self._select(device, uid):
                return None
            return self._read_selected(device, uid)

    def read_signature(self, uid: str) -> bytes | None:
        """Card ``uid``'s ``READ_SIG`` answer alone (32 bytes), ``None`` if none.

        For a card that the last :meth:`poll` found alone in its last listing
        (target 1): InSelect, the receive CRC switched off, and one
        InCommunicateThru; else it is selected first as in :meth:`read_facts`.

        :raises OSError: the reader failed to answer properly.
        """
        device = self._device()
        with self._clf.lock:
            if not self._select(device, uid):
                return None
            signature = self._tt2_command(device, uid, READ_SIG, 32, READ_SIG_TIMEOUT)
            return signature if signature is not None and len(signature) == 32 else None

    def _select(self, device: Any, uid: str) -> bool:
        """Make card ``uid`` selected, its receive CRC off as nfcpy's ``sense_tta`` leaves a Type 2
        tag: if the last listing found it alone it is target 1 already, and :meth:`_reselect` makes
        sure it is selected (the listing may have halted it looking for a second, and
        InCommunicateThru, unlike InDataExchange, does not select a target: UM0701-02, §7.3.9 and
        §7.3.12); else a field reset and InListPassiveTarget with its UID (:func:`select_request`).
        Whether it answered."""
        selected, self._selected = self._selected, None  # after a NAK the card is IDLE: select it again
        self._facts = {}
        if selected == uid:
            self._listing = [uid]
            return self._reselect(device, uid)
        self._rx_mode = None  # read again after this listing
        return self._list_by_uid(device, uid, reset=True)  # a tag the last poll cycle halted answers no REQA

    def _tt2_command(self, device: Any, uid: str, command: bytes, size: int, timeout: int) -> bytes | None:
        """A Type 2 command to the selected tag ``uid``, sent again after a transmission error as
        nfcpy's ``Type2Tag.transceive`` sends it (:data:`TT2_RETRIES`), the tag selected again in
        between (:meth:`_reselect`: a tag whose command came garbled went back to IDLE, NTAG21x data
        sheet, *NAK*; one whose answer was garbled is ACTIVE and stays selected). The PN532's
        response timeout is set first as nfcpy sets it (RFConfiguration item 02, ``timeout`` its index:
        :func:`response_timeout`).

        :returns: the answer, ``size`` bytes; or the tag's one-byte NAK (an answer: it is not sent
            again); ``None`` if no valid answer came (garbled, or none) after the retries, or the
            tag did not answer a selection between them.
        """
        for attempt in range(1 + TT2_RETRIES):
            if attempt and not self._reselect(device, uid):
                return None
            answer = self._tt2_exchange(device, command, size, timeout)
            if answer is not None:
                return answer
            logger.debug("%s: %s to %s: no valid answer (try %d)", self.path, command.hex(), uid, attempt + 1)
        return None

    def _tt2_exchange(self, device: Any, command: bytes, size: int, timeout: int) -> bytes | None:
        """One Type 2 command to the selected card as nfcpy sends it (InCommunicateThru, the
        receive CRC checked here, the response timeout at index ``timeout``): the card's answer if
        ``size`` bytes and its CRC_A right, or its one-byte NAK; else ``None``, a transmission error
        (a garbled answer: CRC_A mismatch, a wrong length, PN532 status 02 CRC or 03 parity; no
        answer: status 01 timeout; nfcpy's ``send_cmd_recv_rsp`` raises ``TransmissionError`` or
        ``TimeoutError`` for them)."""
        if timeout != self._timeout_index:
            device.chipset.rf_configuration(0x02, bytes([0x0A, 0x0B, timeout]))
            self._timeout_index = timeout
        try:
            answer = device.chipset.command(
                _IN_COMMUNICATE_THRU, bytearray(command), timeout=response_timeout(timeout) + 0.1
            )
        except nfc.clf.pn53x.Chipset.Error as error:
            logger.debug("%s: %s: %s", self.path, command.hex(), error)
            return None
        if not answer or answer[0] != 0:
            return None
        if len(answer) == 1 + NAK_SIZE:
            return bytes(answer[1:])  # a 4-bit ACK or NAK: an answer
        if len(answer) != size + 3:
            logger.debug("%s: %s: %d bytes in the answer", self.path, command.hex(), len(answer) - 1)
            return None
        if not device.check_crc_a(answer[1:]):
            logger.debug("%s: %s: CRC_A error in the answer", self.path, command.hex())
            return None
        return bytes(answer[1:-2])

    def lock(self, uid: str, password: bytes, *, protect_from: int = 4, auth_limit: int = 0) -> None:
        """Password-protect card ``uid``'s memory from page ``protect_from`` against writing
        (:func:`drivers.nfc.ntag_memory.lock`: PWD, PACK, ACCESS, AUTH0, checked by selecting the card
        again; with an ``auth_limit``, CFGLCK).

        :param auth_limit: AUTHLIM, 0 (no limit) or 1-7: 2 to that power wrong
            passwords in a row lock the tag for ever (NTAG21x data sheet, *AUTHLIM*).

        :raises TagWriteError: the card is not on the reader, is not an NTAG21x,
            is locked with another password, or a write failed.
        :raises ValueError: ``password`` is not 6 bytes, or ``protect_from`` not a page 3–255.
        :raises OSError: the reader failed to answer properly.
        """
        ntag_memory.check_lock(password, protect_from, auth_limit)
        tag = self._activate(uid)
        if tag is None:
            raise TagWriteError(f"tag {uid} is not on the reader {self.path}")
        ntag_memory.lock(tag, uid, password, protect_from=protect_from, auth_limit=auth_limit,
                         again=lambda: self._activate(uid), where=self.path)

    def close(self) -> None:
        """Put the PN532 to sleep and close the port. Safe to call twice."""
        clf = getattr(self, "_clf", None)
        if clf is not None:
            try:
                clf.close()  # ACK, back to 115200 baud, PowerDown
            except READER_ERRORS as error:
                logger.debug("%s: closing: %s", self.path, error)
            clf.device = None
        self._close_transport()

    def _device(self) -> Any:
        device = self._clf.device
        if device is None:
            raise OSError(errno.ENODEV, f"reader {self.path} is closed")
        return device

    def _activate(self, uid: str) -> Any:
        self._device()  # a closed reader says so
        self._field_dirty = True
        self._selected = None
        self._facts = {}
        self._listing = []
        self._rx_mode = None  # nfcpy's activation sets the CIU as it likes
        self._timeout_index = None  # and the response timeout (send_cmd_recv_rsp)
        target = nfc.clf.RemoteTarget("106A", sel_req=bytearray.fromhex(uid))
        # clf.sense resets the field first (nfcpy: device.mute()), so a tag the last
        # poll cycle halted answers its REQA.
        found = self._clf.sense(target, iterations=1)
        if found is None:
            return None
        return nfc.tag.activate(self._clf, found)

    def _close_transport(self) -> None:
        transport = getattr(self, "_transport", None)
        if transport is None:
            return
        try:
            release = getattr(transport, "release", None)
            (release or transport.close)()
        except READER_ERRORS as error:
            logger.debug("%s: closing the port: %s", self.path, error)
            tty = getattr(transport, "tty", None)  # nfcpy's TTY flushes before closing
            if tty is not None:
                tty.close()
                transport.tty = None


def open_pn532(path: str) -> NfcpyReader:
    """The default reader factory: a PN532 on serial port ``path`` via nfcpy.

    :raises DeviceNotFoundError: no such port, or no PN532 answers on it.
    :raises DevicePermissionError: the user may not open the port.
    """
    return NfcpyReader(path)
