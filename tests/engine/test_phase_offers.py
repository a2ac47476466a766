"""Doubling and offering the point (``engine/phases/offers.py``; 003 'Apuesta', Cady 1896).

The deals played below have a known outcome when played as scripted (``engine_scripts``: trump
diamonds, the 7D turned up, B deals and A is the elder unless said otherwise).
"""

from __future__ import annotations

import pytest
from engine_scripts import A32, B32, BVOLE, hand_end, run, start

from engine import (
    apply,
    legal_actions,
    parse_action,
)
from firmware_host.referee.event_words import message

# -- doubling (003 'Apuesta') ------------------------------------------------------------------

def test_double_accepted_doubles_the_points():
    state, _ = start("classic", A32, doubling=True)
    state, events = run(state, "A doubles")
    assert [(e.event, e.seat, e.offer, e.accepted) for e in events] == [("offer", "A", "double", None)]
    assert {str(a) for a in legal_actions(state)} == {"B accepts", "B refuses"}
    _, ev = apply(state, parse_action("A plays KD"))
    assert ev[0].code == "out_of_turn"
    state, events = run(state, "B accepts", *A32[2])
    assert events[0].accepted is True
    assert hand_end(events).points == (2, 0)


def test_double_with_vulnerability_included_and_king_not_doubled():
    state, _ = start("classic", B32, doubling=True)  # A stood: vulnerable
    state, events = run(state, "A announces", "B doubles", "A accepts", *B32[2])
    assert hand_end(events).points == (1, 4)


@pytest.mark.parametrize(("opening", "points"), [
    (("A stands",), (1, 0)),  # as if the proposer had won the point
    (("A proposes", "B refuses"), (2, 0)),  # ... 2 if the decliner was vulnerable
])
def test_double_declined_ends_the_hand(opening, points):
    state, _ = start("classic", A32, opening, doubling=True)
    state, events = run(state, "A plays 7S", "B plays KS", "A doubles", "B refuses")
    end = hand_end(events)
    assert end.points == points and state.phase == "deal" and state.hand_no == 2


def test_double_only_once_and_before_the_third_trick():
    state, _ = start("classic", A32, doubling=True)
    state, _ = run(state, *A32[2][:4])
    assert parse_action("B doubles") in legal_actions(state)  # two tricks done, third not begun
    state2, _ = run(state, "A doubles", "B accepts")
    _, events = apply(state2, parse_action("B doubles"))
    assert events[0].code == "wrong_time"
    state, _ = run(state, A32[2][4])  # the third trick has begun
    _, events = apply(state, parse_action("B doubles"))
    assert events[0].code == "wrong_time"


def test_double_not_played_without_the_option():
    state, _ = start("classic", A32)
    _, events = apply(state, parse_action("A doubles"))
    assert events[0].code == "wrong_time" and "not played at this table" in message(events[0])


# -- offering the point (003 'Apuesta', Cady 1896) ----------------------------------------------

@pytest.mark.parametrize(("opening", "points"), [
    (("A proposes", "B accepts", "A discards 8S", "A draws 9S", "B discards JH", "B draws JS", "A stands"), (0, 1)),
    (("A stands",), (0, 2)),  # the offerer was vulnerable: the opponent scores as if he won the point
])
def test_offer_point_accepted(opening, points):
    state, _ = start("classic", A32, opening, offer_point=True)
    state, events = run(state, "A offers the point", "B accepts")
    assert hand_end(events).points == points


@pytest.mark.parametrize(("hand", "points"), [
    (BVOLE, (0, 2)),  # the refuser won the vole: normal scoring
    (B32, (2, 0)),  # he did not (three tricks only): the offerer scores 2
])
def test_offer_point_refused_the_refuser_must_win_the_vole(hand, points):
    state, _ = start("classic", hand, offer_point=True)
    state, events = run(state, "A offers the point", "B refuses")
    assert [(e.seat, e.offer, e.accepted) for e in events] == [("A", "point", None), ("A", "point", False)]
    assert state.must_vole == "B"
    _, again = apply(state, parse_action("A offers the point"))
    assert again[0].code == "wrong_time"
    state, events = run(state, *hand[2])
    assert hand_end(events).points == points


def test_offer_point_only_before_the_first_card():
    state, _ = start("classic", A32, offer_point=True)
    state, _ = run(state, "A plays KD")
    _, events = apply(state, parse_action("B offers the point"))
    assert events[0].code == "wrong_time" and "before the first card" in message(events[0])
