"""The composition root: a table file becomes a running table.

This module builds the parts from a table file (the journal, the controller, the
display, the pads and buttons, real or simulated) and wires them to the event loop
(:class:`firmware_host.service.TableService`), which builds nothing itself. Parts
start in order inside ``try`` and stop in reverse in ``finally``; SIGTERM takes the
same path as Ctrl-C (mopidy's way). No part imports this module or the command line, and this
module sees no command line either: the command (``cli/run.py``) gives it
:class:`RunOptions`, plain values, and registers what lies above the service (the venue's page
and MQTT) as :class:`~firmware_host.outputs.OutputSource` s.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from catalogue import say
from catalogue.phrase import Phrase, log_said, said_at_the_console
from engine import RuleSet
from firmware_host.checks.doctor import Refused, refusal
from firmware_host.errors import BadInput, run_said
from firmware_host.feeder import feed_lines
from firmware_host.journal.store import Journal, JournalBusy, JournalDamaged, JournalError, default_journal
from firmware_host.outputs import FaultLights, JsonLines, OutputSource, TableOutput, say_the_start, say_where_it_stands
from firmware_host.referee import Controller, Setup, TableDefaults, setup_problem
from firmware_host.screens.panel import check_png_dir
from firmware_host.service import ServiceStats, TableService, reporter
from hardware.limits import nfc
from hardware.table import TableConfig

if TYPE_CHECKING:  # opened late: `run` alone needs them
    from drivers.device_events import DeviceEvent
    from drivers.nfc.pad_contents import CardLookup
    from drivers.seat_controls import SeatControls
    from firmware_host.cards.deck_check import DeckReport
    from firmware_host.cards.deck_gate import DeckGate
    from firmware_host.cards.table_tags import TableTags
    from firmware_host.players.simtable import SimulatedTable
    from firmware_host.screens.panel import Panel
    from firmware_host.voice.voice_parts import VoiceParts
    from hardware.table_devices import TableDevices
    from hardware.tag_registry import TagRegistry

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
        raise BadInput.of(exc) from None
    except OSError as exc:
        raise BadInput(msgid="error.table_file", path=path, reason=exc) from None


def systemd_notify() -> Callable[[str], None] | None:
    """sd_notify's send when systemd runs us (``NOTIFY_SOCKET``), else None."""
    if not os.environ.get("NOTIFY_SOCKET"):
        return None
    import sdnotify

    notifier = sdnotify.SystemdNotifier()
    return lambda message: notifier.notify(message)


@dataclass(frozen=True, slots=True)
class GameOptions:
    """What a command asks of the game over the table file's (None: the table file's).

    :param rules: the first game's rule set; ``players``: ``"Anne,Bruno"``; ``dealer``: the first dealer
        (None: cut for it); ``language``: the OLED's; ``sight``: ``full`` or ``partial``.
    """

    rules: str | None = None
    players: str | None = None
    dealer: str | None = None
    language: str | None = None
    sight: str | None = None


def build_referee(table: TableConfig, game: GameOptions | None = None, tags: TableTags | None = None) -> Controller:
    """The referee of ``table`` (``run``, the demo and ``sim`` build theirs here): its game, its
    layout, the tags' registry (``tags``: a :class:`~firmware_host.cards.table_tags.TableTags`,
    None: no registry) and the learners' hints.

    :raises BadInput: an unknown rule set, names that are not two, a broken badges file.
    """
    defaults = table_defaults(table, game or GameOptions())
    advisor: Callable[[RuleSet, int, int, str], str] | None = None
    if table.hint:
        from coach.odds import hint_text

        advisor = hint_text  # learners: the elder's odds of standing on the OLED
    return Controller(defaults, registry=tags.registry if tags is not None else None, advisor=advisor)


@dataclass(frozen=True, slots=True)
class RunOptions:
    """What ``ecarte-table run`` is asked to do, as plain values (the command line's flags).

    :param table: the table file (None: the simulated table).
    :param journal: the journal (None: the state directory's).
    :param events: a transcript to feed as well (``-``: standard input).
    :param pace: seconds before each fed line after the first.
    :param json: print the table events as JSON lines; ``all_events``: every kind, not only the contract's.
    :param png: save every frame as a PNG in this folder; ``screen``: draw the frames in the terminal.
    :param game: the game over the table file's (``--rules``, ``--players``).
    :param voice: ``--voice DIR``: the table's voice into WAVs there (None: the table file's ``[voice]``).
    :param sources: outputs that come from above the service (the venue's page and MQTT).
    :param language: the console's language (``--language``; None: the table file's): the lines a
        player or maker reads there at INFO and above (:func:`catalogue.phrase.said_at_the_console`).
    """

    table: str | None = None
    journal: Path | None = None
    events: str | None = None
    pace: float = 0.0
    json: bool = False
    all_events: bool = False
    png: Path | None = None
    screen: bool = False
    game: GameOptions = GameOptions()
    voice: Path | None = None
    language: str | None = None
    sources: tuple[OutputSource, ...] = ()


