"""The setup menu: the setup in force, the menu while it is open, badges and rule cards."""

from __future__ import annotations

import pytest
from referee_tables import card_event, table_at

import engine
from firmware_host.referee.controller import Controller
from firmware_host.referee.setup_menu import SetupMenu, setting_up
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.referee.table_events import NewGame, Notice
from firmware_host.referee.transcript import Setup
from hardware.layout import Zone


def test_a_setup_line_makes_the_game_and_is_written_back() -> None:
    menu, state = SetupMenu(TableDefaults(rules="french", players=("Anne", "Bruno"))).read(Setup(dealer="B", target=3))
    assert (state.rules.name, state.dealer, state.target, state.players[:2]) == ("french", "B", 3, ("Anne", "Bruno"))
    line = menu.line(state, {"04A1": "KS"})
    assert (line.rules, line.dealer, line.target, line.tags, line.players) == (
        "french", "B", 3, {"04A1": "KS"}, ("Anne", "Bruno"))


def test_a_setup_the_engine_cannot_play_is_a_notation_error() -> None:
    with pytest.raises(engine.NotationError, match="setup"):
        SetupMenu().read(Setup(rules="bezique"))


def test_the_menu_opens_steps_and_starts_the_game_it_shows() -> None:
    menu = SetupMenu(TableDefaults(dealer="A"))
    state = menu.new_state("A")
    assert menu.wants("king", setting_up=True) and not menu.wants("yes", setting_up=True)
    menu, events, started = menu.press("king", state)
    assert (events, started) == ([], None)
    assert menu.wants("yes", setting_up=True) and not menu.wants("king", setting_up=False)
    menu, _, _ = menu.press("no", state)  # the target
    menu, _, _ = menu.press("yes", state)  # 5 -> 3
    assert menu.shown is not None and (menu.shown.item, menu.shown.value) == ("target", "3")
    menu, events, started = menu.press("king", state)
    assert events == [NewGame("classic", "A", 3)] and started is not None and started.target == 3
    assert menu.shown is None


def test_house_rules_change_only_the_language_and_a_card_laid_closes_the_menu() -> None:
    menu = SetupMenu(TableDefaults(locked=True, language="fr"))
    state = menu.new_state("A")
    menu, _, _ = menu.press("king", state)
    menu, events, started = menu.press("yes", state)
    assert [e.code for e in events if isinstance(e, Notice)] == ["locked"] and started is None
    assert menu.shown_language == "fr"
    menu = menu.close()
    assert menu.shown is None


def test_badges_name_seats_and_rule_cards_set_the_rules_only_before_the_first_card() -> None:
    menu = SetupMenu(TableDefaults(dealer="B"))
    state = menu.new_state("B")
    menu, _, started = menu.laid("player:Anne", Zone.HAND_A, state, setting_up=True)
    assert started is not None and started.players[0] == "Anne"
    menu, events, started = menu.laid("rules:italian", Zone.TURNUP, started, setting_up=True)
    assert events == [NewGame("italian", "B", started.target)] if started else False
    _, events, nothing = menu.laid("rules:german", Zone.TURNUP, state, setting_up=False)
    assert [e.code for e in events if isinstance(e, Notice)] == ["setup_ignored"] and nothing is None
    _, events, nothing = menu.laid("player:Bruno", Zone.TURNUP, state, setting_up=True)
    assert [e.code for e in events if isinstance(e, Notice)] == ["badge_seat"] and nothing is None


def test_setting_up_lasts_until_the_first_card() -> None:
    state = engine.new_game("classic", dealer="A")
    assert setting_up(state, pads_empty=True)
    assert not setting_up(state, pads_empty=False)
    dealt, _ = engine.apply(state, engine.actions.DealCard("B", engine.Card.parse("KS")))
    assert not setting_up(dealt, pads_empty=True)


# -- moved from test_controller: the same tests through the Controller --------------------------


def test_setup_after_the_first_event_is_a_notice() -> None:
    table = table_at("deal")
    table.handle(card_event("hand.B", "9S"))
    out = table.handle(Setup(rules="german")).events
    assert isinstance(out[0], Notice) and out[0].code == "setup_ignored"
    assert table.state.engine_state.rules.name == "classic"


def test_bad_rules_in_setup_raise_a_notation_error() -> None:
    with pytest.raises(engine.NotationError, match="setup"):
        Controller().handle(Setup(rules="bezique"))
