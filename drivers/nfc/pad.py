"""NFC pads: one PN532 reader each, polled by its own thread, on nfcpy.

A :class:`Pad` turns what its reader sees into debounced
:class:`~drivers.device_events.CardSeen` events (a card arrived, a card left) and
reports its reader going away and coming back as
:class:`~drivers.device_events.ReaderStatus`. It never dies of a reader error: a
reader that stops answering is closed and reopened with back-off.

How the reader lists a stack of tags, and the PN532 commands it takes, is in
:mod:`drivers.nfc.reader`.

A pad's content is a set of UIDs: each arrives and leaves on its own, and a
tag leaves only after :attr:`PadTiming.leave_after` cycles without it
(:class:`drivers.nfc.pad_contents.PadContents`, fed each poll by the pad's thread).

A card is identified by its UID through ``card_for`` (the tag registry); a
card the registry does not know is read for an NDEF text record
``ecarte:KS`` (see :data:`drivers.nfc.pad_contents.NDEF_PREFIX`); a card neither knows arrives with
``card=None``.
"""

from __future__ import annotations

import concurrent.futures
import errno
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from drivers.closing import Closing
from drivers.device_events import DeviceEvent, ReaderStatus
from drivers.nfc.originality import OriginalityCheck, TagFacts
from drivers.nfc.pad_contents import CardLookup, PadContents
from drivers.nfc.pn532_reader import open_pn532
from drivers.nfc.reader import READER_ERRORS, Reader, TagWriteError
from drivers.nfc.retried_frames import Frames
from engine.message import Phrase

__all__ = ["Pad", "PadSet", "PadTiming", "TagWriteError"]  # TagWriteError: what write_text and lock raise

logger = logging.getLogger(__name__)

LATE_FORGIVEN = 10
"""Failed polls in a row a pad forgives a reader whose chip answered them late (its frames came after
the host gave up on them): a busy machine's, not a lost reader; past these it counts them as any failure."""


@dataclass(frozen=True, slots=True)
class PadTiming:
    """How often a pad polls and how it decides a card has left.

    :param poll_interval: seconds of pause after each poll while a card is
        on the pad (or while it is empty if ``idle_wait`` is 0).
    :param idle_wait: seconds the PN532 itself waits for a card on an empty
        pad, retrying on its own, before the host asks again (0: poll the
        empty pad every ``poll_interval`` instead).
    :param leave_after: consecutive polls without the card before it has
        left (a card missing for fewer polls is a flicker and stays).
    :param fault_limit: consecutive failed polls before the reader is
        declared offline, closed and reopened (and failed openings before a
        reader that never answered is declared offline).
    :param reopen_first: seconds before the first reopen attempt.
    :param reopen_max: longest pause between reopen attempts, seconds
        (the pause doubles from ``reopen_first`` up to this).
    :raises ValueError: a value out of range.
    """

    poll_interval: float = 0.020
    idle_wait: float = 0.25
    leave_after: int = 3
    fault_limit: int = 3
    reopen_first: float = 0.05
    reopen_max: float = 2.0

    def __post_init__(self) -> None:
        problems = []
        if self.poll_interval < 0:
            problems.append(f"poll_interval must be >= 0 s, not {self.poll_interval}")
        if self.idle_wait < 0:
            problems.append(f"idle_wait must be >= 0 s, not {self.idle_wait}")
        if self.leave_after < 1:
            problems.append(f"leave_after must be >= 1 poll, not {self.leave_after}")
        if self.fault_limit < 1:
            problems.append(f"fault_limit must be >= 1 poll, not {self.fault_limit}")
        if not 0 < self.reopen_first <= self.reopen_max:
            problems.append(
                f"need 0 < reopen_first <= reopen_max, not {self.reopen_first}, {self.reopen_max}"
            )
        if problems:
            raise ValueError("bad pad timing: " + "; ".join(problems))


@dataclass(frozen=True, slots=True)
class _Job:
    run: Callable[[Reader], Any]
    result: concurrent.futures.Future[Any]


