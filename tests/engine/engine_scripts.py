"""Scripted hands for the engine's tests: deals with a known outcome and actions written as
people say them (``A plays KD``).

The deals have a known outcome when played as scripted (trump diamonds, the 7D turned up, B deals
and A is the elder unless said otherwise).
"""

from __future__ import annotations

from engine import (
    Card,
    Deal,
    Fault,
    HandEnd,
    apply,
    legal_actions,
    new_game,
    parse_action,
    parse_cards,
)
from engine.game import GameState

C = Card.parse

# A 3 tricks, B 2
A32 = ("KD QD JD 7S 8S", "KS QS KH QH JH",
       ["A plays KD", "B plays JH", "A plays QD", "B plays QH", "A plays JD", "B plays KH",
        "A plays 7S", "B plays QS", "B plays KS", "A plays 8S"])
# A 2 tricks, B 3
B32 = ("KD QD 7C 8C 9C", "JD AD KC QC JC",
       ["A plays KD", "B plays AD", "A plays QD", "B plays JD", "A plays 7C", "B plays JC",
        "B plays QC", "A plays 8C", "B plays KC", "A plays 9C"])
# A all five
AVOLE = ("QD JD AD TD 9D", "7S 8S 9S TS AS",
         ["A plays QD", "B plays 7S", "A plays JD", "B plays 8S", "A plays AD", "B plays 9S",
          "A plays TD", "B plays TS", "A plays 9D", "B plays AS"])
# B all five
BVOLE = ("7S 8S 9S TS AS", "QD JD AD TD 9D",
         ["A plays 7S", "B plays 9D", "B plays AD", "A plays 8S", "B plays JD", "A plays 9S",
          "B plays QD", "A plays TS", "B plays TD", "A plays AS"])


def run(state: GameState, *lines: str) -> tuple[GameState, list]:
    """Apply actions written like ``A plays KD``; every one must be legal."""
    events: list = []
    for line in lines:
        action = parse_action(line)
        assert action in legal_actions(state), (line, list(legal_actions(state)))
        state, caused = apply(state, action)
        faults = [e for e in caused if isinstance(e, Fault)]
        assert not faults, (line, faults)
        events.extend(caused)
    return state, events


def deal(state: GameState, a: str, b: str, turn: str = "7D") -> tuple[GameState, list]:
    state, events = apply(state, Deal(parse_cards(a), parse_cards(b), C(turn)))
    return state, list(events)


def kinds(events) -> list[str]:
    return [e.event for e in events]


def hand_end(events) -> HandEnd:
    ends = [e for e in events if isinstance(e, HandEnd)]
    assert len(ends) == 1, events
    return ends[0]


def start(rules: str = "classic", hand=A32, opening: tuple[str, ...] = ("A stands",), dealer: str = "B",
          **options) -> tuple[GameState, list]:
    state = new_game(rules, dealer=dealer, **options)
    state, events = deal(state, hand[0], hand[1])
    state, more = run(state, *opening)
    return state, events + more
