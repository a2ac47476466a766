"""The game under way: each input carried through the parts given to it, the engine's state kept.

Built from its own parts (no controller): what a sighting leaves in the corrections and the hand
log, a setup line before and after the first card, a badge to the menu, a new deal gathering the pads.
"""

from __future__ import annotations

from typing import Any

from referee_tables import DEAL

from firmware_host.referee.card_namer import CardNamer
from firmware_host.referee.corrections import Corrections
from firmware_host.referee.game_under_way import GameUnderWay
from firmware_host.referee.hand_log import HandLog
from firmware_host.referee.pad_ledger import PadLedger
from firmware_host.referee.setup_menu import SetupMenu
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.referee.transcript import ButtonEvent, CardEvent, Setup


def _game(**defaults: Any) -> tuple[GameUnderWay, SetupMenu, PadLedger, Corrections, HandLog]:
    setup, pads, corrections, log = SetupMenu(TableDefaults(**defaults)), PadLedger(), Corrections(), HandLog()
    namer = CardNamer(setup.defaults.tags, badges=setup.defaults.badges)
    return GameUnderWay(setup, namer, pads, corrections, log), setup, pads, corrections, log


def test_a_refused_card_waits_in_the_corrections_until_taken_back() -> None:
    game, _, pads, corrections, _ = _game(dealer="A")
    for zone, card in DEAL:
        assert game.take(CardEvent(zone, card)) == []
    game.take(CardEvent("turnup", "7H"))
    game.take(ButtonEvent("B", "no"))
    assert [e.to_json()["code"] for e in game.take(CardEvent("play.A", "7S"))] == ["out_of_turn"]
    assert [f.seat for f in corrections.faults] == ["A"] and not pads.empty
    assert game.take(CardEvent("play.A", "7S")) == []  # read again where it lies
    assert [e.to_json()["event"] for e in game.take(CardEvent("play.A", "7S", gone=True))] == ["corrected"]
    assert corrections.faults == ()
    assert [e.to_json()["event"] for e in game.take(CardEvent("play.B", "9S"))] == ["play"]
    assert game.state.led >= 0


def test_a_setup_line_is_read_before_the_first_card_only() -> None:
    game, *_ = _game()
    assert game.take(Setup(rules="german", dealer="B")) == []
    assert game.state.rules.name == "german" and game.state.dealer == "B"
    assert game.setting_up() and game.between_hands()
    game.take(CardEvent("hand.A", "KS"))
    assert not game.setting_up() and not game.between_hands()
    assert [e.to_json()["code"] for e in game.take(Setup(rules="classic"))] == ["setup_ignored"]
    assert game.state.rules.name == "german"


def test_a_badge_goes_to_the_menu_and_a_misdeal_gathers_the_pads() -> None:
    game, setup, pads, corrections, log = _game(dealer="A", badges={"04B0": "player:Anne"})
    assert [e.to_json()["event"] for e in game.take(CardEvent("hand.A", uid="04B0"))] == ["new_game"]
    assert game.state.players[0] == "Anne" and (setup.line(game.state, {}).players or ())[0] == "Anne" and pads.empty
    game.take(CardEvent("hand.B", "9S"))
    assert [e.to_json()["code"] for e in game.take(CardEvent("turnup", "7H"))] == ["misdeal"]
    assert pads.empty and corrections.faults == () and corrections.warning is not None
    assert game.between_hands() and log.last_trick is None
