"""Engine benchmark: seeded random legal hands (with exchanges), one core.

Prints one line per figure, ``name: value unit``.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

# this file is named like the package it measures: import the package, not itself
sys.path[0] = str(Path(__file__).resolve().parents[1])

from engine.cards import CARDS  # noqa: E402
from engine.game import apply, legal_actions, new_game  # noqa: E402
from engine.random_play import play_random_hand, random_action  # noqa: E402


def hands_per_second(seconds: float = 3.0, seed: int = 1) -> float:
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
    _ = CARDS
    print(f"hands_per_s: {hands_per_second():.0f} hands/s")
    print(f"legal_query_us: {legal_query_us():.1f} us")


if __name__ == "__main__":
    main()
