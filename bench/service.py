"""Service benchmark: event in → display frame out, memory, start-up.

Prints one line per figure, ``name: value unit``:

- ``event_to_frame_p50_ms`` / ``event_to_frame_p99_ms``: one physical event through the
  real service loop step (journal append and fsync, controller, display view drawn and
  sent through luma to the simulated panel), over whole games;
- ``event_to_frame_nojournal_p99_ms``: the same without the journal's disk writes;
- ``journaled_event_p50_ms``: one event journaled (append, waiting for the disk, then marked
  done) in a locked journal on disk: the row's link and checksum and the seal included;
- ``journaled_event_cpu_us``: the same in a journal in memory (no disk: what the checksums,
  the chain and the bookkeeping cost);
- ``door_check_us``: the check every line passes before it is journaled (it reads back);
- ``rss_mb``: peak resident memory of ``ecarte-table run`` on the simulated table
  playing a whole game from ``--events``;
- ``first_frame_s``: from starting ``ecarte-table run`` to its first display frame on disk;
- ``viewers_event_to_frame_p99_ms``: one physical event through the service's loop step with the
  table's page as an output, while 12 clients (in a process of their own, as phones are) loop over
  the hand viewer's hands of the journal's earlier games, and without them; ``viewers_api_state_p50_ms``:
  ``/api/state`` meanwhile (each hand reviewed once, by a worker process, and served as kept:
  :mod:`venue.table.reviews`).
- ``history_api_state_p50_ms`` / ``history_event_to_frame_p99_ms``: the same with the 12 clients looping
  over the history's endpoints (``/api/games``, ``/api/stats``, ``/api/games/N[/record]``) instead;
  ``history_game_slowdown_pct``: how much slower an event goes through the loop with them (mean);
  ``history_cold_start_s``: the page's start on a journal of 40 games, each read from its file kept
  beside the journal (:mod:`venue.table.kept_games`), and making them all from the journal, as every start
  did before (``python bench/service.py --history`` alone).

A Pi's budget: the same work in a process pinned to one core (``taskset -c 0``) at reduced
priority (``nice -n 10``), and, where a CPU quota can be set (cgroup v2 ``cpu.max``, or v1
``cpu.cfs_quota_us``, as root), at a quarter of that core:

- ``event_cpu_ms_one_core`` / ``event_cpu_p99_ms_one_core``: CPU time of the service's loop
  step per physical event (journal on disk, controller, outputs), mean and p99, over whole games;
- ``frame_cpu_ms_one_core``: CPU time per display frame sent (the screen chosen and drawn, luma's
  diff, the simulated I2C bus decoding it: on a Pi the kernel's I2C driver instead);
- ``startup_s_one_core``: ``ecarte-table run`` started to its first frame on disk;
- ``event_to_frame_p99_ms_quarter_one_core``, ``startup_s_quarter_one_core``: wall times under
  the quota (a quarter of one core: 25 ms of CPU every 100 ms).

The voice (``[voice]``), pinned to one core the same way, espeak-ng writing WAVs as on the
simulated table (on a real table ``aplay`` then plays them):

- ``voice_cpu_ms_per_announcement``: CPU time per announcement said (the words chosen, espeak-ng
  run as a child process, the WAV written), this process and its children together;
- ``voice_card_to_wav_p50_ms`` / ``voice_card_to_wav_p99_ms``: from a card reaching the service's
  loop (journaled, refereed, drawn, then announced) to the start of its WAV, the voice idle before
  each card as at a table where cards come a second or more apart.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from firmware_host.journal.store import Journal  # noqa: E402
from firmware_host.outputs import deliver  # noqa: E402
from firmware_host.players.builtin import game_transcript  # noqa: E402
from firmware_host.referee import (  # noqa: E402
    Controller,
    Outcome,
    PhysicalEvent,
    dumps,
)
from firmware_host.screens.panel import open_panel  # noqa: E402
from firmware_host.service import InputLine, TableService  # noqa: E402
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
                    service.handle(InputLine(event))
                    timings.append(time.perf_counter() - t0)
                panel.close()
    return timings


def journaled_event(lines: list[str], *, on_disk: bool) -> list[float]:
    """Seconds per line to append it and mark it done."""
    timings: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "j.sqlite" if on_disk else ":memory:"
        with Journal(path, lock=on_disk) as journal:
            game = journal.start_game(lines[0], seq=1)
            for seq, line in enumerate(lines[1:] * 4, start=1):
                t0 = time.perf_counter()
                journal.mark_done(journal.append(game, line, seq=seq, fed=True))
                timings.append(time.perf_counter() - t0)
    return timings


def door_check(lines: list[str]) -> list[float]:
    """Seconds per line of the check before journaling (None: this version has none)."""
    try:
        from firmware_host.service import journal_problem
    except ImportError:
        return []
    timings = []
    for line in lines * 4:
        t0 = time.perf_counter()
        journal_problem(line)
        timings.append(time.perf_counter() - t0)
    return timings


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run_service_once(lines: list[str], *, prefix: Sequence[str] = (),
                     preexec: Callable[[], None] | None = None) -> tuple[float, float]:
    """(peak RSS in MB, seconds to the first frame) of ``ecarte-table run`` on the simulated table
    (``prefix``: a command it runs under, like ``taskset``; ``preexec``: run in the child first)."""
    with tempfile.TemporaryDirectory() as tmp:
        events = Path(tmp) / "game.jsonl"
        events.write_text("\n".join(lines) + "\n")
        frames = Path(tmp) / "frames"
        start = time.monotonic()
        proc = subprocess.Popen(
            [*prefix, sys.executable, "-m", "cli.main", "run", "--journal", str(Path(tmp) / "j.sqlite"),
             "--png", str(frames), "--events", "-"],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
            text=True, preexec_fn=preexec,
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


class _TimedPanel:
    """The panel's output, with the CPU time of each frame it sends."""

    def __init__(self, panel: Any) -> None:
        self.panel = panel
        self.frame_cpu: list[float] = []

    def publish(self, outcome: Outcome) -> None:
        before = self.panel.frames
        start = time.thread_time()
        self.panel.publish(outcome)
        if self.panel.frames > before:
            self.frame_cpu.append(time.thread_time() - start)


