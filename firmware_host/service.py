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

import argparse
import contextlib
import json
import logging
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol, TextIO

from drivers.events import ButtonPressed, CardSeen, DeviceEvent, ReaderStatus
from engine import Event
from firmware_host.controller import CONTRACT_EVENTS, Controller, NewGame, TableDefaults
from firmware_host.journal import Journal, JournalError
from firmware_host.transcript import (
    ButtonEvent,
    CardEvent,
    PhysicalEvent,
    Setup,
    TranscriptError,
    dumps,
    parse_line,
)

logger = logging.getLogger(__name__)

WATCHDOG_PING_S = 1.0
"""Seconds between watchdog pings from the event loop (the unit's WatchdogSec is 30 s)."""


class Panel(Protocol):
    """What shows the game: the OLED (or its simulated twin)."""

    def show(self, controller: Controller) -> None: ...

    def paused(self, message: str) -> None: ...

    def close(self) -> None: ...


class Lights(Protocol):
    """The seats' LEDs (and buzzers)."""

    def led_on(self, seat: str) -> None: ...

    def led_off(self, seat: str) -> None: ...

    def beep(self, seat: str, *, on_time: float = 0.1, off_time: float = 0.1, n: int = 1) -> bool: ...


@dataclass
class _Stop:
    reason: str = "stop"


@dataclass
class _Line:
    event: PhysicalEvent


@dataclass
class ServiceStats:
    """What the loop did: events handled, bad input lines, frames shown."""

    handled: int = 0
    arrivals: int = 0
    presses: int = 0
    bad_lines: int = 0
    frames: int = 0


class TableService:
    """The event loop. Not started until :meth:`run` (which blocks until stopped).

    :param journal: where every physical event goes before it is acted on.
    :param controller: the referee (a fresh one: the service replays the journal into it).
    :param panel: the display, or None.
    :param lights: the seats' LEDs, or None.
    :param json_out: where ``--json`` lines go (None: nowhere).
    :param everything: print every event kind, not only TRANSCRIPT.md's.
    :param notify: sd_notify's send (``READY=1``, ``WATCHDOG=1``...), or None.
    """

    def __init__(
        self,
        *,
        journal: Journal,
        controller: Controller,
        panel: Panel | None = None,
        lights: Lights | None = None,
        json_out: TextIO | None = None,
        everything: bool = False,
        notify: Callable[[str], None] | None = None,
        on_events: Callable[[list[Event]], None] | None = None,
    ) -> None:
        self.journal = journal
        self.controller = controller
        self.panel = panel
        self.lights = lights
        self.json_out = json_out
        self.everything = everything
        self.notify = notify
        self.on_events = on_events
        self.queue: queue.Queue[Any] = queue.Queue()
        self.stats = ServiceStats()
        self.game = 0
        self._lit: set[str] = set()
        self._last_ping = 0.0
        self.busy = False
        """True while the loop handles an event (others may poll it to know the table is idle)."""

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
            self.game = self.journal.start_game(dumps(self.controller_setup()))
        else:
            self.game = record.game
            for line, event_id, done in zip(record.lines, record.ids, record.done, strict=True):
                event = parse_line(line, source=f"{self.journal.path}#game{record.game}")
                if event is None:
                    continue
                outputs = self.controller.handle(event)
                if not done:
                    # acted on before the stop, but its table events may not have gone out
                    self._emit(outputs)
                    self.journal.mark_done(event_id)
                if any(isinstance(o, NewGame) for o in outputs):
                    self.game = self.journal.start_game(dumps(self.controller_setup()))
        self._refresh()

    def controller_setup(self) -> Setup:
        """The setup line that starts the controller's current game."""
        state = self.controller.state
        return Setup(
            rules=state.rules.name,
            dealer=state.dealer or None,
            target=state.target,
            tags=dict(self.controller.tags),
            options=state.rules.options(),
        )

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
            self.busy = True
            try:
                self.handle(item)
            finally:
                self.busy = False

    def handle(self, item: Any) -> list[Event]:
        """Journal, referee and put out one queued item; the table events."""
        if isinstance(item, ReaderStatus):
            outputs = self.controller.reader(item.zone, item.online, item.reason)
            self._emit(outputs)
            self._refresh()
            return outputs
        event = self._physical(item)
        if event is None:
            return []
        if isinstance(event, CardEvent) and not event.gone:
            self.stats.arrivals += 1
        elif isinstance(event, ButtonEvent):
            self.stats.presses += 1
        event_id = self.journal.append(self.game, dumps(event))
        outputs = self.controller.handle(event)
        self._emit(outputs)
        self.journal.mark_done(event_id)
        self.stats.handled += 1
        if any(isinstance(o, NewGame) for o in outputs):
            self.game = self.journal.start_game(dumps(self.controller_setup()))
        self._refresh()
        return outputs

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

    def _emit(self, outputs: list[Event]) -> None:
        if self.on_events is not None and outputs:
            self.on_events(outputs)
        if self.json_out is None:
            return
        wrote = False
        for ev in outputs:
            if self.everything or ev.event in CONTRACT_EVENTS:
                self.json_out.write(json.dumps(ev.to_json(), ensure_ascii=False) + "\n")
                wrote = True
        if wrote:
            self.json_out.flush()

    def _refresh(self) -> None:
        if self.panel is not None:
            try:
                self.panel.show(self.controller)
                self.stats.frames += 1
            except OSError as exc:
                logger.error("display: %s", exc)
        if self.lights is not None:
            lit = self.controller.faulty_seats
            for seat in lit - self._lit:
                self.lights.led_on(seat)
                self.lights.beep(seat, n=2)  # a seat without a buzzer only lights up
            for seat in self._lit - lit:
                self.lights.led_off(seat)
            self._lit = lit

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


