"""``ecarte-table demo``: two built-in players play a whole game on the simulated table.

Everything real runs: the players lay cards on simulated PN532 pads that the real
nfcpy driver reads, press buttons on gpiozero's mock pins, and the service's one
event loop referees through the real controller and journal and draws the OLED
(luma on a simulated I2C bus) — the frames are drawn in the terminal. One player
plays a wrong card once, sees the fault, takes it back and plays right.

The players know their cards as people do: they keep their own game (``truth``),
moved by their own actions, and watch the table only through what it publishes
(:class:`TableWatch`, one of the service's outputs): they never read the referee.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import engine
from engine import GameState
from engine.actions import Action, Cut
from engine.random_play import random_action
from firmware_host.builtin_players import wrong_card
from firmware_host.controller import Controller, TableDefaults
from firmware_host.journal import Journal
from firmware_host.protocol import physical_events
from firmware_host.service import ServiceStats, TableService
from firmware_host.simtable import SimulatedTable
from firmware_host.snapshot import Outcome, TableSnapshot
from firmware_host.transcript import ButtonEvent, CardEvent
from hardware.table import simulated_table

WAIT_S = 10.0


class DemoError(RuntimeError):
    """The simulated table did not do what the demo expected in time."""


class TableWatch:
    """A service output that keeps the last snapshot and wakes whoever waits for a change."""

    def __init__(self, stats: ServiceStats, snapshot: TableSnapshot) -> None:
        self._stats = stats
        self._changed = threading.Condition()
        self.snapshot = snapshot

    def publish(self, outcome: Outcome) -> None:
        with self._changed:
            self.snapshot = outcome.snapshot
            self._changed.notify_all()

    def wait(self, done: Callable[[TableSnapshot, ServiceStats], bool], what: str, timeout: float = WAIT_S) -> None:
        """Block until ``done(snapshot, stats)`` holds after an outcome (or now).

        :raises DemoError: when it does not within ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        with self._changed:
            while not done(self.snapshot, self._stats):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DemoError(f"the table did not {what} within {timeout:.0f} s")
                self._changed.wait(left)


class DemoPlayers:
    """Two built-in players at a simulated table, acting through its pads and buttons."""

    def __init__(self, sim: SimulatedTable, watch: TableWatch, truth: GameState, rng: random.Random, *,
                 delay: float, out: TextIO) -> None:
        self.sim = sim
        self.watch = watch
        self.truth = truth
        self.rng = rng
        self.delay = delay
        self.out = out
        self.faults_shown = 0
        self.on_play: dict[str, str | None] = {"A": None, "B": None}
        self.arrivals = 0
        self.presses = 0
        self.turn_up: str | None = None

    # -- waiting on the table --------------------------------------------------------------

    def settled(self, snapshot: TableSnapshot, stats: ServiceStats) -> bool:
        """The table has refereed every card and button the players gave it."""
        return stats.arrivals >= self.arrivals and stats.presses >= self.presses

    def place(self, pad: str, card: str) -> None:
        self.sim.place(pad, card)
        self.arrivals += 1

    def press(self, seat: str, button: str) -> None:
        self.sim.press(seat, button)
        self.presses += 1

    # -- acts ------------------------------------------------------------------------------

    def slide(self, pad: str, card: str) -> None:
        self.place(pad, card)
        if not self.sim.wait_seen(pad, card, timeout=WAIT_S):
            raise DemoError(f"pad {pad} did not read the {card}")
        self.sim.lift(pad, card)

    def gather(self) -> None:
        """Pick up the cards lying on the play pads (and the turn-up, between hands)."""
        for seat, card in self.on_play.items():
            if card is not None:
                self.sim.lift(f"play.{seat}", card)
                self.on_play[seat] = None
        if self.turn_up is not None and self.truth.turn_up < 0:
            self.sim.lift("turnup", self.turn_up)
            self.turn_up = None

    def act(self, action: Action) -> None:
        """Do ``action`` at the table, wait for the table to take it, and move ``truth``."""
        state = self.truth
        for event in physical_events(state, action, lift_tricks=False):
            if isinstance(event, ButtonEvent):
                self.press(event.seat, event.button)
            elif not isinstance(event, CardEvent) or event.card is None:
                raise DemoError(f"no way to do {action} at the table")
            elif event.zone.startswith("play."):
                self.play_card(event.zone[-1], event.card)
            elif event.zone == "turnup":
                self.turn_up = event.card
                self.place("turnup", event.card)
            else:
                self.slide(event.zone, event.card)
        self.watch.wait(self.settled, f"take {action}")
        self.truth, _ = engine.apply(state, action)

    def play_card(self, seat: str, card: str) -> None:
        """Lay ``card`` on the seat's play pad (a cut, or a card to a trick); the last trick
        is gathered first if it is still there."""
        if self.on_play[seat] is not None:
            self.gather()
        self.place(f"play.{seat}", card)
        self.on_play[seat] = card

    def show_fault(self) -> bool:
        """Play a wrong card once, let the table refuse it, take it back."""
        wrong = wrong_card(self.truth)
        if wrong is None:
            return False
        seat, card = wrong.seat, str(wrong.card)
        self.out.write(f"\n>>> {seat} plays the {wrong.card.symbol()} on purpose: a fault\n")
        if self.on_play[seat] is not None:
            self.gather()
        self.place(f"play.{seat}", card)
        self.watch.wait(lambda snap, stats: bool(snap.faults) and self.settled(snap, stats), "refuse the wrong card")
        self.pause(3)
        fault = self.watch.snapshot.faults[-1]
        self.out.write(f">>> the table says: {fault.message} (rule {fault.rule})\n")
        self.sim.lift(f"play.{seat}", card)
        self.watch.wait(lambda snap, stats: not snap.faults, "see the card taken back")
        self.out.write(">>> taken back: the fault is put right\n\n")
        self.truth, _ = engine.apply(self.truth, wrong)  # refused: italian still charges it
        self.faults_shown += 1
        return True

    def pause(self, factor: float = 1.0) -> None:
        if self.delay:
            time.sleep(self.delay * factor)

    def cut(self) -> None:
        """Cut for the deal: each seat lays a card on its play pad, until one is higher."""
        while self.truth.phase == "cut":
            pack = list(engine.CARDS)
            self.rng.shuffle(pack)
            for seat, card in (("A", pack[0]), ("B", pack[1])):
                self.act(Cut(seat, card))
            self.pause(2)
            self.gather()

    def play_game(self) -> GameState:
        self.cut()
        while True:
            state = self.truth
            if state.phase == "over":
                return state
            if state.phase == "deal":
                self.gather()
            if (
                self.faults_shown == 0 and state.phase == "play" and state.led >= 0
                and state.tricks[0] + state.tricks[1] >= 1 and self.show_fault()
            ):
                continue
            self.act(random_action(state, self.rng))
            self.pause()