def loop_costs(games: list[list[PhysicalEvent]]) -> dict[str, float]:
    """CPU and wall time of the service's loop step, per event and per frame (in this process)."""
    event_cpu: list[float] = []
    event_wall: list[float] = []
    frame_cpu: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, events in enumerate(games):
            with Journal(Path(tmp) / f"j{n}.sqlite") as journal:
                timed = _TimedPanel(open_panel(simulated_table()))
                service = TableService(journal=journal, controller=Controller(), outputs=[timed])
                service.resume()
                for event in events:
                    c0, t0 = time.thread_time(), time.perf_counter()
                    service.handle(InputLine(event))
                    event_wall.append(time.perf_counter() - t0)
                    event_cpu.append(time.thread_time() - c0)
                timed.panel.close()
                frame_cpu.extend(timed.frame_cpu)
    return {"event_cpu_ms": statistics.mean(event_cpu) * 1000, "event_cpu_p99_ms": _pct(event_cpu, 0.99) * 1000,
            "frame_cpu_ms": statistics.mean(frame_cpu) * 1000, "event_wall_p99_ms": _pct(event_wall, 0.99) * 1000,
            "events": len(event_cpu), "frames": len(frame_cpu)}


ONE_CORE = ("taskset", "-c", "0", "nice", "-n", "10")
"""One core (the first), at reduced priority."""

QUARTER = (25_000, 100_000)
"""A quarter of one core: 25 ms of CPU time in every 100 ms."""


@contextlib.contextmanager
def cpu_quota() -> Iterator[Callable[[], None] | None]:
    """A cgroup holding a quarter of one core, as a ``preexec_fn`` that moves the child into it;
    None where none can be made (not root, no cpu controller)."""
    quota, period = QUARTER
    name = f"ecarte-bench-{os.getpid()}"
    v2 = Path("/sys/fs/cgroup")
    candidates = [(v2 / name, "cpu.max", f"{quota} {period}")] if "cpu" in _read(v2 / "cgroup.controllers") else []
    candidates.append((Path("/sys/fs/cgroup/cpu") / name, "cpu.cfs_quota_us", str(quota)))
    for group, knob, value in candidates:
        try:
            group.mkdir()
        except OSError:
            continue
        try:
            if knob == "cpu.cfs_quota_us":
                (group / "cpu.cfs_period_us").write_text(str(period))
            (group / knob).write_text(value)
        except OSError:
            group.rmdir()
            continue
        procs = group / "cgroup.procs"

        def enter(procs: Path = procs) -> None:
            procs.write_text(str(os.getpid()))

        try:
            yield enter
        finally:
            with contextlib.suppress(OSError):
                group.rmdir()
        return
    yield None


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _child_costs(prefix: Sequence[str], preexec: Callable[[], None] | None) -> dict[str, float]:
    done = subprocess.run([*prefix, sys.executable, __file__, "--loop-costs"], capture_output=True, text=True,
                          check=True, cwd=ROOT, preexec_fn=preexec, timeout=900)
    return dict(json.loads(done.stdout))


