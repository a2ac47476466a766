"""Engine benchmark: seeded random legal hands (with exchanges), one core.

Prints one line per figure, ``name: value unit``:

- ``hands_per_s``: complete hands (deal, proposals and exchanges, king, five tricks,
  scoring) played by :func:`engine.rollout.rollout`, the analysis path: integers and
  the rule set's hooks, every hand replayable through ``apply`` (the tests prove it);
- ``apply_hands_per_s``: the same hands through the immutable state machine,
  ``apply(state, action)`` action by action, with every event;
- ``legal_query_us``: listing every legal action of a position met in play.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

# this file is named like the package it measures: import the package, not itself
sys.path[0] = str(Path(__file__).resolve().parents[1])

from engine.game import apply, legal_actions, new_game  # noqa: E402
from engine.random_play import play_random_hand, random_action  # noqa: E402
from engine.rollout import rollout  # noqa: E402


def rollout_hands_per_second(windows: int = 7, hands: int = 5000, seed: int = 1) -> float:
    """The median rate over several windows (this machine's speed varies from second to second)."""
    rng = random.Random(seed)
    starts = [new_game("classic", dealer="A"), new_game("classic", dealer="B")]
    rates = []
    for _ in range(windows):
        start = time.perf_counter()
        for n in range(hands):
            rollout(starts[n & 1], rng)
        rates.append(hands / (time.perf_counter() - start))
    return statistics.median(rates)


def apply_hands_per_second(seconds: float = 3.0, seed: int = 1) -> float:
    rng = random.Random(seed)
    state = new_game("classic", dealer="A", rubber=10_001)
    hands = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(200):
            state = play_random_hand(state, rng)
            hands += 1
            if state.phase == "over":
                state = new_game("classic", dealer="A", rubber=10_001)
        now = time.perf_counter()
        if now >= deadline:
            return hands / (now - start)


def legal_query_us(samples: int = 2000, seed: int = 2) -> float:
    """Mean time to list every legal action of a position met in play (microseconds)."""
    rng = random.Random(seed)
    states = []
    state = new_game("classic", dealer="A", rubber=10_001)
    while len(states) < samples:
        if state.phase in ("play", "propose", "respond"):
            states.append(state)
        state, _ = apply(state, random_action(state, rng))
    start = time.perf_counter()
    for s in states:
        list(legal_actions(s))
    return (time.perf_counter() - start) / len(states) * 1e6


def main() -> None:
    print(f"hands_per_s: {rollout_hands_per_second():.0f} hands/s")
    print(f"apply_hands_per_s: {apply_hands_per_second():.0f} hands/s")
    print(f"legal_query_us: {legal_query_us():.1f} us")


if __name__ == "__main__":
    main()
