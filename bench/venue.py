"""Venue benchmark: a room of simulated tables publishing whole games into one hub, as deployed.

Prints one line per figure, ``name: value unit``:

- ``hub_event_to_page_p99_ms``: from a table's publish (the ``t`` its state carries) to the
  scoreboard's event handler in a real headless Chromium (Debian's, through Playwright), for
  256 tables at ten times a real table's pace with **each** broker mode the hub can use (its own
  Mosquitto, the venue's running Mosquitto),
  and for 1,024 tables at a real table's pace through the hub's own Mosquitto;
- ``hub_rss_mb``: the peak resident memory of the ``ecarte-table hub`` process (and, apart, of
  the broker it runs); ``hub_cpu_pct``: the hub process's CPU while the tables play (its broker apart),
  ``broker_cpu_pct`` the broker's;
- the ``crowd`` run: the first run again (256 tables at 10x, the hub's own Mosquitto) with ``--crowd``
  more browsers (30) reading the scoreboard's stream, each its own connection (a room full of phones);
- ``results_*``: the standings as results pile up: 10,000 finished games (``games/<n>``) from one
  table through the hub's own broker, in batches of 1,000: what each result costs the hub (a batch's
  time until ``/api/standings`` counts it, per result) for the first batch and the last,
  ``/api/tables``'s latency at 10,000 results, the hub's RSS, and the hub restarted on the 10,000
  retained games (the time until it counts them all, and ``/api/tables``'s slowest answer
  meanwhile). ``results_big_*``: 600 results of 500 kB from one table: the hub's peak RSS and
  ``/api/tables/<t>/games``'s latency then. ``--before DIR`` measures the same with the hub of another
  checkout (``git archive`` of an older commit) in the same run;
- ``broker_ceiling_msgs_per_s``: the broker the hub runs (its own Mosquitto) flooded by
  256 tables' connections with their recorded messages (a few unacknowledged each, QoS 1) while the hub
  reads its topics: the messages it acknowledges a second, and its CPU (256 tables at 10x send about
  1,280 a second);
- ``table_publish_cost_us``: what publishing adds to a table's event → frame time (the MQTT
  output's ``publish`` on the table's thread), for one table alone in its own process (as a
  table is: one Pi, one table), with its real referee and :class:`venue.table.mqtt.TablePublisher`.

The room's tables are what real tables publish: each a real
:class:`~firmware_host.referee.controller.Controller` fed whole games of the built-in players, game
after game (a player says yes to the next), its outcomes turned into messages by a real
:class:`venue.table.mqtt.TablePublisher`'s feed, topics and payloads. A table's referee and feed run on its
own Pi, not on the hub's machine, so the bench does that work before the clock starts: what each table
publishes for each physical event is recorded, then sent at the table's pace (a real table sees a
physical event every ``REAL_EVENT_S`` seconds) on the table's own connection (its username and
password, its client id, its will, QoS 1), each state's ``t`` written as it is sent. The tables run in
several processes (``--per-process`` tables each, all their connections on one network loop, paho's
external loop) at ``nice 10``: on the bench's cores they yield to the hub, its broker and the page, as
other machines would. The hub is the ``ecarte-table hub`` beside the Python that runs this script,
started on a venue file that declares every table.

    python bench/venue.py [--seconds 40] [--before DIR]
        [--only mosquitto|external|room|crowd|alone|results|ceiling]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing as mp
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.seats import SEATS

if TYPE_CHECKING:
    from firmware_host.referee import Outcome

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

REAL_EVENT_S = 3.0
"""Seconds between two physical events at a real table (a card dealt, a button, a card played)."""
PER_PROCESS = 64
"""Tables a process simulates (each with its worker and paho threads)."""
IN_FLIGHT = 4
"""Messages a table's connection keeps unacknowledged when the broker is flooded (``--only ceiling``)."""
ALONE_RATE = 20.0
"""Events a second for the table alone in its process (faster than a real table: more samples)."""


def wait_port(port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


def cpu_s(pid: int) -> float:
    """The CPU time a process has used (user and system, seconds)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def stop(proc: subprocess.Popen[bytes], timeout: float) -> None:
    """End ``proc``: SIGTERM, then SIGKILL if it has not ended within ``timeout`` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()


def peak_rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return out


def ecarte_table() -> str:
    """The ``ecarte-table`` command beside the Python that runs us (a venv's, or the system's)."""
    beside = Path(sys.executable).parent / "ecarte-table"
    if beside.exists():
        return str(beside)
    found = shutil.which("ecarte-table")
    if found is None:
        raise SystemExit("bench/venue.py: no ecarte-table beside this Python nor on PATH (pip install -e .)")
    return found


def raise_fd_limit() -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))


# -- the tables' processes -------------------------------------------------------------------------


