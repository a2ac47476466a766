"""The service on the simulated table: real pad and button drivers, simulated PN532s, mock pins.

Cards are laid on simulated PN532 pads and buttons pressed on gpiozero's mock
pins; the table events must be the ones the same moves make in a transcript.
A reader pulled out mid-game is reported and nothing is lost or doubled.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from waiting import HANG_S

from engine import Event
from firmware_host.journal.store import Journal
from firmware_host.outputs import FaultLights
from firmware_host.players.simtable import SimulatedTable
from firmware_host.referee.controller import Controller
from firmware_host.referee.snapshot import Outcome
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.referee.table_events import ReaderState
from firmware_host.referee.transcript import Setup
from firmware_host.service import TableService
from hardware.table import simulated_table

TIMEOUT = HANG_S
DEBOUNCE = 0.05  # the simulated table's button debounce, seconds


class _Table:
    """A running service on a simulated table, and every table event it put out."""

    def __init__(self, journal: Path) -> None:
        self.events: list[Event] = []
        self._cond = threading.Condition()
        self.journal = Journal(journal)
        controller = Controller(TableDefaults())
        self.snapshot = controller.snapshot()
        self.service = TableService(journal=self.journal, controller=controller, outputs=[self])
        self.sim = SimulatedTable(simulated_table(), events=self.service.put_device_event)
        assert self.sim.buttons is not None
        self.service.outputs.append(FaultLights(self.sim.buttons))
        self.thread = threading.Thread(target=self.service.run, name="service", daemon=True)
        self.thread.start()
        self._pressed: dict[tuple[str, str], float] = {}

    def publish(self, outcome: Outcome) -> None:
        """The service's output: every table event, and the last snapshot."""
        with self._cond:
            self.events.extend(outcome.events)
            self.snapshot = outcome.snapshot
            self._cond.notify_all()

    def wait_for(self, predicate: Callable[[list[Event]], bool], what: str) -> None:
        with self._cond:
            if not self._cond.wait_for(lambda: predicate(self.events), timeout=TIMEOUT):
                raise AssertionError(f"timed out waiting for {what}; events: {self.events[-8:]}")

    def wait_kinds(self, start: int, kinds: list[str]) -> list[Event]:
        """Wait until the events after ``start`` include ``kinds`` in order; those events."""
        def done(events: list[Event]) -> bool:
            got = [e.event for e in events[start:] if e.event != "reader"]
            return got[: len(kinds)] == kinds or len(got) > len(kinds)
        self.wait_for(done, f"{kinds}")
        new = [e for e in self.events[start:] if e.event != "reader"]
        assert [e.event for e in new] == kinds, new
        return new

    def slide(self, pad: str, card: str) -> None:
        """Slide a card across a pad: read, then gone."""
        self.sim.place(pad, card)
        assert self.sim.wait_seen(pad, card, timeout=TIMEOUT)
        self.sim.lift(pad, card)
        assert self.sim.wait_seen(pad, None, timeout=TIMEOUT)

    def lay(self, pad: str, card: str) -> None:
        self.sim.place(pad, card)
        assert self.sim.wait_seen(pad, card, timeout=TIMEOUT)

    def lift(self, pad: str, card: str) -> None:
        self.sim.lift(pad, card)
        assert self.sim.wait_seen(pad, None, timeout=TIMEOUT)

    def press(self, seat: str, button: str) -> None:
        # two presses of one button closer than the debounce count once, as on a real table
        last = self._pressed.get((seat, button), 0.0)
        while time.monotonic() - last < 2 * DEBOUNCE:
            time.sleep(0.01)
        self.sim.press(seat, button)
        self._pressed[(seat, button)] = time.monotonic()

    def close(self) -> None:
        self.service.stop("test over")
        self.thread.join(timeout=TIMEOUT)
        assert not self.thread.is_alive()
        self.sim.close()
        self.sim.close()
        self.journal.close()


def _poll(condition: Callable[[], bool], what: str) -> None:
    # the LEDs change after the events are put out: poll them
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[_Table]:
    running = _Table(tmp_path / "journal.sqlite")
    try:
        yield running
    finally:
        running.close()


# B is elder (A deals); hearts are trumps. B: 9S KD QD 7C TC; A: 7S JS 9H KC 8D.
DEAL = [
    ("hand.B", "9S"), ("hand.B", "KD"), ("hand.B", "QD"),
    ("hand.A", "7S"), ("hand.A", "JS"), ("hand.A", "9H"),
    ("hand.B", "7C"), ("hand.B", "TC"),
    ("hand.A", "KC"), ("hand.A", "8D"),
]


def _deal(t: _Table) -> None:
    t.service.put_physical(Setup(rules="classic", dealer="A"))
    for pad, card in DEAL:
        t.slide(pad, card)
    start = len(t.events)
    t.lay("turnup", "7H")
    assert [e.to_json() for e in t.wait_kinds(start, ["trump"])] == [{"event": "trump", "card": "7H"}]
    assert t.snapshot.view.hand_sizes == (5, 5)


