"""A kill at any instant: nothing lost, nothing twice (issue 9, part 2).

``ecarte-table run --events FILE --json --all-events`` is killed with SIGKILL at random
instants: before it has printed anything (starting, replaying the journal), or right
after it printed its first or second event, a random few hundred microseconds later
(mid-line: between journaling, refereeing, printing and marking done). Each time the
feeder asks the journal how many input lines it took (``journal status``'s ``lines``)
and starts the service again on the rest. The events seen, deduplicated by ``seq``,
must be exactly those of an uninterrupted ``replay``, every ``seq`` from 1 present.

Two workers kill in parallel (one per core), on games of their own.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import engine
from firmware_host.journal.store import Journal
from firmware_host.players.builtin import game_transcript
from firmware_host.referee.transcript import dumps

CLI = Path(sys.executable).parent / "ecarte-table"
KILLS = int(os.environ.get("ECARTE_KILLS", "220"))
TIMEOUT = 60.0


def _transcript(seed: int) -> list[str]:
    game = engine.new_game("classic", dealer="AB"[seed % 2])
    return [dumps(e) for e in game_transcript(game, random.Random(seed), faults=True)]


def _replay(path: Path) -> list[str]:
    done = subprocess.run([str(CLI), "replay", str(path), "--json", "--all-events"],
                          capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _fed(journal: Path) -> int:
    if not journal.exists():
        return 0
    with Journal(journal, readonly=True) as opened:
        return opened.fed_lines()


def _one_run(journal: Path, rest: Path, rng: random.Random, *, kill: bool) -> tuple[list[str], str, int]:
    """Start the service on ``rest``; kill it at a random instant (or let it finish)."""
    proc = subprocess.Popen(
        [str(CLI), "run", "--journal", str(journal), "--events", str(rest), "--json", "--all-events"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
    )
    assert proc.stdout is not None and proc.stderr is not None
    seen: list[str] = []
    if kill:
        after = rng.choice((0, 0, 1, 1, 1, 2))
        if after == 0:
            time.sleep(rng.uniform(0.0, 0.5))  # starting, or replaying the journal
        else:
            while after > 0:
                line = proc.stdout.readline()
                if not line:
                    break
                seen.append(line)
                after -= '"seq"' in line  # the pads' reader events at the start do not count
            time.sleep(rng.uniform(0.0, 0.002))  # somewhere in the next line's work
        proc.send_signal(signal.SIGKILL)
    # what it printed before it died, read through the same buffer as the lines above
    # (communicate() would read the pipe beneath it and miss what that buffer holds)
    seen += proc.stdout.readlines()
    err = proc.stderr.read()
    proc.wait(timeout=TIMEOUT)
    return [line.rstrip("\n") for line in seen], err, proc.returncode


def _worker(tmp: Path, seeds: list[int], quota: int, results: dict[int, object]) -> None:
    rng = random.Random(seeds[0])
    kills = 0
    try:
        for seed in seeds:
            if kills >= quota:
                break
            lines = _transcript(seed)
            source = tmp / f"game{seed}.jsonl"
            source.write_text("".join(line + "\n" for line in lines))
            reference = _replay(source)
            journal = tmp / f"journal{seed}.sqlite"
            rest = tmp / f"rest{seed}.jsonl"
            seen: list[str] = []
            while True:
                fed = _fed(journal)
                rest.write_text("".join(line + "\n" for line in lines[fed:]))
                finish = kills >= quota or fed >= len(lines)
                out, err, code = _one_run(journal, rest, rng, kill=not finish)
                assert "Traceback" not in err, err
                seen += out
                if finish:
                    assert code == 0, err
                    break
                if code != -signal.SIGKILL:  # it had finished before the kill
                    assert code == 0, err
                    if _fed(journal) >= len(lines):
                        break
                    continue
                kills += 1
            assert _fed(journal) == len(lines)
            by_seq: dict[int, str] = {}
            for line in seen:
                data = json.loads(line)
                if data["event"] == "reader":
                    continue  # the pads' own state, live, not journaled: no seq
                seq = data.get("seq")
                assert seq is not None, f"an event without seq: {line}"
                if seq in by_seq:
                    assert by_seq[seq] == line, f"seq {seq} names two events: {by_seq[seq]} / {line}"
                by_seq[seq] = line
            assert sorted(by_seq) == list(range(1, len(by_seq) + 1)), "a seq is missing"
            assert [by_seq[s] for s in sorted(by_seq)] == reference
        results[seeds[0]] = kills
    except BaseException as exc:  # reported by the test's thread
        results[seeds[0]] = exc


def test_random_instant_kills_lose_nothing_and_double_nothing(tmp_path: Path) -> None:
    results: dict[int, object] = {}
    workers = [
        threading.Thread(target=_worker, args=(tmp_path, list(range(first, first + 40, 2)), KILLS // 2, results))
        for first in (1, 2)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    for outcome in results.values():
        if isinstance(outcome, BaseException):
            raise outcome
    total = sum(k for k in results.values() if isinstance(k, int))
    assert total >= KILLS - 1, results


def test_journal_status_says_where_to_resume_feeding(tmp_path: Path) -> None:
    lines = _transcript(3)
    first, bad = lines[:10], ["not json", "", '{"zone": "nowhere", "card": "KS"}']
    source = tmp_path / "part.jsonl"
    source.write_text("".join(line + "\n" for line in first + bad))
    journal = tmp_path / "j.sqlite"
    ran = subprocess.run([str(CLI), "run", "--journal", str(journal), "--events", str(source)],
                         capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert ran.returncode == 2, ran.stderr
    status = subprocess.run([str(CLI), "journal", "status", "--journal", str(journal), "--json"],
                            capture_output=True, text=True, timeout=TIMEOUT, check=True)
    assert json.loads(status.stdout)["lines"] == len(first) + len(bad)  # bad and blank lines count too
