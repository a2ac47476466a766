"""``ecarte-table demo``: two built-in players play a whole game on the simulated table.

Everything real runs: the players lay cards on simulated PN532 pads that the real
nfcpy driver reads, press buttons on gpiozero's mock pins, and the service's one
event loop referees through the real controller and journal and draws the OLED
(luma on a simulated I2C bus) — the frames are drawn in the terminal. One player
plays a wrong card once, sees the fault, takes it back and plays right.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TextIO

import engine
from engine import GameState
from engine.actions import Action, Deal, Discard, Draw, PlayCard
from engine.random_play import random_action
from firmware_host.controller import Controller, TableDefaults
from firmware_host.journal import Journal
from firmware_host.players import wrong_card
from firmware_host.service import TableService
from firmware_host.simtable import SimulatedTable
from hardware.table import simulated_table

WAIT_S = 10.0


class DemoError(RuntimeError):
    """The simulated table did not do what the demo expected in time."""


class DemoPlayers:
    """Two built-in players at a simulated table, acting through its pads and buttons."""

    def __init__(self, sim: SimulatedTable, service: TableService, rng: random.Random, *,
                 delay: float, out: TextIO) -> None:
        self.sim = sim
        self.service = service
        self.controller = service.controller
        self.rng = rng
        self.delay = delay
        self.out = out
        self.faults_shown = 0
        self.on_play: dict[str, str | None] = {"A": None, "B": None}
        self.arrivals = 0
        self.presses = 0
        self.turn_up: str | None = None

    # -- waiting on the table --------------------------------------------------------------

    def _wait(self, done: object, what: str) -> None:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            if done():  # type: ignore[operator]
                return
            time.sleep(0.002)
        raise DemoError(f"the table did not {what} within {WAIT_S:.0f} s")

    def _settled(self) -> bool:
        stats = self.service.stats
        return (
            stats.arrivals >= self.arrivals and stats.presses >= self.presses
            and self.service.queue.empty() and not self.service.busy
        )

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
        """Pick up the cards lying on the play pads and the turn-up."""
        for seat, card in self.on_play.items():
            if card is not None:
                self.sim.lift(f"play.{seat}", card)
                self.on_play[seat] = None
        if self.turn_up is not None and self.controller.state.turn_up < 0:
            self.sim.lift("turnup", self.turn_up)
            self.turn_up = None

    def act(self, action: Action) -> None:
        state = self.controller.state
        if isinstance(action, Deal):
            elder, dealer = state.elder, state.dealer
            first, second = (action.a, action.b) if elder == "A" else (action.b, action.a)
            for packet in (slice(0, 3), slice(3, 5)):
                for seat, cards in ((elder, first), (dealer, second)):
                    for card in cards[packet]:
                        self.slide(f"hand.{seat}", str(card))
            self.turn_up = str(action.turn_up)
            self.place("turnup", self.turn_up)
        elif isinstance(action, Discard):
            for card in action.cards:
                self.slide("discard", str(card))
        elif isinstance(action, Draw):
            for card in action.cards:
                self.slide(f"hand.{action.seat}", str(card))
        elif isinstance(action, PlayCard):
            self.play_card(action.seat, str(action.card))
        else:
            from firmware_host.players import physical_events

            for event in physical_events(state, action):
                self.press(event.seat, event.button)  # type: ignore[union-attr]
        self._wait(self._settled, f"take {action}")

    def play_card(self, seat: str, card: str) -> None:
        if self.on_play[seat] is not None:
            self.gather()
        self.place(f"play.{seat}", card)
        self.on_play[seat] = card

    def show_fault(self) -> bool:
        """Play a wrong card once, let the table refuse it, take it back."""
        state = self.controller.state
        wrong = wrong_card(state)
        if wrong is None:
            return False
        seat, card = wrong.seat, str(wrong.card)
        self.out.write(f"\n>>> {seat} plays the {wrong.card.symbol()} on purpose: a fault\n")
        if self.on_play[seat] is not None:
            self.gather()
        self.place(f"play.{seat}", card)
        self._wait(lambda: bool(self.controller.rejected) and self._settled(), "refuse the wrong card")
        self.pause(3)
        fault = self.controller.rejected[-1].fault
        self.out.write(f">>> the table says: {fault.message} (rule {fault.rule})\n")
        self.sim.lift(f"play.{seat}", card)
        self._wait(lambda: not self.controller.rejected and self._settled(), "see the card taken back")
        self.out.write(">>> taken back: the fault is put right\n\n")
        self.faults_shown += 1
        return True

    def pause(self, factor: float = 1.0) -> None:
        if self.delay:
            time.sleep(self.delay * factor)

    def play_game(self) -> GameState:
        while True:
            self._wait(self._settled, "settle")
            state = self.controller.state
            if state.phase == "over":
                return state
            if state.phase == "deal":
                self.gather()
            if (
                self.faults_shown == 0 and state.phase == "play" and state.led >= 0
                and state.tricks[0] + state.tricks[1] >= 1 and self.show_fault()
            ):
                continue
            action = random_action(state, self.rng)
            self.act(action)
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
        if tty and frames == "all":
            out.write("\x1b[2J")
        controller = Controller(TableDefaults(rules=args.rules, dealer=None))
        service = TableService(journal=journal, controller=controller, panel=panel)
        sim = SimulatedTable(table, events=service.put_device_event, baud=115200)
        loop = threading.Thread(target=service.run, name="table", daemon=True)
        try:
            out.write(f"Écarté on the simulated table ({controller.state.rules.describe()}), seed {args.seed}\n")
            loop.start()
            players = DemoPlayers(sim, service, rng, delay=delay, out=out)
            # cut for the deal: each seat lays a card on its play pad
            _cut(players)
            final = players.play_game()
        finally:
            service.stop("demo over")
            loop.join(timeout=WAIT_S)
            sim.close()
            panel.close()
        a, b = final.score
        winner = final.winner or ("A" if a > b else "B")
        out.write(f"\nGame over: {winner} wins, A {a} - B {b} after {final.hand_no} hand(s); "
                  f"{players.faults_shown} fault made and corrected; {service.stats.handled} events "
                  f"journaled, {service.stats.frames} frames drawn.\n")
        out.flush()
    return 0


def _cut(players: DemoPlayers) -> None:
    state = players.controller.state
    while state.phase == "cut":
        pack = list(engine.CARDS)
        players.rng.shuffle(pack)
        for seat, card in (("A", pack[0]), ("B", pack[1])):
            players.place(f"play.{seat}", str(card))
            players._wait(players._settled, "see the cut")
        players.pause(2)
        for seat, card in (("A", pack[0]), ("B", pack[1])):
            players.sim.lift(f"play.{seat}", str(card))
        state = players.controller.state