def _systemd_notify() -> Callable[[str], None] | None:
    import os

    if not os.environ.get("NOTIFY_SOCKET"):
        return None
    import sdnotify

    notifier = sdnotify.SystemdNotifier()
    return lambda message: notifier.notify(message)


def run_service(args: argparse.Namespace) -> int:
    """``ecarte-table run``: returns the exit status."""
    from firmware_host.cli import default_journal, load_table_or_exit
    from firmware_host.errors import BadInput
    from firmware_host.panel import open_panel
    from hardware.tags import TagRegistry, TagRegistryError

    table = load_table_or_exit(args.table)
    card_for: Callable[[str], str | None] | None = None
    registry_tags: dict[str, str] = {}
    if table.registry is not None:
        try:
            registry = TagRegistry.load(table.registry)
        except (OSError, TagRegistryError) as exc:
            raise BadInput(f"tag registry {table.registry}: {exc}") from None
        card_for = registry.card_for
    journal_path = args.journal or default_journal()
    try:
        journal = Journal(journal_path)
    except JournalError as exc:
        raise BadInput(str(exc)) from None

    defaults = TableDefaults(rules=table.rules, target=table.target, tags=registry_tags)
    controller = Controller(defaults, card_for_uid=card_for, layout=table.layout)
    errors: list[TranscriptError] = []
    stack = contextlib.ExitStack()
    stop_reason: list[str] = []
    with stack:
        stack.callback(journal.close)
        panel = open_panel(table, png_dir=args.png, terminal=sys.stdout if args.screen else None, tolerant=True)
        stack.callback(panel.close)
        service = TableService(
            journal=journal, controller=controller, panel=panel,
            json_out=sys.stdout if args.json else None, everything=args.all_events,
            notify=_systemd_notify(),
        )
        devices = _open_devices(table, service, card_for)
        stack.callback(devices.close)
        if devices.buttons is not None:
            service.lights = devices.buttons

        def on_signal(signum: int, frame: Any) -> None:
            stop_reason.append(signal.Signals(signum).name)
            service.stop(signal.Signals(signum).name)

        previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
        stack.callback(lambda: [signal.signal(s, h) for s, h in previous.items()])
        if args.events:
            stream = sys.stdin if args.events == "-" else _open_events(args.events)
            source = "<stdin>" if args.events == "-" else args.events
            reader = threading.Thread(
                target=feed_lines, args=(service, stream, source), kwargs={"errors": errors},
                name="events", daemon=True,
            )
            reader.start()
        try:
            service.run()
        finally:
            service._notify("STOPPING=1")
            with contextlib.suppress(OSError):
                panel.paused("table paused: the game resumes where it stopped", controller)
    return 2 if errors else 0


def _open_events(path: str) -> TextIO:
    from firmware_host.errors import BadInput

    try:
        return open(path, encoding="utf-8")
    except OSError as exc:
        raise BadInput(f"cannot read {path}: {exc.strerror or exc}") from None


class _Devices:
    def __init__(self) -> None:
        self.sim: Any = None
        self.pads: Any = None
        self.buttons: Any = None
        self._factory: Any = None

    def close(self) -> None:
        for part in (self.buttons, self._factory, self.pads, self.sim):
            if part is not None:
                part.close()
        self.sim = self.pads = self.buttons = self._factory = None


def _open_devices(table: Any, service: TableService,
                  card_for: Callable[[str], str | None] | None) -> _Devices:
    """The table's pads and buttons, real or simulated, feeding the service's queue."""
    devices = _Devices()
    try:
        if table.simulated:
            from firmware_host.simtable import SimulatedTable, sim_tags

            tags = sim_tags(1) | sim_tags(2)
            devices.sim = SimulatedTable(
                table, events=service.put_device_event,
                card_for=card_for or tags.get,
            )
            devices.buttons = devices.sim.buttons
            return devices
        from drivers.buttons import Buttons, make_pin_factory
        from drivers.nfc.pad import PadSet

        ports = {pad.name: pad.serial_port or pad.device for pad in table.pads}
        devices.pads = PadSet(ports, on_event=service.put_device_event, card_for=card_for)
        devices._factory = make_pin_factory(table.buttons.backend)
        devices.buttons = Buttons(
            table.buttons.by_seat(), pin_factory=devices._factory,
            on_press=service.put_device_event, debounce=table.buttons.debounce,
        )
    except BaseException:
        devices.close()
        raise
    return devices
