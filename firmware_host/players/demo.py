"""``ecarte-table demo``: two built-in players play a whole game on the simulated table.

Everything real runs: the players deal packets of three and two onto simulated PN532
pads that the real nfcpy driver reads (a pad reads only the lowest cards of a stack:
``--depth``), press buttons on gpiozero's mock pins, and the service's one event loop
referees through the real controller and journal and draws the OLED (luma on a
simulated I2C bus) — the frames are drawn in the terminal. Now and then a player plays
a wrong card on purpose: the table refuses it at once when the cards it has seen prove
the fault, else proves it later and the other player has the hand played again.

The players (:class:`firmware_host.players.packets.PacketPlayers`) know their own cards
and watch the table only through what the service publishes (:class:`TableWatch`,
one of its outputs): they never read the referee.
"""

from __future__ import annotations

import random
import shlex
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import engine
from catalogue import card_words, language, rule_set, say, say_n
from catalogue.phrase import Phrase
from drivers.nfc.originality import OriginalityCheck
from drivers.stalls import Deadline
from engine import Card, Event, Fault
from engine.events import HandReplayed
from engine.faults import FaultCode
from engine.scoring import KING_POINT, add, trick_points
from engine.seats import INDEX, SEATS
from engine.state import Phase
from firmware_host.errors import BadInput
from firmware_host.journal.store import Journal, JournalError
from firmware_host.outputs import TableOutput
from firmware_host.players.packets import PacketPlayers
from firmware_host.players.simtable import SimulatedTable
from firmware_host.referee import Controller, Outcome, TableSnapshot, dumps
from firmware_host.screens.chooser import fault_screen, reason_id
from firmware_host.screens.i18n import words
from firmware_host.service import ServiceStats, TableService
from hardware import ntag_signature
from hardware.layout import Zone
from hardware.limits import name_words
from hardware.table import TableConfig, simulated_table

WAIT_S = 10.0


class DemoError(RuntimeError):
    """The simulated table did not do what the demo expected in time."""


class TableWatch:
    """A service output that keeps the last snapshot and every event, and wakes whoever waits."""

    def __init__(self, stats: ServiceStats, snapshot: TableSnapshot) -> None:
        self._stats = stats
        self._changed = threading.Condition()
        self.snapshot = snapshot
        self.events: list[Event] = []
        self.refereed = 0
        """Inputs whose outcome this output has seen (the service counts an input before publishing it)."""

    def publish(self, outcome: Outcome) -> None:
        with self._changed:
            self.snapshot = outcome.snapshot
            self.events.extend(outcome.events)
            self.refereed = self._stats.handled
            self._changed.notify_all()

    def wait(self, done: Callable[[TableSnapshot], bool], what: str, timeout: float = WAIT_S) -> None:
        """Block until ``done(snapshot)`` holds after an outcome (or now).

        :raises DemoError: when it does not within ``timeout`` seconds (the time the demo was stopped,
            a laptop's lid closed, does not count: :class:`drivers.stalls.Deadline`).
        """
        deadline = Deadline(timeout)
        with self._changed:
            while not done(self.snapshot):
                left = deadline.left()
                if left <= 0:
                    raise DemoError(f"the table did not {what} within {timeout:.0f} s")
                self._changed.wait(left)


