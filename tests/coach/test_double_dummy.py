"""The double-dummy search against a plain brute force, and the compiled kernel against the pure-Python search."""

from __future__ import annotations

import random

import pytest
from coach_rule_sets import RULE_IDS, RULE_SETS

from coach import double_dummy as dd
from coach.double_dummy import Position, best_cards, brute_force, card_values, solution, solve
from engine.cards import Card, mask_of
from engine.legality import king_index
from engine.rules import RuleSet, rules

needs_kernel = pytest.mark.skipif(dd.kernel is None, reason="the compiled kernel is not built here")


def random_position(rng: random.Random, rule_set: RuleSet, size: int) -> Position:
    """Two hands of ``size`` cards, a turn-up, a leader, maybe a card already led, maybe a king to lead."""
    cards = rng.sample(range(32), 2 * size + 1)
    turn_up = cards[-1]
    a = sum(1 << c for c in cards[:size])
    b = sum(1 << c for c in cards[size:2 * size])
    king_to_lead = -1
    if rule_set.king_must_be_led:
        king = 1 << king_index(turn_up)
        king_to_lead = 0 if a & king else 1 if b & king else -1
    position = Position((a, b), rng.randint(0, 1), turn_up, king_to_lead=king_to_lead)
    if rng.random() < 0.3:
        legal = position.legal(rule_set)
        choices = [i for i in range(32) if legal >> i & 1]
        position = position.play(rule_set, rng.choice(choices))
    return position


@pytest.mark.parametrize("rule_set", RULE_SETS, ids=RULE_IDS)
def test_pure_search_equals_brute_force_on_small_positions(rule_set: RuleSet) -> None:
    rng = random.Random(rule_set.describe())
    for _ in range(2000):
        position = random_position(rng, rule_set, rng.randint(1, 4))
        assert solve(rule_set, position, pure=True) == brute_force(rule_set, position), position


@pytest.mark.parametrize("rule_set", RULE_SETS, ids=RULE_IDS)
def test_pure_search_equals_brute_force_on_whole_hands(rule_set: RuleSet) -> None:
    rng = random.Random("5" + rule_set.describe())
    for _ in range(80):
        position = random_position(rng, rule_set, 5)
        assert solve(rule_set, position, pure=True) == brute_force(rule_set, position), position


@needs_kernel
@pytest.mark.parametrize("rule_set", RULE_SETS, ids=RULE_IDS)
def test_kernel_equals_pure_search(rule_set: RuleSet) -> None:
    rng = random.Random("k" + rule_set.describe())
    for _ in range(3000):
        position = random_position(rng, rule_set, rng.randint(1, 5))
        assert solve(rule_set, position) == solve(rule_set, position, pure=True), position


@needs_kernel
@pytest.mark.parametrize("rule_set", RULE_SETS, ids=RULE_IDS)
def test_kernel_follow_table_is_the_engines(rule_set: RuleSet) -> None:
    """The kernel's follow tables, made from rules.follow, give rules.follow's answer on any hand."""
    assert dd.kernel is not None
    rng = random.Random("f" + rule_set.describe())
    for _ in range(3000):
        trump = rng.randrange(4)
        tables = dd.kernel_tables(rule_set, trump)
        size = rng.randint(1, 8)
        hand = sum(1 << c for c in rng.sample(range(32), size))
        led = rng.choice([c for c in range(32) if not hand >> c & 1])
        assert dd.kernel.follow(tables, hand, led) == rule_set.follow(hand, led, trump)


def test_solution_line_keeps_the_result() -> None:
    rule_set = rules("classic")
    a = mask_of(["AS", "AH", "AD", "TC", "QC"])
    b = mask_of(["KS", "7D", "AC", "JC", "KC"])
    position = Position((a, b), 0, Card.parse("7S").index)
    result = solution(rule_set, position)
    assert result.tricks == (3, 2)
    assert len(result.line) == 10
    assert result.choices[0] == (Card.parse("AD"),)
    for step, card in enumerate(result.line):
        assert card[1] in result.choices[step]


def test_best_cards_are_those_that_keep_the_result() -> None:
    rng = random.Random(11)
    rule_set = rules("classic")
    for _ in range(50):
        position = random_position(rng, rule_set, 5)
        seat = position.to_play
        top = solve(rule_set, position)[seat]
        values = card_values(rule_set, position)
        assert {c.index for c in best_cards(rule_set, position)} == {c for c, v in values.items() if v[seat] == top}


def test_german_king_must_be_led_changes_the_result() -> None:
    """A seat that announced the king must lead it: the search asks lead_mask."""
    rule_set = rules("german")
    turn_up = Card.parse("7H").index
    a = mask_of(["KH", "8S"])
    b = mask_of(["AH", "9S"])
    free = Position((a, b), 0, turn_up)
    forced = Position((a, b), 0, turn_up, king_to_lead=0)
    assert best_cards(rule_set, forced) == (Card.parse("KH"),)
    assert len(best_cards(rule_set, free)) >= 1
    assert solve(rule_set, forced) == brute_force(rule_set, forced)