def run_demo(args: argparse.Namespace) -> int:
    """``ecarte-table demo``: returns the exit status."""
    from firmware_host.panel import open_panel

    out = sys.stdout
    tty = out.isatty()
    delay = args.delay if args.delay is not None else (0.3 if tty else 0.0)
    frames = args.frames or ("all" if tty else "tricks")
    table = simulated_table()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="ecarte-demo-") as tmp, Journal(Path(tmp) / "journal.sqlite") as journal:
        panel = open_panel(table, png_dir=args.png, terminal=out if frames != "none" else None,
                           only_tricks=frames == "tricks", redraw=tty and frames == "all")
        panel.language = getattr(args, "language", None) or "en"
        names = tuple(n.strip() for n in (getattr(args, "players", None) or "Anne,Bruno").split(","))[:2]
        if tty and frames == "all":
            out.write("\x1b[2J")
        defaults = TableDefaults(rules=args.rules, dealer=None, players=names)
        controller = Controller(defaults)
        service = TableService(journal=journal, controller=controller, outputs=[panel])
        watch = TableWatch(service.stats, controller.snapshot())
        service.outputs.append(watch)
        sim = SimulatedTable(table, events=service.put_device_event, baud=115200)
        loop = threading.Thread(target=service.run, name="table", daemon=True)
        truth = engine.new_game(args.rules)
        try:
            out.write(f"Écarté on the simulated table ({truth.rules.describe()}), seed {args.seed}\n")
            loop.start()
            players = DemoPlayers(sim, watch, truth, rng, delay=delay, out=out)
            final = players.play_game()
            watch.wait(lambda snap, stats: snap.phase == "over", "end the game")
        finally:
            service.stop("demo over")
            loop.join(timeout=WAIT_S)
            sim.close()
            panel.close()
        shown = watch.snapshot.view
        a, b = shown.score
        winner = watch.snapshot.winner or ("A" if a > b else "B")
        name = dict(zip("AB", names, strict=False)).get(winner, winner)
        out.write(f"\nGame over: {name} wins, A {a} - B {b} ({names[0]} at A, {names[-1]} at B) "
                  f"after {final.hand_no} hand(s); "
                  f"{players.faults_shown} fault made and corrected; {service.stats.handled} events "
                  f"journaled, {panel.frames} frames drawn.\n")
        out.flush()
    return 0
