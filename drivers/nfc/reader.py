"""The pad's reader: one PN532 on nfcpy, listing every tag its field can read.

:class:`Reader` is what a :class:`~drivers.nfc.pad.Pad` needs of a reader;
:class:`NfcpyReader` is the real one, a PN532 on a serial port driven by nfcpy's
own PN532 driver.

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
``clf.sense()`` sends four commands a poll (field off, poll, a type 1 tag check,
field off) and lists one tag; it is still used, with the card's UID and after
a field reset, before every exchange with a card itself (reading or writing its
NDEF record), which selects that one card wherever it lies in the stack.
"""

from __future__ import annotations

import errno
import logging
import termios
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import ndef
import nfc
import nfc.clf
import nfc.clf.pn53x
import nfc.clf.pn532
import nfc.tag
import nfc.tag.tt2_nxp

from drivers.closing import Closing
from drivers.device_errors import DeviceNotFoundError, DevicePermissionError, DriverError
from drivers.device_events import TagFacts
from drivers.nfc.tty import RawTty

logger = logging.getLogger(__name__)


RETRIED = ("input/output error while waiting for ack", "invalid frame start sequence", "missing ack frame",
           "frame data checksum error", "frame lenght checksum error", "frame lenght value mismatch")
"""What nfcpy's PN53x chipset logs for a frame that failed and that the pad sends again at its next
poll: no ACK in time (a busy machine), a garbled answer (nfcpy's own spelling of "length")."""


def is_retry(level: int, message: object) -> bool:
    """Whether nfcpy logged a retried frame (:data:`RETRIED`, above DEBUG)."""
    return level > logging.DEBUG and message in RETRIED


@dataclass(frozen=True, slots=True)
class Frames:
    """A reader's command frames: ``sent`` in all, of which ``retried`` failed and were sent again.

    >>> str(Frames(4_210, 12))
    '12 frames retried of 4,210'
    """

    sent: int = 0
    retried: int = 0

    def __add__(self, other: Frames) -> Frames:
        return Frames(self.sent + other.sent, self.retried + other.retried)

    def __str__(self) -> str:
        return f"{self.retried:,} frame{'' if self.retried == 1 else 's'} retried of {self.sent:,}"


class RetriedFrames(logging.Filter):
    """nfcpy's PN532 driver logs a frame that failed and will be sent again (a late ACK on a busy
    machine, a garbled answer) as an ERROR ("input/output error while waiting for ack"). A retried
    frame is not an error for the players: it is counted (:data:`RETRIED_FRAMES`, :func:`retried_frames`;
    each reader's own in :attr:`NfcpyReader.frames`) and logged at DEBUG only; a reader that really goes
    offline is said once by the service."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if is_retry(record.levelno, record.getMessage()):
            self.count += 1
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        return True


RETRIED_FRAMES = RetriedFrames()
"""The one filter on nfcpy's PN53x loggers (installed when this module is imported)."""
for _name in ("nfc.clf.pn532", "nfc.clf.pn53x"):
    logging.getLogger(_name).addFilter(RETRIED_FRAMES)


def retried_frames() -> int:
    """PN532 frames sent again since the start (nfcpy's "waiting for ack" errors, counted)."""
    return RETRIED_FRAMES.count


class _CountingLog(logging.LoggerAdapter[logging.Logger]):
    """The logger nfcpy's chipset of one reader logs through: its retried frames counted for that
    reader (then logged on as ever: :data:`RETRIED_FRAMES` takes them down to DEBUG)."""

    def __init__(self, logger: logging.Logger) -> None:
        super().__init__(logger, {})
        self.retried = 0

    def log(self, level: int, msg: object, *args: Any, **kwargs: Any) -> None:
        if is_retry(level, msg):
            self.retried += 1
        super().log(level, msg, *args, **kwargs)


class TagWriteError(DriverError, OSError):
    """A tag could not be written (gone from the pad, read-only, too small)."""


