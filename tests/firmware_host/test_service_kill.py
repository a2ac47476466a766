"""kill -9 and SIGTERM: the service resumes from its journal and nothing is lost or doubled.

A whole game of the built-in players (faults made and taken back) is fed to
``ecarte-table run --journal J --events - --json`` on standard input. The service
is killed with SIGKILL at many points; each time it is started again on the same
journal with the lines the journal does not hold yet. The concatenated ``--json``
output and the final score must be those of an uninterrupted run.

Where to resume: the journal holds, per game, the setup line the service writes
itself and then every line it was fed; so the fed lines journaled are the events
minus the games. The output of a journaled line goes out before it is marked
done, so after a kill a line is either done (its output was written) or replayed
with its output on restart.

Kills at random instants: ``ecarte-table run --events FILE --json --all-events`` is killed
with SIGKILL before it has printed anything (starting, replaying the journal), or right after
it printed its first or second event, a random few hundred microseconds later (mid-line:
between journaling, refereeing, printing and marking done). Each time the feeder asks the
journal how many input lines it took (``journal status``'s ``lines``) and starts the service
again on the rest. The events seen, deduplicated by ``seq``, must be exactly those of an
uninterrupted ``replay``, every ``seq`` from 1 present. Two workers kill in parallel (one per
core), on games of their own.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from waiting import HANG_S

import engine
from firmware_host.journal.store import Journal
from firmware_host.players.builtin import game_transcript
from firmware_host.referee.controller import Controller
from firmware_host.referee.table_events import CONTRACT_EVENTS
from firmware_host.referee.transcript import dumps, parse_line

CLI = Path(sys.executable).parent / "ecarte-table"
TIMEOUT = HANG_S
KILLS = int(os.environ.get("ECARTE_KILLS", "220"))


def _lines(seed: int = 11) -> list[str]:
    events = game_transcript(engine.new_game("classic", dealer="A"), random.Random(seed), faults=True)
    return [dumps(e) for e in events]


def _outputs_per_line(lines: list[str]) -> list[int]:
    """How many ``--json`` lines each fed line causes (the real controller, in process)."""
    table = Controller()
    counts = []
    for line in lines:
        event = parse_line(line)
        assert event is not None
        counts.append(sum(1 for e in table.handle(event).events if e.event in CONTRACT_EVENTS))
    return counts


def _journaled(journal: Path) -> tuple[int, bool]:
    """The fed lines the journal holds, and whether every one of them is done."""
    if not journal.exists():
        return 0, True
    with contextlib.closing(sqlite3.connect(journal, timeout=10)) as db:  # closed: polled hundreds of times
        try:
            events, undone = db.execute("SELECT COUNT(*), COALESCE(SUM(done = 0), 0) FROM events").fetchone()
            games = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        except sqlite3.OperationalError:  # the tables are not there yet
            return 0, True
    return int(events) - int(games), int(undone) == 0


class _Service:
    """One ``ecarte-table run`` on standard input, its output collected by a thread."""

    def __init__(self, journal: Path) -> None:
        self.proc = subprocess.Popen(
            [str(CLI), "run", "--journal", str(journal), "--events", "-", "--json"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
        )
        self.out: list[str] = []
        self.err: list[str] = []
        self._readers = [
            threading.Thread(target=self._drain, args=(self.proc.stdout, self.out), daemon=True),
            threading.Thread(target=self._drain, args=(self.proc.stderr, self.err), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    @staticmethod
    def _drain(stream, into: list[str]) -> None:  # type: ignore[no-untyped-def]
        for line in stream:
            into.append(line)

    def feed(self, lines: list[str]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(line + "\n" for line in lines))
        self.proc.stdin.flush()

    def kill(self, sig: int = signal.SIGKILL) -> int:
        self.proc.send_signal(sig)
        return self.finish()

    def close_input(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.finish()

    def finish(self) -> int:
        try:
            code = self.proc.wait(timeout=TIMEOUT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            for reader in self._readers:
                reader.join(timeout=TIMEOUT)
            for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                if stream is not None and not stream.closed:
                    with contextlib.suppress(BrokenPipeError):
                        stream.close()
        return code


def _uninterrupted(tmp_path: Path, lines: list[str]) -> list[str]:
    service = _Service(tmp_path / "reference.sqlite")
    service.feed(lines)
    assert service.close_input() == 0, "".join(service.err)
    return service.out


def _score(output: list[str]) -> dict[str, int]:
    end = json.loads(output[-1])
    assert end["event"] == "game_end"
    return end["score"]


def test_kill_9_at_many_points_loses_and_doubles_nothing(wait_for, tmp_path: Path) -> None:
    lines = _lines()
    produces = _outputs_per_line(lines)
    reference = _uninterrupted(tmp_path, lines)
    assert len(reference) == sum(produces)
    n = len(lines)
    # 20 kills after lines whose output was seen, spread over the game, from the setup on
    waited = sorted({1, 2, 12, *(round(n * i / 21) for i in range(1, 20))} - {0, n})[:22]
    # and a few right after writing a line, without waiting: lines with no --json output of their own,
    # as a line whose output was written but whose 'done' mark was not yet on disk is put out again
    silent = [k for k in range(3, n - 1) if produces[k - 1] == 0 and k not in waited]
    rng = random.Random(5)
    unwaited = set(rng.sample(silent, 4))
    points = sorted(set(waited) | unwaited)
    assert len(points) >= 24

    journal = tmp_path / "journal.sqlite"
    output: list[str] = []
    pos = 0
    service = _Service(journal)
    for point in points:
        if point <= pos:
            continue
        if point in unwaited:
            service.feed(lines[pos:point - 1])
            wait_for(lambda p=point - 1: _journaled(journal) == (p, True), f"line {point - 1} done")
            service.feed([lines[point - 1]])
        else:
            service.feed(lines[pos:point])
            wait_for(lambda p=point: _journaled(journal) == (p, True), f"line {point} done")
        assert service.kill() == -signal.SIGKILL
        output += service.out
        pos, _ = _journaled(journal)
        assert pos in ((point - 1, point) if point in unwaited else (point,))
        service = _Service(journal)
    service.feed(lines[pos:])
    assert service.close_input() == 0, "".join(service.err)
    output += service.out
    assert output == reference
    assert _score(output) == _score(reference)
    assert _journaled(journal) == (n, True)

    # the journal exported is a transcript that replays to the same events
    exported = subprocess.run([str(CLI), "export", "--journal", str(journal)],
                              capture_output=True, text=True, timeout=TIMEOUT, check=True).stdout
    assert exported.splitlines()[1:] == lines[1:]
    replayed = subprocess.run([str(CLI), "replay", "-", "--json"], input=exported,
                              capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout.splitlines(keepends=True) == reference


def test_sigterm_stops_cleanly_and_resumes(wait_for, tmp_path: Path) -> None:
    lines = _lines(seed=4)
    reference = _uninterrupted(tmp_path, lines)
    journal = tmp_path / "journal.sqlite"
    half = len(lines) // 2
    service = _Service(journal)
    service.feed(lines[:half])
    wait_for(lambda: _journaled(journal) == (half, True), "the first half done")
    assert service.kill(signal.SIGTERM) == 0, "".join(service.err)
    assert "Traceback" not in "".join(service.err)
    first = service.out
    with contextlib.closing(sqlite3.connect(journal)) as db, db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert _journaled(journal) == (half, True)
    service = _Service(journal)
    service.feed(lines[half:])
    assert service.close_input() == 0, "".join(service.err)
    assert first + service.out == reference


def test_bad_lines_on_stdin_are_reported_and_skipped(tmp_path: Path) -> None:
    lines = _lines(seed=4)
    reference = _uninterrupted(tmp_path, lines)
    service = _Service(tmp_path / "journal.sqlite")
    service.feed([*lines[:5], '{"zone": "hnad.A", "card": "KS"}', "not json", *lines[5:]])
    assert service.close_input() == 2
    err = "".join(service.err)
    assert "<stdin>:6: unknown zone 'hnad.A' (did you mean 'hand.A'?)" in err
    assert "<stdin>:7: not JSON" in err
    assert service.out == reference


@pytest.mark.parametrize("seed", [2])
def test_restart_after_the_game_is_over_starts_nothing_new(tmp_path: Path, seed: int) -> None:
    lines = _lines(seed)
    journal = tmp_path / "journal.sqlite"
    service = _Service(journal)
    service.feed(lines)
    assert service.close_input() == 0
    again = _Service(journal)
    assert again.close_input() == 0
    assert again.out == []  # everything was done: nothing is put out twice


# -- kills at random instants, on games of the built-in players ---------------------------------

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