def table_outcomes(seed: int) -> Iterator[Outcome]:
    """A table's outcomes, one per physical event, game after game on one referee as at a real table
    (the built-in players, now and then a wrong card taken back; a game over, a player says yes and
    the next game is dealt by the seat the referee names)."""
    import engine
    from firmware_host.players.builtin import game_transcript
    from firmware_host.referee import ButtonEvent, Controller

    rng = random.Random(seed)
    controller = Controller()
    events = game_transcript(engine.new_game("classic", dealer="A"), rng, faults=True)
    while True:
        for event in events:
            yield controller.handle(event)
        outcome = controller.handle(ButtonEvent("A", "yes"))
        yield outcome
        game = engine.new_game("classic", dealer=outcome.snapshot.view.dealer)
        events = game_transcript(game, rng, faults=True)[1:]  # its setup line was the first game's


def schedule(count: int, interval: float, seconds: float) -> Iterator[tuple[float, int, int]]:
    """``(offset, table, step)`` in order of offset: each of ``count`` tables due every ``interval`` s
    (spread over the first interval), ``step`` its event's number, for ``seconds``."""
    for step in itertools.count():
        for table in range(count):
            offset = interval * (step + table / count)
            if offset > seconds:
                return
            yield offset, table, step


def play_alone(name: str, password: str, port: int, interval: float, start_at: Any, go: Any, seconds: float,
               seed: int, out: Any, close: Any) -> None:
    """One process, one table as on its Pi: a real referee and a real :class:`venue.table.mqtt.TablePublisher`
    (its worker and paho threads), an event every ``interval`` s; reports what each ``publish`` cost."""
    from firmware_host.outputs import deliver
    from venue.settings import MqttSettings
    from venue.table.mqtt import TablePublisher

    publisher = TablePublisher(MqttSettings(port=port, venue="bench", table=name, enabled=True, username=name,
                                            password=password, queue=100_000), table_name=name)
    outcomes = table_outcomes(seed)
    publisher.start()
    out.put(("alone", int(publisher.connected.wait(60)), 0))
    go.wait()
    time.sleep(max(0.0, start_at.value - time.time()))
    costs: list[float] = []
    late = 0.0
    begin = time.monotonic()
    for offset, _, _ in schedule(1, interval, seconds):
        wait = begin + offset - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        late = max(late, -wait)
        outcome = next(outcomes)
        t0 = time.perf_counter()
        deliver((publisher,), outcome)  # the door, as the service gives it: no seat's cards
        costs.append(time.perf_counter() - t0)
    out.put(("alone", len(costs), late, costs))
    close.wait(120)
    publisher.close(timeout=0.05)


T_MARK = b',"t":-1.0}'
"""How a recorded state ends: its ``t`` (the wall clock when it is published) is written as it is sent."""


def recorded_messages(name: str, seed: int, steps: int) -> list[list[tuple[str, bytes, bool]]]:
    """What a real table named ``name`` publishes for each of its first ``steps`` physical events:
    its real referee and :class:`venue.table.mqtt.TablePublisher`'s messages (the same feed, topics and
    payloads), recorded instead of sent, each state's ``t`` left to be written when it is sent."""
    from venue.settings import MqttSettings
    from venue.table.mqtt import TablePublisher

    sent: list[tuple[str, bytes, bool]] = []

    class Recorder(TablePublisher):
        def _put(self, topic: str, payload: bytes, *, retain: bool, keep: bool = True) -> None:
            sent.append((topic, payload, retain))

    recorder = Recorder(MqttSettings(venue="bench", table=name, enabled=True), table_name=name)
    out: list[list[tuple[str, bytes, bool]]] = []
    for _, outcome in zip(range(steps), table_outcomes(seed), strict=False):
        recorder._send(recorder.feed.take(outcome, time.monotonic(), wall=-1.0))
        out.append(sent[:])
        sent.clear()
    return out