class Pad(Closing):
    """One NFC pad: a reader, its polling thread and the events it reports.

    The thread starts at once. Events go to ``on_event`` (called on the pad's
    thread: only enqueue there) or are put on ``events``; give exactly one.

    :param zone: the table zone of this pad (``"play.A"``).
    :param path: the reader's serial port, handed to ``open_reader``.
    :param card_for: looks a tag UID up in the tag registry, once an arrival: its entry (card
        and pack), or a card (:data:`~drivers.nfc.pad_contents.CardLookup`; ``None`` if unknown).
    :param open_reader: makes the reader for ``path`` (:func:`open_pn532`).
    :param timing: poll interval, debounce and back-off.
    :param read_ndef: read unknown tags for an ``ecarte:KS`` NDEF record.
    :param ndef_pack: the pack of the cards named by their NDEF record (``None``: not said).
    :param originality: ask each arriving tag for its originality (shared by the
        table's pads: a verdict lasts while its tag stays on the pad) and report it in
        its ``Sighting.origin``; ``None``: don't ask (``origin`` is ``None``). A tag
        that does not answer is asked again at the next polls before it arrives.
    :param clock: seconds for the events' ``t`` (monotonic).
    :raises ValueError: not exactly one of ``on_event`` and ``events``.
    """

    def __init__(
        self,
        zone: str,
        path: str,
        *,
        on_event: Callable[[DeviceEvent], None] | None = None,
        events: queue.Queue[DeviceEvent] | None = None,
        card_for: CardLookup | None = None,
        open_reader: Callable[[str], Reader] = open_pn532,
        timing: PadTiming = PadTiming(),
        read_ndef: bool = True,
        ndef_pack: int | None = None,
        originality: OriginalityCheck | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if (on_event is None) == (events is None):
            raise ValueError("give a pad exactly one of on_event= and events=")
        self.zone = zone
        self.path = path
        self.timing = timing
        self._emit_to: Callable[[DeviceEvent], None] = (
            on_event if on_event is not None else events.put  # type: ignore[union-attr]
        )
        self._open_reader = open_reader
        self._clock = clock
        self._reader: Reader | None = None
        self._online: bool | None = None
        self._contents = PadContents(
            zone, emit=self._emit, leave_after=timing.leave_after, card_for=card_for, read_ndef=read_ndef,
            ndef_pack=ndef_pack, originality=originality, clock=self._now,
        )
        self._failures = 0
        self._forgiven = 0  # failed polls in a row whose chip answered late
        self._late_seen = 0  # the reader's late frames at the last failed poll
        self._frames_before = Frames()  # the frames of the readers this pad opened and dropped
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._closed = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=f"pad-{zone}", daemon=True)
        self._thread.start()

    @property
    def present(self) -> frozenset[str]:
        """UIDs of the tags the pad considers on it (empty: none)."""
        return self._contents.present

    def card_of(self, uid: str) -> str | None:
        """The card tag ``uid`` on this pad stands for (``None``: unknown or not here)."""
        return self._contents.card_of(uid)

    @property
    def frames(self) -> Frames:
        """The command frames this pad's readers have sent since it started, and how many of them
        failed (no ACK in time, a garbled answer) and were sent again: for the maker, never the players."""
        return self._frames_before + _frames_of(self._reader)

    @property
    def online(self) -> bool:
        """Whether the reader is open and answering."""
        return bool(self._online)

    def write_text(self, uid: str, text: str, *, password: bytes | None = None, timeout: float = 5.0) -> None:
        """Write an NDEF text record to card ``uid`` lying on this pad.

        Runs on the pad's thread between two polls.

        :param password: a locked card's PWD and PACK (6 bytes), or ``None``.
        :param timeout: seconds to wait for the reader.
        :raises TagWriteError: the card is not on the pad or cannot be written.
        :raises TimeoutError: the reader did not get to it in ``timeout``.
        :raises OSError: the reader is offline or failed.
        """
        self._call(lambda reader: reader.write_text(uid, text, password=password), timeout)

    def read_facts(self, uid: str, *, timeout: float = 5.0) -> TagFacts | None:
        """Ask card ``uid`` lying on this pad for its ``GET_VERSION`` and ``READ_SIG``.

        :param timeout: seconds to wait for the reader.
        :returns: its answers, ``None`` if it did not answer (it left).
        :raises TimeoutError: the reader did not get to it in ``timeout``.
        :raises OSError: the reader is offline or failed.
        """
        facts: TagFacts | None = self._call(lambda reader: reader.read_facts(uid), timeout)
        return facts

    def lock(self, uid: str, password: bytes, *, auth_limit: int = 0, timeout: float = 5.0) -> None:
        """Password-protect card ``uid`` lying on this pad against writing, with AUTHLIM
        ``auth_limit`` and CFGLCK if it is not 0 (:meth:`NfcpyReader.lock`; the reader must have ``lock``).

        :raises TagWriteError: the card cannot be locked (see :meth:`NfcpyReader.lock`).
        :raises TimeoutError: the reader did not get to it in ``timeout``.
        :raises OSError: the reader is offline or failed.
        """

        def run(reader: Reader) -> None:
            lock = getattr(reader, "lock", None)
            if lock is None:
                raise TagWriteError(f"pad {self.zone}: this reader cannot lock tags")
            lock(uid, password, auth_limit=auth_limit)

        self._call(run, timeout)

    def close(self) -> None:
        """Stop polling and close the reader. Safe to call twice."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._stop.set()
        self._interrupt()
        self._thread.join(timeout=10.0)
        if self._thread.is_alive():
            logger.warning("pad %s: polling thread did not stop", self.zone)

    def __repr__(self) -> str:
        present = sorted(self._contents.present)
        return f"<Pad {self.zone} {self.path} online={self._online} present={present}>"

    # -- the polling thread ----------------------------------------------------

    def _call(self, run: Callable[[Reader], Any], timeout: float) -> Any:
        job = _Job(run, concurrent.futures.Future())
        if self._closed:
            raise OSError(errno.ENODEV, f"pad {self.zone} is closed")
        self._jobs.put(job)
        self._interrupt()
        try:
            return job.result.result(timeout)
        except concurrent.futures.TimeoutError as error:
            job.result.cancel()
            raise TimeoutError(f"pad {self.zone}: reader busy or offline") from error

    def _run(self) -> None:
        backoff = self.timing.reopen_first
        try:
            while not self._stop.is_set():
                if self._reader is None:
                    if not self._open():
                        self._fail_jobs()
                        self._stop.wait(backoff)
                        backoff = min(2 * backoff, self.timing.reopen_max)
                        continue
                    backoff = self.timing.reopen_first
                waiting = not self._contents.present and self.timing.idle_wait > 0
                try:
                    self._run_jobs()
                    if self._stop.is_set():
                        break
                    wait = self.timing.idle_wait if waiting else 0.0
                    # arriving tags are checked while the listing holds them
                    uids = self._reader.poll(wait, ask=self._contents.inquiry)  # type: ignore[union-attr]
                    self._contents.observe(uids, self._reader)
                except READER_ERRORS as error:
                    if self._late_after(error):
                        continue
                    self._failures += 1
                    logger.debug("pad %s: poll failed (%d): %s", self.zone, self._failures, error)
                    if self._failures >= self.timing.fault_limit:
                        self._lose(error)
                    continue
                self._failures = self._forgiven = 0
                self._late_seen = _late_of(self._reader)
                if not waiting or uids:
                    self._stop.wait(self.timing.poll_interval)
        finally:
            self._drop_reader()
            self._fail_jobs()

    def _interrupt(self) -> None:
        reader = self._reader
        if reader is not None:
            interrupt = getattr(reader, "interrupt", None)
            if interrupt is not None:
                interrupt()

    def _open(self) -> bool:
        try:
            self._reader = self._open_reader(self.path)
        except READER_ERRORS as error:
            self._failures += 1
            logger.debug("pad %s: cannot open %s (%d): %s", self.zone, self.path, self._failures, error)
            # a reader that never answered is offline once it failed fault_limit openings in a row, as
            # one that answered is after fault_limit polls (a busy machine may miss its first ACK)
            if self._online is True or (self._online is None and self._failures >= self.timing.fault_limit):
                self._online = False
                self._emit(ReaderStatus(self.zone, online=False, reason=str(error), t=self._now(), code=_code(error)))
            return False
        self._failures = self._late_seen = 0
        self._online = True
        # the service says a reader back in one line at INFO (and the table's first start says none)
        logger.debug("pad %s: reader on %s online", self.zone, self.path)
        self._emit(ReaderStatus(self.zone, online=True, t=self._now()))
        return True

    def _lose(self, error: BaseException) -> None:
        # said once, by whoever hears the ReaderStatus (the service: in the table's language); here for the maker
        logger.debug("pad %s: reader on %s lost: %s", self.zone, self.path, error)
        self._drop_reader()
        self._online = False
        self._emit(ReaderStatus(self.zone, online=False, reason=str(error), t=self._now(), code=_code(error)))

    def _late_after(self, error: BaseException) -> bool:
        """After a failed poll: put the reader back in step (:meth:`NfcpyReader.resync`); whether its
        chip answered after all, late (a frame of it came after the host had given up on it: a busy
        machine, where a simulated chip is a thread of it, or a host that did not run in time). Such a poll does not
        count towards the fault limit: the chip is there (at most :data:`LATE_FORGIVEN` polls in a
        row, so that a chip always late is still found offline)."""
        late_before = self._late_seen
        resync = getattr(self._reader, "resync", None)
        if resync is not None:
            try:
                resync()
            except READER_ERRORS as failure:
                logger.debug("pad %s: resync failed: %s", self.zone, failure)
        self._late_seen = _late_of(self._reader)
        if self._late_seen == late_before or self._forgiven >= LATE_FORGIVEN:
            return False
        self._forgiven += 1
        logger.debug("pad %s: poll failed, the chip answered late (%d): %s", self.zone, self._forgiven, error)
        return True

    def _drop_reader(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None:
            try:
                reader.close()
            except READER_ERRORS as error:
                logger.debug("pad %s: closing the reader: %s", self.zone, error)
        self._frames_before += _frames_of(reader)  # with those it sent as it closed

    def _run_jobs(self) -> None:
        while True:
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                return
            if not job.result.set_running_or_notify_cancel():
                continue
            try:
                job.result.set_result(job.run(self._reader))  # type: ignore[arg-type]
            except READER_ERRORS as error:
                job.result.set_exception(error)
                if not isinstance(error, TagWriteError):
                    raise
            except ValueError as error:  # a bad argument (a password of the wrong size)
                job.result.set_exception(error)

    def _fail_jobs(self) -> None:
        while True:
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                return
            if job.result.set_running_or_notify_cancel():
                job.result.set_exception(OSError(errno.ENODEV, f"pad {self.zone} is offline"))

    def _emit(self, event: DeviceEvent) -> None:
        try:
            self._emit_to(event)
        except Exception:
            # A broken consumer must not stop the pad.
            logger.exception("pad %s: event consumer failed on %r", self.zone, event)

    def _now(self) -> float:
        return self._clock()


def _code(error: BaseException) -> int | None:
    """The system error number of a reader's failure, or of what caused it (``None``: none)."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno is not None:
            return seen.errno
        seen = seen.__cause__ or seen.__context__
    return None