def run_service(options: RunOptions) -> int:
    """``ecarte-table run``: the table's parts opened (:func:`open_parts`), then run (:func:`run_parts`)
    until a stop or the end of the input; returns the exit status (:func:`exit_status`).

    :raises BadInput: the table's configuration fails ``ecarte-table doctor`` (its line quoted:
        :func:`firmware_host.checks.doctor.refusal`, checked once the registry is found), a PNG
        folder, events file or journal that cannot be used.
    """
    from firmware_host.cards.table_tags import TableTags, TagRegistryMissing

    table = load_table_or_exit(options.table)
    try:
        tags = TableTags.load(table)  # the registry, the [tags] policy, the originality check
    except TagRegistryMissing:
        return wait_for_cards(table)
    if refusal(table) is not None:  # never start on what doctor fails
        raise BadInput(msgid="error.doctor_fails", check=Refused(table),
                       language=table.language if table.language_named else None)
    for source in options.sources:  # their settings and secret files, before any device starts
        source.check(table)
    png_dir = check_png_dir(options.png)
    # the events stream is never closed: its reader (a daemon thread) may be blocked in a read,
    # and closing a buffered stream under it would wait for that read
    events = _open_events(options.events) if options.events else None
    journal = open_journal(options.journal or default_journal())
    with contextlib.ExitStack() as stack:
        stack.callback(journal.close)
        stack.enter_context(said_at_the_console(options.language or table.language))
        parts = open_parts(table, tags, journal, options, png_dir, stack)
        if parts.gate is not None and parts.registry is not None and not check_the_deck_first(parts):
            return 0
        stats = run_parts(parts, options, events)
    return exit_status(stats)


def open_journal(path: Path) -> Journal:
    """The table's journal at ``path``, locked for this service.

    :raises BadInput: damaged (with the salvage command to run), busy (another service holds it),
        or unreadable.
    """
    try:
        journal = Journal(path, lock=True)
    except JournalDamaged as exc:
        raise damaged(exc, path) from None
    except (JournalBusy, JournalError) as exc:
        raise BadInput.of(exc) from None
    return journal


def damaged(exc: JournalDamaged, path: str | os.PathLike[str]) -> BadInput:
    """What ``run`` says of a damaged journal, at its opening or as it resumes: what is wrong, that
    nothing was changed, and the command that saves the rest."""
    return BadInput(str(exc), words=exc)


@dataclass(frozen=True, slots=True)
class TableParts:
    """A table's parts, open (:func:`open_parts`); the stack they were opened on closes them."""

    table: TableConfig
    journal: Journal
    controller: Controller
    panel: Panel
    service: TableService
    devices: Devices
    stopped: threading.Event
    """Set by SIGTERM or SIGINT (the service is told to stop as well)."""
    gate: DeckGate | None
    """The pads' events held for the deck check before the first deal (None: no deck check)."""
    page_url: str | None
    """The table's page, when one of the options' sources serves it."""
    registry: TagRegistry | None
    """The table's tag registry (the fed lines' cards are checked against it), if it has one."""


