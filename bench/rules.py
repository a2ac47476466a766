"""Engine benchmark: seeded random legal hands (with exchanges), one core.

Prints one line per figure, ``name: value unit``:

- ``hands_per_s``: complete hands (deal, proposals and exchanges, king, five tricks,
  scoring) played by :func:`engine.rollout.rollout`, the analysis path: integers and
  the rule set's hooks, every hand replayable through ``apply`` (the tests prove it);
- ``apply_hands_per_s``: the same hands through the immutable state machine,
  ``apply(state, action)`` action by action, with every event;
- ``legal_query_us``: listing every legal action of a position met in play.

Rates are per second of this process's CPU time: one core's work. (The wall clock of
the development machine, a virtual machine, also counts time the host lends the
core to others, and swings by a quarter from one second to the next.)
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
from engine.state import GameState, Phase  # noqa: E402


def rollout_hands_per_second(windows: int = 7, hands: int = 5000, seed: int = 1) -> float:
    """Hands per second of this process's CPU time (one core), the median of several windows.

    CPU time, not wall time: on this virtual machine the wall clock also counts the
    time the host gives the core to others, which swings from second to second.
    """
    rng = random.Random(seed)
    starts = [new_game("classic", dealer="A"), new_game("classic", dealer="B")]
    rates = []
    for _ in range(windows):
        start = time.process_time()
        for n in range(hands):
            rollout(starts[n & 1], rng)
        rates.append(hands / (time.process_time() - start))
    return statistics.median(rates)


def apply_hands_per_second(windows: int = 5, hands: int = 1000, seed: int = 1) -> float:
    """Hands per CPU second through ``apply``, the median of several windows."""
    rng = random.Random(seed)
    state = new_game("classic", dealer="A", rubber=10_001)
    rates = []
    for _ in range(windows):
        start = time.process_time()
        for _ in range(hands):
            state = play_random_hand(state, rng)
            if state.phase == Phase.OVER:
                state = new_game("classic", dealer="A", rubber=10_001)
        rates.append(hands / (time.process_time() - start))
    return statistics.median(rates)


def legal_query_us(samples: int = 2000, seed: int = 2) -> float:
    """Mean time to list every legal action of a position met in play (microseconds)."""
    rng = random.Random(seed)
    states: list[GameState] = []
    state = new_game("classic", dealer="A", rubber=10_001)
    while len(states) < samples:
        if state.phase in (Phase.PLAY, Phase.PROPOSE, Phase.RESPOND):
            states.append(state)
        state, _ = apply(state, random_action(state, rng))
    start = time.process_time()
    for s in states:
        list(legal_actions(s))
    return (time.process_time() - start) / len(states) * 1e6


def main() -> None:
    print(f"hands_per_s: {rollout_hands_per_second():.0f} hands/s")
    print(f"apply_hands_per_s: {apply_hands_per_second():.0f} hands/s")
    print(f"legal_query_us: {legal_query_us():.1f} us")


if __name__ == "__main__":
    main()
