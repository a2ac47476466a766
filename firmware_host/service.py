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

import json
import logging
import queue
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol, TextIO

from drivers.events import ButtonPressed, CardSeen, DeviceEvent, ReaderStatus
from engine import Event
from firmware_host.controller import CONTRACT_EVENTS, Controller, NewGame
from firmware_host.journal import Journal
from firmware_host.snapshot import Outcome
from firmware_host.transcript import (
    ButtonEvent,
    CardEvent,
    PhysicalEvent,
    TranscriptError,
    dumps,
    parse_line,
)

logger = logging.getLogger(__name__)

WATCHDOG_PING_S = 1.0
"""Seconds between watchdog pings from the event loop (the unit's WatchdogSec is 30 s)."""


class TableOutput(Protocol):
    """What consumes the referee's outcomes: the display, the LEDs, ``--json``, the demo,
    the web page, MQTT. Called on the event loop's thread: it must not block."""

    def publish(self, outcome: Outcome) -> None: ...


class SeatLights(Protocol):
    """The seats' LEDs and buzzers (:class:`drivers.seat_controls.SeatControls`)."""

    def led_on(self, seat: str) -> None: ...

    def led_off(self, seat: str) -> None: ...

    def beep(self, seat: str, *, on_time: float = 0.1, off_time: float = 0.1, n: int = 1) -> bool: ...


class FaultLights:
    """A :class:`TableOutput` that lights (and beeps) the seats with a fault to put right."""

    def __init__(self, lights: SeatLights) -> None:
        self.lights = lights
        self._lit: frozenset[str] = frozenset()

    def publish(self, outcome: Outcome) -> None:
        lit = outcome.snapshot.faulty_seats
        for seat in lit - self._lit:
            self.lights.led_on(seat)
            self.lights.beep(seat, n=2)  # a seat without a buzzer only lights up
        for seat in self._lit - lit:
            self.lights.led_off(seat)
        self._lit = lit


class JsonLines:
    """A :class:`TableOutput` that prints table events as JSON lines (``--json``): the kinds
    of TRANSCRIPT.md's contract, or ``everything``."""

    def __init__(self, out: TextIO, *, everything: bool = False) -> None:
        self.out = out
        self.everything = everything

    def publish(self, outcome: Outcome) -> None:
        wrote = False
        for ev in outcome.events:
            if self.everything or ev.event in CONTRACT_EVENTS:
                data = ev.to_json()
                names = outcome.snapshot.players
                if ev.event in ("game_end", "new_game") and names[:2] != ("A", "B"):
                    data["players"] = {"A": names[0], "B": names[1]}  # an added field: who sat where
                self.out.write(json.dumps(data, ensure_ascii=False) + "\n")
                wrote = True
        if wrote:
            self.out.flush()


@dataclass
class _Stop:
    reason: str = "stop"


@dataclass
class _Line:
    event: PhysicalEvent


@dataclass
class ServiceStats:
    """What the loop did: events handled, bad input lines, outcomes published."""

    handled: int = 0
    arrivals: int = 0
    presses: int = 0
    bad_lines: int = 0
    published: int = 0


