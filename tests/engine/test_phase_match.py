"""Games, rubbers and pools (``engine/phases/match.py``): the game's end, its value (rule 46), the
next dealer or leader, the watcher coming in.

The deals played below have a known outcome when played as scripted (``engine_scripts``: trump
diamonds, the 7D turned up, B deals and A is the elder unless said otherwise).
"""

from __future__ import annotations

import pytest
from engine_scripts import A32, B32, deal, hand_end, run, start

from engine import (
    GameEnd,
    MatchEnd,
    Seating,
    new_game,
)
from engine.game import GameState

# -- games, rubbers, pool ---------------------------------------------------------------------------

def play_hand(state: GameState, winner: str) -> tuple[GameState, list]:
    """A hand that ``winner`` takes 3-2 (whoever deals); german: the winner declares,
    the others: the elder proposes and the dealer refuses (the winner scores 1 or 2)."""
    elder, dealer = state.elder, state.dealer
    a, b, script = A32 if winner == elder else B32
    if elder == "B":
        swap = {"A": "B", "B": "A"}
        script = [swap[line[0]] + line[1:] for line in script]
        a, b = b, a
    if state.rules.declares_game:
        opening = [f"{elder} declares"] if winner == elder else [f"{elder} passes", f"{dealer} declares"]
    else:
        opening = [f"{elder} proposes", f"{dealer} refuses"]
    state, events = deal(state, a, b)
    state, more = run(state, *opening, *script)
    return state, events + more


def test_game_to_five_then_over():
    state = new_game("classic", dealer="B")
    events: list = []
    while not state.is_over:
        state, more = play_hand(state, "A")
        events += more
    ends = [e for e in events if isinstance(e, GameEnd)]
    assert ends == [GameEnd("A", (5, 0), 1)]
    assert state.score == (5, 0) and state.games == (1, 0)


def test_game_value_rule_46():
    state = new_game("classic", dealer="B", game_value=True, target=3)
    events: list = []
    state, more = play_hand(state, "B")
    while not state.is_over:
        state, more = play_hand(state, "A")
        events += more
    end = next(e for e in events if isinstance(e, GameEnd))
    assert end.score == (3, 1) and end.value == 2  # the loser had scored 1: double


@pytest.mark.parametrize(("rules", "dealers"), [
    ("classic", ["B", "A", "B"]),  # dealers keep alternating
    ("german", ["B", "B", "A"]),  # the loser deals: the winner leads (002)
])
def test_rubber_best_of_three(rules, dealers):
    state = new_game(rules, dealer="B", rubber=3, target=1)
    seen = []
    events: list = []
    for winner in ("A", "B", "A"):
        seen.append(state.dealer)
        assert state.score == (0, 0)
        state, more = play_hand(state, winner)
        events += more
    assert seen == dealers
    assert [e.winner for e in events if isinstance(e, GameEnd)] == ["A", "B", "A"]
    match = [e for e in events if isinstance(e, MatchEnd)]
    assert len(match) == 1 and match[0].winner == "A" and match[0].games == (2, 1)
    assert state.is_over and state.games == (2, 1)


def test_rubber_ends_early_when_won():
    state = new_game("classic", dealer="B", rubber=3, target=1, game_value=True)
    state, _ = play_hand(state, "A")
    state, events = play_hand(state, "A")
    match = [e for e in events if isinstance(e, MatchEnd)]
    assert match[0].games == (2, 0) and match[0].points == (6, 0) and state.is_over


@pytest.mark.parametrize(("rules", "hand", "opening", "next_dealer"), [
    # 002 "Wer gewonnen hat, spielt beim nächsten Spiel auf": the hand's winner is the next elder
    ("german", A32, ("A declares",), "B"),  # the declarer A makes 3: A leads again, B deals again
    ("german", B32, ("A declares",), "A"),  # A fails (-2): B won the hand, A deals
    ("german", B32, ("A passes", "B declares"), "A"),  # the dealer declares and makes 3
    ("german", A32, ("A passes", "B declares"), "B"),  # the dealer fails: A won, B deals again
    ("classic", A32, ("A stands",), "A"),  # elsewhere the dealer alternates, whoever won
    ("classic", B32, ("A stands",), "A"),
])
def test_german_the_winner_of_a_hand_leads_the_next(rules, hand, opening, next_dealer):
    state, _ = start(rules, hand, opening)
    state, events = run(state, *hand[2])
    assert hand_end(events) and state.phase == "deal" and state.hand_no == 2
    assert state.dealer == next_dealer


def test_german_the_winner_of_a_hand_ended_early_leads_the_next():
    """A hand ended by a declined double: the proposer scored as if he had won the point."""
    state, _ = start("german", A32, ("A passes", "B declares"), doubling=True)
    state, events = run(state, "B doubles", "A refuses")
    assert hand_end(events).points == (0, 1) and state.dealer == "A"


def test_pool_the_watcher_comes_in_after_a_lost_game_not_a_lost_hand():
    """003: 'El jugador que pierde la mano luego intercambia lugares con el jugador observador, hasta
    que uno de los jugadores gana dos juegos consecutivos'. Read as the loser of a game (see
    docs/rules.md): a lost hand inside a game changes no one."""
    state = new_game("classic", dealer="B", pool=True, target=2, players=("Ann", "Bob", "Cy"))
    state, events = play_hand(state, "B")  # Bob, dealing, wins a hand: 1 point of 2, Ann stays
    assert state.score == (0, 1) and not any(isinstance(e, (GameEnd, Seating)) for e in events)
    assert state.players == ("Ann", "Bob", "Cy") and state.dealer == "A"
    state, events = play_hand(state, "B")  # Bob wins again: the game, Ann goes out, Cy comes in
    assert [e for e in events if isinstance(e, Seating)] == [Seating("Cy", "Bob", "Ann")]
    assert state.score == (0, 0) and state.streak == ("Bob", 1)


def test_pool_loser_swaps_with_the_watcher_two_wins_take_the_pool():
    state = new_game("classic", dealer="B", pool=True, target=1, players=("Ann", "Bob", "Cy"))
    state, events = play_hand(state, "B")  # Bob beats Ann: Ann goes out, Cy comes in at A and deals
    seat = [e for e in events if isinstance(e, Seating)]
    assert seat == [Seating("Cy", "Bob", "Ann")]
    assert state.players == ("Cy", "Bob", "Ann") and state.dealer == "A" and state.streak == ("Bob", 1)
    state, events = play_hand(state, "A")  # Cy beats Bob: Bob out, Ann in at B and deals
    assert state.players == ("Cy", "Ann", "Bob") and state.dealer == "B" and state.streak == ("Cy", 1)
    state, events = play_hand(state, "A")  # Cy again: two in a row take the pool
    match = [e for e in events if isinstance(e, MatchEnd)]
    assert len(match) == 1 and match[0].player == "Cy" and state.is_over
