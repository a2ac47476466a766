"""The composition root's builders: one referee for run, the demo and sim, from a table file and
plain options; one opener for the pads and seat controls of the real and the simulated table."""

from __future__ import annotations

import dataclasses
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from drivers.device_events import Sighting
from drivers.pin_backends import UnknownBackendError
from firmware_host.app import STOP_SIGNALS, GameOptions, RunOptions, build_referee, stop_signals
from firmware_host.cards.table_tags import TableTags
from firmware_host.errors import BadInput
from firmware_host.players.simtable import SimulatedTable, sim_uid
from firmware_host.referee.transcript import CardEvent
from hardware.table import simulated_table
from hardware.table_devices import TableDevices, open_table_devices
from hardware.tag_registry import TagRegistry


def test_the_referee_starts_the_table_file_s_game_with_the_options_over_it() -> None:
    table = dataclasses.replace(simulated_table(), rules="german", players=("Anne", "Bruno"))
    snapshot = build_referee(table).snapshot()
    assert (snapshot.view.rules, snapshot.players[:2], snapshot.sight.mode) == ("german", ("Anne", "Bruno"), "partial")
    game = GameOptions(rules="french", players="Cleo,Dan", dealer="B", sight="full")
    snapshot = build_referee(table, game).snapshot()
    assert (snapshot.view.rules, snapshot.players[:2], snapshot.view.dealer, snapshot.sight.mode) == (
        "french", ("Cleo", "Dan"), "B", "full")


@pytest.mark.parametrize(("game", "says"), [
    (GameOptions(rules="bezique"), "--rules: unknown rule set 'bezique'"),
    (GameOptions(players="Anne"), "--players 'Anne': two names"),
    (GameOptions(players="Anne, anne"), "--players: each name once"),  # else the journal's setup line never reads back
])
def test_options_the_table_cannot_play_are_refused_at_the_door(game: GameOptions, says: str) -> None:
    with pytest.raises(BadInput, match=says):
        build_referee(simulated_table(), game)


def test_the_table_file_s_players_are_checked_as_every_setup_is() -> None:
    with pytest.raises(BadInput, match="the table file's players: each name once"):
        build_referee(dataclasses.replace(simulated_table(), players=("Anne", "Anne")))


def test_the_referee_names_cards_by_the_registry_and_guards_the_pack() -> None:
    registry = TagRegistry()
    registry.add(sim_uid("KS", 1), "KS", 1)
    registry.add(sim_uid("KH", 2), "KH", 2)
    table = simulated_table()
    tags = TableTags.build(registry, table.tags, simulated=True)
    referee = build_referee(table, GameOptions(dealer="A"), tags)
    # as the pads give them: the card named once its tag's signature verified
    assert referee.handle(CardEvent("hand.B", sighting=Sighting(sim_uid("KS", 1), "KS"))).events == ()
    refused = referee.handle(CardEvent("hand.B", sighting=Sighting(sim_uid("KH", 2), "KH"))).events
    assert [e.to_json()["code"] for e in refused] == ["foreign_pack"]


def test_run_options_are_plain_values() -> None:
    options = RunOptions(table="t.toml", game=GameOptions(rules="classic"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.table = "other.toml"  # type: ignore[misc]


def test_the_simulated_table_opens_its_devices_through_the_same_function() -> None:
    with SimulatedTable(simulated_table(), events=lambda event: None, buttons=True) as sim:
        assert isinstance(sim.devices, TableDevices)
        assert sim.pads is sim.devices.pads and sim.buttons is sim.devices.seat_controls
        assert set(sim.pads.pads) == {pad.name for pad in simulated_table().pads}
    assert sim.pads is None and sim.buttons is None


def test_an_unknown_pin_backend_is_refused_and_close_is_safe_twice() -> None:
    with pytest.raises(UnknownBackendError):
        open_table_devices(simulated_table(), {}, put=lambda event: None, backend="no-such-backend")
    devices = open_table_devices(simulated_table(), {}, put=lambda event: None, backend="mock")
    devices.close()
    devices.close()
    assert devices.seat_controls is None and devices.pads is None


def test_a_stop_signal_while_the_loop_holds_its_queue_s_lock_stops_it() -> None:
    """A handler runs on the main thread between two bytecodes, where the service's loop waits in its
    queue's ``get``: a SIGTERM that came while ``get`` held the queue's lock put the stop in that queue
    from the handler, which waited for the lock the same thread held, forever (a ``run`` Ctrl-C never
    ended, twice in one day's suite). Here the lock is held when the signal comes; in a process of its
    own, so that the old code's hang is a failure, not a hung suite."""
    script = (
        "import queue, signal\n"
        "from firmware_host.app import stop_signals\n"
        "q = queue.Queue()\n"
        "with stop_signals(q.put):\n"
        "    with q.mutex:\n"
        "        signal.raise_signal(signal.SIGTERM)\n"
        "    print(q.get(timeout=30))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])  # the old code: TimeoutExpired
    assert done.returncode == 0 and done.stdout.strip() == str(int(signal.SIGTERM)), done.stderr


def test_a_stop_signal_is_the_service_s_inside_and_the_handler_before_is_put_back() -> None:
    """SIGTERM and SIGINT stop the table while it runs (``run``, ``linger``, waiting for enrolment);
    whatever handled them before does again once it stops, even when it stops on an error."""
    taken: list[int] = []
    before = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}

    def theirs(signum: int, frame: object) -> None:
        taken.append(-signum)

    try:
        for sig in STOP_SIGNALS:
            signal.signal(sig, theirs)
        with stop_signals(taken.append):
            signal.raise_signal(signal.SIGTERM)
            signal.raise_signal(signal.SIGINT)
        assert taken == [signal.SIGTERM, signal.SIGINT]
        with pytest.raises(RuntimeError), stop_signals(taken.append):
            raise RuntimeError("a part failed to open")
        assert all(signal.getsignal(sig) is theirs for sig in STOP_SIGNALS)
        signal.raise_signal(signal.SIGTERM)
        assert taken[-1] == -signal.SIGTERM
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def test_a_resumed_games_faults_are_lit_as_the_seat_controls_open(tmp_path: Path) -> None:
    """``run`` shows the journal's game before it opens the pads and buttons (the players see the table
    back first): the seat lights, opened after, still light the seats the resumed game left with a fault
    to put right, and the game is resumed once."""
    import contextlib
    import random

    import engine
    from firmware_host.app import open_parts
    from firmware_host.journal.store import Journal
    from firmware_host.players.builtin import game_transcript
    from firmware_host.referee.controller import Controller
    from firmware_host.service import InputLine, TableService

    table, path = simulated_table(), tmp_path / "journal.sqlite"
    with Journal(path) as journal:
        controller = Controller()
        service = TableService(journal=journal, controller=controller)
        service.resume()
        for event in game_transcript(engine.new_game("classic", dealer="A"), random.Random(1), faults=True):
            service.handle(InputLine(event))
            if controller.snapshot().faulty_seats:
                break
        faulty = controller.snapshot().faulty_seats
    assert faulty  # the game stopped with a fault to put right
    with Journal(path, lock=True) as journal, contextlib.ExitStack() as stack:
        parts = open_parts(table, TableTags.load(table), journal, RunOptions(), None, stack)
        assert parts.service.resumed and parts.controller.snapshot().faulty_seats == faulty
        lights = parts.devices.seat_controls
        assert lights is not None
        assert {seat for seat in lights.seats if lights.is_lit(seat)} == faulty
