"""The table service: one event queue, one thread that owns the game.

Pads, buttons and the ``--events`` reader only put events on the queue. The
event loop takes them one at a time: it writes each physical event to the
journal, *then* lets the controller referee it, then puts the table events out
(display, LEDs, ``--json``) and marks the event done. Started again on the same
journal, it replays the current game and resumes where it stopped.

Components start in order inside ``try`` and stop in reverse in ``finally``;
SIGTERM takes the same path as Ctrl-C (mopidy's way).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import queue
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from catalogue.phrase import Phrase, log_said, logged, os_words
from drivers.device_events import ButtonPressed, CardSeen, DeviceEvent, ReaderStatus
from engine import Event, NotationError
from firmware_host.errors import run_said
from firmware_host.journal.replay import replay_game
from firmware_host.journal.store import DONE, PENDING, REJECTED, Journal, JournalDamaged, JournalWriteError
from firmware_host.journal.store_errors import write_words
from firmware_host.outputs import JournaledOutcome, TableOutput, deliver
from firmware_host.referee import (
    ButtonEvent,
    CardEvent,
    Controller,
    NewGame,
    Outcome,
    PhysicalEvent,
    TranscriptError,
    dumps,
    parse_line,
    sighting_event,
)

logger = logging.getLogger(__name__)

WATCHDOG_PING_S = 1.0
"""Seconds between watchdog pings from the event loop (the unit's WatchdogSec is 30 s); also
between tries to write a journal that could not be written."""

FEED_WINDOW = 256
"""Input lines the ``--events`` reader may be ahead of the loop (memory stays bounded)."""


@dataclass(frozen=True)
class _Stop:
    reason: str = "stop"
    wait: bool = False
    """Stop only once the events held (the journal could not be written) are journaled: the end
    of the input, which nobody waits on (a signal stops at once)."""
    said: Phrase | None = None
    """The reason in words (a console in the table's language says them)."""


@dataclass(frozen=True)
class InputLine:
    """An input line (``--events``) and what it held: an event, a problem, or nothing."""

    event: PhysicalEvent | None
    problem: TranscriptError | None = None
    fed: bool = True
    slot: bool = False
    """It holds one of :attr:`TableService.feed_slots` (queued by :func:`feed_lines`)."""
    where: str = ""
    """Where it came from (``FILE:LINE``), for a refusal."""


Work = DeviceEvent | InputLine
"""What the loop journals and referees: a device's event or an input line."""


@dataclass
class ServiceStats:
    """What the loop did: events handled, bad input lines, lines rejected, pauses."""

    handled: int = 0
    arrivals: int = 0
    presses: int = 0
    bad_lines: int = 0
    rejected: int = 0
    pauses: int = 0
    lost: int = 0
    """Events still held (not journaled) when the service stopped: never an exit status 0."""


class TableService:
    """The event loop. Not started until :meth:`run` (which blocks until stopped).

    :param journal: where every physical event goes before it is acted on.
    :param controller: the referee (the service begins it afresh at the journal's game and replays the
        game into it).
    :param outputs: what consumes each outcome (events and snapshot), in order.
    :param notify: sd_notify's send (``READY=1``, ``WATCHDOG=1``...), or None.
    :param paused: shows why the table waits (the journal cannot be written), or None.
    :param report: where a bad input line is told (default: standard error).
    :param by_tag: the table names its cards by their tags (a registry): a pad's card event is
        journaled as the pad's sighting of the tag (:func:`~firmware_host.referee.transcript.sighting_event`).
    """

    def __init__(
        self,
        *,
        journal: Journal,
        controller: Controller,
        outputs: Iterable[TableOutput] = (),
        notify: Callable[[str], None] | None = None,
        paused: Callable[[str], None] | None = None,
        report: Callable[[Any], None] | None = None,
        by_tag: bool = False,
    ) -> None:
        self.journal = journal
        self.by_tag = by_tag
        self.controller = controller
        self.outputs: list[TableOutput] = list(outputs)
        self.notify = notify
        self.paused = paused
        self.report = report or _to_stderr
        self.queue: queue.Queue[Work | _Stop] = queue.Queue()
        self.stats = ServiceStats()
        self.game = 0
        self.seq = 1
        """The ``seq`` of the next table event."""
        self.feed_slots = threading.BoundedSemaphore(FEED_WINDOW)
        """Input lines the ``--events`` reader may have queued and not yet handled."""
        self._last_ping = 0.0
        self._held: deque[Work | _Stop] = deque()
        self._new_game_due = False
        self.waiting_since: float | None = None
        """When the journal last failed a write and the table began to wait (monotonic), or None."""
        self.resumed = False
        """The journal's game is replayed (:meth:`resume`, which :meth:`run` calls first unless it was)."""

    # -- input (any thread) ------------------------------------------------------------------

    def put_device_event(self, event: DeviceEvent) -> None:
        """A pad or button event (called on the device's thread: only enqueues)."""
        self.queue.put(event)

    def put_physical(self, event: PhysicalEvent, *, fed: bool = False) -> None:
        """A transcript event (``fed``: an ``--events`` line, counted in the journal's lines)."""
        self.queue.put(InputLine(event, fed=fed))

    def put_line(self, line: InputLine) -> None:
        self.queue.put(line)

    def stop(self, reason: str = "stop", *, wait: bool = False, said: Phrase | None = None) -> None:
        """Ask the loop to stop after the events already queued (``wait``: and after those it
        holds because the journal cannot be written, however long that takes); ``said``: the
        reason in words, for a console in the table's language."""
        self.queue.put(_Stop(reason, wait, said))

    # -- the loop (one thread) -----------------------------------------------------------------

    def resume(self) -> None:
        """Replay the journal's current game into the controller (or start a game).

        A line the referee refuses is marked rejected and skipped (as it was when it came).
        """
        record = self.journal.current_game()
        if record is None:
            self._start_game()
            self.controller.begin(self.game)  # the journal's first game (its number is the journal's)
        else:
            self.game = record.game
            self.controller.begin(self.game)  # the game replayed: the referee numbers the next ones
            if record.seqs and record.seqs[0] is not None:
                self.seq = record.seqs[0]
            where = f"{self.journal.path}#game{record.game}"
            try:
                for line in replay_game(record, self._referee, source=where):
                    event_id, status = record.ids[line.index], record.status[line.index]
                    if line.outcome is None:
                        self._mark(event_id, REJECTED)
                        continue
                    if status == PENDING:
                        # acted on before the stop, but its table events may not have gone out
                        self._publish(line.outcome)
                        self._mark(event_id, DONE)
                    if line.new_game:
                        self._start_game()
            except TranscriptError as exc:
                raise JournalDamaged(self.journal.path, [
                    f"game {record.game}, line {exc.line_no} cannot be read back ({exc.problem})"]) from None
        self._publish(self.controller.outcome())
        self.resumed = True

    def _start_game(self) -> None:
        """Journal the game the controller starts (the journal numbers its games one after the
        other, as the referee does)."""
        self.game = self.journal.start_game(dumps(self.controller.current_setup()), seq=self.seq)

    def run(self) -> None:
        """Handle events until :meth:`stop` (blocks), the journal's game resumed first unless it was."""
        if not self.resumed:
            self.resume()
        self._notify("READY=1")
        while True:
            if self._held and self.waiting_since is None:
                item = self._held.popleft()
            else:
                try:
                    item = self.queue.get(timeout=WATCHDOG_PING_S)
                except queue.Empty:
                    self._ping()
                    if self.waiting_since is not None:
                        self._retry()
                    continue
            self._ping()
            if isinstance(item, _Stop):
                self.stats.lost = sum(1 for held in self._held if not isinstance(held, _Stop))
                if item.wait and self.stats.lost:  # the end of the input: what is held is journaled first
                    self._held.append(item)
                    continue
                if self.stats.lost:
                    log_said(logger, logging.ERROR, Phrase.of("log.stopping_lost", n=self.stats.lost))
                logger.info("table service stopping: %s", item.reason,
                            extra=logged(Phrase.of("log.stopping", reason=item.said)) if item.said else None)
                break
            if self.waiting_since is not None:
                self._held.append(item)
                self._retry()
                continue
            self.handle(item)

    def handle(self, item: Work) -> tuple[Event, ...]:
        """Journal, referee and put out one queued item; the table events."""
        try:
            return self._handle(item)
        except JournalWriteError as exc:
            self._wait_for_journal(item, exc)
            return ()
        finally:
            self._release(item)

    def _release(self, item: Work) -> None:
        """A fed line is dealt with (not held): the reader may queue another."""
        if isinstance(item, InputLine) and item.slot and not any(held is item for held in self._held):
            self.feed_slots.release()

    def _handle(self, item: Work) -> tuple[Event, ...]:
        if isinstance(item, ReaderStatus):
            status = self.controller.reader(item.zone, item.online, item.reason)
            if item.online:
                if status.events:  # a reader coming up at the start is no news
                    log_said(logger, logging.INFO, Phrase.of("log.reader_back", pad=item.zone))
            else:
                log_said(logger, logging.WARNING, _offline_words(item))
            self._publish(status)
            return status.events
        if self._new_game_due:
            self._start_game()
            self._new_game_due = False
        if isinstance(item, InputLine) and item.event is None:
            if item.fed:
                self.journal.count_line()  # a blank line, a comment or a bad line: feeding resumes after it
            if item.problem is not None:
                self.stats.bad_lines += 1
                self.report(item.problem)
            return ()
        event = self._physical(item)
        if event is None:
            return ()
        fed = isinstance(item, InputLine) and item.fed
        line = dumps(event)
        problem = journal_problem(line)
        if problem is not None:  # what the resume could not read back is never journaled
            if fed:
                self.journal.count_line()
            self.stats.bad_lines += 1
            where = item.where if isinstance(item, InputLine) and item.where else "input"
            self.report(Phrase.of("run.line_refused", where=where, problem=problem))
            return ()
        event_id = self.journal.append(self.game, line, seq=self.seq, fed=fed)
        if isinstance(event, CardEvent) and not event.gone:
            self.stats.arrivals += 1
        elif isinstance(event, ButtonEvent):
            self.stats.presses += 1
        outcome = self._referee(event, f"{self.journal.path}#game{self.game}")
        if outcome is None:
            self.stats.bad_lines += 1
            self._mark(event_id, REJECTED)
            return ()
        self.stats.handled += 1  # counted before the outputs see it: they may wait on the count
        new_game = any(isinstance(o, NewGame) for o in outcome.events)
        self._publish(outcome)
        self._mark(event_id, DONE)
        if new_game:
            self._new_game_due = True
            try:
                self._start_game()
                self._new_game_due = False
            except JournalWriteError as exc:  # this event is done: the next one starts the game first
                log_said(logger, logging.WARNING, Phrase.of("log.game_written_next", error=write_words(exc)))
        return outcome.events

    def _referee(self, event: PhysicalEvent, where: str) -> JournaledOutcome | None:
        """The controller's outcome, numbered from :attr:`seq`; None when it refuses the event
        (it is then as if the event had not come: the referee's state is the one before it)."""
        try:
            outcome = self.controller.handle(event)
        except Exception as exc:
            self.stats.rejected += 1
            problem: Phrase | str
            if isinstance(exc, NotationError):
                problem = str(exc)  # the rules' own English, as --json and the transcripts say it
            else:  # a referee's bug must not stop the table (nor come back on every restart)
                problem = Phrase.of("run.referee_failed", error=f"{type(exc).__name__}: {exc}")
                logger.debug("the referee failed on %s", dumps(event), exc_info=True)
            self.report(Phrase.of("run.line_rejected", where=where, problem=problem))
            return None
        numbered = JournaledOutcome(outcome.events, outcome.snapshot, outcome.private, first_seq=self.seq)
        self.seq += len(outcome.events)
        return numbered

    def _mark(self, event_id: int, status: int) -> None:
        try:
            self.journal.mark_done(event_id, status)
        except JournalWriteError as exc:
            # its events went out; on resume they go out again, with the same seq
            log_said(logger, logging.WARNING, Phrase.of("log.events_again", error=write_words(exc)))

    def _wait_for_journal(self, item: Work, exc: JournalWriteError) -> None:
        """The journal cannot be written: keep the event and wait (the disk may be full)."""
        self._held.appendleft(item)
        if self.waiting_since is None:
            self.waiting_since = time.monotonic()
            self.stats.pauses += 1
            log_said(logger, logging.ERROR, Phrase.of("log.journal_waits_full" if exc.full else "log.journal_waits",
                                                      error=write_words(exc)))
            if self.paused is not None:
                try:
                    self.paused("journal full: table waits" if exc.full else "journal error: table waits")
                except OSError as error:
                    logger.debug("display: %s", error)

    def _retry(self) -> None:
        if not self._held:
            self.waiting_since = None
            return
        item = self._held[0]
        if isinstance(item, _Stop):  # everything held before it is journaled: the loop stops
            self.waiting_since = None
            return
        self._held.popleft()
        held = self.waiting_since
        self.waiting_since = None
        try:
            self._handle(item)
        except JournalWriteError:
            self._held.appendleft(item)
            self.waiting_since = held
            return
        finally:
            self._release(item)
        log_said(logger, logging.WARNING, Phrase.of("log.journal_back"))
        self._publish(self.controller.outcome())

    def _physical(self, item: CardSeen | ButtonPressed | InputLine) -> PhysicalEvent | None:
        if isinstance(item, InputLine):
            return item.event
        if isinstance(item, CardSeen):
            return sighting_event(item, by_tag=self.by_tag)  # the one door from a pad's sighting to the transcript
        return ButtonEvent(item.seat, item.button)

    def _publish(self, outcome: Outcome) -> None:
        deliver(self.outputs, outcome, _output_failed)  # a seat's private view to its earpiece alone

    def _ping(self) -> None:
        now = time.monotonic()
        if now - self._last_ping >= WATCHDOG_PING_S:
            self._last_ping = now
            self._notify("WATCHDOG=1")

    def stopping(self) -> None:
        """Tell systemd the service is stopping (``STOPPING=1``)."""
        self._notify("STOPPING=1")

    def _notify(self, message: str) -> None:
        if self.notify is not None:
            try:
                self.notify(message)
            except OSError as exc:
                logger.debug("sd_notify %s: %s", message, exc)


def _offline_words(status: ReaderStatus) -> Phrase:
    """A reader offline, said once in the console's language, never in the C library's English: why, when
    the system said it (``os.ENOENT``...), else that it stopped answering (no answer in time, or frames
    nfcpy could not read, its "input/output error", or a port that hung up)."""
    if status.code is not None and status.code not in (errno.EIO, errno.ETIMEDOUT):
        return Phrase.of("log.reader_offline", pad=status.zone, why=os_words(OSError(status.code, status.reason)))
    if status.code is not None or status.reason:
        return Phrase.of("log.reader_failed", pad=status.zone)
    return Phrase.of("log.reader_gone", pad=status.zone)


def _output_failed(output: TableOutput, exc: OSError) -> None:
    """A display unplugged, a closed pipe: said in the log, and the table referees on."""
    log_said(logger, logging.ERROR, Phrase.of("log.output_failed", output=type(output).__name__, why=os_words(exc)))


def journal_problem(line: str) -> Phrase | str | None:
    """Why ``line`` cannot be journaled (the resume could not read it back: the same check,
    :func:`~firmware_host.referee.transcript.parse_line`), in words where it is worded, or None."""
    try:
        parse_line(line)
    except TranscriptError as exc:
        return exc.why
    return None


def reporter(lang: str, write: Callable[[str], None] | None = None) -> Callable[[Any], None]:
    """What ``ecarte-table run`` says at its console of an input line it did not take, in ``lang``: words (a
    phrase, an error that carries its own) headed by the command's name (:func:`firmware_host.errors.run_said`),
    each line given to ``write`` (default: standard error)."""
    from catalogue.phrase import said

    def report(words: Any) -> None:
        line = run_said(lang, said(words, lang))
        if write is not None:
            write(line)
            return
        with contextlib.suppress(OSError):
            print(line, file=sys.stderr, flush=True)

    return report


_to_stderr = reporter("en")


