"""The composition root: a table file becomes a running table.

This module builds the parts from a table file (the journal, the controller, the
display, the pads and buttons, real or simulated) and wires them to the event loop
(:class:`firmware_host.service.TableService`), which builds nothing itself. Parts
start in order inside ``try`` and stop in reverse in ``finally``; SIGTERM takes the
same path as Ctrl-C (mopidy's way). No part imports this module or the command line.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import queue
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from engine import RuleSet
from firmware_host.checks.doctor import refusal
from firmware_host.errors import BadInput
from firmware_host.feeder import feed_lines
from firmware_host.journal.store import Journal, JournalBusy, JournalDamaged, JournalError, default_journal
from firmware_host.outputs import FaultLights, JsonLines, TableOutput
from firmware_host.referee.controller import Controller, TableDefaults
from firmware_host.screens.panel import check_png_dir
from firmware_host.service import TableService
from hardware.table import TableConfig

logger = logging.getLogger(__name__)


def load_table_or_exit(path: str | None) -> TableConfig:
    """The table file, or the simulated table.

    :raises BadInput: for a broken or unreadable file.
    """
    from hardware.table import TableFileError, load_table, simulated_table

    if path is None:
        return simulated_table()
    try:
        return load_table(path)
    except TableFileError as exc:
        raise BadInput(str(exc)) from None
    except OSError as exc:
        raise BadInput(f"cannot read the table file {path}: {exc.strerror or exc}") from None


def systemd_notify() -> Callable[[str], None] | None:
    """sd_notify's send when systemd runs us (``NOTIFY_SOCKET``), else None."""
    if not os.environ.get("NOTIFY_SOCKET"):
        return None
    import sdnotify

    notifier = sdnotify.SystemdNotifier()
    return lambda message: notifier.notify(message)


