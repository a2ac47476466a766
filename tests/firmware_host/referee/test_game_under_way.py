"""The game under way: each input carried through the referee's parts, the next state kept.

Built from the referee's state (no controller): what a sighting leaves in the corrections and the
hand log, a setup line before and after the first card, a badge to the menu, a new deal gathering
the pads.
"""

from __future__ import annotations

from typing import Any

from referee_tables import DEAL

from drivers.device_events import Sighting
from engine import Event
from firmware_host.referee.game_under_way import take
from firmware_host.referee.referee_state import RefereeState, start
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.referee.transcript import ButtonEvent, CardEvent, PhysicalEvent, Setup


class _Game:
    """The state of the game, each input's next state kept (a test's holder: the referee keeps none)."""

    def __init__(self, **defaults: Any) -> None:
        self.state: RefereeState = start(TableDefaults(**defaults))

    def take(self, event: PhysicalEvent) -> list[Event]:
        self.state, events = take(self.state, event)
        return events


def test_a_refused_card_waits_in_the_corrections_until_taken_back() -> None:
    game = _Game(dealer="A")
    for zone, card in DEAL:
        assert game.take(CardEvent(zone, card)) == []
    game.take(CardEvent("turnup", "7H"))
    game.take(ButtonEvent("B", "no"))
    assert [e.to_json()["code"] for e in game.take(CardEvent("play.A", "7S"))] == ["out_of_turn"]
    assert [f.seat for f in game.state.corrections.faults] == ["A"] and not game.state.pads.empty
    assert game.take(CardEvent("play.A", "7S")) == []  # read again where it lies
    assert [e.to_json()["event"] for e in game.take(CardEvent("play.A", "7S", gone=True))] == ["corrected"]
    assert game.state.corrections.faults == ()
    assert [e.to_json()["event"] for e in game.take(CardEvent("play.B", "9S"))] == ["play"]
    assert game.state.engine_state.led >= 0


def test_a_setup_line_is_read_before_the_first_card_only() -> None:
    game = _Game()
    assert game.take(Setup(rules="german", dealer="B")) == []
    assert game.state.engine_state.rules.name == "german" and game.state.engine_state.dealer == "B"
    assert game.state.setting_up() and game.state.between_hands()
    game.take(CardEvent("hand.A", "KS"))
    assert not game.state.setting_up() and not game.state.between_hands()
    assert [e.to_json()["code"] for e in game.take(Setup(rules="classic"))] == ["setup_ignored"]
    assert game.state.engine_state.rules.name == "german"


def test_a_badge_goes_to_the_menu_and_a_misdeal_gathers_the_pads() -> None:
    game = _Game(dealer="A", badges={"04B0": "player:Anne"})
    assert [e.to_json()["event"] for e in game.take(CardEvent("hand.A", sighting=Sighting("04B0")))] == ["new_game"]
    state = game.state
    assert state.engine_state.players[0] == "Anne" and (state.setup.line(state.engine_state, {}).players or ())[0] \
        == "Anne" and state.pads.empty
    game.take(CardEvent("hand.B", "9S"))
    assert [e.to_json()["code"] for e in game.take(CardEvent("turnup", "7H"))] == ["misdeal"]
    state = game.state
    assert state.pads.empty and state.corrections.faults == () and state.corrections.warning is not None
    assert state.between_hands() and state.log.last_trick is None