def play_room(tag: str, names: list[str], passwords: list[str], port: int, interval: float, start_at: Any, go: Any,
              seconds: float, seed: int, out: Any, close: Any) -> None:
    """One process, many tables: what each table publishes for each of its events, recorded before the
    clock starts (its referee's and feed's work is done on its own Pi, not on the hub's cores), then
    published at the table's pace on the table's own connection (its password, its client id, its
    will, QoS 1), all the process's connections driven by one network loop (paho's external loop),
    each state's ``t`` written as it is sent."""
    import asyncio

    from venue.mqtt_client import QOS

    raise_fd_limit()
    os.nice(10)  # the tables are other machines: on the bench's cores they yield to the hub, broker and page
    steps = math.ceil(seconds / interval) + 1  # schedule's last step is seconds // interval
    recorded = [recorded_messages(n, seed + i, steps) for i, n in enumerate(names)]

    async def main() -> None:
        loop = asyncio.get_running_loop()
        clients = await connect_tables(loop, names, passwords, port)
        out.put((tag, len(clients), 0))
        await loop.run_in_executor(None, go.wait)
        await asyncio.sleep(max(0.0, start_at.value - time.time()))
        begin = loop.time()
        sent = 0
        late = 0.0
        for offset, i, k in schedule(len(names), interval, seconds):
            wait = begin + offset - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            late = max(late, -wait)
            for topic, payload, retain in recorded[i][k]:
                if payload.endswith(T_MARK):
                    payload = payload[: -len(T_MARK)] + b',"t":%.3f}' % time.time()
                clients[i].publish(topic, payload, qos=QOS, retain=retain)
            sent += 1
        out.put((tag, sent, late, []))
        await loop.run_in_executor(None, close.wait, 120)  # the page's figures are read before the tables leave
        for client in clients:
            client.disconnect()

    asyncio.run(main())


async def connect_tables(loop: Any, names: list[str], passwords: list[str], port: int) -> list[Any]:
    """Each table's connection as :class:`venue.table.mqtt.TablePublisher` makes it (its user name and
    password, its client id, its will), ``online`` said, all on ``loop``."""
    import asyncio

    import paho.mqtt.client as mqtt

    from venue.mqtt_client import QOS, make_client
    from venue.settings import MqttSettings

    connected = [asyncio.Event() for _ in names]
    clients: list[mqtt.Client] = []
    for i, (name, password) in enumerate(zip(names, passwords, strict=True)):
        settings = MqttSettings(port=port, venue="bench", table=name, enabled=True, username=name,
                                password=password, queue=100_000)
        client = make_client(settings, f"ecarte-bench-{name}")
        client.will_set(f"{settings.base_topic}/availability", "offline", qos=QOS, retain=True)
        drive(loop, client)

        def online(c: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any,
                   done: asyncio.Event = connected[i], base: str = settings.base_topic) -> None:
            c.publish(f"{base}/availability", "online", qos=QOS, retain=True)
            done.set()

        client.on_connect = online
        client.connect(settings.host, settings.port, keepalive=settings.keepalive)
        clients.append(client)
    await asyncio.wait_for(asyncio.gather(*(e.wait() for e in connected)), 60)
    return clients


def flood_room(names: list[str], passwords: list[str], port: int, seconds: float, go: Any, out: Any) -> None:
    """The tables' recorded messages as fast as the broker takes them: each connection keeps
    :data:`IN_FLIGHT` messages unacknowledged (QoS 1), the next sent as one is acknowledged; reports
    the acknowledgements counted during ``seconds`` after a second's warm-up."""
    import asyncio

    from venue.mqtt_client import QOS

    raise_fd_limit()
    os.nice(10)
    steps = 200
    recorded = [[m for step in recorded_messages(n, i, steps) for m in step] for i, n in enumerate(names)]

    async def main() -> None:
        loop = asyncio.get_running_loop()
        clients = await connect_tables(loop, names, passwords, port)
        out.put(("flood", len(clients)))
        await loop.run_in_executor(None, go.wait)
        counting = [False]
        acked = [0]
        nxt = [0] * len(clients)

        def send(i: int) -> None:
            topic, payload, retain = recorded[i][nxt[i] % len(recorded[i])]
            nxt[i] += 1
            clients[i].publish(topic, payload.replace(T_MARK, b',"t":0.0}'), qos=QOS, retain=retain)

        for i, client in enumerate(clients):
            def acknowledged(c: Any, userdata: Any, mid: int, reason: Any, properties: Any, i: int = i) -> None:
                acked[0] += counting[0]
                send(i)

            client.on_publish = acknowledged
            for _ in range(IN_FLIGHT):
                send(i)
        await asyncio.sleep(1.0)
        counting[0] = True
        await asyncio.sleep(seconds)
        counting[0] = False
        out.put(("flood", acked[0]))
        for client in clients:
            client.disconnect()

    asyncio.run(main())


def drive(loop: Any, client: Any) -> None:
    """``client``'s network on ``loop`` (asyncio) instead of a thread of its own (paho's external loop)."""
    import asyncio

    import paho.mqtt.client as mqtt

    misc: list[Any] = []

    async def housekeeping() -> None:
        while client.loop_misc() == mqtt.MQTT_ERR_SUCCESS:
            await asyncio.sleep(1.0)

    def opened(c: Any, userdata: Any, sock: Any) -> None:
        loop.add_reader(sock, c.loop_read)
        misc.append(loop.create_task(housekeeping()))

    def closed(c: Any, userdata: Any, sock: Any) -> None:
        loop.remove_reader(sock)
        for task in misc:
            task.cancel()

    client.on_socket_open = opened
    client.on_socket_close = closed
    client.on_socket_register_write = lambda c, u, sock: loop.add_writer(sock, c.loop_write)
    client.on_socket_unregister_write = lambda c, u, sock: loop.remove_writer(sock)


