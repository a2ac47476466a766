"""Long sessions: many games in a row on one controller, no card ever lifted off a pad
(no ``gone`` line), never get stuck: every legal act is taken, every game ends, and no pad
memory leaks from one game into the next."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.random_play import random_action
from firmware_host.referee.controller import Controller
from firmware_host.referee.protocol import physical_events
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.referee.transcript import ButtonEvent, CardEvent

GAMES = 6


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.sampled_from(["classic", "french", "italian"]))
def test_many_games_without_gone_lines_never_get_stuck(seed: int, rules: str) -> None:
    rng = random.Random(seed)
    table = Controller(TableDefaults(rules=rules, dealer="A"))
    truth = engine.new_game(rules, dealer="A")
    for game in range(GAMES):
        for _ in range(5_000):
            if truth.phase == "over":
                break
            action = random_action(truth, rng)
            for event in physical_events(truth, action, lift_tricks=False):
                assert not (isinstance(event, CardEvent) and event.gone)
                outcome = table.handle(event)
                refused = [e for e in outcome.events if e.event == "fault"]
                assert not refused, (game, action, event, refused)
            truth, _ = engine.apply(truth, action)
        assert truth.phase == "over", f"game {game} did not end"
        snapshot = table.snapshot()
        assert snapshot.phase == "over" and snapshot.view.score == truth.public().score
        snapshot = table.handle(ButtonEvent("A", "yes")).snapshot  # a new game
        assert snapshot.phase != "over", f"no new game after game {game}"
        truth = engine.new_game(rules, dealer=snapshot.view.dealer or None)
        assert snapshot.view.dealer == truth.dealer
