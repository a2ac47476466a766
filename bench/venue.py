"""Venue benchmark: many simulated tables publishing whole games into one hub.

Prints one line per figure, ``name: value unit``, for the embedded broker and for Mosquitto:

- ``hub_event_to_page_p99_ms``: from a table's publish (the ``t`` its state carries) to the
  scoreboard's event handler in a real headless Chromium (Debian's, through Playwright);
- ``hub_rss_mb``: the peak resident memory of the ``ecarte-table hub`` process (with the
  embedded broker in it, for the embedded run);
- ``table_publish_cost_us``: what publishing adds to a table's event → frame time: the
  MQTT output's ``publish`` on the table's thread (p50 and p99), while all tables play.

Each table is a real :class:`~firmware_host.referee.controller.Controller` with a real
:class:`venue.mqtt.TablePublisher` (its own connection, worker and paho thread), fed
whole games of the built-in players at ten times a real table's speed (a physical
event every ``REAL_EVENT_S`` seconds of play, so one every 0.3 s here).

    .venv/bin/python bench/venue.py [--tables 256] [--seconds 60] [--only embedded|mosquitto]
"""

from __future__ import annotations

import argparse
import heapq
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from firmware_host.players.builtin import game_transcript  # noqa: E402
from firmware_host.referee.controller import Controller  # noqa: E402
from firmware_host.referee.transcript import PhysicalEvent  # noqa: E402
from venue.mqtt import TablePublisher  # noqa: E402
from venue.settings import MqttSettings  # noqa: E402

REAL_EVENT_S = 3.0
"""Seconds between two physical events at a real table (a card dealt, a button, a card played)."""
SPEED = 10.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Table:
    def __init__(self, name: str, port: int, seed: int) -> None:
        self.publisher = TablePublisher(MqttSettings(port=port, venue="bench", table=name, enabled=True,
                                                     queue=100_000), table_name=name)
        self.rng = random.Random(seed)
        self.controller = Controller()
        self.events: list[PhysicalEvent] = []
        self.costs: list[float] = []

    def step(self) -> None:
        if not self.events:
            self.controller = Controller()
            self.events = game_transcript(engine.new_game("classic", dealer="A"), self.rng, faults=True)[::-1]
        outcome = self.controller.handle(self.events.pop())
        t0 = time.perf_counter()
        self.publisher.publish(outcome)
        self.costs.append(time.perf_counter() - t0)


def run(kind: str, tables: int, seconds: float, chromium: str) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="ecarte-bench-"))
    tmp.chmod(0o755)
    broker_port, hub_port = free_port(), free_port()
    procs: list[subprocess.Popen[bytes]] = []
    hub_cmd = [str(ROOT / ".venv/bin/ecarte-table"), "hub", "--listen", f"127.0.0.1:{hub_port}", "--venue", "bench"]
    try:
        if kind == "mosquitto":
            conf = tmp / "mosquitto.conf"
            conf.write_text(f"persistence false\nallow_anonymous true\nlistener {broker_port} 127.0.0.1\n"
                            "max_queued_messages 100000\n")
            procs.append(subprocess.Popen([shutil.which("mosquitto") or "/usr/sbin/mosquitto", "-c", str(conf)],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            wait_port(broker_port)
            hub_cmd += ["--broker", f"127.0.0.1:{broker_port}"]
        else:
            venue_file = tmp / "venue.toml"
            venue_file.write_text(f'[broker]\nlisten = "127.0.0.1:{broker_port}"\n')
            hub_cmd.insert(2, str(venue_file))
        hub = subprocess.Popen(hub_cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(hub)
        wait_port(hub_port)
        wait_port(broker_port)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{hub_port}/")
            page.wait_for_selector("#conn:text('live')", timeout=30_000)
            room = [Table(f"t{i:03d}", broker_port, i) for i in range(tables)]
            for table in room:
                table.publisher.start()
            for table in room:
                table.publisher.connected.wait(30)
            page.evaluate("window.__latencies = []")
            interval = REAL_EVENT_S / SPEED
            start = time.monotonic()
            queue = [(start + interval * i / tables, i) for i in range(tables)]
            heapq.heapify(queue)
            steps = 0
            while queue:
                due, i = heapq.heappop(queue)
                now = time.monotonic()
                if due > now:
                    time.sleep(due - now)
                if due - start > seconds:
                    break
                room[i].step()
                steps += 1
                heapq.heappush(queue, (due + interval, i))
            late = time.monotonic() - start - seconds
            time.sleep(2.0)  # the last messages reach the page
            latencies: list[float] = page.evaluate("window.__latencies")
            browser.close()
            costs = sorted(c for table in room for c in table.costs)
            for table in room:
                table.publisher.close(timeout=0.05)
            rss = peak_rss_mb(hub.pid)
    finally:
        for proc in reversed(procs):
            proc.terminate()
            proc.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)
    lat = sorted(latencies)
    return {
        "steps": steps, "late_s": late, "updates": len(lat),
        "p50_ms": statistics.median(lat) if lat else float("nan"),
        "p99_ms": lat[int(0.99 * (len(lat) - 1))] if lat else float("nan"),
        "rss_mb": rss,
        "cost_p50_us": costs[len(costs) // 2] * 1e6,
        "cost_p99_us": costs[int(0.99 * (len(costs) - 1))] * 1e6,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--only", choices=("embedded", "mosquitto"))
    args = parser.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        print("bench/venue.py: needs Debian's chromium (bash scripts/setup.sh as root installs it)", file=sys.stderr)
        return 2
    import resource

    # each table holds a socket and paho's wake-up pair: 256 tables pass the usual 1024 descriptors
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))
    kinds = [args.only] if args.only else ["embedded", "mosquitto"]
    for kind in kinds:
        if kind == "mosquitto" and not (shutil.which("mosquitto") or os.path.exists("/usr/sbin/mosquitto")):
            print("bench/venue.py: no mosquitto, skipped", file=sys.stderr)
            continue
        r: dict[str, Any] = run(kind, args.tables, args.seconds, chromium)
        tag = (f"[{kind}, {args.tables} tables, {r['steps']} events in {args.seconds:.0f} s, "
               f"{r['updates']} page updates]")
        print(f"hub_event_to_page_p99_ms: {r['p99_ms']:.0f} ms (p50 {r['p50_ms']:.0f} ms) {tag}")
        print(f"hub_rss_mb: {r['rss_mb']:.0f} MB {tag}")
        print(f"table_publish_cost_us: {r['cost_p99_us']:.1f} us at p99 (p50 {r['cost_p50_us']:.1f} us) {tag}")
        if r["late_s"] > 1.0:
            print(f"  (the tables fell {r['late_s']:.1f} s behind their pace)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