def run_service(args: argparse.Namespace) -> int:
    """``ecarte-table run``: returns the exit status.

    :raises BadInput: the table's configuration fails ``ecarte-table doctor`` (its line quoted:
        :func:`firmware_host.checks.doctor.refusal`, checked once the registry is found).
    """
    from firmware_host.cards.table_tags import TableTags, TagRegistryMissing
    from firmware_host.screens.panel import open_panel

    table = load_table_or_exit(args.table)
    try:
        tags = TableTags.load(table)  # the registry, the [tags] policy, the originality check
    except TagRegistryMissing:
        return wait_for_enrolment(table)
    refused = refusal(table)  # never start on what doctor fails
    if refused is not None:
        raise BadInput(f"the table's configuration fails `ecarte-table doctor`:\n{refused}")
    card_for = tags.card_for if tags.registry is not None else None
    png_dir = check_png_dir(args.png)
    events = _open_events(args.events) if args.events else None
    journal_path = args.journal or default_journal()
    try:
        journal = Journal(journal_path, lock=True)
    except JournalDamaged as exc:
        raise BadInput(f"{exc}. Nothing was changed: `ecarte-table journal salvage --journal {journal_path}` "
                       "keeps every readable game and moves the damaged file aside") from None
    except (JournalBusy, JournalError) as exc:
        raise BadInput(str(exc)) from None
    logger.info("table service: journal %s (%d game(s), %d input lines), table %s, pads %s",
                journal_path, len(journal.games()), journal.fed_lines(), table.name,
                ", ".join(f"{pad.name}={pad.device}" for pad in table.pads) or "none")

    defaults = table_defaults(table, args)
    advisor: Callable[[RuleSet, int, int, str], str] | None = None
    if table.hint:
        from coach.odds import hint_text

        advisor = hint_text  # learners: the elder's odds of standing on the OLED
    controller = Controller(defaults, card_for_uid=card_for, layout=table.layout, pack_guard=tags.guard(),
                            advisor=advisor)
    stack = contextlib.ExitStack()
    with stack:
        stack.callback(journal.close)
        # the events stream is left open: its reader (a daemon thread) may be blocked in a read,
        # and closing a buffered stream under it would wait for that read
        panel = open_panel(table, png_dir=png_dir, terminal=sys.stdout if args.screen else None, tolerant=True)
        stack.callback(panel.close)
        shown: TableOutput = panel
        if table.coach:
            from firmware_host.screens.coaching import CoachedPanel

            shown = CoachedPanel(panel)  # the coach's line on the OLED after each hand
        service = TableService(journal=journal, controller=controller, outputs=[shown], notify=systemd_notify(),
                               paused=lambda message: panel.paused(message, controller.snapshot()))
        # a stop while the parts start takes the same path as one later (the parts close in order)
        stopped = threading.Event()

        def on_signal(signum: int, frame: Any) -> None:
            stopped.set()
            service.stop(signal.Signals(signum).name)

        previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
        stack.callback(lambda: [signal.signal(s, h) for s, h in previous.items()])
        if args.json:
            service.outputs.append(JsonLines(sys.stdout, everything=args.all_events))
        from venue.wiring import venue_outputs  # the page and MQTT (--web, --mqtt, [web], [mqtt])

        shown_on_web = venue_outputs(args, table, Path(journal_path), service.put_physical, stack)
        service.outputs.extend(shown_on_web)
        page_url = next((o.url for o in shown_on_web if hasattr(o, "url")), None)
        gate = (_Gate(tags.route(service))
                if table.tags.deck_check_first and tags.registry is not None and not journal.games()
                else None)  # the deck check first: before the first line of a fresh journal
        devices = open_devices(table, gate.put if gate is not None else tags.route(service), card_for,
                               **tags.pad_options())
        stack.callback(devices.close)
        if devices.seat_controls is not None:
            service.outputs.append(FaultLights(devices.seat_controls))
        if gate is not None and not deck_check_first(table, tags, gate, panel, devices, stopped):
            return 0
        if events is not None:
            source = "<stdin>" if args.events == "-" else args.events

            def ended() -> None:  # the page stays up for whoever looks at it
                print(f"ecarte-table run: the end of {source}; the table's page stays up at {page_url} "
                      "until Ctrl-C", file=sys.stderr, flush=True)

            feeding = {"pace": getattr(args, "pace", 0.0) or 0.0, "stop_at_end": page_url is None, "at_end": ended,
                       "pads_sight": table.sight, "registry": tags.registry is not None}
            threading.Thread(target=feed_lines, args=(service, events, source), kwargs=feeding, name="events",
                             daemon=True).start()
        try:
            service.run()
        except JournalDamaged as exc:  # a line the resume cannot read back: exit 2, never a restart loop
            raise BadInput(f"{exc}. Nothing was changed: `ecarte-table journal salvage --journal {journal_path}` "
                           "keeps every readable game and line and moves the damaged file aside") from None
        finally:
            service.stopping()
            with contextlib.suppress(OSError):
                panel.paused("table paused: the game resumes where it stopped", controller.snapshot())
        if events is not None and service.stats.handled:
            _say_where_it_stands(controller, journal_path)
    return 2 if service.stats.bad_lines else 0


def _say_where_it_stands(controller: Controller, journal: str | os.PathLike[str]) -> None:
    """The input ended with the game unfinished: say where it stands and how to go on."""
    snapshot = controller.snapshot()
    view = snapshot.view
    if view.phase == "over":
        return
    a, b = snapshot.players[0], snapshot.players[1]
    print(f"ecarte-table run: the input ended in game {snapshot.game}, hand {snapshot.hand_no} ({view.phase}), "
          f"{a} {view.score[0]} – {b} {view.score[1]}; the table waits: {snapshot.expectation}. "
          f"The journal {journal} keeps it: `run --journal` on it goes on from there.", file=sys.stderr)