class ServedTable:
    """The simulated table with the service refereeing it, as the built-in players use it.

    Each act waits until the pads report what their antennas can read of the stacks
    and the service has refereed every input that caused; it returns the events the
    table published meanwhile.
    """

    def __init__(self, sim: SimulatedTable, watch: TableWatch, *, debounce: float,
                 pause: Callable[[], None]) -> None:
        self.sim = sim
        self.watch = watch
        self.debounce = debounce
        self.pause = pause
        self._inputs = 0
        self._pressed: dict[tuple[str, str], float] = {}

    @property
    def snapshot(self) -> TableSnapshot:
        return self.watch.snapshot

    def _present(self, pad: str) -> frozenset[str]:
        if self.sim.pads is None:
            raise DemoError("the simulated table is closed")
        return self.sim.pads[pad].present

    def _settle(self, what: str, start: int) -> list[Event]:
        inputs = self._inputs
        self.watch.wait(lambda _snap: self.watch.refereed >= inputs, what)
        self.pause()
        return self.watch.events[start:]

    def _on_pad(self, pad: str, act: Callable[[], object], what: str) -> list[Event]:
        """Do ``act`` on ``pad``, wait until the pad reports what its antenna reads, then until
        the service has refereed each change (a pad reports one event per tag that came or went)."""
        start = len(self.watch.events)
        before = self._present(pad)
        act()
        if not self.sim.wait_reported(pad, timeout=WAIT_S):
            raise DemoError(f"pad {pad} did not report its cards within {WAIT_S:.0f} s")
        self._inputs += len(before ^ self._present(pad))
        return self._settle(what, start)

    def lay(self, zone: Zone, cards: Sequence[str]) -> list[Event]:
        return self._on_pad(zone, lambda: self.sim.place_stack(zone, list(cards)),
                            f"read the {' '.join(cards)} on {zone}")

    def lift(self, zone: Zone, cards: Sequence[str]) -> list[Event]:
        def take() -> None:
            for card in cards:
                self.sim.lift(zone, card)

        return self._on_pad(zone, take, f"see the {' '.join(cards)} leave {zone}")

    def press(self, seat: str, button: str) -> list[Event]:
        # two presses of one button closer than the debounce count once, as on a real table
        last = self._pressed.get((seat, button), 0.0)
        wait = 2 * self.debounce - (time.monotonic() - last)
        if wait > 0:
            time.sleep(wait)
        self.sim.press(seat, button)
        self._pressed[(seat, button)] = time.monotonic()
        start = len(self.watch.events)
        self._inputs += 1
        return self._settle(f"take {seat}'s {button}", start)


@dataclass(frozen=True, slots=True)
class DemoOptions:
    """What the demo is asked to do (``ecarte-table demo``'s flags, as plain values).

    :param journal: the demo's journal (each demo a new game in it).
    :param seed: the shuffle's seed; ``rules``: the rule set; ``players``: ``"Anne,Bruno"``.
    :param depth: how many stacked cards each simulated pad reads (None: the table file's).
    :param language: the OLED's language.
    :param delay: seconds between moves (None: 0.3 on a terminal, 0 when piped).
    :param frames: ``all``, ``tricks`` or ``none`` (None: all on a terminal, tricks when piped).
    :param png: save the frames as PNGs in this folder.
    :param command: how the closing hints start the ``review`` and ``history`` commands: the way this
        ``ecarte-table`` was started (``.venv/bin/ecarte-table`` when that is not on ``PATH``).
    :param noise: how noisy the simulated pads' radio is (times the noise model's rates; 0: perfect).
    """

    journal: Path
    seed: int = 1
    rules: str = "classic"
    players: str = "Anne,Bruno"
    depth: int | None = None
    language: str = "en"
    delay: float | None = None
    frames: str | None = None
    png: Path | None = None
    command: str = "ecarte-table"
    noise: float = 0.0


def _originality(table: TableConfig) -> OriginalityCheck:
    """The originality check the simulated table's pads make (its trusted key: the simulator's TEST key)."""
    key = ntag_signature.trusted_key(table.tags.key_name(True))
    return OriginalityCheck(lambda uid, facts: ntag_signature.judge(uid, facts, key))


def demo_names(players: str) -> tuple[str, str]:
    """The demo's two players' names (``"Anne,Bruno"``).

    :raises BadInput: not two different names, or a name the table cannot show.
    """
    names = tuple(n.strip() for n in (players or "Anne,Bruno").split(","))
    if len(names) != 2 or not all(names) or names[0] == names[1]:
        raise BadInput(msgid="error.option", option=f"--players {players!r}",
                       why=Phrase.of("demo.two_names", example="'Anne,Bruno'"))
    problem = next(filter(None, map(name_words, names)), None)
    if problem is not None:
        raise BadInput(msgid="error.option", option="--players", why=problem)
    return names[0], names[1]


