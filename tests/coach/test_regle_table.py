"""The jeu de règle table: the rows' hand counts against counts made here by hand, the odds' symmetry, and
the checked-in table (docs/jeu_de_regle.json, written by bench/regle.py) against a recomputation of rows."""

from __future__ import annotations

import json
import random
from math import comb
from pathlib import Path

import pytest

from coach.jeu_de_regle import ROWS
from coach.odds import refuse_odds, stand_odds
from coach.regle_table import Table, key_of, row_groups
from engine.cards import Card, mask_of
from engine.rules import rules

DATA = Path(__file__).resolve().parents[2] / "docs" / "jeu_de_regle.json"
BY_KEY = {r.key: r for r in ROWS}
DEALS = 4 * 8  # trump suits × turn-ups; each count below is per trump suit and turn-up (7 live trumps, 24 plain cards)

INDEPENDENT_COUNTS = {
    # three of the seven live trumps or more, the rest from the 24 plain cards
    "elder:3T": comb(7, 3) * comb(24, 2) + comb(7, 4) * 24 + comb(7, 5),
    # one trump; king, queen, knave of one of three suits and any one of the 21 other plain cards
    "elder:1T+KQJ": 7 * 3 * 21,
    # no trump; the three plain queens and two of the 21 other plain cards
    "elder:0T+3Q": comb(21, 2),
    # one trump; a king alone in one suit, a queen alone in another (3 × 2 ways), two of the fourth suit's 8
    "elder:1T+K/Q": 7 * 6 * comb(8, 2),
    # no trump; three queens, two of them with one lower card each (of the six below the queen), the third alone
    "dealer:0T+3Q2": 3 * 6 * 6,
    # one trump; two queens, each with one of the six lower cards of her suit (3 pairs of suits)
    "dealer:1T+2Qx": 7 * 3 * 6 * 6,
}


@pytest.mark.parametrize("name", sorted(INDEPENDENT_COUNTS))
def test_rows_count_the_hands_they_describe(name: str) -> None:
    groups = row_groups(BY_KEY[name])
    assert 4 * sum(len(kings) for kings in groups.values()) == DEALS * INDEPENDENT_COUNTS[name]


def test_hands_sharing_a_key_have_the_same_odds() -> None:
    """The odds depend on the turn-up's rank only through the live trumps' order, and not on the plain suits' order."""
    rule_set = rules("classic")
    rng = random.Random(5)
    for _ in range(6):
        turn_up = 8 + rng.randrange(8)  # hearts
        hand = sum(1 << c for c in rng.sample([c for c in range(32) if c != turn_up], 5))
        key, _ = key_of(hand, turn_up)
        representative, rep_turn_up = key.hand(False)
        assert stand_odds(rule_set, hand, turn_up).counts == stand_odds(rule_set, representative, rep_turn_up).counts


def test_the_checked_in_table_matches_a_recomputation() -> None:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    assert [row["row"] for row in data["rows"]] == [r.key for r in ROWS]
    stored = {row["row"]: row for row in data["rows"]}
    table = Table(rules(data["rules"]), data["samples"])
    for name in ("dealer:0T+3Q2",):
        figures = table.figures(BY_KEY[name]).as_dict()
        assert figures.keys() == stored[name].keys()
        for field, value in figures.items():
            assert value == pytest.approx(stored[name][field], abs=1e-9), (name, field)
    for row in data["rows"]:
        assert row["hands"] > 0 and 0 <= row["below"] <= row["hands"]
        assert row["p_min"] <= row["p_mean"] <= row["p_max"]


def test_a_row_against_every_one_of_its_hands_played_here() -> None:
    """The dealer's one trump, tierce major and a court card: its 126 hands with the 7H turned, made here
    card by card, each weighed by refuse_odds. With one trump, one turn-up already meets every hand's
    odds (the trump is any of the seven live ones), once each: the row's min, mean, max and share
    under two to one are these hands' exactly."""
    rule_set = rules("classic")
    turn_up = Card.parse("7H").index
    hands = []
    for trump in ["8H", "9H", "TH", "AH", "JH", "QH", "KH"]:
        for suit in "SDC":
            tierce = [f"K{suit}", f"Q{suit}", f"J{suit}"]
            for other in "SDC".replace(suit, ""):
                hands += [mask_of([trump, *tierce, f"{rank}{other}"]) for rank in "KQJ"]
    assert len(hands) == 126 == len(set(hands))
    points = [refuse_odds(rule_set, hand, turn_up).point for hand in hands]
    stored = {row["row"]: row for row in json.loads(DATA.read_text(encoding="utf-8"))["rows"]}["dealer:1T+KQJ+C"]
    assert stored["hands"] == 126 * DEALS
    assert stored["p_min"] == pytest.approx(min(points)) and stored["p_max"] == pytest.approx(max(points))
    assert stored["p_mean"] == pytest.approx(sum(points) / len(points))
    assert stored["below"] == DEALS * sum(1 for p in points if p < 2 / 3)


def test_the_issues_hand_is_counted_in_its_row() -> None:
    """8H 9H TH 7S 7D with the 7H turned: 37,310 of 65,780 (0.567), so the row of three trumps has hands under 2:1."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    three = next(row for row in data["rows"] if row["row"] == "elder:3T")
    point = stand_odds(rules("classic"), mask_of(["8H", "9H", "TH", "7S", "7D"]), Card.parse("7H").index).point
    assert point == pytest.approx(37310 / 65780)
    assert three["p_min"] <= point and three["below"] > 0