class Reader(Protocol):
    """What a pad needs from its reader (one PN532, say)."""

    def poll(self, wait: float = 0.0) -> tuple[str, ...]:
        """The UIDs (upper-case hex) of every tag the reader can read, in the order listed.

        With ``wait`` > 0 and nothing on the reader, wait up to that many
        seconds for a tag to come.
        """

    def interrupt(self) -> None:
        """Make a poll that is waiting return ``None`` soon (any thread)."""

    def read_text(self, uid: str) -> str | None:
        """The NDEF text record of card ``uid``, or ``None`` if it has none."""

    def write_text(self, uid: str, text: str, *, password: bytes | None = None) -> None:
        """Write an NDEF text record to card ``uid`` (authenticating first with ``password``)."""

    def read_facts(self, uid: str) -> TagFacts | None:
        """Card ``uid``'s ``GET_VERSION`` and ``READ_SIG`` answers, ``None`` if it did not answer."""

    def close(self) -> None:
        """Let the reader go. Safe to call twice."""


READER_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    termios.error,
    nfc.clf.Error,
    nfc.clf.pn53x.Chipset.Error,
    DriverError,
)
"""What a failing reader raises (I/O errors, nfcpy and PN532 errors)."""


MAX_TG = 2
"""Targets one PN532 InListPassiveTarget can select (user manual UM0701-02)."""

MAX_LISTINGS = 16
"""Listings in one poll cycle at most (32 tags): a guard against a chip that
wakes halted tags again (libnfc stops on a tag seen twice, and so do we)."""
_IN_LIST_PASSIVE_TARGET = 0x4A
_IN_DESELECT = 0x44
_IN_DATA_EXCHANGE = 0x40


