"""The deal (``engine/phases/deal.py``): the cut, à la retourne, a void deal (rules 9, 45) and the
dealer alternating.

The deals played below have a known outcome when played as scripted (``engine_scripts``: trump
diamonds, the 7D turned up, B deals and A is the elder unless said otherwise).
"""

from __future__ import annotations

import pytest
from engine_scripts import A32, C, deal, kinds, run, start

from engine import (
    DealCard,
    TurnTarget,
    TurnUp,
    apply,
    legal_actions,
    new_game,
    parse_action,
)

# -- misdeal and duplicate: the deal is void, the same dealer deals again (rules 9, 45) -----------

@pytest.mark.parametrize(("first", "offending"), [
    ("A 7S 8S 9S TS AS", DealCard("A", C("JS"))),  # a sixth card: misdeal
    ("A 7S 8S 9S TS AS", DealCard("B", C("9S"))),  # already in A's hand: duplicate
    ("A 7S 8S 9S TS", TurnUp(C("7D"))),  # turned up while a hand is short: misdeal
])
def test_void_deal_then_the_same_dealer_deals_again(first, offending):
    state = new_game("classic", dealer="B")
    seat, *cards = first.split()
    for card in cards:
        state, _ = apply(state, DealCard(seat, C(card)))
    state, events = apply(state, offending)
    assert kinds(events) == ["fault"] and events[0].seat == "B"
    assert "trump" not in kinds(events)
    assert state.phase == "deal" and state.dealer == "B" and state.hands == (0, 0) and state.hand_no == 1
    state, events = deal(state, *A32[:2])
    assert kinds(events) == ["trump"] and state.phase == "propose" and state.elder == "A"


def test_duplicate_draw_voids_the_deal_after_an_exchange():
    state, _ = start("classic", A32, ("A proposes", "B accepts", "A discards 8S"))
    state, events = apply(state, parse_action("A draws KS"))  # in B's hand
    assert kinds(events) == ["fault"] and events[0].code == "duplicate_card"
    assert state.phase == "deal" and state.dealer == "B" and state.discards == (0, 0)


def test_dealer_alternates_each_hand():
    state = new_game("classic", dealer="B")
    dealers = []
    for _ in range(3):
        dealers.append(state.dealer)
        hand = A32 if state.dealer == "B" else (A32[1], A32[0], [])
        state, _ = deal(state, *hand[:2])
        state, _ = run(state, f"{state.elder} stands")
        while state.phase == "play":
            state, _ = apply(state, next(a for a in legal_actions(state) if a.kind == "play"))
    assert dealers == ["B", "A", "B"] and state.dealer == "A" and state.hand_no == 4


# -- cut and à la retourne --------------------------------------------------------------------------

@pytest.mark.parametrize(("ace_high", "a", "b", "dealer"), [
    (False, "KS", "AH", "A"),  # rule 5: the higher écarté card deals
    (False, "AS", "JH", "B"),
    (False, "7S", "8H", "B"),
    (True, "AS", "KH", "A"),  # 003 'Rangos'
    (True, "QS", "AH", "B"),
])
def test_cut_for_the_deal(ace_high, a, b, dealer):
    state = new_game("classic", ace_high=ace_high)
    assert state.phase == "cut"
    state, events = run(state, f"A cuts {a}", f"B cuts {b}")
    assert [(e.event, e.seat) for e in events] == [("dealer", dealer)]
    assert state.phase == "deal" and state.dealer == dealer


def test_equal_cut_cuts_again():
    state = new_game("classic")
    state, events = run(state, "A cuts KS", "B cuts KH")
    assert [(e.event, e.seat) for e in events] == [("dealer", None)]
    assert state.phase == "cut" and state.cuts == (-1, -1)
    state, events = run(state, "B cuts 7S", "A cuts 8S")
    assert state.dealer == "A"


def test_cut_the_same_card_twice_is_a_duplicate():
    state, _ = run(new_game("classic"), "A cuts KS")
    _, events = apply(state, parse_action("B cuts KS"))
    assert events[0].code == "duplicate_card"


@pytest.mark.parametrize(("card", "target"), [("AH", 11), ("KS", 10), ("TD", 10), ("9C", 9), ("7H", 7)])
def test_a_la_retourne_sets_the_target(card, target):
    state = new_game("french", a_la_retourne=True)
    assert state.phase == "retourne"
    state, events = apply(state, TurnTarget(C(card)))
    assert [(e.event, e.target) for e in events] == [("target", target)]
    assert state.target == target and state.phase == "cut"
    state = new_game("french", a_la_retourne=True, dealer="A")
    state, _ = apply(state, TurnTarget(C(card)))
    assert state.phase == "deal"
