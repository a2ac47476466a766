"""The emulated PN532 on a pseudo-terminal, with fault injection.

The simulator speaks the PN532's high-speed-UART frame protocol
(:mod:`~drivers.nfc.pn532sim.frames`) on the master side of a pty, so the real
nfcpy driver talks to it through its ordinary serial transport. ``path`` is a
symlink in a private temporary directory, re-pointed at a fresh pty by
:meth:`Pn532Simulator.replug`, so a reader reopens the same path after an
:meth:`~Pn532Simulator.unplug`, as it would reopen ``/dev/ttyUSB0`` after the
USB cable was pulled and plugged back.

On the wire: ACK after every good command, NACK from the host resends the last
answer, a host ACK (cancel) is ignored (or aborts a waiting poll), frames with
a bad checksum get no answer (the chip waits for a good one). Faults on demand:
corrupt answers, ignored commands, late answers, a flickering tag, a pulled
cable.

Stacks. Cards lie on a pad as a stack (:meth:`Pn532Simulator.place_stack` lays
a packet at once, :meth:`~Pn532Simulator.place` one card on top,
:meth:`~Pn532Simulator.lift_top` and :meth:`~Pn532Simulator.lift_all` take
them off, :meth:`~Pn532Simulator.remove` pulls one from anywhere); what the
stack does is in :mod:`~drivers.nfc.pn532sim.field`.

Timing: with ``baud`` set, every frame is delivered whole after the time its
bytes take on the wire, 10 bits a byte (start, 8 data bits, stop: the PN532's
HSU is 8N1, UM0701-02 §6.2.3) at the link's speed (:attr:`link_baud`): the
chip's own (:attr:`chip_baud`: 115200 at power-on, then what SetSerialBaudrate
set, from the host's ACK on; nfcpy's ``pn532.init`` moves a Linux serial port to
921600 when the port takes it, ``stty``), but never above ``baud``, the fastest
the adapter on the way goes. Commands also take that long to arrive, and the time on the air of
each command (:mod:`~drivers.nfc.pn532sim.chip`: 106 kbit/s, 9 bits a byte, the
guard time after the field comes on) is added before its answer: two waits a
command (its bytes and the ACK, then the air and the answer), as each sleep
overshoots. Without ``baud`` answers come at once.

The line's rate. The chip's UART runs at 115,200 baud from power-on until a
SetSerialBaudrate moves it (UM0701-02 §7.2.8; nfcpy's ``clf/pn532.py`` ``init``
moves it to 921,600, ``Device.close`` back to 115,200), and keeps that rate until
its power is cut (:meth:`Pn532Simulator.unplug`, or the chip host's end): a
host that dies without closing leaves it there. The rate the host's side of the
line runs at is the pty's own termios speed, which the master reads as the
slave's (Linux ``tty_mode_ioctl`` answers a pty master's ``TCGETS`` with its
link's termios), so what ``tcsetattr`` (``stty``, pyserial, :class:`RawTty`)
sets is what the simulator sees. Frames sent at another rate than the chip's
reach its UART as garbage (each bit lasts 8 of the other rate's bits: framing
errors, no preamble nor start code) and get no answer (:attr:`SimStats.garbled`
counts them); an answer the chip sends at its rate while the host's side runs at another (a
host that gave up waiting and moved to the next rate) reaches the host as garbage too
(:data:`GARBLED`), never as a frame. With pacing on, bytes take the time of the chip's current rate
(at most ``baud``). Assumptions, not measured: the chip takes its new rate once
the host's ACK after the SetSerialBaudrate answer arrived (nfcpy and libnfc send
that ACK, then switch); since a pty keeps no timing, that ACK is taken at the
old rate even if the host has switched by the time it is read, and a frame at
the new rate in its place is taken as coming after it (the pty loses the ACK when
the host flushes its output before reopening, as nfcpy's pyserial ``TTY.close``
does; a UART has sent it by then); a frame at the old rate in its place keeps the
old rate; a pty opened again keeps the speed its
last opener set, as a serial adapter's UART does.
"""

from __future__ import annotations

import collections
import errno
import logging
import os
import shutil
import threading
import time
import tty
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from drivers.closing import Closing
from drivers.nfc.pn532sim.chip import Pn532Core
from drivers.nfc.pn532sim.field import DEFAULT_DEPTH, DEFAULT_MISS, Field
from drivers.nfc.pn532sim.frames import ACK, CHIP_TFI, ERROR_FRAME, FrameParser, HostFrame, frame
from drivers.nfc.pn532sim.hsu_wakeup import HsuWakeup
from drivers.nfc.pn532sim.noise import QUIET, Garble, Noise, NoiseDraws
from drivers.nfc.pn532sim.ntag213 import Ntag213, uid_key
from drivers.nfc.pn532sim.pty_port import line_rate, private_folder, unlink
from drivers.nfc.tty import readable