def open_parts(table: TableConfig, tags: TableTags, journal: Journal, options: RunOptions, png_dir: Path | None,
               stack: contextlib.ExitStack) -> TableParts:
    """The referee, the OLED, the service and its outputs, the voice, the pads and the seat controls of
    ``table``, opened in order on ``stack`` (which closes them in reverse); SIGTERM and SIGINT stop the
    service from here on (their handlers before are put back when ``stack`` closes).

    :raises BadInput: an unknown rule set or players (:func:`build_referee`), a voice that cannot be
        opened (:func:`open_table_voice`).
    """
    from firmware_host.screens.panel import open_panel

    say_the_start(journal, table)
    controller = build_referee(table, options.game, tags)
    panel = open_panel(table, png_dir=png_dir, terminal=sys.stdout if options.screen else None, tolerant=True)
    stack.callback(panel.close)
    shown: TableOutput = panel
    if table.coach:
        from firmware_host.screens.coaching import CoachedPanel

        shown = CoachedPanel(panel)  # the coach's line on the OLED after each hand
    service = TableService(journal=journal, controller=controller, outputs=[shown], notify=systemd_notify(),
                           report=reporter(options.language or table.language),
                           paused=lambda message: panel.paused(message, controller.snapshot()), by_tag=tags.by_tag)
    # a stop while the parts start takes the same path as one later (the parts close in order)
    stopped = threading.Event()

    def stop(signum: int) -> None:
        stopped.set()
        name = signal.Signals(signum).name
        service.stop(name, said=Phrase.of("log.signal", name=name))

    stack.enter_context(stop_signals(stop))
    if options.json:
        service.outputs.append(JsonLines(sys.stdout, everything=options.all_events))
    shown_above: list[TableOutput] = []
    for above in options.sources:  # the page and MQTT (--web, --mqtt, [web], [mqtt])
        shown_above += above.open(table, Path(journal.path), service.put_physical, stack)
    service.outputs.extend(shown_above)
    voice = open_table_voice(options.voice, table, stack)
    if voice is not None:
        service.outputs.extend(voice.outputs)
    registry = tags.registry
    from firmware_host.cards.deck_gate import DeckGate

    first = table.tags.deck_check_first and registry is not None and not journal.games()
    gate = DeckGate(tags.route(service)) if first else None  # the deck check first: before a fresh journal's first line
    put = gate.put if gate is not None else tags.route(service)
    card_for = registry.entry if registry is not None else None  # the pads' one lookup a card
    if gate is None and journal.games():  # started again: its game on the OLED before the pads and buttons open
        resume(service, panel, journal)  # (nfcpy and gpiozero imported, the readers' first waits: seconds on a Pi)
    devices = open_devices(table, voice.with_listen(put) if voice is not None else without_listen(put), card_for,
                           **tags.pad_options())
    stack.callback(devices.close)
    if devices.seat_controls is not None:
        lights = FaultLights(devices.seat_controls)
        service.outputs.append(lights)
        if service.resumed:  # the seats the resumed game left with a fault to put right
            lights.publish(controller.outcome())
    page_url = next((url for o in shown_above if isinstance(url := getattr(o, "url", None), str)), None)
    return TableParts(table, journal, controller, panel, service, devices, stopped, gate, page_url, registry)


def resume(service: TableService, panel: Panel, journal: Journal) -> None:
    """The journal's game replayed (:meth:`TableService.resume`), its frame on the OLED, before the
    service runs.

    :raises BadInput: a journaled line the resume cannot read back (with the salvage command to run).
    """
    try:
        service.resume()
    except JournalDamaged as exc:  # as when run() resumes: exit 2, never a restart loop
        paused(service, panel)
        raise damaged(exc, journal.path) from None


def paused(service: TableService, panel: Panel) -> None:
    """The service stopping: systemd told, the OLED says the table is paused."""
    service.stopping()
    with contextlib.suppress(OSError):
        panel.paused("table paused: the game resumes where it stopped", service.controller.snapshot(),
                     said=Phrase.of("log.paused"))


def run_parts(parts: TableParts, options: RunOptions, events: IO[bytes] | None) -> ServiceStats:
    """Run the table until a stop, or the end of ``events`` when no page stays up: the next game's
    players (``--players``) and the fed lines (``--events``) queued, the service run on this thread;
    the OLED then says the table is paused. Returns what the service counted.

    :raises BadInput: a journaled line the resume cannot read back (with the salvage command to run).
    """
    service, journal, game = parts.service, parts.journal, options.game
    if game.players and journal.games():
        # `--players` on a journal whose last game is over names the next game's players (a venue's
        # next round); queued after the resume, journaled like any line
        service.put_physical(Setup(players=tuple(nfc(n.strip()) for n in game.players.split(","))))
    if events is not None:
        source = "<stdin>" if options.events == "-" else str(options.events)

        def ended() -> None:  # the page stays up for whoever looks at it
            lang = options.language or parts.table.language
            print(run_said(lang, say(lang, "run.input_ended", source=source, url=parts.page_url)), file=sys.stderr,
                  flush=True)

        feeding = {"pace": options.pace, "stop_at_end": parts.page_url is None, "at_end": ended,
                   "pads_sight": parts.table.sight, "registry": parts.registry is not None,
                   "language": options.language or parts.table.language}
        threading.Thread(target=feed_lines, args=(service, events, source), kwargs=feeding, name="events",
                         daemon=True).start()
    try:
        service.run()
    except JournalDamaged as exc:  # a line the resume cannot read back: exit 2, never a restart loop
        raise damaged(exc, journal.path) from None
    finally:
        paused(service, parts.panel)
    if events is not None and service.stats.handled:
        say_where_it_stands(parts.controller, journal.path, options.language or parts.table.language)
    return service.stats