def one_core(lines: list[str]) -> None:
    """The one-core figures (see the module's docstring)."""
    if shutil.which("taskset") is None:
        print("bench/service.py: no taskset (util-linux): the one-core figures are left out", file=sys.stderr)
        return
    costs = _child_costs(ONE_CORE, None)
    print(f"event_cpu_ms_one_core: {costs['event_cpu_ms']:.3f} ms")
    print(f"event_cpu_p99_ms_one_core: {costs['event_cpu_p99_ms']:.3f} ms")
    print(f"frame_cpu_ms_one_core: {costs['frame_cpu_ms']:.3f} ms")
    starts = sorted(run_service_once(lines, prefix=ONE_CORE)[1] for _ in range(3))
    print(f"startup_s_one_core: {starts[1]:.2f} s")
    with cpu_quota() as enter:
        if enter is None:
            print("bench/service.py: no CPU quota can be set here (root and a cgroup cpu controller are needed): "
                  "the quarter-core figures are left out", file=sys.stderr)
            return
        quarter = _child_costs(ONE_CORE, enter)
        print(f"event_to_frame_p99_ms_quarter_one_core: {quarter['event_wall_p99_ms']:.2f} ms")
        starts = sorted(run_service_once(lines, prefix=ONE_CORE, preexec=enter)[1] for _ in range(3))
        print(f"startup_s_quarter_one_core: {starts[1]:.2f} s")


def voice_costs(games: list[list[PhysicalEvent]]) -> dict[str, float]:
    """The voice's CPU per announcement and a card's delay to its WAV (in this process)."""
    import resource

    from engine import Played
    from firmware_host.voice.announcer import Announcer
    from firmware_host.voice.speech import Speaker, Synth, Voice, WavFolder

    def cpu() -> float:
        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    delays: list[float] = []
    said = 0
    spent = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for n, events in enumerate(games[:2]):
            controller = Controller()
            outcomes = [controller.handle(event) for event in events]
            with Voice(Announcer("fr"), Speaker(WavFolder(Path(tmp) / f"cpu{n}"), Synth())) as voice:
                c0 = cpu()
                for outcome in outcomes:  # one outcome at a time: none is cut short by the next hand
                    deliver((voice,), outcome)  # the door: the table's voice gets no seat's cards
                    voice.speaker.drain(600)
                spent += cpu() - c0
                said += voice.speaker.stats.said
            with Journal(Path(tmp) / f"j{n}.sqlite") as journal, \
                    Voice(Announcer("fr"), Speaker(WavFolder(Path(tmp) / f"delay{n}"), Synth())) as voice:
                panel = open_panel(simulated_table())
                service = TableService(journal=journal, controller=Controller(), outputs=[panel, voice])
                service.resume()
                for event, outcome in zip(events, outcomes, strict=True):
                    card = any(isinstance(e, Played) for e in outcome.events)
                    if card:
                        voice.speaker.drain(600)
                    before = len(voice.speaker.stats.started)
                    t0 = time.monotonic()
                    service.handle(InputLine(event))
                    if card:
                        voice.speaker.drain(600)
                        started = list(voice.speaker.stats.started)[before:]
                        play = next(s for s in started if s.announcement.kind == "play")
                        delays.append(play.at - t0)
                panel.close()
    return {"voice_cpu_ms": spent / said * 1000, "said": said, "card_to_wav_p50_ms": statistics.median(delays) * 1000,
            "card_to_wav_p99_ms": _pct(delays, 0.99) * 1000, "cards": len(delays)}


def voice_one_core() -> None:
    """The voice's figures, pinned to one core (see the module's docstring)."""
    if shutil.which("espeak-ng") is None:
        print("bench/service.py: no espeak-ng (sudo apt-get install espeak-ng): the voice's figures are left out",
              file=sys.stderr)
        return
    prefix = ONE_CORE if shutil.which("taskset") is not None else ()
    done = subprocess.run([*prefix, sys.executable, __file__, "--voice-costs"], capture_output=True, text=True,
                          check=True, cwd=ROOT, timeout=900)
    costs = json.loads(done.stdout)
    where = "one core" if prefix else "all cores (no taskset)"
    print(f"voice_cpu_ms_per_announcement: {costs['voice_cpu_ms']:.1f} ms ({where}, {costs['said']} said)")
    print(f"voice_card_to_wav_p50_ms: {costs['card_to_wav_p50_ms']:.1f} ms ({where}, {costs['cards']} cards)")
    print(f"voice_card_to_wav_p99_ms: {costs['card_to_wav_p99_ms']:.1f} ms")


