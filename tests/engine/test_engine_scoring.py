"""A hand's points (``engine/scoring.py``) in every rule set: vulnerability (rule 49), the french
limit, italian prepotenza and scores below zero, the german declarer.

The deals played below have a known outcome when played as scripted (``engine_scripts``: trump
diamonds, the 7D turned up, B deals and A is the elder unless said otherwise).
"""

from __future__ import annotations

import pytest
from engine_scripts import A32, AVOLE, B32, BVOLE, hand_end, run, start

# -- vulnerability (rule 49; 001 point de refus) --------------------------------------------------

@pytest.mark.parametrize("rules", ["classic", "french"])
@pytest.mark.parametrize(("hand", "opening", "points"), [
    (A32, ("A stands",), (1, 0)),  # the vulnerable elder wins: 1
    (B32, ("A stands",), (0, 2)),  # the elder played d'autorité and lost: 2 to the dealer
    (BVOLE, ("A stands",), (0, 2)),  # never more than 2 for tricks (no vole then)
    (AVOLE, ("A stands",), (2, 0)),
    (A32, ("A proposes", "B refuses"), (2, 0)),  # the dealer refused the first proposal and lost
    (AVOLE, ("A proposes", "B refuses"), (2, 0)),
    (B32, ("A proposes", "B refuses"), (0, 1)),
    (BVOLE, ("A proposes", "B refuses"), (0, 2)),
])
def test_vulnerability_scoring(rules, hand, opening, points):
    state, events = start(rules, hand, opening)
    bids = [e for e in events if e.event == "bid"]
    assert bids[-1].vulnerable is True
    state, events = run(state, *hand[2])
    assert hand_end(events).points == points
    assert state.score == points


def test_refusing_a_later_proposal_is_not_vulnerable():
    state, events = start("classic", B32, ("A proposes", "B accepts", "A discards 9C", "A draws 9H",
                                           "B discards JC", "B draws 9S", "A proposes", "B refuses"))
    assert state.vulnerable is None
    assert not any(getattr(e, "vulnerable", False) for e in events)


def test_standing_after_a_round_is_not_vulnerable():
    state, _ = start("classic", A32, ("A proposes", "B accepts", "A discards 8S", "A draws 9S",
                                      "B discards JH", "B draws JS", "A stands"))
    assert state.vulnerable is None


def test_french_hand_worth_at_most_three():
    """001: 'le maximum ... 3 points seulement -- point de Levée, de Refus et de Roi'."""
    state, _ = start("french", ("KD QD JD AD TD", "7S 8S 9S TS AS"), ("A proposes", "B refuses"))
    state, events = run(state, "A announces", "A plays KD", "B plays 7S", "A plays QD", "B plays 8S",
                        "A plays JD", "B plays 9S", "A plays AD", "B plays TS", "A plays TD", "B plays AS")
    assert hand_end(events).points == (3, 0)


# -- italian ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("hand", "opening", "points"), [
    (B32, ("A stands",), (-1 + 1, 1)),  # prepotenza and under three: -1 (and +1 for the declared king)
    (BVOLE, ("A stands",), (-1, 2)),
    (A32, ("A proposes", "B refuses"), (2, -1)),  # king 1 + point 1; the refusing dealer -1
    (AVOLE, ("A proposes", "B refuses"), (2, -1)),
])
def test_italian_prepotenza(hand, opening, points):
    state, _ = start("italian", hand, opening)
    script = list(hand[2])
    if "KD" in hand[0]:
        script.insert(0, "A announces")
    state, events = run(state, *script)
    assert hand_end(events).points == points


def test_italian_scores_go_below_zero():
    state, _ = start("italian", BVOLE)
    state, events = run(state, *BVOLE[2])
    assert state.score == (-1, 2)
    assert hand_end(events).score == (-1, 2)


# -- german --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("hand", "opening", "declarer", "points"), [
    (A32, ("A declares",), "A", (1, 0)),
    (B32, ("A declares",), "A", (-2, 0)),
    (BVOLE, ("A declares",), "A", (-2, 0)),
    (AVOLE, ("A declares",), "A", (2, 0)),
    (B32, ("A passes", "B declares"), "B", (0, 1)),
    (A32, ("A passes", "B declares"), "B", (0, -2)),
    (BVOLE, ("A passes", "B declares"), "B", (0, 2)),
])
def test_german_declarer_scoring(hand, opening, declarer, points):
    state, events = start("german", hand, opening)
    begins = [e for e in events if e.event == "play_begins"]
    assert begins[0].declarer == declarer and begins[0].leader == "A"
    state, events = run(state, *hand[2])
    assert hand_end(events).points == points
