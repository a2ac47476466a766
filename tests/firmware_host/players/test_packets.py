"""The built-in players (``firmware_host/players/packets.py``): the model of the pads they play on,
how they deal and gather, what they note of their own faults, and that a seed plays one game."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from firmware_host.players.packets import Conduct, ModelTable, PacketPlayers, PlayersError
from firmware_host.referee.controller import Controller
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.referee.transcript import ButtonEvent, CardEvent, Setup
from hardware.layout import Zone


def cards_fed(table: ModelTable) -> list[tuple[str, str | None, bool]]:
    return [(e.zone, e.card, e.gone) for e in table.lines if isinstance(e, CardEvent)]


def test_a_model_pad_reads_a_stack_from_the_cloth_up_to_its_depth() -> None:
    """Of a packet of three on a pad that reads two, the two lowest reach the referee; the one above
    couples once a card below is taken away, and a card never read leaves without a word."""
    table = ModelTable(Controller(TableDefaults(dealer="A")), depth=2)
    table.lay(Zone.HAND_A, ["KS", "QS", "JS"])
    assert cards_fed(table) == [("hand.A", "KS", False), ("hand.A", "QS", False)]
    table.lay(Zone.HAND_A, ["TS"])  # on top of three: out of reach
    table.lift(Zone.HAND_A, ["TS"])
    assert len(cards_fed(table)) == 2
    table.lift(Zone.HAND_A, ["KS"])
    assert cards_fed(table)[2:] == [("hand.A", "KS", True), ("hand.A", "JS", False)]
    assert table.stacks["hand.A"] == ["QS", "JS"] and table.read["hand.A"] == {"QS", "JS"}


def test_the_play_and_turn_up_pads_read_two_whatever_the_depth() -> None:
    """A trick's card lies alone on its play pad, but a cut taken again puts a second there: those pads
    read two even where the hand pads read one."""
    table = ModelTable(Controller(TableDefaults(dealer="A")), depth=1)
    table.lay(Zone.PLAY_A, ["KS", "QS"])
    table.lay(Zone.HAND_B, ["7H", "8H"])
    assert cards_fed(table) == [("play.A", "KS", False), ("play.A", "QS", False), ("hand.B", "7H", False)]


def test_a_setup_and_a_button_are_fed_as_lines_and_their_events_kept() -> None:
    table = ModelTable(Controller(), setup=Setup(rules="french", dealer="B"))
    assert table.lines == [Setup(rules="french", dealer="B")]
    assert table.snapshot.view.rules == "french" and table.snapshot.view.dealer == "B"
    events = table.press("A", "yes")
    assert table.lines[-1] == ButtonEvent("A", "yes") and table.events[-len(events):] == events


def test_the_dealer_deals_packets_of_three_then_two_to_the_elder_first_and_turns_the_eleventh() -> None:
    """Rule 8: three cards to each, then two, the non-dealer first; the eleventh turned up; then the
    players pick their hands up (their pads empty)."""
    table = ModelTable(Controller(TableDefaults(dealer="A", sight="full")), depth=99)
    players = PacketPlayers(table, engine.new_game("classic", dealer="A"), seed=1)
    deal = players.next_action()
    players.act(deal)
    fed = cards_fed(table)
    laid = [(zone, gone) for zone, _card, gone in fed[:10]]
    assert laid == [("hand.B", False)] * 3 + [("hand.A", False)] * 3 + [("hand.B", False)] * 2 + [("hand.A", False)] * 2
    assert fed[10] == ("turnup", players.turn_up, False) and players.turn_up is not None
    picked = {(zone, card) for zone, card, gone in fed[11:] if gone}
    assert picked == {(zone, card) for zone, card, _gone in fed[:10]} and len(fed) == 21
    assert table.snapshot.view.phase == players.world.phase == "propose"


def test_a_trick_s_cards_are_gathered_once_it_is_complete() -> None:
    table = ModelTable(Controller(TableDefaults(dealer="A", sight="full")), depth=99)
    players = PacketPlayers(table, engine.new_game("classic", dealer="A"), seed=5)
    for _ in range(100):  # the first hand's first trick is a few dozen acts away
        if players.world.phase == "play" and players.world.led < 0 and sum(players.world.tricks) == 1:
            break
        players.act(players.next_action())
    assert sum(players.world.tricks) == 1
    first_trick = [(zone, card) for zone, card, gone in cards_fed(table) if zone.startswith("play.") and not gone]
    gathered = [(zone, card) for zone, card, gone in cards_fed(table) if zone.startswith("play.") and gone]
    assert len(first_trick) == 2 and sorted(gathered) == sorted(first_trick)
    assert players.on_play == {"A": None, "B": None}


def test_a_wrong_card_counts_as_answered_once_proven_late_or_voided() -> None:
    conduct = Conduct(planted=[(1, 2, "A", "KS"), (1, 4, "B", "7H"), (2, 1, "A", "9D")])
    assert conduct.unanswered() == conduct.planted
    conduct.late.append((1, 3, "A", "revoke"))  # proven in the same hand, against the same seat
    conduct.voided.append((2, 1, "A", "9D"))  # the hand played again before it was proven
    assert conduct.unanswered() == [(1, 4, "B", "7H")]
    conduct.late.append((1, 5, "B", "false_king"))  # a false king proves no wrong card
    assert conduct.unanswered() == [(1, 4, "B", "7H")]


def test_no_replay_is_chosen_when_none_is_awaited() -> None:
    table = ModelTable(Controller(TableDefaults(dealer="A")))
    players = PacketPlayers(table, engine.new_game("classic", dealer="A"))
    with pytest.raises(PlayersError, match="no choice is awaited"):
        players._choose_replay()


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), depth=st.integers(1, 3), faults=st.sampled_from([0.0, 0.3]))
def test_a_seed_plays_one_game(seed: int, depth: int, faults: float) -> None:
    """The players' every choice comes from the seed and the moment of the game: the same seed at the
    same table lays the same cards and presses the same buttons, line for line, to the same end."""
    played = []
    for _ in range(2):
        table = ModelTable(Controller(TableDefaults(dealer="A", sight="partial")), depth=depth)
        players = PacketPlayers(table, engine.new_game("classic", dealer="A"), seed=seed, faults=faults)
        final = players.play_game()
        assert final.phase == "over" and table.snapshot.view.score == final.score
        played.append((table.lines, final.score, players.conduct))
    assert played[0] == played[1]