class NfcpyReader(Closing):
    """One PN532 on a serial port, driven by nfcpy's own PN532 driver.

    :param path: the serial port (``/dev/ttyUSB0``, a simulator's path).
    :param transport: makes the nfcpy transport for ``path``;
        :class:`~drivers.nfc.tty.RawTty` by default, ``nfc.clf.transport.TTY``
        works too (pyserial, more CPU).
    :raises DeviceNotFoundError: no such port, or no PN532 answers on it.
    :raises DevicePermissionError: the port exists but this user may not
        open it (EACCES: add the user to the ``dialout`` group), or a unit's
        device policy refuses it (EPERM: its USB-serial driver loaded after
        the unit started).
    :raises OSError: any other failure to open the port.
    """

    def __init__(self, path: str, *, transport: Callable[[str], Any] = RawTty) -> None:
        self.path = path
        try:
            self._transport = transport(path)
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
                    "DeviceAllow=char-ttyUSB was resolved before the USB-serial driver loaded; load cp210x, "
                    "ftdi_sio and ch341 at boot (/etc/modules-load.d/ecarte-table.conf, systemd/install.sh "
                    "installs it) and restart the service",
                ) from error
            if isinstance(error, PermissionError) or error.errno == errno.EACCES:
                raise DevicePermissionError(
                    errno.EACCES, f"no permission to open {path}: add the user to the dialout group"
                ) from error
            raise
        try:
            device = nfc.clf.pn532.init(self._transport)
        except READER_ERRORS as error:
            self._close_transport()
            raise DeviceNotFoundError(f"no PN532 answers on {path}: {error}") from error
        device._path = path  # what nfcpy's device.connect() sets; used by str(device)
        # the chipset's logger is nfcpy's to give (pn53x.Chipset(transport, logger)): this reader's counts it
        self._log = _CountingLog(device.chipset.log)
        device.chipset.log = self._log
        self._clf = nfc.ContactlessFrontend()
        self._clf.device = device
        self._field_dirty = True
        self._selected: str | None = None  # the card the last listing left selected alone
        self._retries = 0x01
        self._waiting = False
        self._aborted = False
        logger.debug("%s: %s", path, device)

    @property
    def frames(self) -> Frames:
        """The command frames this reader has sent since it was opened, and how many were retried
        (``sent`` 0 on a transport that does not count them)."""
        return Frames(int(getattr(self._transport, "commands", 0)), self._log.retried)

    def poll(self, wait: float = 0.0) -> tuple[str, ...]:
        """List every tag in the field: one poll cycle.

        The field is reset first if a tag was selected or halted since it was
        last switched on. Then InListPassiveTarget (MaxTg=2) and, as long as
        it finds two, InDeselect (HLTA for both) and InListPassiveTarget again.

        :param wait: 0 for one quick look; else seconds the PN532 keeps
            retrying on its own (MxRtyPassiveActivation FF) until a tag
            answers, after which the host aborts the command with an ACK.
        :returns: the UIDs found (upper-case hex), in the order listed; empty
            if none.
        :raises OSError: the reader failed to answer properly.
        """
        device = self._device()
        found: list[str] = []
        with self._clf.lock:
            self._selected = None
            if self._field_dirty:
                device.mute()
            self._field_dirty = True
            targets, listings = self._list(device, wait), 1
            while True:
                fresh = [uid for uid in targets if uid not in found]
                found += fresh
                if len(targets) < MAX_TG or not fresh or listings >= MAX_LISTINGS:
                    break
                device.chipset.command(_IN_DESELECT, bytearray([0]), timeout=0.1)  # 0: all
                targets, listings = self._list(device, 0.0), listings + 1
            if len(targets) == 1:
                self._selected = targets[0]  # the last listing left it selected as target 1
            if not found and not self._aborted:
                self._field_dirty = False  # nothing selected or halted: the field stays on
        return tuple(found)

    def _list(self, device: Any, wait: float) -> list[str]:
        """One InListPassiveTarget, MaxTg=2 at 106 kbps type A: the UIDs selected."""
        retries = 0xFF if wait > 0 else 0x01
        if retries != self._retries:
            # nfcpy's own setting is 01 00 01: one retry for ATR and activation.
            device.chipset.rf_configuration(0x05, bytes([0x01, 0x00, retries]))
            self._retries = retries
        self._waiting = wait > 0
        self._aborted = False
        try:
            data = device.chipset.command(
                _IN_LIST_PASSIVE_TARGET, bytearray([MAX_TG, 0]), timeout=wait or 1.0
            )
        except OSError as error:
            if wait > 0 and error.errno == errno.ETIMEDOUT:
                # nfcpy aborted the waiting command. A tag that came just then may
                # have been selected, even halted (MaxTg=2), by the answer we gave
                # up on: the next poll resets the field.
                self._aborted = True
                return []
            raise
        finally:
            self._waiting = False
        return _listed_uids(data)

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

    def interrupt(self) -> None:
        """Cut short a poll that waits for a card (from any thread)."""
        interrupt = getattr(self._transport, "interrupt", None)
        if interrupt is not None and self._waiting:
            interrupt()

    def read_text(self, uid: str) -> str | None:
        """The first NDEF text record on card ``uid``, ``None`` if none or unreadable.

        :raises OSError: the reader failed to answer properly.
        """
        tag = self._activate(uid)
        if tag is None:
            return None
        try:
            if tag.ndef is None:
                return None
            for record in tag.ndef.records:
                if isinstance(record, ndef.TextRecord):
                    return str(record.text)
        except (nfc.tag.TagCommandError, ndef.DecodeError) as error:
            logger.debug("%s: NDEF of %s unreadable: %s", self.path, uid, error)
        return None

    def write_text(self, uid: str, text: str, *, password: bytes | None = None) -> None:
        """Write one NDEF text record ``text`` to card ``uid`` (formats a blank tag).

        :param password: for a locked tag, its 4-byte PWD and 2-byte PACK
            (:meth:`lock`): sent with ``PWD_AUTH`` first.
        :raises TagWriteError: the card is not on the reader, is read-only, the
            password is wrong or the write failed.
        :raises OSError: the reader failed to answer properly.
        """
        tag = self._activate(uid)
        if tag is None:
            raise TagWriteError(f"tag {uid} is not on the reader {self.path}")
        if password is not None and not self._authenticate(tag, uid, password):
            raise TagWriteError(f"tag {uid} refused the password")
        try:
            if tag.ndef is None and not tag.format():
                raise TagWriteError(f"tag {uid} cannot be formatted for NDEF")
            if tag.ndef is None or not tag.ndef.is_writeable:
                raise TagWriteError(f"tag {uid} is read-only")
            tag.ndef.records = [ndef.TextRecord(text)]
        except (nfc.tag.TagCommandError, ndef.EncodeError, AttributeError, ValueError) as error:
            raise TagWriteError(f"writing tag {uid} failed: {error}") from error

    def read_facts(self, uid: str) -> TagFacts | None:
        """Ask card ``uid`` for its ``GET_VERSION`` and ``READ_SIG`` (NTAG21x, ``60`` and ``3C 00``).

        Through nfcpy's PN532 driver (``device.chipset.command``), not nfcpy's
        whole activation (about twelve commands): one InDataExchange for each
        (the PN532 adds and checks the CRC), after a field reset and
        InListPassiveTarget with the UID (which selects that card only, wherever
        it lies in the stack) unless the last poll found the card alone and left
        it selected.

        :returns: the answers (``version`` ``None`` for a chip that NAKs or
            ignores ``GET_VERSION``; then ``READ_SIG`` is not asked), or ``None``
            if the card did not answer its selection (it left).
        :raises OSError: the reader failed to answer properly.
        """
        device = self._device()
        with self._clf.lock:
            if not self._select(device, uid):
                return None
            version = self._data_exchange(device, b"\x60", 8)
            if version is None:
                return TagFacts(None, None)
            return TagFacts(version, self._data_exchange(device, b"\x3c\x00", 32))

    def read_signature(self, uid: str) -> bytes | None:
        """Card ``uid``'s ``READ_SIG`` answer alone (32 bytes), ``None`` if none.

        For a card that the last :meth:`poll` found alone in its last listing
        (it is still selected): one InDataExchange, nothing else; else it is
        selected first as in :meth:`read_facts`.

        :raises OSError: the reader failed to answer properly.
        """
        device = self._device()
        with self._clf.lock:
            if not self._select(device, uid):
                return None
            return self._data_exchange(device, b"\x3c\x00", 32)

    def _select(self, device: Any, uid: str) -> bool:
        """Make card ``uid`` target 1, selected: nothing to do if the last listing found it
        alone; else a field reset and InListPassiveTarget with its UID. Whether it answered."""
        selected, self._selected = self._selected, None  # after a NAK the card is IDLE: select it again
        if selected == uid:
            return True
        device.mute()  # a tag the last poll cycle halted answers no REQA
        self._field_dirty = True
        if self._retries != 0x01:
            device.chipset.rf_configuration(0x05, bytes([0x01, 0x00, 0x01]))
            self._retries = 0x01
        listed = device.chipset.command(
            _IN_LIST_PASSIVE_TARGET, bytearray([1, 0]) + bytearray.fromhex(uid), timeout=0.1
        )
        return uid in _listed_uids(listed)

    def _data_exchange(self, device: Any, command: bytes, size: int) -> bytes | None:
        """InDataExchange with target 1: the card's answer if ``size`` bytes, else ``None``
        (a NAK, no answer: the PN532 reports an error status)."""
        try:
            answer = device.chipset.command(_IN_DATA_EXCHANGE, bytearray([1]) + command, timeout=0.1)
        except nfc.clf.pn53x.Chipset.Error as error:
            logger.debug("%s: %s: %s", self.path, command.hex(), error)
            return None
        if not answer or answer[0] != 0 or len(answer) != size + 1:
            return None
        return bytes(answer[1:])

    def lock(self, uid: str, password: bytes, *, protect_from: int = 4, auth_limit: int = 0) -> None:
        """Password-protect card ``uid``'s memory from page ``protect_from`` against writing.

        Writes PWD (``password[:4]``), PACK (``password[4:6]``), ACCESS (PROT 0:
        reading stays free, so the table and any phone still read the NDEF
        record; AUTHLIM ``auth_limit``) and AUTH0 last, then selects the card
        again, checks that ``PWD_AUTH`` answers the PACK and, with an
        ``auth_limit``, sets CFGLCK (the configuration can then never be
        changed: nobody can lift the limit or move AUTH0). A card locked already
        with the same password gets the limit and CFGLCK if it lacks them.

        :param auth_limit: AUTHLIM, 0 (no limit) or 1-7: 2 to that power wrong
            passwords in a row lock the tag for ever (NTAG21x data sheet, *AUTHLIM*).

        :raises TagWriteError: the card is not on the reader, is not an NTAG21x,
            is locked with another password, or a write failed.
        :raises ValueError: ``password`` is not 6 bytes, or ``protect_from`` not a page 3–255.
        :raises OSError: the reader failed to answer properly.
        """
        if len(password) != 6:
            raise ValueError(f"a lock is 4 bytes of PWD and 2 of PACK, not {len(password)} bytes")
        if not 3 <= protect_from <= 255:
            raise ValueError(f"protection starts at a page from 3 to 255, not {protect_from}")
        if not 0 <= auth_limit <= 7:
            raise ValueError(f"AUTHLIM is 0 to 7, not {auth_limit}")
        tag = self._activate(uid)
        if tag is None:
            raise TagWriteError(f"tag {uid} is not on the reader {self.path}")
        config = getattr(tag, "_cfgpage", None)
        if not isinstance(tag, nfc.tag.tt2_nxp.NTAG21x) or config is None:
            raise TagWriteError(f"tag {uid} is not an NTAG21x: it cannot be locked")
        try:
            cfg = tag.read(config)  # CFG0, CFG1, PWD (reads 0), PACK (reads 0)
            locked = cfg[3] < 0xFF
            if locked:
                if not self._authenticate(tag, uid, password):
                    raise TagWriteError(f"tag {uid} is locked with another password")
            else:
                tag.write(config + 2, bytes(password[:4]))
                tag.write(config + 3, bytes(password[4:6]) + b"\x00\x00")
                tag.write(config + 1, bytes([cfg[4] & 0x3F & ~0x07 | auth_limit]) + bytes(cfg[5:8]))
                tag.write(config, bytes(cfg[0:3]) + bytes([protect_from]))
        except nfc.tag.TagCommandError as error:
            raise TagWriteError(f"locking tag {uid} failed: {error}") from error
        if not locked:  # newly locked: select it again and check the new password
            tag = self._activate(uid)
            if tag is None or not self._authenticate(tag, uid, password):
                raise TagWriteError(f"tag {uid} did not confirm its new password")
        if auth_limit:
            self._lock_config(tag, uid, config, auth_limit)

    def _lock_config(self, tag: Any, uid: str, config: int, auth_limit: int) -> None:
        """Set AUTHLIM and CFGLCK on an authenticated tag (a no-op once set)."""
        try:
            cfg = tag.read(config)
            if cfg[4] & 0x40:
                if cfg[4] & 0x07 != auth_limit:
                    raise TagWriteError(f"tag {uid}: its configuration is locked with AUTHLIM {cfg[4] & 0x07}")
                return
            tag.write(config + 1, bytes([cfg[4] & ~0x07 & 0xFF | auth_limit | 0x40]) + bytes(cfg[5:8]))
        except nfc.tag.TagCommandError as error:
            raise TagWriteError(f"locking the configuration of tag {uid} failed: {error}") from error

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
        target = nfc.clf.RemoteTarget("106A", sel_req=bytearray.fromhex(uid))
        # clf.sense resets the field first (nfcpy: device.mute()), so a tag the last
        # poll cycle halted answers its REQA.
        found = self._clf.sense(target, iterations=1)
        if found is None:
            return None
        return nfc.tag.activate(self._clf, found)

    def _authenticate(self, tag: Any, uid: str, password: bytes) -> bool:
        if not isinstance(tag, nfc.tag.tt2_nxp.NTAG21x):
            return False
        ok = bool(tag.authenticate(bytes(password)))
        logger.debug("%s: tag %s password %s", self.path, uid, "accepted" if ok else "refused")
        return ok

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


def _listed_uids(data: bytes | None) -> list[str]:
    """The UIDs in an InListPassiveTarget answer for 106 kbps type A.

    ``NbTg`` then per target: ``Tg SENS_RES(2) SEL_RES NFCID1-length NFCID1``
    (and ``ATS-length ATS`` for an ISO-DEP tag, SEL_RES bit 6).

    >>> _listed_uids(bytes.fromhex("01 01 0044 00 04 0A0B0C0D"))
    ['0A0B0C0D']
    """
    if not data:
        return []
    uids, at = [], 1
    for _ in range(data[0]):
        if at + 5 > len(data):
            break
        sel_res, size = data[at + 3], data[at + 4]
        uids.append(bytes(data[at + 5 : at + 5 + size]).hex().upper())
        at += 5 + size
        if sel_res & 0x20 and at < len(data):
            at += data[at]  # the ATS, its length byte first
    return uids


def open_pn532(path: str) -> NfcpyReader:
    """The default reader factory: a PN532 on serial port ``path`` via nfcpy.

    :raises DeviceNotFoundError: no such port, or no PN532 answers on it.
    :raises DevicePermissionError: the user may not open the port.
    """
    return NfcpyReader(path)