def _viewer_paths(games: int, history: bool) -> list[str]:
    """What a client loops over: every hand of ``games`` in the hand viewer, or (``history``) the
    history's endpoints: the games, the statistics, each game and its record."""
    if history:
        return ["/api/games", "/api/stats",
                *(f"/api/games/{game}{tail}" for game in range(1, games + 1) for tail in ("", "/record"))]
    return [f"/api/games/{game}/hands/{hand}" for game in range(1, games + 1) for hand in range(1, 9)]


def _viewer_clients(url: str, games: int, ready: Any, stop: Any, out: Any, history: bool = False) -> None:
    """A client process (at ``nice`` 10: phones are other machines): loops over :func:`_viewer_paths`
    until ``stop``, saying ``ready`` after its first pass."""
    import httpx

    os.nice(10)
    asked, passes = 0, 0
    with httpx.Client(timeout=120) as http:
        while not stop.is_set():
            for path in _viewer_paths(games, history):
                if stop.is_set():
                    break
                http.get(f"{url}{path}")
                asked += passes > 0
            passes += 1
            if passes == 1:
                ready.put(1)
    out.put(asked)


def viewers(clients: int = 12, earlier: int = 4, *, history: bool = False) -> dict[str, float]:
    """The live game's event → frame time (p99, s) with and without ``clients`` looping over the hand
    viewer (``history``: over the history's endpoints), and ``/api/state``'s median meanwhile (s)."""
    import multiprocessing as mp
    import threading

    import httpx

    from firmware_host.referee import ButtonEvent
    from venue.settings import WebSettings
    from venue.table.page import TablePage

    games = _games(earlier + 2)
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "j.sqlite"
        with Journal(path) as journal:  # the earlier games, in the journal first
            service = TableService(journal=journal, controller=Controller())
            service.resume()
            for events in games[:earlier]:
                for event in [*events, ButtonEvent("A", "yes")]:
                    service.handle(InputLine(event))
        ctx = mp.get_context("spawn")
        for label, crowd, events in (("without", 0, games[earlier]), ("with", clients, games[earlier + 1])):
            with Journal(path) as journal, TablePage(WebSettings(port=0), table="T", journal=path) as page:
                panel = open_panel(simulated_table())
                service = TableService(journal=journal, controller=Controller(), outputs=[panel, page])
                service.resume()
                stop, answers, ready = ctx.Event(), ctx.Queue(), ctx.Queue()
                procs = [ctx.Process(target=_viewer_clients, args=(page.url, earlier, ready, stop, answers, history))
                         for _ in range(crowd)]
                for proc in procs:
                    proc.start()
                for _ in procs:  # every client through the journal once: each hand reviewed (once) and kept
                    ready.get(timeout=900)
                state: list[float] = []
                done = threading.Event()

                def ask_state(url: str = page.url, state: list[float] = state, done: threading.Event = done) -> None:
                    with httpx.Client(timeout=60) as http:
                        while not done.is_set():
                            t0 = time.perf_counter()
                            http.get(f"{url}/api/state")
                            state.append(time.perf_counter() - t0)
                            time.sleep(0.05)

                asker = threading.Thread(target=ask_state, daemon=True)
                asker.start()
                timings = []
                for event in [*events, ButtonEvent("A", "yes")]:
                    t0 = time.perf_counter()
                    service.handle(InputLine(event))
                    timings.append(time.perf_counter() - t0)
                    time.sleep(0.02)  # a table's events come apart
                done.set()
                stop.set()
                asked = sum(answers.get(timeout=120) for _ in procs)
                for proc in procs:
                    proc.join(30)
                asker.join(30)
                panel.close()
                out[f"frame_p99_{label}"] = _pct(timings, 0.99)
                out[f"frame_p50_{label}"] = statistics.median(timings)
                out[f"state_p50_{label}"] = statistics.median(state) if state else float("nan")
                out[f"frame_mean_{label}"] = statistics.fmean(timings)
                out[f"asked_{label}"] = asked
    return out


def report_viewers(v: dict[str, float]) -> None:
    print(f"viewers_event_to_frame_p99_ms: {v['frame_p99_with'] * 1000:.2f} ms with 12 clients looping over the "
          f"hand viewer ({v['asked_with']:.0f} hands asked meanwhile, each already reviewed; p50 "
          f"{v['frame_p50_with'] * 1000:.2f} ms), {v['frame_p99_without'] * 1000:.2f} ms without (p50 "
          f"{v['frame_p50_without'] * 1000:.2f} ms)")
    print(f"viewers_api_state_p50_ms: {v['state_p50_with'] * 1000:.1f} ms with them, "
          f"{v['state_p50_without'] * 1000:.1f} ms without")


