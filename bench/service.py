"""Service benchmark: event in → display frame out, memory, start-up.

Prints one line per figure, ``name: value unit``:

- ``event_to_frame_p50_ms`` / ``event_to_frame_p99_ms``: one physical event through the
  real service loop step (journal append and fsync, controller, display view drawn and
  sent through luma to the simulated panel), over whole games;
- ``event_to_frame_nojournal_p99_ms``: the same without the journal's disk writes;
- ``rss_mb``: peak resident memory of ``ecarte-table run`` on the simulated table
  playing a whole game from ``--events``;
- ``first_frame_s``: from starting ``ecarte-table run`` to its first display frame on disk.
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from firmware_host.journal.store import Journal  # noqa: E402
from firmware_host.players.builtin import game_transcript  # noqa: E402
from firmware_host.referee.controller import Controller  # noqa: E402
from firmware_host.referee.transcript import PhysicalEvent, dumps  # noqa: E402
from firmware_host.screens.panel import open_panel  # noqa: E402
from firmware_host.service import TableService, _Line  # noqa: E402
from hardware.table import simulated_table  # noqa: E402


def _games(count: int) -> list[list[PhysicalEvent]]:
    return [
        game_transcript(engine.new_game("classic", dealer="A"), random.Random(seed), faults=True)
        for seed in range(count)
    ]


def event_to_frame(games: list[list[PhysicalEvent]], *, journal_on_disk: bool) -> list[float]:
    """Seconds per event, handled one by one through the service's loop step."""
    timings: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, events in enumerate(games):
            path = Path(tmp) / f"j{n}.sqlite" if journal_on_disk else ":memory:"
            with Journal(path) as journal:
                panel = open_panel(simulated_table())
                service = TableService(journal=journal, controller=Controller(), outputs=[panel])
                service.resume()
                for event in events:
                    t0 = time.perf_counter()
                    service.handle(_Line(event))
                    timings.append(time.perf_counter() - t0)
                panel.close()
    return timings


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run_service_once(lines: list[str]) -> tuple[float, float]:
    """(peak RSS in MB, seconds to the first frame) of ``ecarte-table run`` on the simulated table."""
    with tempfile.TemporaryDirectory() as tmp:
        events = Path(tmp) / "game.jsonl"
        events.write_text("\n".join(lines) + "\n")
        frames = Path(tmp) / "frames"
        start = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "firmware_host.cli.main", "run", "--journal", str(Path(tmp) / "j.sqlite"),
             "--png", str(frames), "--events", "-"],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, cwd=ROOT, text=True,
        )
        first = None
        while first is None and time.monotonic() - start < 30:
            if frames.exists() and any(frames.iterdir()):
                first = time.monotonic() - start
            else:
                time.sleep(0.005)
        assert proc.stdin is not None
        proc.stdin.write("\n".join(lines) + "\n")
        proc.stdin.close()
        peak = 0.0
        while proc.poll() is None:
            try:
                status = Path(f"/proc/{proc.pid}/status").read_text()
            except OSError:
                break
            for line in status.splitlines():
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]) / 1024)
            time.sleep(0.02)
        proc.wait(timeout=60)
        return peak, first if first is not None else float("nan")


def main() -> None:
    games = _games(6)
    with_journal = event_to_frame(games, journal_on_disk=True)
    without = event_to_frame(games, journal_on_disk=False)
    print(f"event_to_frame_p50_ms: {statistics.median(with_journal) * 1000:.2f} ms")
    print(f"event_to_frame_p99_ms: {_pct(with_journal, 0.99) * 1000:.2f} ms")
    print(f"event_to_frame_nojournal_p99_ms: {_pct(without, 0.99) * 1000:.2f} ms")
    lines = [dumps(e) for e in games[0]]
    rss, first = run_service_once(lines)
    print(f"rss_mb: {rss:.1f} MB")
    print(f"first_frame_s: {first:.2f} s")


if __name__ == "__main__":
    main()