def test_cards_and_buttons_become_table_events(table: _Table) -> None:
    t = table
    _deal(t)
    start = len(t.events)
    t.press("B", "no")
    assert [e.event for e in t.wait_kinds(start, ["bid", "play_begins"])] == ["bid", "play_begins"]
    # a king button from A, who does not hold the KH
    start = len(t.events)
    t.press("A", "king")
    false_king = t.wait_kinds(start, ["fault"])[0].to_json()
    assert (false_king["code"], false_king["seat"]) == ("false_king", "A")
    # trick 1: B leads the 9S; A's 7S does not overtake: refused, A's LED lights
    start = len(t.events)
    t.lay("play.B", "9S")
    t.lay("play.A", "7S")
    play, refused = t.wait_kinds(start, ["play", "fault"])
    assert play.to_json() == {"event": "play", "seat": "B", "card": "9S"}
    assert refused.to_json()["code"] == "not_overtaking" and refused.to_json()["seat"] == "A"
    _poll(lambda: t.sim.buttons is not None and t.sim.buttons.is_lit("A"), "A's LED on")
    assert not t.sim.buttons.is_lit("B")
    buzzer = t.sim.buttons.pin("A", "buzzer")
    _poll(lambda: any(s.state for s in buzzer.states), "A's buzzer beeps")  # MockPin keeps its history
    assert not any(s.state for s in t.sim.buttons.pin("B", "buzzer").states)
    start = len(t.events)
    t.lift("play.A", "7S")
    t.wait_kinds(start, ["corrected"])
    _poll(lambda: not t.sim.buttons.is_lit("A"), "A's LED off")
    start = len(t.events)
    t.lay("play.A", "JS")
    trick = t.wait_kinds(start, ["play", "trick"])[1]
    assert trick.to_json()["winner"] == "A"
    t.lift("play.A", "JS")
    t.lift("play.B", "9S")
    # a king button from A, who never held the king: false again (rule 25), whatever the moment
    start = len(t.events)
    t.press("A", "king")
    again = t.wait_kinds(start, ["fault"])[0].to_json()
    assert again["code"] == "false_king" and again["seat"] == "A"
    assert t.snapshot.view.tricks == (1, 0)


def test_a_reader_pulled_out_mid_game_is_reported_and_nothing_is_lost(table: _Table) -> None:
    t = table
    _deal(t)
    start = len(t.events)
    t.press("B", "no")
    t.wait_kinds(start, ["bid", "play_begins"])
    start = len(t.events)
    t.lay("play.B", "9S")
    t.wait_kinds(start, ["play"])

    # play.B's reader goes away while the 9S lies on it, and comes back
    pn532 = t.sim.simulators["play.B"]
    mark = len(t.events)
    pn532.unplug()
    t.wait_for(lambda ev: any(isinstance(e, ReaderState) and not e.online for e in ev[mark:]), "offline")
    offline = next(e for e in t.events[mark:] if isinstance(e, ReaderState))
    assert offline.zone == "play.B" and offline.to_json()["event"] == "reader"
    assert "play.B" in t.snapshot.offline
    # the game goes on meanwhile: A follows on its own pad
    start = len(t.events)
    t.lay("play.A", "JS")
    assert [e.event for e in t.wait_kinds(start, ["play", "trick"])] == ["play", "trick"]
    pn532.replug()
    t.wait_for(lambda ev: any(isinstance(e, ReaderState) and e.online for e in ev[mark:]), "online again")
    assert "play.B" not in t.snapshot.offline
    # the 9S still lying there is not seen as a new card: nothing doubled, no fault
    assert t.sim.wait_seen("play.B", "9S", timeout=TIMEOUT)
    t.lift("play.A", "JS")
    t.lift("play.B", "9S")
    # and play.B reads again: trick 2, A leads the KC, B follows with the 7C (it cannot beat a king)
    start = len(t.events)
    t.lay("play.A", "KC")
    t.lay("play.B", "7C")
    trick = t.wait_kinds(start, ["play", "play", "trick"])[2].to_json()
    assert trick["cards"] == {"A": "KC", "B": "7C"} and trick["winner"] == "A"
    assert not any(e.event == "fault" for e in t.events)
    assert t.snapshot.view.tricks == (2, 0)
    # the journal holds each card laid once: the 9S was not read again after the replug
    record = t.journal.current_game()
    assert record is not None
    laid = [line for line in record.lines if '"play.' in line and "gone" not in line]
    assert [json.loads(line)["card"] for line in laid] == ["9S", "JS", "KC", "7C"]


def test_run_command_on_the_simulated_table_reports_readers_with_all_events(tmp_path: Path) -> None:
    import subprocess
    import sys

    cli = Path(sys.executable).parent / "ecarte-table"
    transcript = tmp_path / "t.jsonl"
    lines = ['{"setup": {"rules": "classic", "dealer": "A"}}']
    lines += [json.dumps({"zone": z, "card": c}) for z, c in DEAL]
    lines += ['{"zone": "turnup", "card": "7H"}', '{"seat": "B", "button": "no"}', '{"zone": "play.B", "card": "9S"}']
    transcript.write_text("\n".join(lines) + "\n")
    done = subprocess.run(
        [str(cli), "run", "--journal", str(tmp_path / "j.sqlite"), "--events", str(transcript), "--json",
         "--all-events"],
        capture_output=True, text=True, timeout=HANG_S, check=False,
    )
    assert done.returncode == 0, done.stderr
    out = [json.loads(line) for line in done.stdout.splitlines()]
    readers = [o for o in out if o["event"] == "reader"]
    assert {r["zone"] for r in readers if r["online"]} <= {"hand.A", "hand.B", "turnup", "discard", "play.A", "play.B"}
    kinds = [o["event"] for o in out if o["event"] != "reader"]
    assert kinds == ["trump", "bid", "play_begins", "play"]
