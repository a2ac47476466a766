"""Benchmark: six pads on nfcpy against six emulated PN532s paced at 115200 baud.

The simulators run in a child process (they play the table: cards laid and
lifted at random moments); this process runs only the pads, so its CPU time is
the readers' cost. Prints one line per figure, ``name: value unit``::

    arrive_median_ms: 17.1 ms      card laid → arrive event
    arrive_p99_ms: 33.0 ms
    leave_median_ms: 78.4 ms       card lifted → leave event
    idle_cpu_percent: 2.9 %        six pads polling an empty table, % of one core

Run: ``.venv/bin/python bench/pads.py`` (``--help`` for the knobs).
"""

from __future__ import annotations

import argparse
import multiprocessing
import multiprocessing.connection
import queue
import random
import statistics
import sys
import threading
import time
from dataclasses import dataclass

from drivers.events import CardSeen, DeviceEvent, ReaderStatus
from drivers.nfc.pad import PadSet, PadTiming
from drivers.nfc.pn532sim import Pn532Simulator
from hardware.tags import CARDS, TagRegistry

ZONES = ("hand.A", "hand.B", "turnup", "discard", "play.A", "play.B")


@dataclass(frozen=True, slots=True)
class Move:
    """A card laid on (``gone=False``) or lifted off a pad, at ``t`` (monotonic s)."""

    pad: int
    uid: str
    gone: bool
    t: float


def tag_of(pad: int) -> str:
    return f"04{pad:02X}A0B0C0D0{pad:02X}"


def _play_table(
    conn: multiprocessing.connection.Connection, pads: int, rounds: int, baud: int, seed: int
) -> None:
    """Child process: the simulators, and the hands that lay and lift cards."""
    sims = [Pn532Simulator(baud=baud, name=f"ttyPAD{i}") for i in range(pads)]
    try:
        conn.send([sim.path for sim in sims])
        conn.recv()  # the idle measurement is over
        moves: list[Move] = []
        lock = threading.Lock()

        def hand(index: int) -> None:
            rng = random.Random(seed + index)
            sim, uid = sims[index], tag_of(index)
            for _ in range(rounds):
                # Longer than a leave takes: a card put back sooner has not left.
                time.sleep(rng.uniform(0.25, 0.4))
                sim.place(uid)
                laid = time.monotonic()
                time.sleep(rng.uniform(0.15, 0.3))
                sim.remove(uid)
                lifted = time.monotonic()
                with lock:
                    moves.append(Move(index, uid, False, laid))
                    moves.append(Move(index, uid, True, lifted))

        hands = [threading.Thread(target=hand, args=(i,)) for i in range(pads)]
        for thread in hands:
            thread.start()
        for thread in hands:
            thread.join()
        time.sleep(1.0)  # let the last leave events come
        conn.send(moves)
        conn.recv()
    finally:
        for sim in sims:
            sim.close()


def _latencies(moves: list[Move], events: list[CardSeen], gone: bool) -> list[float]:
    """Milliseconds from each move to the first matching event after it."""
    out = []
    for move in moves:
        if move.gone != gone:
            continue
        later = [
            e.t
            for e in events
            if e.zone == ZONES[move.pad] and e.uid == move.uid and e.gone == gone and e.t >= move.t
        ]
        if later:
            out.append(1000 * (min(later) - move.t))
    return out


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pads", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=20, help="cards laid per pad")
    parser.add_argument("--baud", type=int, default=115200)
    parser.add_argument("--interval", type=float, default=PadTiming().poll_interval, help="s")
    parser.add_argument("--leave-after", type=int, default=PadTiming().leave_after, help="polls")
    parser.add_argument("--idle-seconds", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--debug", action="store_true", help="list moves and events on stderr")
    args = parser.parse_args(argv)
    if not 1 <= args.pads <= len(ZONES):
        parser.error(f"--pads must be 1..{len(ZONES)}")

    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe()
    table = context.Process(
        target=_play_table, args=(theirs, args.pads, args.rounds, args.baud, args.seed)
    )
    table.start()
    registry = TagRegistry()
    for pad in range(args.pads):
        registry.add(tag_of(pad), CARDS[pad])
    events: queue.Queue[DeviceEvent] = queue.Queue()
    timing = PadTiming(poll_interval=args.interval, leave_after=args.leave_after)
    try:
        paths = ours.recv()
        ports = {ZONES[i]: path for i, path in enumerate(paths)}
        with PadSet(ports, events=events, card_for=registry.card_for, timing=timing):
            online = 0
            while online < args.pads:
                event = events.get(timeout=30)
                online += isinstance(event, ReaderStatus) and event.online
            time.sleep(0.5)  # settle
            cpu, wall = time.process_time(), time.monotonic()
            time.sleep(args.idle_seconds)
            idle = 100 * (time.process_time() - cpu) / (time.monotonic() - wall)
            ours.send("go")
            moves: list[Move] = ours.recv()
        ours.send("done")  # the simulators go only after the pads
        seen: list[CardSeen] = []
        while not events.empty():
            event = events.get_nowait()
            if isinstance(event, CardSeen):
                seen.append(event)
    finally:
        table.join(timeout=30)
        if table.is_alive():
            table.terminate()

    if args.debug:
        for move in sorted(moves, key=lambda m: m.t):
            print("move", ZONES[move.pad], move.gone, f"{move.t:.4f}", file=sys.stderr)
        for event in seen:
            print("event", event.zone, event.gone, f"{event.t:.4f}", file=sys.stderr)
    arrive = _latencies(moves, seen, gone=False)
    leave = _latencies(moves, seen, gone=True)
    expected = len(moves) // 2
    if len(arrive) < expected or len(leave) < expected:
        print(f"missed events: {len(arrive)}/{expected} arrivals, "
              f"{len(leave)}/{expected} leaves", file=sys.stderr)
    print(
        f"# {args.pads} pads, {args.baud} baud, poll_interval {args.interval * 1000:.0f} ms, "
        f"leave_after {args.leave_after} polls, {len(arrive)} arrivals, {len(leave)} leaves",
        file=sys.stderr,
    )
    print(f"arrive_median_ms: {statistics.median(arrive):.1f} ms")
    print(f"arrive_p99_ms: {_percentile(arrive, 0.99):.1f} ms")
    print(f"leave_median_ms: {statistics.median(leave):.1f} ms")
    print(f"idle_cpu_percent: {idle:.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