def _late_of(reader: Reader | None) -> int:
    """How many commands a reader's chip answered late (0 for none, or a reader that does not tell)."""
    late = getattr(reader, "late", 0)
    return late if isinstance(late, int) else 0


def _frames_of(reader: Reader | None) -> Frames:
    """A reader's frames (none for no reader, or one that does not count them: a test's mock)."""
    frames = getattr(reader, "frames", None)
    return frames if isinstance(frames, Frames) else Frames()


class PadSet(Closing):
    """Several pads started together and stopped together (in reverse).

    :param ports: zone → serial port path.
    :param pad_options: passed to every :class:`Pad` (``events=``,
        ``card_for=``, ``open_reader=``, ``timing=``...).
    :raises ValueError: as :class:`Pad`.
    """

    def __init__(self, ports: Mapping[str, str], **pad_options: Any) -> None:
        self.pads: dict[str, Pad] = {}
        self._said = False  # the frames' line, said once
        try:
            for zone, path in ports.items():
                self.pads[zone] = Pad(zone, path, **pad_options)
        except BaseException:
            self.close()
            raise

    def __getitem__(self, zone: str) -> Pad:
        return self.pads[zone]

    def __iter__(self) -> Iterator[Pad]:
        return iter(self.pads.values())

    def __len__(self) -> int:
        return len(self.pads)

    def close(self) -> None:
        """Close every pad, last started first, then say in one line at INFO how many frames each
        pad's reader had to send again (for the maker: ``journalctl -u ecarte-table``). Safe to call twice."""
        for pad in reversed(list(self.pads.values())):
            pad.close()
        if self.pads and not self._said:
            self._said = True
            # the line's phrases, one a pad: a console in a language words them one after the other
            logger.info("%s", "; ".join(f"pad {pad.zone}: {pad.frames}" for pad in self), extra={"said": tuple(
                Phrase.of("log.pad_frames", pad=pad.zone, frames=pad.frames.words) for pad in self)})