def history_cold_start(count: int = 40) -> dict[str, float]:
    """A journal of ``count`` games: the page's start making every game from the journal (its
    summary, record and statistics: what every start did before they were kept), then a start
    reading them from their files beside the journal (s)."""
    from firmware_host.referee import ButtonEvent
    from venue.table.page_history import JournalHistory

    out: dict[str, float] = {}
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None  # the 40 games written without waiting for a disk
    with tempfile.TemporaryDirectory(dir=shm) as tmp:
        path = Path(tmp) / "j.sqlite"
        with Journal(path) as journal:
            service = TableService(journal=journal, controller=Controller())
            service.resume()
            seed = 0
            while service.game <= count:  # games that end (a transcript may leave its game unfinished)
                events = game_transcript(engine.new_game("classic", dealer="A"), random.Random(seed), faults=True)
                seed += 1
                referee = Controller()
                for event in events:
                    with contextlib.suppress(Exception):
                        referee.handle(event)
                if referee.snapshot().winner is None:
                    continue
                for event in [*events, ButtonEvent("A", "yes")]:
                    service.handle(InputLine(event))
        for label in ("making", "kept"):
            history = JournalHistory(path, table="T")
            t0 = time.perf_counter()
            history.prepare().join()
            out[f"{label}_s"] = time.perf_counter() - t0
            out[f"{label}_made"] = history.made
    return out


def report_history(v: dict[str, float]) -> None:
    print(f"history_api_state_p50_ms: {v['state_p50_with'] * 1000:.1f} ms with 12 clients looping over /api/games, "
          f"/api/stats and /api/games/N[/record] ({v['asked_with']:.0f} asked meanwhile), "
          f"{v['state_p50_without'] * 1000:.1f} ms without")
    print(f"history_event_to_frame_p99_ms: {v['frame_p99_with'] * 1000:.2f} ms with them (p50 "
          f"{v['frame_p50_with'] * 1000:.2f} ms), {v['frame_p99_without'] * 1000:.2f} ms without (p50 "
          f"{v['frame_p50_without'] * 1000:.2f} ms)")
    slower = (v["frame_mean_with"] / v["frame_mean_without"] - 1) * 100
    print(f"history_game_slowdown_pct: {slower:.1f} % (an event's mean time through the service's loop with the "
          f"12 clients looping over the history, against without them)")
    cold = history_cold_start()
    print(f"history_cold_start_s: {cold['kept_s']:.2f} s for 40 games, read from their kept files "
          f"({cold['kept_made']:.0f} made again; {cold['making_s']:.2f} s making all {cold['making_made']:.0f} "
          f"from the journal, as every start did before)")


def main() -> None:
    if sys.argv[1:] == ["--loop-costs"]:
        print(json.dumps(loop_costs(_games(6))))
        return
    if sys.argv[1:] == ["--voice-costs"]:
        print(json.dumps(voice_costs(_games(2))))
        return
    if sys.argv[1:] == ["--voice"]:
        voice_one_core()
        return
    if sys.argv[1:] == ["--viewers"]:
        report_viewers(viewers())
        return
    if sys.argv[1:] == ["--history"]:
        report_history(viewers(history=True))
        return
    games = _games(6)
    with_journal = event_to_frame(games, journal_on_disk=True)
    without = event_to_frame(games, journal_on_disk=False)
    print(f"event_to_frame_p50_ms: {statistics.median(with_journal) * 1000:.2f} ms")
    print(f"event_to_frame_p99_ms: {_pct(with_journal, 0.99) * 1000:.2f} ms")
    print(f"event_to_frame_nojournal_p99_ms: {_pct(without, 0.99) * 1000:.2f} ms")
    lines = [dumps(e) for e in games[0]]
    print(f"journaled_event_p50_ms: {statistics.median(journaled_event(lines, on_disk=True)) * 1000:.2f} ms")
    print(f"journaled_event_cpu_us: {statistics.median(journaled_event(lines, on_disk=False)) * 1e6:.1f} us")
    checks = door_check(lines)
    if checks:
        print(f"door_check_us: {statistics.median(checks) * 1e6:.1f} us")
    rss, first = run_service_once(lines)
    print(f"rss_mb: {rss:.1f} MB")
    print(f"first_frame_s: {first:.2f} s")
    one_core(lines)
    voice_one_core()
    report_viewers(viewers())
    report_history(viewers(history=True))


if __name__ == "__main__":
    main()
