"""Hidden cards leave through one door: the seats' private views reach a seat's own output (its earpiece)
and no other, whichever loop puts the outcomes out (the service's, the typed session's). What the other
outputs say is unchanged: ``tests/firmware_host/test_outputs_unchanged.py``."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest

import engine
from firmware_host.journal.store import Journal
from firmware_host.outputs import SeatOutput
from firmware_host.players.builtin import game_transcript
from firmware_host.players.console import run_session
from firmware_host.referee.controller import Controller
from firmware_host.referee.snapshot import Outcome
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.service import TableService
from firmware_host.voice.hands import Earpiece
from firmware_host.voice.spoken import spoken


class Recorder:
    """An output of no seat: keeps every outcome it is given."""

    def __init__(self) -> None:
        self.outcomes: list[Outcome] = []

    def publish(self, outcome: Outcome) -> None:
        self.outcomes.append(outcome)


class SeatRecorder(Recorder):
    """An output of one seat (as an earpiece is): keeps every outcome it is given."""

    def __init__(self, seat: str) -> None:
        super().__init__()
        self.private_seat = seat


def test_only_a_seats_own_output_is_given_its_private_view(tmp_path: Path) -> None:
    public, seats = Recorder(), {seat: SeatRecorder(seat) for seat in "AB"}
    ear = Earpiece("A", None)
    _: SeatOutput = ear  # a seat's output (mypy checks the protocol)
    assert not hasattr(public, "private_seat")
    with Journal(tmp_path / "journal.sqlite") as journal:
        service = TableService(journal=journal, controller=Controller(), outputs=[public, *seats.values(), ear])
        service.resume()
        for event in game_transcript(engine.new_game("classic", dealer="A"), random.Random(4), faults=True):
            service.put_physical(event)
            service.handle(service.queue.get_nowait())
            if public.outcomes[-1].snapshot.phase == "play":
                assert spoken("en").cards_in(ear.text()) == {str(c) for c in seats["A"].outcomes[-1].private["A"].hand}
    assert len(public.outcomes) > 100 and all(not outcome.private for outcome in public.outcomes)
    for seat, recorder in seats.items():
        assert len(recorder.outcomes) == len(public.outcomes)
        assert all(list(outcome.private) == [seat] for outcome in recorder.outcomes)
        assert sum(bool(outcome.private[seat].hand) for outcome in recorder.outcomes) > 50
    # apart from the private view, every output was given the same outcome
    assert all(o.seen_by(None) == p for o, p in zip(seats["A"].outcomes, public.outcomes, strict=True))


def test_the_typed_sessions_outputs_go_through_the_same_door() -> None:
    public, seat = Recorder(), SeatRecorder("B")
    bad = run_session(["deal"], io.StringIO(), controller=Controller(TableDefaults(dealer="A")), rng=random.Random(2),
                      outputs=[public, seat])
    assert bad == 0 and len(public.outcomes) == len(seat.outcomes) > 10
    assert all(not outcome.private for outcome in public.outcomes)
    assert all(list(outcome.private) == ["B"] for outcome in seat.outcomes)
    assert len(seat.outcomes[-1].private["B"].hand) == 5


def test_after_a_restart_a_seats_earpiece_knows_its_cards_again(tmp_path: Path) -> None:
    """The service resumes the journal's game and gives each output the table as it stands: the earpiece
    its seat's hand (a ledger fed by the pads knew nothing of the cards dealt before the stop)."""
    from firmware_host.referee.transcript import CardEvent, Setup

    events = [Setup(rules="classic", dealer="B"), *(CardEvent("hand.A", c) for c in ("KH", "QH", "JH")),
              *(CardEvent("hand.B", c) for c in ("7S", "8S", "9S"))]
    with Journal(tmp_path / "journal.sqlite") as journal:
        service = TableService(journal=journal, controller=Controller())
        service.resume()
        for event in events:
            service.put_physical(event)
            service.handle(service.queue.get_nowait())
    ears = {seat: Earpiece(seat, None) for seat in "AB"}
    with Journal(tmp_path / "journal.sqlite") as journal:
        TableService(journal=journal, controller=Controller(), outputs=list(ears.values())).resume()
    assert ears["A"].text() == "Your cards: the king of hearts, the queen of hearts and the jack of hearts."
    assert spoken("en").cards_in(ears["B"].text()) == {"7S", "8S", "9S"}


class Unplugged:
    """An output whose device went away (a display unplugged, a closed pipe)."""

    def publish(self, outcome: Outcome) -> None:
        raise OSError(5, "Input/output error")


@pytest.mark.allow_error_log
def test_an_output_that_fails_is_said_and_the_others_are_still_given_the_outcome(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    public, seat = Recorder(), SeatRecorder("A")
    with Journal(tmp_path / "journal.sqlite") as journal:
        service = TableService(journal=journal, controller=Controller(), outputs=[Unplugged(), public, seat])
        service.resume()
        for event in game_transcript(engine.new_game("classic", dealer="A"), random.Random(4))[:8]:
            service.put_physical(event)
            service.handle(service.queue.get_nowait())
    assert len(public.outcomes) == len(seat.outcomes) == 9 and seat.outcomes[-1].private["A"].hand  # and the resume's
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 9 and all(e.startswith("Unplugged: ") for e in errors), errors