def read_streams(port: int, count: int, ready: Any, close: Any, out: Any) -> None:
    """``count`` more browsers on the scoreboard's stream (a crowd of phones), each a connection that
    reads every byte the hub writes; reports the bytes read."""
    import asyncio

    async def main() -> None:
        streams = [await asyncio.open_connection("127.0.0.1", port) for _ in range(count)]
        for _, writer in streams:
            writer.write(b"GET /api/stream HTTP/1.1\r\nHost: hub\r\n\r\n")
        ready.set()
        read = [0]

        async def drain(reader: asyncio.StreamReader) -> None:
            while chunk := await reader.read(1 << 16):
                read[0] += len(chunk)

        tasks = [asyncio.create_task(drain(reader)) for reader, _ in streams]
        await asyncio.get_running_loop().run_in_executor(None, close.wait, 600)
        for task in tasks:
            task.cancel()
        out.put(("crowd", read[0]))

    asyncio.run(main())


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1)))]


# -- one run -----------------------------------------------------------------------------------------


def run(mode: str, tables: int, speed: float, seconds: float, chromium: str, per_process: int,
        alone: bool, crowd: int = 0, ceiling: bool = False) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    from venue.hub.broker import free_port, mosquitto_path

    tmp = Path(tempfile.mkdtemp(prefix="ecarte-bench-"))
    tmp.chmod(0o755)
    broker_port, hub_port = free_port(), free_port()
    names = [f"t{i:04d}" for i in range(tables)] + ["alone"]
    broker = (f'mode = "external"\nhost = "127.0.0.1"\nport = {broker_port}\n' if mode == "external"
              else f'mode = "{mode}"\nlisten = "127.0.0.1:{broker_port}"\n')
    venue_file = tmp / "venue.toml"
    venue_file.write_text(f'[hub]\nvenue = "bench"\nlisten = "127.0.0.1:{hub_port}"\n[broker]\n{broker}'
                          f"[tables]\nnames = {json.dumps(names)}\n")
    procs: list[subprocess.Popen[bytes]] = []
    ctx = mp.get_context("spawn")
    workers: list[Any] = []
    try:
        hub = subprocess.Popen([ecarte_table(), "hub", str(venue_file)], stdout=subprocess.DEVNULL,
                               stderr=open(tmp / "hub.log", "wb"))  # noqa: SIM115
        procs.append(hub)
        if mode == "external":  # the venue's own Mosquitto, with the files the hub writes
            state = tmp / "venue-hub" / "broker"
            deadline = time.monotonic() + 30
            while not (state / "acl").exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            conf = tmp / "mosquitto.conf"
            conf.write_text(f"user {os.environ.get('USER') or 'root'}\nallow_anonymous false\n"
                            f"password_file {state / 'passwd'}\nacl_file {state / 'acl'}\n"
                            f"listener {broker_port} 127.0.0.1\nuse_username_as_clientid true\n"
                            "max_queued_messages 100000\n")
            procs.insert(0, subprocess.Popen([mosquitto_path() or "mosquitto", "-c", str(conf)],
                                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_port(broker_port)
        wait_port(hub_port)
        secrets = tmp / "venue-hub" / "secrets"
        passwords = {n: (secrets / f"{n}.pass").read_text().strip() for n in names}
        if ceiling:
            return {"mode": mode, "tables": tables, **flood(ctx, workers, names[:tables], passwords, broker_port,
                                                            seconds, per_process, hub.pid)}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{hub_port}/")
            page.wait_for_selector("#conn:text('live')", timeout=30_000)
            interval = REAL_EVENT_S / speed
            out = ctx.Queue()
            go, close = ctx.Event(), ctx.Event()
            start_at = ctx.Value("d", 0.0)
            room = names[:tables]
            groups = [room[i:i + per_process] for i in range(0, len(room), per_process)]
            for k, group in enumerate(groups):
                workers.append(ctx.Process(target=play_room, args=(
                    f"room{k}", group, [passwords[n] for n in group], broker_port, interval, start_at, go, seconds,
                    1000 * k, out, close)))
            if alone:
                workers.append(ctx.Process(target=play_alone, args=(
                    "alone", passwords["alone"], broker_port, 1.0 / ALONE_RATE, start_at, go, seconds, 99, out,
                    close)))
            for w in workers:
                w.start()
            if crowd:
                reading = ctx.Event()
                readers = ctx.Process(target=read_streams, args=(hub_port, crowd, reading, close, out))
                readers.start()
                reading.wait(60)
            ready = [out.get(timeout=600) for _ in workers]  # recorded and connected
            connected = sum(r[1] for r in ready)
            start_at.value = time.time() + 2.0
            go.set()
            wait = start_at.value - time.time()
            if wait > 0:
                time.sleep(wait)
            page.evaluate("window.__latencies = []")
            brokers = children(hub.pid) if mode != "external" else [procs[0].pid]
            hub_cpu, broker_cpu, began = cpu_s(hub.pid), sum(cpu_s(b) for b in brokers), time.monotonic()
            done = [out.get(timeout=seconds + 120) for _ in workers]
            time.sleep(2.0)  # the last messages reach the page
            latencies: list[float] = page.evaluate("window.__latencies")
            hub_cpu = (cpu_s(hub.pid) - hub_cpu) / (time.monotonic() - began)
            broker_cpu = (sum(cpu_s(b) for b in brokers) - broker_cpu) / (time.monotonic() - began)
            close.set()
            crowd_read = out.get(timeout=60)[1] if crowd else 0
            browser.close()
        if crowd:
            workers.append(readers)
        for w in workers:
            w.join(30)
        rss = peak_rss_mb(hub.pid)
        broker_rss = sum(peak_rss_mb(b) for b in brokers)
    finally:
        for w in workers:
            if w.is_alive():
                w.terminate()
        for proc in reversed(procs):
            stop(proc, 10)
        shutil.rmtree(tmp, ignore_errors=True)
    room_done = [d for d in done if d[0] != "alone"] or [("room", 0, 0.0, [])]
    alone_costs = [c for d in done if d[0] == "alone" for c in d[3]]
    lat = sorted(latencies)
    return {
        "mode": mode, "tables": tables, "speed": speed, "processes": len(room_done), "connected": connected,
        "steps": sum(d[1] for d in room_done), "late_s": max(d[2] for d in room_done), "updates": len(lat),
        "p50_ms": statistics.median(lat) if lat else float("nan"), "p99_ms": percentile(lat, 0.99),
        "rss_mb": rss, "broker_rss_mb": broker_rss, "hub_cpu": hub_cpu, "broker_cpu": broker_cpu,
        "crowd": crowd, "crowd_mb": crowd_read / 1e6,
        "alone_cost_p50_us": percentile(alone_costs, 0.5) * 1e6,
        "alone_cost_p99_us": percentile(alone_costs, 0.99) * 1e6, "alone_n": len(alone_costs),
    }


def flood(ctx: Any, workers: list[Any], names: list[str], passwords: dict[str, str], port: int, seconds: float,
          per_process: int, hub: int) -> dict[str, Any]:
    """The broker flooded by ``names``' connections (:func:`flood_room`, ``per_process`` a process), the
    hub subscribed as always: messages acknowledged a second, and the CPU of the broker and the hub."""
    out, go = ctx.Queue(), ctx.Event()
    groups = [names[i:i + per_process] for i in range(0, len(names), per_process)]
    for group in groups:
        workers.append(ctx.Process(target=flood_room, args=(group, [passwords[n] for n in group], port, seconds,
                                                             go, out)))
        workers[-1].start()
    connected = sum(out.get(timeout=600)[1] for _ in groups)
    go.set()
    time.sleep(1.0)  # the flood's warm-up
    broker = children(hub)
    began, cpu = time.monotonic(), {pid: cpu_s(pid) for pid in (hub, *broker)}
    acked = sum(out.get(timeout=seconds + 120)[1] for _ in groups)
    wall = time.monotonic() - began
    for w in workers:
        w.join(30)
    return {"connected": connected, "rate": acked / seconds, "broker_rss_mb": sum(peak_rss_mb(p) for p in broker),
            "broker_cpu": sum(cpu_s(p) - cpu[p] for p in broker) / wall, "hub_cpu": (cpu_s(hub) - cpu[hub]) / wall}


@dataclass
class OneTableVenue:
    """A venue of one table (``t0000``) in a new folder, for the results figures: the broker's and the
    hub's ports, and the command that starts the hub (of another checkout, if given) with its
    environment and folder. Leaving it (``with``) stops the hub last started and removes the folder."""

    folder: Path
    broker_port: int
    hub_port: int
    command: list[str]
    env: dict[str, str] | None = None
    cwd: str | None = None
    hub: subprocess.Popen[bytes] | None = None
    """The hub last started."""

    @classmethod
    def make(cls, source: Path | None, name: str) -> OneTableVenue:
        """The venue file written in a new folder; the hub of this checkout, or of the one at ``source``."""
        from venue.hub.broker import free_port

        tmp = Path(tempfile.mkdtemp(prefix=f"ecarte-bench-{name}-"))
        tmp.chmod(0o755)
        broker_port, hub_port = free_port(), free_port()
        venue_file = tmp / "venue.toml"
        venue_file.write_text(f'[hub]\nvenue = "bench"\nlisten = "127.0.0.1:{hub_port}"\n[broker]\n'
                              f'mode = "mosquitto"\nlisten = "127.0.0.1:{broker_port}"\n[tables]\nnames = ["t0000"]\n')
        if source is None:
            return cls(tmp, broker_port, hub_port, [ecarte_table(), "hub", str(venue_file)])
        return cls(tmp, broker_port, hub_port, [sys.executable, "-m", "cli.main", "hub", str(venue_file)],
                   {**os.environ, "PYTHONPATH": str(source)}, str(source))

    def start(self) -> subprocess.Popen[bytes]:
        """The hub started (its log in the folder), once its broker and its page listen."""
        hub = subprocess.Popen(self.command, stdout=subprocess.DEVNULL,
                               stderr=open(self.folder / "hub.log", "ab"),  # noqa: SIM115
                               env=self.env, cwd=self.cwd)
        self.hub = hub
        wait_port(self.broker_port)
        wait_port(self.hub_port)
        return hub

    def table(self, client_id: str) -> Any:
        """Table ``t0000``'s MQTT client, with the password the hub made for it, connected, its loop running."""
        from venue.mqtt_client import make_client
        from venue.settings import MqttSettings

        password = (self.folder / "venue-hub" / "secrets" / "t0000.pass").read_text().strip()
        client = make_client(MqttSettings(port=self.broker_port, venue="bench", table="t0000", username="t0000",
                                          password=password, queue=100_000), client_id)
        client.connect("127.0.0.1", self.broker_port)
        client.loop_start()
        return client

    def __enter__(self) -> OneTableVenue:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.hub is not None:
            stop(self.hub, 30)
        shutil.rmtree(self.folder, ignore_errors=True)


def results_run(source: Path | None, count: int = 10_000, batch: int = 1_000,
                patience: float = 300.0) -> dict[str, Any]:
    """The ``results`` figures for the hub of this checkout, or of the checkout at ``source``."""
    import httpx

    venue = OneTableVenue.make(source, "results")
    out: dict[str, Any] = {"source": str(source or ROOT), "mode": "mosquitto", "count": 0}
    http = httpx.Client(base_url=f"http://127.0.0.1:{venue.hub_port}", timeout=30)

    def games() -> int:
        """The results counted (-1: no answer within the client's timeout, the hub busy)."""
        try:
            return int(http.get("/api/standings").json()["games"])
        except httpx.TimeoutException:
            out["timeouts"] = out.get("timeouts", 0) + 1
            return -1

    def latency() -> float:
        t0 = time.perf_counter()
        try:
            http.get("/api/tables").raise_for_status()
        except httpx.TimeoutException:
            out["timeouts"] = out.get("timeouts", 0) + 1
        return time.perf_counter() - t0

    hub = venue.start()
    with venue, http:
        client = venue.table("t0000")
        costs: list[float] = []
        cpu: list[float] = []
        for first in range(1, count + 1, batch):
            t0 = time.perf_counter()
            c0 = cpu_s(hub.pid)
            for n in range(first, first + batch):
                payload = json.dumps({"table": "t0000", "game": n, "players": ["Ann", "Bob"], "winner": SEATS[n % 2],
                                      "score": {"A": 5, "B": 2} if n % 2 == 0 else {"A": 2, "B": 5},
                                      "ended": 1000.0 + n, "hands": [], "text": ""})
                client.publish(f"ecarte/bench/t0000/games/{n}", payload, qos=1, retain=True)
            deadline = time.monotonic() + patience
            while games() < first + batch - 1 and time.monotonic() < deadline:
                time.sleep(0.02)
            if games() < first + batch - 1:
                out["stuck"] = f"{games()} of {first + batch - 1} results counted after {patience:.0f} s more"
                break
            costs.append((time.perf_counter() - t0) / batch)
            cpu.append((cpu_s(hub.pid) - c0) / batch)
            out["count"] = first + batch - 1
        client.disconnect()
        client.loop_stop()
        out["first_us"] = costs[0] * 1e6 if costs else float("nan")
        out["last_us"] = costs[-1] * 1e6 if costs else float("nan")
        out["cpu_first_us"] = cpu[0] * 1e6 if cpu else float("nan")
        out["cpu_last_us"] = cpu[-1] * 1e6 if cpu else float("nan")
        lat = sorted(latency() for _ in range(20))
        out["tables_p50_ms"], out["tables_max_ms"] = lat[len(lat) // 2] * 1e3, lat[-1] * 1e3
        out["rss_mb"] = peak_rss_mb(hub.pid)
        if "stuck" in out:
            return out
        hub.terminate()
        hub.wait(60)
        t0 = time.perf_counter()
        hub = venue.start()
        slowest = 0.0
        deadline = time.monotonic() + patience
        while time.monotonic() < deadline:
            slowest = max(slowest, latency())
            if games() >= out["count"]:
                break
            time.sleep(0.05)
        out["restart_s"] = time.perf_counter() - t0
        out["restart_tables_max_ms"] = slowest * 1e3
        out["restart_counted"] = games()
        out["restart_rss_mb"] = peak_rss_mb(hub.pid)
    return out


def report_results(r: dict[str, Any]) -> None:
    tag = f"[{r['source']}, the hub's own {r['mode']}, one table, {r['count']} results]"
    print(f"results_per_result_cost_us: first 1,000 {r['first_us']:.0f} us, last 1,000 {r['last_us']:.0f} us "
          f"(wall, publish to counted) {tag}")
    print(f"results_hub_cpu_per_result_us: first 1,000 {r['cpu_first_us']:.0f} us, last 1,000 "
          f"{r['cpu_last_us']:.0f} us (the hub process's CPU, its broker apart, the bench's polling included) {tag}")
    print(f"results_api_tables_ms: p50 {r['tables_p50_ms']:.1f} ms, slowest of 20 {r['tables_max_ms']:.1f} ms {tag}")
    print(f"results_hub_rss_mb: {r['rss_mb']:.0f} MB {tag}")
    if r.get("timeouts"):
        print(f"results_timeouts: {r['timeouts']} requests unanswered within 30 s {tag}")
    if "stuck" in r:
        print(f"results_stuck: {r['stuck']} {tag}")
    else:
        print(f"results_restart_s: {r['restart_s']:.1f} s until {r['restart_counted']} retained results are counted, "
              f"/api/tables at worst {r['restart_tables_max_ms']:.0f} ms meanwhile, hub RSS "
              f"{r['restart_rss_mb']:.0f} MB {tag}")
    sys.stdout.flush()


def big_results_run(source: Path | None, count: int = 600, size: int = 500_000) -> dict[str, Any]:
    """The ``results_big_*`` figures: ``count`` finished games of ``size`` bytes each (their hands padded,
    as a table may send: the hub takes 512 kB) from one table, through the hub's own broker: the hub's
    RSS before and after, and ``/api/tables/<t>/games``'s latency then (the hub keeps a bounded number
    of each table's games, served as they came: :data:`venue.hub.room.KEPT_GAMES_BYTES`)."""
    import httpx

    venue = OneTableVenue.make(source, "big")
    out: dict[str, Any] = {"source": str(source or ROOT), "mode": "mosquitto", "count": count, "size": size}
    hub = venue.start()
    http = httpx.Client(base_url=f"http://127.0.0.1:{venue.hub_port}", timeout=60)
    with venue, http:
        out["rss_start_mb"] = peak_rss_mb(hub.pid)
        client = venue.table("t0000-big")
        pad = "x" * (size - 200)
        for n in range(1, count + 1):
            payload = json.dumps({"table": "t0000", "game": n, "players": ["Ann", "Bob"], "winner": "A",
                                  "score": {"A": 5, "B": 2}, "ended": 1000.0 + n, "hands": [{"pad": pad}],
                                  "text": ""})
            client.publish(f"ecarte/bench/t0000/games/{n}", payload, qos=1, retain=True).wait_for_publish(60)
        client.disconnect()
        client.loop_stop()
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and int(http.get("/api/standings").json()["games"]) < count:
            time.sleep(0.1)
        out["counted"] = int(http.get("/api/standings").json()["games"])
        lat = []
        for _ in range(5):
            t0 = time.perf_counter()
            answer = http.get("/api/tables/t0000/games")
            lat.append(time.perf_counter() - t0)
            out["served"] = len(answer.json())
        out["games_api_ms"] = sorted(lat)[len(lat) // 2] * 1e3
        out["rss_mb"] = peak_rss_mb(hub.pid)
    return out


def report_big_results(r: dict[str, Any]) -> None:
    tag = (f"[{r['source']}, the hub's own {r['mode']}, one table, {r['count']} results of {r['size'] // 1000} kB, "
           f"{r['counted']} counted]")
    print(f"results_big_hub_rss_mb: {r['rss_mb']:.0f} MB (peak; {r['rss_start_mb']:.0f} MB at the start) {tag}")
    print(f"results_big_games_api_ms: {r['games_api_ms']:.0f} ms for /api/tables/<t>/games ({r['served']} games "
          f"served, median of 5) {tag}")
    sys.stdout.flush()


BROKERS = {"mosquitto": "the hub's own Mosquitto", "external": "the venue's running Mosquitto"}
"""Each broker mode as the figures' tags say it."""


def report_ceiling(r: dict[str, Any]) -> None:
    print(f"broker_ceiling_msgs_per_s: {r['rate']:.0f} messages/s acknowledged (broker "
          f"{100 * r['broker_cpu']:.0f} % of a core, the hub {100 * r['hub_cpu']:.0f} %, broker peak RSS "
          f"{r['broker_rss_mb']:.0f} MB) [{BROKERS[r['mode']]}, {r['connected']} tables' connections flooding it "
          f"with their recorded messages, {IN_FLIGHT} in flight each, QoS 1, the hub reading its topics]")
    sys.stdout.flush()


def report(r: dict[str, Any], seconds: float) -> None:
    tag = (f"[{BROKERS[r['mode']]}, {r['tables']} tables at {r['speed']:g}x a real table's pace in "
           f"{r['processes']} processes of up to {math.ceil(r['tables'] / r['processes'])}, {r['steps']} events in "
           f"{seconds:.0f} s, "
           f"{r['updates']} page updates" + (f", {r['crowd']} more browsers on the stream, "
                                              f"{r['crowd_mb']:.0f} MB read" if r["crowd"] else "") + "]")
    print(f"hub_event_to_page_p99_ms: {r['p99_ms']:.0f} ms (p50 {r['p50_ms']:.0f} ms) {tag}")
    print(f"hub_rss_mb: {r['rss_mb']:.0f} MB (its broker apart: {r['broker_rss_mb']:.0f} MB) {tag}")
    print(f"hub_cpu_pct: {100 * r['hub_cpu']:.0f} % of a core (its broker apart) {tag}")
    print(f"broker_cpu_pct: {100 * r['broker_cpu']:.0f} % of a core {tag}")
    if r["connected"] < r["tables"]:
        print(f"  ({r['connected']} tables connected)", file=sys.stderr)
    if r["late_s"] > 1.0:
        print(f"  (the tables fell up to {r['late_s']:.1f} s behind their pace)", file=sys.stderr)
    sys.stdout.flush()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--tables", type=int, default=256, help="tables at ten times the pace (each broker mode)")
    parser.add_argument("--room", type=int, default=1024, help="tables at a real table's pace (Mosquitto)")
    parser.add_argument("--speed", type=float, default=10.0, help="the --tables runs' pace (times a real table's)")
    parser.add_argument("--per-process", type=int, default=PER_PROCESS)
    parser.add_argument("--only", choices=("mosquitto", "external", "room", "crowd", "alone", "results", "ceiling"))
    parser.add_argument("--crowd", type=int, default=30, help="more browsers on the stream for the crowd run")
    parser.add_argument("--before", type=Path, help="the results figures also for the hub of this checkout")
    parser.add_argument("--results", type=int, default=10_000, help="results published for the results figures")
    parser.add_argument("--before-results", type=int, default=3_000, help="the same for --before's hub")
    args = parser.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        print("bench/venue.py: needs Debian's chromium (bash scripts/setup.sh as root installs it)", file=sys.stderr)
        return 2
    from venue.hub.broker import mosquitto_path

    if mosquitto_path() is None:
        print("bench/venue.py: needs Mosquitto, the hub's broker (bash scripts/setup.sh venue as root installs it)",
              file=sys.stderr)
        return 2
    raise_fd_limit()
    runs: list[tuple[str, int, float]] = [("mosquitto", args.tables, args.speed),
                                          ("external", args.tables, args.speed), ("room", args.room, 1.0),
                                          ("crowd", args.tables, args.speed), ("alone", 0, 1.0)]
    if args.only in (None, "ceiling"):
        report_ceiling(run("mosquitto", args.tables, 0.0, args.seconds, chromium, args.per_process, alone=False,
                           ceiling=True))
    if args.only in (None, "results"):
        if args.before:
            report_results(results_run(args.before, args.before_results))
        report_results(results_run(None, args.results))
        if args.before:
            report_big_results(big_results_run(args.before))
        report_big_results(big_results_run(None))
    for name, tables, speed in runs:
        if args.only and args.only != name:
            continue
        mode = "mosquitto" if name in ("room", "crowd", "alone") else name
        r = run(mode, tables, speed, args.seconds, chromium, args.per_process, alone=name == "alone",
                crowd=args.crowd if name == "crowd" else 0)
        if name == "alone":
            print(f"table_publish_cost_us: {r['alone_cost_p99_us']:.1f} us at p99 "
                  f"(p50 {r['alone_cost_p50_us']:.1f} us) [one table alone in its process (as on its Pi), "
                  f"{r['alone_n']} events at {ALONE_RATE:g}/s, through the hub's own Mosquitto]")
            sys.stdout.flush()
        else:
            report(r, args.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
