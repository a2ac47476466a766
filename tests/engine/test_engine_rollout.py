"""Rollouts (the analysis path) give exactly what the state machine gives for the same actions."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.rollout import rollout

CONFIGS = [
    ("classic", {}), ("french", {}), ("italian", {}), ("italian", {"forzare": True}), ("german", {}),
    ("classic", {"ace_high": True}), ("french", {"target": 3}),
]


@settings(max_examples=150, deadline=None)
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**32 - 1), dealer=st.sampled_from("AB"),
       score=st.tuples(st.integers(0, 4), st.integers(0, 4)))
def test_a_rollout_replays_identically_through_apply(config, seed, dealer, score) -> None:
    name, options = config
    start = engine.new_game(name, dealer=dealer, **options)
    start = start.evolve(score=tuple(min(s, start.target - 1) for s in score))
    outcome = rollout(start, random.Random(seed), record=True)
    final, events = engine.replay(start, outcome.actions)
    assert not [e for e in events if isinstance(e, engine.Fault)]
    assert final.score == outcome.score
    assert outcome.game_over == (final.phase == "over")
    hand_ends = [e for e in events if isinstance(e, engine.HandEnd)]
    if hand_ends:
        assert (hand_ends[-1].tricks, hand_ends[-1].points) == (outcome.tricks, outcome.points)
        assert sum(outcome.tricks) == 5
    else:
        assert outcome.game_over  # a king point reached the target before the tricks


def test_rollouts_are_seeded() -> None:
    start = engine.new_game("classic", dealer="A")
    a = [rollout(start, random.Random(9)) for _ in range(3)]
    b = [rollout(start, random.Random(9)) for _ in range(3)]
    assert a == b


def test_a_rollout_from_the_first_decision_keeps_the_deal() -> None:
    start = engine.new_game("classic", dealer="B")
    dealt, _ = engine.apply(start, engine.parse_deal("KH QH JH AH TH / 7S 8S 9S TS AS / 7D"))
    outcome = rollout(dealt, random.Random(1), record=True)
    final, _ = engine.replay(dealt, outcome.actions)
    assert final.score == outcome.score


def test_a_rollout_starts_only_at_the_deal_or_the_first_decision() -> None:
    start = engine.new_game("classic", dealer="B")
    dealt, _ = engine.apply(start, engine.parse_deal("KH QH JH AH TH / 7S 8S 9S TS AS / 7D"))
    playing, _ = engine.apply(dealt, engine.Stand("A"))
    with pytest.raises(ValueError, match="play"):
        rollout(playing, random.Random(1))


@settings(max_examples=120, deadline=None)
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**32 - 1), dealer=st.sampled_from("AB"))
def test_a_rollout_chooses_among_exactly_the_cards_legal_actions_allows(config, seed, dealer) -> None:
    """Both ways: every card a rollout plays is legal, and the cards it could have chosen from
    at that moment are exactly the cards ``legal_actions`` offers there (no more, no fewer)."""
    name, options = config
    state = engine.new_game(name, dealer=dealer, **options)
    outcome = rollout(state, random.Random(seed), record=True)
    choices = iter(outcome.choices)
    checked = 0
    for action in outcome.actions:
        if isinstance(action, engine.PlayCard):
            allowed = next(choices)
            offered = engine.mask_of(a.card for a in engine.legal_actions(state) if isinstance(a, engine.PlayCard))
            assert allowed == offered == engine.legal_plays(state, action.seat)
            assert allowed >> action.card.index & 1
            checked += 1
        state, events = engine.apply(state, action)
        assert not [e for e in events if isinstance(e, engine.Fault)]
    assert next(choices, None) is None
    assert checked == sum(outcome.tricks) * 2 or outcome.game_over