logger = logging.getLogger(__name__)

WIRE = logging.DEBUG - 1
"""Log level of the byte dumps (below DEBUG, as nfcpy's own)."""

WIRE_BITS = 10
"""Bits a byte takes on the serial wire: start bit, 8 data bits, stop bit (8N1)."""


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
    garbled: int = 0
    """Frames that came at another rate than the chip's: no answer."""
    garbled_answers: int = 0
    """Frames the chip sent while the host's side ran at another rate: garbage on arrival."""


GARBLED = b"\xfe"
"""What each byte of an answer the chip sends at another rate than the host's line runs at becomes
(assumption, not measured: a UART reading a faster or slower line takes framing errors and bytes
of no frame; ``FE`` starts no preamble ``00 00 FF``)."""

INITIAL_BAUD = 115200
"""The PN532's HSU rate after power-on (UM0701-02, the HSU interface; nfcpy's ``init``: "PN532
initial baudrate")."""

class Pn532Simulator(Closing):
    """A PN532 on a pty with NTAG213 cards stacked on it and lifted by code.

    :param baud: pace frames as a UART would, at the chip's current rate
        (:attr:`chip_baud`) but at most this many bits a second (``None``: no
        pacing).
    :param name: file name of the :attr:`path` symlink.
    :param depth: how many tags of a stack couple to the antenna, counted from
        the bottom (the cloth side); the tags above answer nothing.
    :param miss: probability that a tag of a stack (two tags or more) misses
        one poll (stays silent for one field period); 0 for none.
    :param seed: seeds the misses and the noise (the same polls give the same misses).
    :param noise: the radio's noise: answers garbled or lost, listings garbled by a collision
        (:mod:`~drivers.nfc.pn532sim.noise`; :data:`~drivers.nfc.pn532sim.noise.QUIET` by default).
    :param in_select_wakes: InSelect wakes a target no longer ACTIVE (the chip halted it, a NAK
        left it IDLE): an assumption nowhere shown; ``False``: it does not
        (:attr:`~drivers.nfc.pn532sim.chip.Pn532Core.in_select_wakes`).
    :param signer: gives each genuine tag its originality signature (UID → 32
        bytes ``r || s``; :func:`drivers.nfc.pn532sim.tag_signer.sim_signer` signs with a
        TEST key); ``None``: genuine tags answer ``READ_SIG`` with zeros.
    :param directory: the folder of :attr:`path` (it must exist; the simulator
        only puts its symlink there), for a path that stays the same from one
        run to the next (the chip host); ``None``: a private temporary folder.
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
        directory: str | None = None,
        noise: Noise = QUIET,
        in_select_wakes: bool = True,
    ) -> None:
        self._field = Field(depth=depth, miss=miss, seed=seed, noise=noise)
        self._baud_cap = baud or 0
        self._chip_baud = INITIAL_BAUD  # the chip's UART rate (reset when its power comes: _plug)
        self._switch_to: int | None = None  # a SetSerialBaudrate answered, waiting for the host's ACK
        self._finalizer: weakref.finalize[Any, Any]
        if directory is None:
            self._directory = private_folder()
            # the folder goes when the simulator closes, or is collected, or the process exits; a
            # process killed outright leaves it to the next simulator started (sweep_folders)
            self._finalizer = weakref.finalize(self, shutil.rmtree, self._directory, True)
        else:
            self._directory = directory
            self._finalizer = weakref.finalize(self, unlink, os.path.join(directory, name))
        self.path = os.path.join(self._directory, name)
        """Stable path of the serial port (a symlink to the current pty)."""
        self._lock = threading.Lock()
        self._box: dict[tuple[str, str], Ntag213] = {}  # (UID, kind) → the tag
        self._signer = signer
        self._core = Pn532Core(self._field)
        self._core.in_select_wakes = in_select_wakes
        self._parser = FrameParser()
        self._wakeup = HsuWakeup()  # PowerDown and the HSU wake-up (hsu_wakeup: UM0701-02 §6.3.2.3)
        self._last_answer = b""
        self._pending: bytes | None = None  # an InListPassiveTarget waiting for a card
        self._drop = 0
        self._drop_after = 0  # commands answered before the next dropped one
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
        keys = [uid_key(uid) for uid in uids]
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
                self._field.lay(tag)
                placed.append(tag)
            if self._pending is not None:
                os.write(self._wake_w, b"p")  # a waiting InListPassiveTarget may answer now
        logger.debug("%s: tags %s placed", self.path, " ".join(keys))
        return placed

    def remove(self, uid: str | bytes) -> None:
        """Lift the tag ``uid`` off the pad, wherever it lies in the stack.

        :raises KeyError: the tag is not on the pad.
        """
        key = uid_key(uid)
        with self._lock:
            self._field.take(key)
        logger.debug("%s: tag %s removed", self.path, key)

    def lift_top(self) -> str:
        """Lift the top tag of the stack; its UID.

        :raises KeyError: the pad is empty.
        """
        with self._lock:
            tag = self._field.lift_top()
        logger.debug("%s: tag %s lifted off the top", self.path, tag.uid_hex)
        return tag.uid_hex

    def lift_all(self) -> tuple[str, ...]:
        """Lift the whole stack; the UIDs lifted, bottom first."""
        with self._lock:
            lifted = self._field.lift_all()
        logger.debug("%s: stack of %d lifted", self.path, len(lifted))
        return tuple(tag.uid_hex for tag in lifted)

    def tag(self, uid: str, kind: str = "genuine") -> Ntag213:
        """The tag ``uid`` (of that ``kind``) as placed before (to inspect its memory).

        :raises KeyError: the tag was never placed on this simulator.
        """
        with self._lock:
            return self._box[uid_key(uid), kind]

    @property
    def on_pad(self) -> tuple[str, ...]:
        """UIDs of the tags on the pad, bottom of the stack first."""
        with self._lock:
            return tuple(tag.uid_hex for tag in self._field.stack)

    @property
    def readable(self) -> tuple[str, ...]:
        """UIDs of the tags coupled to the antenna (the lowest :attr:`depth`)."""
        with self._lock:
            return tuple(tag.uid_hex for tag in self._field.coupled())

    @property
    def depth(self) -> int:
        """How many tags of the stack couple to the antenna, from the bottom."""
        return self._field.depth

    @depth.setter
    def depth(self, value: int) -> None:
        with self._lock:
            self._field.depth = value

    @property
    def field_changes(self) -> tuple[tuple[float, bool], ...]:
        """When the chip's RF field went on (``True``) or off (``False``), monotonic seconds, oldest
        first (the last 100,000): a field is on from a listing until a field reset or a power-down."""
        with self._lock:
            return tuple(self._core.field_changes)

    @property
    def misses(self) -> int:
        """Random misses of stacked tags drawn so far."""
        with self._lock:
            return self._field.misses

    # -- faults --------------------------------------------------------------

    @property
    def noise(self) -> NoiseDraws:
        """The field's noise: its rates (``noise.noise``) and what it did so far (``garbled``,
        ``lost``, ``collisions``)."""
        return self._field.noise

    def garble_answers(self, *kinds: Garble | None) -> None:
        """What the radio does to the next tag answers, one each (``None``: that one comes through):
        faults on demand, beside the noise's draws."""
        with self._lock:
            self._field.forced.extend(kinds)

    def corrupt_answers(self, count: int = 1) -> None:
        """Send the next ``count`` answers with a wrong data checksum (DCS)."""
        with self._lock:
            self._corrupt += count

    def ignore_commands(self, count: int = 1, *, after: int = 0) -> None:
        """Answer neither ACK nor response to the next ``count`` commands, once the next ``after``
        ones are answered (a fault inside an exchange a test cannot step into: a reader's opening,
        then its polls)."""
        with self._lock:
            self._drop += count
            self._drop_after = after

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
        key = uid_key(uid)
        with self._lock:
            self._field.flicker(key, polls)

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
    def asleep(self) -> bool:
        """Whether the chip is in PowerDown, not yet woken by the HSU wake-up (UM0701-02 §6.3.2.3)."""
        with self._lock:
            return self._wakeup.asleep

    @property
    def lost_asleep(self) -> int:
        """Bytes the host sent while the chip slept or its oscillator started (UM0701-02 §6.3.2.3):
        never heard."""
        with self._lock:
            return self._wakeup.lost

    @property
    def chip_baud(self) -> int:
        """The rate the chip's UART runs at now (bits a second): 115,200 from power-on, then
        what a SetSerialBaudrate set, until the power is cut."""
        with self._lock:
            return self._chip_baud

    @property
    def line_baud(self) -> int | None:
        """The rate the host's side of the line is set to (the pty's termios speed; ``None``
        unplugged)."""
        with self._lock:
            master = self._master
        return None if master is None else line_rate(master)

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
                garbled=c["garbled"],
                garbled_answers=c["garbled_answers"],
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
        """Stop serving, close the pty, delete the symlink (and the private folder). Safe to call twice."""
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
        self._wakeup.wake()  # powered up: awake
        self._set_chip_baud(INITIAL_BAUD)  # plugged in: the chip powers up at its first rate
        self._switch_to = None
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
            ready = readable(watched, 1.0)
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
            with self._lock:
                data = self._wakeup.hear(data, time.monotonic(), line_rate(master) or self._chip_baud)
            for item in self._parser.feed(data):
                if self._heard(master, item):
                    self._answer(master, item)

    def _heard(self, master: int, item: HostFrame) -> bool:
        """Whether the chip's UART decodes ``item``: sent at the chip's rate, or the ACK that
        completes a SetSerialBaudrate (which moves the chip to its new rate)."""
        rate = line_rate(master)
        with self._lock:
            if self._switch_to is not None:
                switch, self._switch_to = self._switch_to, None
                if item.kind == "ack" or rate == switch:
                    # the ACK, or the next frame at the new rate: the ACK was sent (a pty drops it when
                    # the host flushes its output before reopening, as nfcpy's pyserial TTY does; a UART
                    # would have sent it already)
                    self._set_chip_baud(switch)
                    logger.debug("%s: the chip now runs at %d baud", self.path, switch)
                    if item.kind == "ack":
                        self._counts["ack"] += 1
                        return False
            if rate is not None and rate != self._chip_baud:
                self._counts["garbled"] += 1
                logger.debug("%s: a frame at %d baud, the chip runs at %d: garbled", self.path, rate,
                             self._chip_baud)
                return False
        return True

    def _set_chip_baud(self, rate: int) -> None:
        self._chip_baud = rate

    def _answer(self, master: int, item: HostFrame) -> None:
        with self._lock:
            self._counts[item.kind] += 1
            if item.kind == "nack":
                answer = self._last_answer
            elif item.kind == "command" and self._drop > 0 and not self._drop_after:
                self._drop -= 1
                self._counts["dropped"] += 1
                return
            elif item.kind != "command":
                if item.kind == "bad":
                    logger.debug("%s: rejected frame: %s", self.path, item.reason)
                elif item.kind == "ack" and self._pending is not None:
                    logger.debug("%s: host aborted the waiting poll", self.path)
                    self._pending = None
                    self._field.end_poll()
                return
            else:
                answer = b""
                self._pending = None  # a new command aborts a waiting one
                self._drop_after = max(0, self._drop_after - 1)
            late = 0.0
            if item.kind == "command" and self._late > 0:
                self._late -= 1
                self._counts["late"] += 1
                late = self._late_by
        if late:
            time.sleep(late)
        if item.kind == "nack":
            self._send(master, answer, after=self._wire(item.size))
            return
        self._send(master, ACK, after=self._wire(item.size))
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
            if result is not None and command[:1] == b"\x10":  # SetSerialBaudrate: once the host's ACK comes
                self._switch_to = self._core.host_baud
            if result is not None and command[:1] == b"\x16":  # PowerDown: deaf until woken (§6.3.2.3)
                self._wakeup.sleep()
                self._parser = FrameParser()
            if self._corrupt > 0:
                self._corrupt -= 1
                self._counts["corrupted"] += 1
                answer = answer[:-2] + bytes([(answer[-2] + 1) & 0xFF, 0x00])
            self._last_answer = answer
        self._send(master, answer, after=rf_time if self._baud_cap else 0.0)

    @property
    def link_baud(self) -> int:
        """The speed frames are paced at, bits a second: the chip's (:attr:`chip_baud`), at most
        ``baud``; 0 when not paced."""
        return min(self._baud_cap, self._chip_baud)

    def _wire(self, size: int) -> float:
        """Seconds ``size`` bytes take on the wire at :attr:`link_baud` (0 when not paced)."""
        baud = self.link_baud
        return size * WIRE_BITS / baud if baud else 0.0

    def _send(self, master: int, data: bytes, *, after: float = 0.0) -> None:
        """Write ``data`` once its own time on the wire and ``after`` seconds before it (the frame
        it answers, the air) are over: one sleep, since each ``time.sleep`` overshoots (the
        kernel's timer slack, 50 µs, and more on a busy machine: 0.1–0.3 ms measured here), and
        four a command made the simulated chip a millisecond slower a command than its model."""
        delay = after + self._wire(len(data))
        if delay:
            time.sleep(delay)
        rate = line_rate(master)
        with self._lock:
            chip = self._chip_baud
        if rate is not None and rate != chip:
            # the host's side of the line runs at another rate by the time the chip answers (it gave up
            # waiting and moved on): what its UART reads is garbage, as the chip hears a frame at another
            # rate (framing errors, no preamble); modelled as bytes that hold no start code
            self._counts["garbled_answers"] += 1
            logger.debug("%s: an answer at %d baud, the host's line runs at %d: garbled", self.path, chip, rate)
            data = GARBLED * len(data)
        logger.log(WIRE, "%s >>> %s", self.path, data.hex())
        view = memoryview(data)
        while view:
            try:
                written = os.write(master, view)
            except OSError as error:
                logger.debug("%s: write failed: %s", self.path, error)
                return
            view = view[written:]