class TableService:
    """The event loop. Not started until :meth:`run` (which blocks until stopped).

    :param journal: where every physical event goes before it is acted on.
    :param controller: the referee (a fresh one: the service replays the journal into it).
    :param outputs: what consumes each outcome (events and snapshot), in order.
    :param notify: sd_notify's send (``READY=1``, ``WATCHDOG=1``...), or None.
    """

    def __init__(
        self,
        *,
        journal: Journal,
        controller: Controller,
        outputs: Iterable[TableOutput] = (),
        notify: Callable[[str], None] | None = None,
    ) -> None:
        self.journal = journal
        self.controller = controller
        self.outputs: list[TableOutput] = list(outputs)
        self.notify = notify
        self.queue: queue.Queue[Any] = queue.Queue()
        self.stats = ServiceStats()
        self.game = 0
        self._last_ping = 0.0

    # -- input (any thread) ------------------------------------------------------------------

    def put_device_event(self, event: DeviceEvent) -> None:
        """A pad or button event (called on the device's thread: only enqueues)."""
        self.queue.put(event)

    def put_physical(self, event: PhysicalEvent) -> None:
        """A transcript event (from ``--events``)."""
        self.queue.put(_Line(event))

    def stop(self, reason: str = "stop") -> None:
        """Ask the loop to stop after the events already queued."""
        self.queue.put(_Stop(reason))

    # -- the loop (one thread) -----------------------------------------------------------------

    def resume(self) -> None:
        """Replay the journal's current game into the controller (or start a game)."""
        record = self.journal.current_game()
        if record is None:
            self.game = self.journal.start_game(dumps(self.controller.current_setup()))
        else:
            self.game = record.game
            for line, event_id, done in zip(record.lines, record.ids, record.done, strict=True):
                event = parse_line(line, source=f"{self.journal.path}#game{record.game}")
                if event is None:
                    continue
                outcome = self.controller.handle(event)
                if not done:
                    # acted on before the stop, but its table events may not have gone out
                    self._publish(outcome)
                    self.journal.mark_done(event_id)
                if any(isinstance(o, NewGame) for o in outcome.events):
                    self.game = self.journal.start_game(dumps(self.controller.current_setup()))
        self._publish(Outcome((), self.controller.snapshot()))

    def run(self) -> None:
        """Handle events until :meth:`stop` (blocks)."""
        self.resume()
        self._notify("READY=1")
        while True:
            try:
                item = self.queue.get(timeout=WATCHDOG_PING_S)
            except queue.Empty:
                self._ping()
                continue
            self._ping()
            if isinstance(item, _Stop):
                logger.info("table service stopping: %s", item.reason)
                break
            self.handle(item)

    def handle(self, item: Any) -> tuple[Event, ...]:
        """Journal, referee and put out one queued item; the table events."""
        if isinstance(item, ReaderStatus):
            outcome = self.controller.reader(item.zone, item.online, item.reason)
            self._publish(outcome)
            return outcome.events
        event = self._physical(item)
        if event is None:
            return ()
        if isinstance(event, CardEvent) and not event.gone:
            self.stats.arrivals += 1
        elif isinstance(event, ButtonEvent):
            self.stats.presses += 1
        event_id = self.journal.append(self.game, dumps(event))
        outcome = self.controller.handle(event)
        self._publish(outcome)
        self.journal.mark_done(event_id)
        self.stats.handled += 1
        if any(isinstance(o, NewGame) for o in outcome.events):
            self.game = self.journal.start_game(dumps(self.controller.current_setup()))
        return outcome.events

    def _physical(self, item: Any) -> PhysicalEvent | None:
        if isinstance(item, _Line):
            return item.event
        if isinstance(item, CardSeen):
            if item.card is not None:
                return CardEvent(item.zone, card=item.card, gone=item.gone)
            return CardEvent(item.zone, uid=item.uid, gone=item.gone)
        if isinstance(item, ButtonPressed):
            return ButtonEvent(item.seat, item.button)
        logger.warning("ignoring %r on the event queue", item)
        return None

    def _publish(self, outcome: Outcome) -> None:
        for output in self.outputs:
            try:
                output.publish(outcome)
            except OSError as exc:
                # a display unplugged, a closed pipe: the table referees on
                logger.error("%s: %s", type(output).__name__, exc)
        self.stats.published += 1

    def _ping(self) -> None:
        now = time.monotonic()
        if now - self._last_ping >= WATCHDOG_PING_S:
            self._last_ping = now
            self._notify("WATCHDOG=1")

    def _notify(self, message: str) -> None:
        if self.notify is not None:
            try:
                self.notify(message)
            except OSError as exc:
                logger.debug("sd_notify %s: %s", message, exc)


def feed_lines(service: TableService, lines: Iterable[str], source: str, *,
               stop_at_end: bool = True, errors: list[TranscriptError] | None = None) -> None:
    """Read transcript lines as they arrive and queue their events (runs on its own thread).

    A bad line is reported on stderr with its file and number, and skipped.
    """
    for line_no, text in enumerate(lines, start=1):
        try:
            event = parse_line(text, source=source, line_no=line_no)
        except TranscriptError as exc:
            print(f"ecarte-table run: {exc}", file=sys.stderr, flush=True)
            if errors is not None:
                errors.append(exc)
            service.stats.bad_lines += 1
            continue
        if event is not None:
            service.put_physical(event)
    if stop_at_end:
        service.stop(f"end of {source}")


