"""Benchmark: how two neighbouring pads' RF fields overlap in time, as the pads poll.

Two pads on nfcpy, each against an emulated PN532 paced at 115200 baud, poll as the table's pads do
(:class:`drivers.nfc.pad.PadSet`, the default timing); the simulators log when each chip's field
goes on and off (:attr:`drivers.nfc.pn532sim.Pn532Simulator.field_changes`: on at a listing, off at
a field reset or a power-down). Three tables: both pads empty, a card on each, a stack of three on
each. Prints one line per figure, ``name: value unit``::

    empty_field_on_pct: 100.0 %        share of the time a pad's field is on
    empty_both_on_pct: 100.0 %         share of the time both neighbours' fields are on together
    empty_field_resets_per_s: 0.0 /s   a pad's field switched off and on again, per second
    empty_longest_off_ms: 0.0 ms       the longest a pad's field stayed off

and the same for ``card_`` and ``stack_``. The model's field is the PN532's RF on/off as nfcpy
switches it (UM0701-02, RFConfiguration item 1; PowerDown); how far a field reaches, and whether a
neighbour's field couples into a pad's cards, the simulator does not model: docs/hardware.md says
what the overlap means for spacing the pads.

Run: ``.venv/bin/python bench/pad_fields.py`` (``--seconds`` per table).
"""

from __future__ import annotations

import argparse
import queue
import sys
import time

from drivers.device_events import DeviceEvent, ReaderStatus
from drivers.nfc.pad import PadSet
from drivers.nfc.pn532sim import Pn532Simulator

ZONES = ("hand.A", "turnup")
"""Two neighbours on the reference table's layout."""


def _on_intervals(changes: tuple[tuple[float, bool], ...], start: float, end: float) -> list[tuple[float, float]]:
    """The windows within ``start``..``end`` (monotonic s) in which the field was on."""
    on_since: float | None = None
    windows = []
    for t, on in changes:
        if t <= start:
            on_since = start if on else None
            continue
        if t >= end:
            break
        if on and on_since is None:
            on_since = t
        elif not on and on_since is not None:
            windows.append((on_since, t))
            on_since = None
    if on_since is not None:
        windows.append((on_since, end))
    return windows


def _length(windows: list[tuple[float, float]]) -> float:
    return sum(b - a for a, b in windows)


def _both(first: list[tuple[float, float]], second: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Where both lists of windows are on."""
    out = []
    for a0, a1 in first:
        for b0, b1 in second:
            lo, hi = max(a0, b0), min(a1, b1)
            if lo < hi:
                out.append((lo, hi))
    return out


def _longest_off(windows: list[tuple[float, float]], start: float, end: float) -> float:
    edges = [start, *(t for window in windows for t in window), end]
    return max((edges[i + 1] - edges[i] for i in range(0, len(edges), 2)), default=end - start)


def measure(sims: list[Pn532Simulator], seconds: float) -> dict[str, float]:
    start = time.monotonic()
    time.sleep(seconds)
    end = time.monotonic()
    changes = [sim.field_changes for sim in sims]
    windows = [_on_intervals(c, start, end) for c in changes]
    span = end - start
    both = _both(windows[0], windows[1])
    resets = sum(1 for c in changes for t, on in c if not on and start <= t <= end)
    return {
        "field_on_pct": 100.0 * (_length(windows[0]) + _length(windows[1])) / (2 * span),
        "both_on_pct": 100.0 * _length(both) / span,
        "field_resets_per_s": resets / (2 * span),
        "longest_off_ms": 1000.0 * max(_longest_off(w, start, end) for w in windows),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="measured per table")
    parser.add_argument("--baud", type=int, default=115200)
    args = parser.parse_args(argv)
    sims = [Pn532Simulator(baud=args.baud, name=f"ttyFIELD{i}", depth=3, miss=0.0, seed=i) for i in range(2)]
    events: queue.Queue[DeviceEvent] = queue.Queue()
    cards = {f"04{i:02X}A0B0C0D0{k:02X}": "KS" for i in range(2) for k in range(3)}
    figures: dict[str, float] = {}
    try:
        with PadSet({zone: sim.path for zone, sim in zip(ZONES, sims, strict=True)}, events=events,
                    card_for=cards.get):
            online = 0
            while online < len(sims):
                event = events.get(timeout=30)
                online += isinstance(event, ReaderStatus) and event.online
            time.sleep(0.5)
            for table, count in (("empty", 0), ("card", 1), ("stack", 3)):
                for i, sim in enumerate(sims):
                    sim.lift_all()
                    if count:
                        sim.place_stack([f"04{i:02X}A0B0C0D0{k:02X}" for k in range(count)])
                time.sleep(0.5)  # the pads see it
                figures |= {f"{table}_{name}": value for name, value in measure(sims, args.seconds).items()}
    finally:
        for sim in sims:
            sim.close()
    print(f"# 2 neighbouring pads, {args.baud} baud, the default pad timing, {args.seconds:.0f} s a table",
          file=sys.stderr)
    for name, value in figures.items():
        unit = "ms" if name.endswith("_ms") else "/s" if name.endswith("_per_s") else "%"
        print(f"{name}: {value:.1f} {unit}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
