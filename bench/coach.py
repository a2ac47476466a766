"""Benchmark the coach: one line per figure, ``name: value unit`` (CPU time of one core).

    .venv/bin/python bench/coach.py            # the speed figures and the single-dummy distance

The jeu de règle table (every row over every hand it describes) is ``bench/regle.py``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from coach import double_dummy as dd
from coach.double_dummy import Position, leader_tricks, searcher
from coach.odds import propose_value, stand_odds
from coach.single_dummy import play_out
from engine.rules import rules


def deal(rng: random.Random) -> tuple[int, int, int]:
    cards = rng.sample(range(32), 11)
    return sum(1 << c for c in cards[:5]), sum(1 << c for c in cards[5:10]), cards[10]


def cpu(fn: Callable[..., object], *args: Any, **kwargs: Any) -> float:
    """Seconds of this process's CPU time that ``fn(*args, **kwargs)`` takes."""
    start = time.process_time()
    fn(*args, **kwargs)
    return time.process_time() - start


def solve_us(pure: bool, n: int) -> float:
    rule_set = rules("classic")
    rng = random.Random(1)
    times = []
    for _ in range(n):
        a, b, turn_up = deal(rng)
        searcher.cache_clear()  # a full solve each time: no table kept from the last one
        start = time.perf_counter()
        leader_tricks(rule_set, Position((a, b), 0, turn_up), pure=pure)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer samples")
    args = parser.parse_args()
    rule_set = rules("classic")
    rng = random.Random(2)
    print(f"kernel: {'compiled' if dd.kernel is not None else 'missing (pure Python)'}")
    print(f"dd_solve_us: {solve_us(False, 3000):.1f} us")
    print(f"dd_solve_pure_us: {solve_us(True, 300):.0f} us")
    hands = [deal(rng) for _ in range(5 if args.quick else 9)]
    times = []
    for a, _, turn_up in hands:
        searcher.cache_clear()
        times.append(cpu(stand_odds, rule_set, a, turn_up))
    print(f"stand_odds_s: {statistics.median(times):.3f} s")
    times = []
    for a, _, turn_up in hands[:3]:
        searcher.cache_clear()
        times.append(cpu(stand_odds, rule_set, a, turn_up, pure=True))
    print(f"stand_odds_pure_s: {statistics.median(times):.2f} s")
    times = [cpu(propose_value, rule_set, a, t, samples=2000) for a, _, t in hands[:3]]
    print(f"propose_value_2000_s: {statistics.median(times):.3f} s")

    # single dummy against double dummy: the same deals played out both ways, the elder standing
    elders = 6 if args.quick else 20
    per = 10 if args.quick else 20
    gaps = []
    dd_points = sd_points = same = played = 0
    start = time.process_time()
    for _ in range(elders):
        a, _, turn_up = deal(rng)
        pool = [c for c in range(32) if not (a | 1 << turn_up) >> c & 1]
        dd_hits = sd_hits = 0
        for _ in range(per):
            b = sum(1 << c for c in rng.sample(pool, 5))
            position = Position((a, b), 0, turn_up)
            dd_tricks = leader_tricks(rule_set, position)
            sd_tricks = play_out(rule_set, position, vulnerable=0, seed=played)[0][0]
            dd_hits += dd_tricks >= 3
            sd_hits += sd_tricks >= 3
            same += dd_tricks == sd_tricks
            played += 1
        dd_points += dd_hits
        sd_points += sd_hits
        gaps.append(abs(dd_hits - sd_hits) / per)
    print(f"sd_play_ms: {(time.process_time() - start) / played * 1000:.1f} ms")
    print(f"dd_point_rate: {dd_points / played:.3f} (sample of {played} deals)")
    print(f"sd_point_rate: {sd_points / played:.3f}")
    print(f"sd_dd_same_tricks: {same / played:.3f}")
    print(f"sd_dd_point_gap: {statistics.mean(gaps):.3f} (mean |P_dd - P_sd| per elder hand)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