def run_demo(options: DemoOptions, controller: Controller, *, outputs: Sequence[TableOutput] = (),
             listen: Callable[[Callable[[Any], None]], Callable[[Any], None]] | None = None) -> int:
    """``ecarte-table demo``: returns the exit status. ``controller``: the referee, built by the
    composition root for the simulated table (``firmware_host.app.build_referee``) with the
    demo's rules, names and language; ``outputs``: more for the service, the page; ``listen``: what
    the simulated devices' ``put`` goes through first, the voice's (it takes the seats' ``listen`` buttons)."""
    from firmware_host.screens.panel import check_png_dir, open_panel

    png_dir = check_png_dir(options.png)
    names = demo_names(options.players)
    out = sys.stdout
    tty = out.isatty()
    delay = options.delay if options.delay is not None else (0.3 if tty else 0.0)
    frames = options.frames or ("all" if tty else "tricks")
    table = simulated_table()
    depth = options.depth
    rng = random.Random(options.seed)
    journal_path = Path(options.journal)
    with _open_journal(journal_path) as journal:
        panel = open_panel(table, png_dir=png_dir, terminal=out if frames != "none" else None,
                           only_tricks=frames == "tricks", redraw=tty and frames == "all")
        panel.language = lang = language(options.language)
        if tty and frames == "all":
            out.write("\x1b[2J")
        if journal.current_game() is not None:  # each demo is a new game of the demo's journal
            journal.start_game(dumps(controller.current_setup()))
        service = TableService(journal=journal, controller=controller, outputs=[panel])
        watch = TableWatch(service.stats, controller.snapshot())
        service.outputs.append(watch)
        narrator = Narrator(out, lang, names, lambda: watch.snapshot)
        service.outputs.append(HandNarrator(names, narrator, lang))
        service.outputs.extend(outputs)
        put = listen(service.put_device_event) if listen is not None else service.put_device_event
        # a noisy radio spoils what the tags answer: the pads then ask each card's originality, as the
        # simulated table's pads do in the service (its table file requires signatures)
        sim = SimulatedTable(table, events=put, baud=115200, depth=depth, seed=options.seed, noise=options.noise,
                             originality=_originality(table) if options.noise else None)
        radio = [chip.noise for chip in sim.simulators.values()]  # what the noise did, read after the game
        loop = threading.Thread(target=service.run, name="table", daemon=True)
        world = engine.new_game(options.rules)

        def pause() -> None:
            if delay:
                time.sleep(delay)

        served = ServedTable(sim, watch, debounce=table.buttons.debounce, pause=pause)
        players = PacketPlayers(served, world, seed=rng.randrange(1 << 30), faults=0.15, say=narrator)
        try:
            out.write(say(lang, "demo.intro", rules=rule_set(lang, world.rules.describe()),
                          sight=say(lang, "demo.sight." + table.sight),
                          depth=depth if depth is not None else _table_depth(table), seed=options.seed) + "\n")
            loop.start()
            final = players.play_game()
            watch.wait(lambda snap: snap.phase == Phase.OVER, "end the game")
        finally:
            service.stop("demo over", said=Phrase.of("log.demo_over"))
            loop.join(timeout=WAIT_S)
            sim.close()
            panel.close()
        shown = watch.snapshot.view
        a, b = shown.score
        winner = watch.snapshot.winner or SEATS[0 if a > b else 1]
        conduct = players.conduct
        name = dict(zip(SEATS, names, strict=False)).get(winner, winner)
        out.write("\n" + say(lang, "demo.game_over", who=name, a=a, b=b, name_a=names[0], name_b=names[-1],
                              hands=say_n(lang, "count.hands", final.hand_no),
                              refused=say_n(lang, "count.refused", conduct.refused_at_once),
                              late=say_n(lang, "count.late", len(conduct.late)),
                              events=service.stats.handled, frames=panel.frames) + "\n")
        if options.noise:
            out.write(say(lang, "demo.radio", level=f"{options.noise:g}", garbled=sum(r.garbled for r in radio),
                          lost=sum(r.lost for r in radio), collisions=sum(r.collisions for r in radio)) + "\n")
        quoted = shlex.quote(str(journal_path))
        out.write(say(lang, "demo.review_it", command=f"{options.command} review --journal {quoted}") + "\n"
                  + say(lang, "demo.history_it", command=f"{options.command} history --journal {quoted}") + "\n")
        out.flush()
    return 0