def open_page(listen: str, table: TableConfig, journal: Path | None, stack: contextlib.ExitStack) -> list[Any]:
    """The table's page alone (``demo --web``, ``sim --web``), started; ``stack`` closes it. Read-only:
    nothing on the page changes the game.

    :raises BadInput: an address the page cannot bind.
    """
    from venue.wiring import venue_outputs

    wanted = argparse.Namespace(table=None, web=listen, mqtt=None)
    return venue_outputs(wanted, table, journal, lambda event: None, stack)


def linger(what: str) -> None:
    """Say ``what`` (the page stays up...) and wait for Ctrl-C or SIGTERM (then return)."""
    stopped = threading.Event()
    previous = {s: signal.signal(s, lambda signum, frame: stopped.set()) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        print(what, file=sys.stderr, flush=True)
        while not stopped.wait(1.0):
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class _Gate:
    """The pads' ``put`` while the deck check runs (their events go to :attr:`events`), then
    the service's once :meth:`open`."""

    def __init__(self, then: Callable[[Any], None]) -> None:
        self.events: queue.Queue[Any] = queue.Queue()
        self._then = then
        self._open = False

    def put(self, event: Any) -> None:
        if self._open:
            self._then(event)
        else:
            self.events.put(event)

    def open(self) -> None:
        self._open = True


def deck_check_first(table: TableConfig, tags: Any, gate: _Gate, panel: Any, devices: Devices,
                     stopped: threading.Event) -> bool:
    """``[tags] deck_check_first``: the deck check on the table's pads before the first deal,
    again until a registered pack passes whole and clean (each report on the OLED); on the
    simulated table a simulated operator passes pack 1 over the first pad. ``False``: stopped.
    """
    from firmware_host.cards.deck_check import check_deck
    from firmware_host.screens.deck import deck_lines
    from hardware.deck_log import record_check

    def show(report: Any) -> None:
        panel.message(deck_lines(report, table.language))

    if devices.sim is not None:
        threading.Thread(target=_pass_the_pack, args=(devices.sim, table.pads[0].name, stopped), name="deck",
                         daemon=True).start()
    while not stopped.is_set():
        report = check_deck(gate.events, tags.registry, show, require_genuine=table.tags.require_signature,
                            quiet=1.0 if devices.sim is not None else 3.0, cancel=stopped)
        logger.info("deck check before the first deal: %s", "; ".join(report.lines()))
        if report.ok and report.pack is not None:
            assert table.registry is not None  # doctor.refusal refuses deck_check_first without one
            record_check(table.registry, report.pack)
            gate.open()
            return True
        stopped.wait(2.0)  # the report stays on the OLED a moment, then the check starts again
    return False


def _pass_the_pack(sim: Any, pad: str, stopped: threading.Event) -> None:
    """The simulated table's operator: passes pack 1 over ``pad``, card by card."""
    from hardware.tag_registry import CARDS

    for card in CARDS:
        if stopped.is_set():
            return
        sim.place(pad, card)
        sim.wait_seen(pad, card)
        sim.lift(pad, card)
        sim.wait_seen(pad, None)


def _open_events(path: str) -> IO[bytes]:
    if path == "-":
        return os.fdopen(os.dup(sys.stdin.fileno()), "rb")
    try:
        return open(path, "rb")
    except OSError as exc:
        raise BadInput(f"cannot read {path}: {exc.strerror or exc}") from None


class Devices:
    """The pads and seat controls of a table (or the simulated table); closes them in reverse."""

    def __init__(self) -> None:
        self.sim: Any = None
        self.pads: Any = None
        self.seat_controls: Any = None
        self.pin_factory: Any = None

    def close(self) -> None:
        """Close everything opened (safe to call twice)."""
        for part in (self.seat_controls, self.pin_factory, self.pads, self.sim):
            if part is not None:
                part.close()
        self.sim = self.pads = self.seat_controls = self.pin_factory = None


def open_devices(table: TableConfig, put: Callable[[Any], None],
                 card_for: Callable[[str], str | None] | None, **pad_options: Any) -> Devices:
    """The table's pads and seat controls, real or simulated, putting their events with ``put``
    (``pad_options``: more for every pad, as ``TableTags.pad_options()``)."""
    devices = Devices()
    try:
        if table.simulated:
            from firmware_host.players.simtable import SimulatedTable, sim_tags

            tags = sim_tags(1) | sim_tags(2)
            devices.sim = SimulatedTable(table, events=put, card_for=card_for or tags.get, **pad_options)
            devices.seat_controls = devices.sim.buttons
            return devices
        from drivers.nfc.pad import PadSet
        from drivers.pin_backends import make_pin_factory
        from drivers.seat_controls import SeatControls

        ports = {pad.name: pad.serial_port or pad.device for pad in table.pads}
        devices.pads = PadSet(ports, on_event=put, card_for=card_for, **pad_options)
        devices.pin_factory = make_pin_factory(table.buttons.backend)
        devices.seat_controls = SeatControls(
            table.buttons.by_seat(), pin_factory=devices.pin_factory,
            on_press=put, debounce=table.buttons.debounce,
        )
    except BaseException:
        devices.close()
        raise
    return devices


def table_defaults(table: TableConfig, args: argparse.Namespace) -> TableDefaults:
    """The game the table starts with: the table file's, with ``--rules`` and ``--players``
    over it, and the badges and rule cards it knows.

    :raises BadInput: an unknown rule set, names that are not two, a broken badges file.
    """
    from engine.rules import RULE_SETS
    from hardware.badges import Badges, badges_path
    from hardware.limits import name_problem
    from hardware.tag_registry import TagRegistryError

    rules = getattr(args, "rules", None) or table.rules
    if rules not in RULE_SETS:
        raise BadInput(f"--rules {rules!r}: one of {', '.join(sorted(RULE_SETS))}")
    players: tuple[str, ...] | None = table.players
    if getattr(args, "players", None):
        players = tuple(name.strip() for name in args.players.split(","))
        if len(players) != 2 or not all(players):
            raise BadInput(f"--players {args.players[:80]!r}: two names, A's then B's, like 'Anne,Bruno'")
        problem = next(filter(None, map(name_problem, players)), None)
        if problem is not None:
            raise BadInput(f"--players: {problem}")
    path = badges_path(table)
    try:
        badges = Badges.load(path).tags if path is not None else {}
    except TagRegistryError as exc:
        raise BadInput(str(exc)) from None
    return TableDefaults(rules=rules, target=table.target, players=players, badges=badges, locked=table.locked,
                         sight=table.sight, language=table.language)


def wait_for_enrolment(table: TableConfig) -> int:
    """No tag registry yet on a real table: say what to do, on the OLED and in the log, and
    wait for a stop (exiting would only have systemd start the service again and again)."""
    from firmware_host.screens.panel import open_panel

    what = (f"no cards enrolled: no tag registry at {table.registry}. Stop the service "
            "(sudo systemctl stop ecarte-table), enrol both packs as the service user "
            "(sudo -u ecarte /opt/ecarte-table/venv/bin/ecarte-table enroll /etc/ecarte-table/table.toml "
            "--pack 1, then --pack 2), "
            "then start it again; docs/hardware.md, 'Enrolling the cards'")
    logger.error("%s", what)
    stopped = threading.Event()
    previous = {s: signal.signal(s, lambda signum, frame: stopped.set()) for s in (signal.SIGTERM, signal.SIGINT)}
    notify = systemd_notify()
    try:
        with contextlib.closing(open_panel(table, tolerant=True)) as panel:
            panel.message(["No cards enrolled", "stop the service,", "ecarte-table enroll", "(docs/hardware.md)"])
            if notify is not None:
                notify("READY=1")
                notify("STATUS=no cards enrolled: run ecarte-table enroll")
            while not stopped.wait(WAIT_PING_S):
                if notify is not None:
                    notify("WATCHDOG=1")
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0


WAIT_PING_S = 5.0
"""Seconds between watchdog pings while the table waits for its cards to be enrolled."""