def exit_status(stats: ServiceStats) -> int:
    """``run``'s exit status: 1 when events were lost (said in the log as it stopped), whatever else;
    2 when input lines were refused; else 0."""
    if stats.lost:
        return 1
    return 2 if stats.bad_lines else 0


STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
"""What stops the table: systemd's stop, Ctrl-C (mopidy's way: both take the same path)."""


@contextlib.contextmanager
def stop_signals(stop: Callable[[int], None]) -> Iterator[None]:
    """Inside, :data:`STOP_SIGNALS` call ``stop(signum)``; their handlers before are put back on leaving,
    after every signal taken inside has been given to ``stop``. On the main thread only
    (:func:`signal.signal`'s rule).

    ``stop`` runs on a thread of its own, never in the handler: a handler runs on the main thread
    between two of its bytecodes, and the service's loop waits there in its queue's ``get``, holding the
    queue's lock at moments; a handler putting the stop in that queue then waited for that lock forever
    (a run that SIGTERM or Ctrl-C never ended, seen in the suite). The handler only writes the signal's
    number to a pipe, which takes no lock of Python's."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)

    def handler(signum: int, frame: object) -> None:
        with contextlib.suppress(OSError):  # a full pipe: that many stops already wait
            os.write(write_end, bytes([signum]))

    def give() -> None:
        while taken := os.read(read_end, 64):
            for signum in taken:
                stop(signum)

    giver = threading.Thread(target=give, name="stop-signals", daemon=True)
    giver.start()
    previous = {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, before in previous.items():
            signal.signal(sig, before)
        os.close(write_end)
        giver.join()
        os.close(read_end)


def open_table_voice(folder: Path | None, table: TableConfig, stack: contextlib.ExitStack) -> VoiceParts | None:
    """The table's voice when ``[voice]`` enables it or ``folder`` (``--voice DIR``) asks for it
    (into WAVs there), open; ``stack`` closes it. None: the table is silent.

    :raises BadInput: a folder that cannot be written, ``device = "sim"`` without ``--voice``.
    """
    if folder is None and not table.voice.enabled:
        return None
    from firmware_host.voice.voice_parts import open_voice

    parts = open_voice(table.voice, table.language, folder)

    def close() -> None:  # what is still to say is said first: all of it into WAVs, a moment on a speaker
        parts.drain(120.0 if folder is not None else 3.0)
        parts.close()

    stack.callback(close)
    return parts


def without_listen(put: Callable[[DeviceEvent], None]) -> Callable[[DeviceEvent], None]:
    """The devices' ``put`` on a silent table: a seat's ``listen`` button (wired for a voice the
    table file does not turn on) means nothing and is never journaled."""
    from drivers.device_events import ButtonPressed
    from drivers.seat_controls import LISTEN, LISTEN_LONG

    def put_but_listen(event: DeviceEvent) -> None:
        if isinstance(event, ButtonPressed) and event.button in (LISTEN, LISTEN_LONG):
            log_said(logger, logging.INFO, Phrase.of("log.no_voice", seat=event.seat))
            return
        put(event)

    return put_but_listen


def linger(what: str) -> None:
    """Say ``what`` (the page stays up...) and wait for Ctrl-C or SIGTERM (then return)."""
    stopped = threading.Event()
    with stop_signals(lambda signum: stopped.set()):
        print(what, file=sys.stderr, flush=True)
        while not stopped.wait(1.0):
            pass


def check_the_deck_first(parts: TableParts) -> bool:
    """The deck check before the first deal (:func:`firmware_host.cards.deck_gate.deck_check_first`), each
    report on the OLED; on the simulated table its operator passes pack 1 over the first pad. ``False``:
    stopped."""
    from firmware_host.cards.deck_gate import deck_check_first
    from firmware_host.players.simtable import pass_the_pack
    from firmware_host.screens.deck import deck_lines

    assert parts.gate is not None and parts.registry is not None
    table, sim, stopped = parts.table, parts.devices.sim, parts.stopped

    def show(report: DeckReport) -> None:
        parts.panel.message(deck_lines(report, table.language))

    if sim is not None:
        threading.Thread(target=pass_the_pack, args=(sim, table.pads[0].name, stopped), name="deck",
                         daemon=True).start()
    return deck_check_first(table, parts.registry, parts.gate, show, simulated=sim is not None, stopped=stopped)


def _open_events(path: str) -> IO[bytes]:
    if path == "-":
        return os.fdopen(os.dup(sys.stdin.fileno()), "rb")
    try:
        return open(path, "rb")
    except OSError as exc:
        raise BadInput(msgid="error.cannot_read", path=path, reason=exc) from None


class Devices:
    """The pads and seat controls of a table (or the simulated table); closes them in reverse."""

    def __init__(self) -> None:
        self.sim: SimulatedTable | None = None
        self.table: TableDevices | None = None

    @property
    def seat_controls(self) -> SeatControls | None:
        if self.sim is not None:
            return self.sim.buttons
        return self.table.seat_controls if self.table is not None else None

    def close(self) -> None:
        """Close everything opened (safe to call twice)."""
        for part in (self.table, self.sim):
            if part is not None:
                part.close()
        self.sim = self.table = None


def open_devices(table: TableConfig, put: Callable[[DeviceEvent], None],
                 card_for: CardLookup | None, **pad_options: Any) -> Devices:
    """The table's pads and seat controls, real or simulated, putting their events with ``put``
    (``pad_options``: more for every pad, as ``TableTags.pad_options()``). Both open them through
    :func:`hardware.table_devices.open_table_devices`: the simulated table on its simulated readers."""
    devices = Devices()
    if table.simulated:
        from firmware_host.players.simtable import SimulatedTable, sim_tags

        tags = sim_tags(1) | sim_tags(2)
        devices.sim = SimulatedTable(table, events=put, card_for=card_for or tags.get, **pad_options)
        return devices
    from hardware.table_devices import open_table_devices

    ports = {pad.name: pad.serial_port or pad.device for pad in table.pads}
    devices.table = open_table_devices(table, ports, put=put, card_for=card_for, **pad_options)
    return devices


def table_defaults(table: TableConfig, game: GameOptions) -> TableDefaults:
    """The game the table starts with: the table file's, with ``game`` over it (``--rules``,
    ``--players``...), and the badges and rule cards it knows.

    :raises BadInput: an unknown rule set, names that are not two (or the same name twice), a
        broken badges file.
    """
    from engine.rules import RULE_SETS
    from hardware.badges import Badges, badges_path
    from hardware.tag_registry import TagRegistryError

    rules, players = game.rules or table.rules, game.players
    if rules not in RULE_SETS:
        raise BadInput(msgid="error.unknown_rules", name=repr(rules), known=", ".join(sorted(RULE_SETS)))
    names: tuple[str, ...] | None = table.players
    if players:
        names = tuple(nfc(name.strip()) for name in players.split(","))
        if len(names) != 2 or not all(names):
            raise BadInput(msgid="error.two_names", players=repr(players[:80]))
    # the one check of every setup: the journal's first line carries these names and must read back
    problem = setup_problem(Setup(players=names)) if names else None
    if problem is not None:
        raise BadInput(msgid="error.players_given" if players else "error.players_of_the_table", problem=problem)
    path = badges_path(table)
    try:
        badges = Badges.load(path).tags if path is not None else {}
    except TagRegistryError as exc:
        raise BadInput.of(exc) from None
    return TableDefaults(rules=rules, dealer=game.dealer, target=table.target, players=names, badges=badges,
                         locked=table.locked, sight=game.sight or table.sight, language=game.language or table.language,
                         require_genuine=table.tags.require_signature, ndef_pack=table.tags.ndef_pack)


def wait_for_cards(table: TableConfig) -> int:
    """No tag registry yet on a real table: the OLED and the log say what to do, and the service waits for
    a stop (:func:`firmware_host.cards.enrolment.wait_for_enrolment`), READY for systemd and its watchdog
    pinged meanwhile."""
    from firmware_host.cards.enrolment import wait_for_enrolment
    from firmware_host.screens.panel import open_panel

    stopped = threading.Event()
    with stop_signals(lambda signum: stopped.set()), contextlib.closing(open_panel(table, tolerant=True)) as panel:
        return wait_for_enrolment(table, panel, systemd_notify(), stopped)