class Narrator:
    """The demo's narration in the table's language: ``narrator(message id, **values)`` writes one line.

    A seat (``who``) is said as its player's name, a card as the language's pack prints it, a
    fault as the table's screen words it (what went wrong · what to do), with whole names."""

    def __init__(self, out: TextIO, lang: str, names: Sequence[str], snapshot: Callable[[], TableSnapshot]) -> None:
        self.out = out
        self.lang = lang
        self.names = dict(zip(SEATS, names, strict=False))
        self.snapshot = snapshot

    def __call__(self, msgid: str, /, **values: object) -> None:
        said: dict[str, object] = {}
        for key, value in values.items():
            if isinstance(value, Fault):
                said[key] = self.fault(value)
            elif isinstance(value, Card):
                said[key] = card_words(self.lang, str(value))
            elif key == "who" and isinstance(value, str):
                said[key] = self.names.get(value, value)
            else:
                said[key] = value
        self.out.write(f"\n>>> {say(self.lang, msgid, **said)}\n")
        self.out.flush()

    def fault(self, fault: Fault) -> str:
        screen = fault_screen(fault, self.snapshot(), self.lang, whole_names=True)
        return " · ".join(" ".join(part.split()) for part in (screen.headline, screen.detail) if part)


class HandNarrator:
    """A service output that says, as the table scored them (the frames may not be drawn), each hand's
    tricks, each king point, a false king's point taken back and each penalty, every one with the score
    after it: each point said once, so the points said add up to the score (a game may end on a king,
    with no hand's result after it). A hand's tricks are said without its kings and penalties
    (:func:`engine.scoring.trick_points`), which were said when they came, as the voice does."""

    def __init__(self, names: Sequence[str], say: Callable[..., None], lang: str = "en") -> None:
        self.names = names
        self.say = say
        self.lang = lang
        self.score = (0, 0)
        """The score said last."""

    def publish(self, outcome: Outcome) -> None:
        for ev in outcome.events:
            if isinstance(ev, engine.HandEnd):
                points = trick_points(ev, outcome.snapshot.hand_notes)
                seat = 0 if (points[0], ev.tricks[0]) > (points[1], ev.tricks[1]) else 1
                lost = -points[1 - seat]  # Italian: the other seat stood and lost
                self._said("demo.hand_over_lost" if lost else "demo.hand_over", ev.score, who=SEATS[seat],
                           points=say_n(self.lang, "count.points", points[seat]),
                           tricks=say_n(self.lang, "count.tricks", ev.tricks[seat]),
                           **({"other": self.names[1 - seat], "lost": say_n(self.lang, "count.points", lost)}
                              if lost else {}))
            elif isinstance(ev, engine.King):
                self._said("demo.king", ev.score, who=ev.seat, points=say_n(self.lang, "count.points", KING_POINT))
            elif isinstance(ev, Fault) and ev.late and ev.code == FaultCode.FALSE_KING and ev.seat is not None:
                self._said("demo.king_back", add(self.score, INDEX[ev.seat], -KING_POINT), who=ev.seat)
            elif isinstance(ev, engine.Penalty):
                self._said("demo.penalty", add(self.score, INDEX[ev.seat], ev.points), who=ev.seat,
                           points=say_n(self.lang, "count.points", -ev.points),
                           why=words(self.lang).say(reason_id(ev.reason)))
            elif isinstance(ev, HandReplayed) and outcome.snapshot.view.score != self.score:
                self._said("demo.replayed", outcome.snapshot.view.score)  # the hand played again undoes its penalties

    def _said(self, msgid: str, score: tuple[int, int], **values: object) -> None:
        self.score = score
        a, b = self.names
        self.say(msgid, a=a, b=b, sa=score[0], sb=score[1], **values)


def _table_depth(table: TableConfig) -> int:
    return min((pad.depth for pad in table.pads), default=1)


def _open_journal(path: Path) -> Journal:
    try:
        return Journal(path, lock=True)
    except JournalError as exc:
        raise BadInput.of(exc) from None
