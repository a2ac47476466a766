"""A damaged journal is detected, reported and recoverable; one service per journal; a full
disk pauses the table."""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import resource
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
from catalogue import say
from catalogue.phrase import said as said_in
from firmware_host.feeder import feed_lines
from firmware_host.journal import store as journal_module
from firmware_host.journal.store import Journal, JournalDamaged, JournalError
from firmware_host.journal.store_salvage import salvage
from firmware_host.players.builtin import game_transcript
from firmware_host.referee.controller import Controller
from firmware_host.referee.transcript import dumps
from firmware_host.service import TableService

CLI = Path(sys.executable).parent / "ecarte-table"
TIMEOUT = HANG_S


def _cli(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, timeout=TIMEOUT, check=False,
                          **kwargs)  # type: ignore[call-overload]


def _game(seed: int, dealer: str = "A") -> list[str]:
    return [dumps(e) for e in game_transcript(engine.new_game("classic", dealer=dealer), random.Random(seed))]


def _two_games(path: Path) -> None:
    """A journal of two whole games (the second begun by a `yes` after the first)."""
    lines = [*_game(1), '{"seat": "A", "button": "yes"}', *_game(2, "B")[1:]]
    with Journal(path, lock=True) as journal:
        service = TableService(journal=journal, controller=Controller())
        threading.Thread(target=feed_lines, args=(service, io.BytesIO("\n".join(lines).encode()), "f"),
                         daemon=True).start()
        service.run()
        assert len(journal.games()) >= 2


def _told_until_waits(proc: subprocess.Popen[str]) -> str:
    """What ``proc`` says on its standard error up to its line that the table waits."""
    assert proc.stderr is not None
    told = ""
    while "table waits" not in told:
        line = proc.stderr.readline()
        assert line, told
        told += line
    return told


def _damage(path: Path, how: str) -> None:
    if how == "truncated":
        os.truncate(path, int(path.stat().st_size * 0.9))
    elif how == "random_bytes":
        with open(path, "r+b") as file:
            file.seek(path.stat().st_size // 2)
            file.write(random.Random(7).randbytes(4096))
    else:  # one row changed behind the journal's back
        with contextlib.closing(sqlite3.connect(path)) as db, db:
            db.execute("UPDATE events SET line = replace(line, 'hand', 'play') "
                       "WHERE id = (SELECT MAX(id) FROM events WHERE game = 2 AND line LIKE '%hand%')")


@pytest.mark.parametrize("how", ["truncated", "random_bytes", "one_row"])
def test_damage_is_detected_reported_and_salvaged(tmp_path: Path, how: str) -> None:
    path = tmp_path / "j.sqlite"
    _two_games(path)
    _damage(path, how)

    ran = _cli("run", "--journal", str(path), "--events", "/dev/null")
    assert ran.returncode == 2
    assert "Traceback" not in ran.stderr
    assert "damaged" in ran.stderr and "journal salvage" in ran.stderr
    if how == "one_row":
        assert "game 2: line " in ran.stderr  # where it is, not '#game1:1'
    checked = _cli("journal", "check", "--journal", str(path))
    assert checked.returncode == 1 and "damaged" in checked.stdout

    saved = _cli("journal", "salvage", "--journal", str(path), "--json")
    assert saved.returncode == 0, saved.stderr
    report = json.loads(saved.stdout)
    assert report["lost"] or report["problems"], report  # said what was lost, or recovered
    assert 1 in report["kept_games"] or how == "random_bytes"
    assert Path(report["moved_to"]).exists()
    assert _cli("journal", "check", "--journal", str(path)).returncode == 0
    again = _cli("run", "--journal", str(path), "--events", "/dev/null")
    assert again.returncode == 0, again.stderr


def test_a_wal_removed_after_a_kill_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    source = tmp_path / "game.jsonl"
    lines = _game(3)
    source.write_text("\n".join(lines[:30]) + "\n")
    proc = subprocess.Popen([str(CLI), "run", "--journal", str(path), "--events", "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None
    proc.stdin.write(source.read_bytes())
    proc.stdin.flush()
    deadline = time.monotonic() + TIMEOUT
    while _fed(path) < 30 and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=TIMEOUT)
    proc.stdin.close()
    Path(f"{path}-wal").unlink()

    ran = _cli("run", "--journal", str(path), "--events", "/dev/null")
    assert ran.returncode == 2
    assert "missing" in ran.stderr and "-wal" in ran.stderr
    assert "Traceback" not in ran.stderr
    assert _cli("journal", "check", "--journal", str(path)).returncode == 1
    assert _cli("journal", "salvage", "--journal", str(path)).returncode == 0
    assert _cli("run", "--journal", str(path), "--events", "/dev/null").returncode == 0


def _fed(path: Path) -> int:
    try:
        with Journal(path, readonly=True) as journal:
            return journal.fed_lines()
    except (OSError, sqlite3.Error):
        return 0


def test_one_service_per_journal(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    first = subprocess.Popen([str(CLI), "run", "--journal", str(path), "--events", "-"],
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + TIMEOUT
        while not Path(f"{path}.lock").exists() or _fed(path) != 0 or not path.exists():
            assert time.monotonic() < deadline
            time.sleep(0.02)
        second = _cli("run", "--journal", str(path), "--events", "/dev/null")
        while second.returncode == 0 and time.monotonic() < deadline:  # the first had not locked yet
            second = _cli("run", "--journal", str(path), "--events", "/dev/null")
        assert second.returncode == 2
        assert f"in use by process {first.pid}" in second.stderr
        assert "Traceback" not in second.stderr
        assert _cli("journal", "salvage", "--journal", str(path)).returncode == 2
    finally:
        assert first.stdin is not None
        first.stdin.close()
        first.wait(timeout=TIMEOUT)
    assert first.returncode == 0
    assert _cli("run", "--journal", str(path), "--events", "/dev/null").returncode == 0


def test_a_full_disk_pauses_the_table_and_it_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    source = tmp_path / "game.jsonl"
    source.write_text("\n".join(_game(4)) + "\n")
    reference = _cli("replay", str(source), "--json").stdout

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (150_000, resource.RLIM_INFINITY))

    proc = subprocess.Popen([str(CLI), "run", "--journal", str(path), "--events", str(source), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=small_files)
    assert proc.stderr is not None
    told = _told_until_waits(proc)
    resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))  # space back
    out, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 0, err
    assert "Traceback" not in told + err
    assert "goes on" in err
    assert out == reference  # nothing lost, nothing twice
    assert _cli("journal", "check", "--journal", str(path)).returncode == 0


def test_old_games_are_pruned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(journal_module, "KEEP_GAMES", 3)
    with Journal(tmp_path / "j.sqlite") as journal:
        for _ in range(5):
            game = journal.start_game('{"setup": {}}')
            journal.append(game, '{"seat": "A", "button": "yes"}', fed=True)
        assert [g for g, _ in journal.games()] == [3, 4, 5]
        assert journal.fed_lines() == 5
        journal.verify()


def test_salvage_of_a_whole_journal_keeps_everything(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    _two_games(path)
    with Journal(path, readonly=True) as journal:
        before = [journal.game(g).lines for g, _ in journal.games()]
    report = salvage(str(path))
    assert report.lost == ()
    with Journal(path, lock=True) as journal:
        assert [journal.game(g).lines for g, _ in journal.games()] == before


def test_reading_a_damaged_row_names_it(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    _two_games(path)
    _damage(path, "one_row")
    with Journal(path) as journal, pytest.raises(JournalDamaged, match=r"game 2, line \d+"):
        journal.game(2)


@pytest.mark.parametrize("how", ["symlink", "hard link"])
def test_no_path_lets_a_second_service_in(tmp_path: Path, how: str) -> None:
    """The lock was taken on the path's string: through a symlink a second `run` opened the same
    journal, logged `UNIQUE constraint failed … free some space` and exited 0."""
    path = tmp_path / "j.sqlite"
    other = tmp_path / "elsewhere" / "other.sqlite"
    other.parent.mkdir()
    with Journal(path, lock=True) as journal:
        journal.start_game('{"setup": {}}', seq=1)
        if how == "symlink":
            other.symlink_to(path)
        else:
            os.link(path, other)
        second = _cli("run", "--journal", str(other), "--events", "/dev/null")
        assert second.returncode == 2, second.stderr
        assert "in use" in second.stderr and "Traceback" not in second.stderr
        assert _cli("journal", "salvage", "--journal", str(other)).returncode == 2
        assert journal.games() == [(1, 1)]
    assert _cli("run", "--journal", str(other), "--events", "/dev/null").returncode == 0


def test_a_lock_not_taken_holds_nothing(tmp_path: Path) -> None:
    """The journal's file was held before its lock file was taken: when the lock file could not
    be opened, the file stayed held and the same process was then told the journal was in use."""
    path = tmp_path / "j.sqlite"
    Path(f"{path}.lock").mkdir()  # a lock file that cannot be opened
    with pytest.raises(JournalError, match="cannot open the journal's lock"):
        Journal(path, lock=True)
    Path(f"{path}.lock").rmdir()
    with Journal(path, lock=True) as journal:
        assert journal.games() == []


def test_a_lock_refused_is_said_in_the_readers_language_and_its_english_is_the_catalogues(tmp_path: Path) -> None:
    """The lock's error wrote its English beside a message id that said another thing (``error.cannot_open``:
    the lock file's path, not that it was the journal's lock): its words are now one phrase, the English
    the catalogue's."""
    from catalogue import os_reason, say
    from firmware_host.errors import BadInput

    path = tmp_path / "j.sqlite"
    Path(f"{path}.lock").mkdir()
    with pytest.raises(JournalError) as caught:
        Journal(path, lock=True)
    reason = IsADirectoryError(21, "x")
    for lang in ("en", "fr", "de"):
        assert said_in(BadInput.of(caught.value), lang) == say(lang, "journal.cannot_open_lock", path=f"{path}.lock",
                                                          reason=os_reason(lang, reason))
    assert str(caught.value) == said_in(BadInput.of(caught.value), "en")


def test_events_not_journaled_are_never_exit_0_nor_a_full_disk(tmp_path: Path) -> None:
    """A journal that cannot be written for another reason than a full disk (here: another
    process holds its write lock) is said as it is, not "free some space"; stopped (SIGTERM) with
    events not journaled is a failure (exit 1), never 0. The end of the input, by contrast, waits
    until what is held is journaled, then exits 0 with nothing lost."""
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:  # a journal to start from
        journal.start_game('{"setup": {}}', seq=1)
    proc = subprocess.Popen([str(CLI), "run", "--journal", str(path), "--events", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stderr is not None
    try:
        deadline = time.monotonic() + TIMEOUT
        while not Path(f"{path}.lock").exists() or '"pid"' not in Path(f"{path}.lock").read_text():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # the write lock, held
        proc.stdin.write('{"zone": "hand.B", "card": "KS"}\n')
        proc.stdin.flush()
        told = _told_until_waits(proc)
        proc.terminate()
        err = proc.stderr.read()
        proc.wait(timeout=TIMEOUT)
        other.execute("ROLLBACK")
        other.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "free some space" not in told + err
    assert "database is locked" in told
    assert "not journaled" in err and "Traceback" not in told + err
    assert proc.returncode == 1, err

    again = subprocess.Popen([str(CLI), "run", "--journal", str(path), "--events", "-"], stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert again.stdin is not None and again.stderr is not None
    other = sqlite3.connect(path, isolation_level=None)
    try:
        while '"pid"' not in Path(f"{path}.lock").read_text() or f'"pid": {again.pid}' not in \
                Path(f"{path}.lock").read_text():
            assert again.poll() is None and time.monotonic() < deadline + TIMEOUT
            time.sleep(0.05)
        other.execute("BEGIN IMMEDIATE")
        again.stdin.write('{"zone": "hand.B", "card": "KS"}\n')
        again.stdin.close()  # the end of the input while the line waits
        told = _told_until_waits(again)
        other.execute("ROLLBACK")  # the journal can be written again
        err = again.stderr.read()
        again.wait(timeout=TIMEOUT)
    finally:
        other.close()
        if again.poll() is None:
            again.kill()
            again.wait()
    assert again.returncode == 0, told + err
    assert "not journaled" not in err and "goes on" in err
    with Journal(path, readonly=True) as journal:
        assert journal.fed_lines() == 1


def test_a_really_full_disk_says_free_some_space(tmp_path: Path) -> None:
    """A full disk (ENOSPC: a 16 MB tmpfs mounted in the service's own mount namespace, filled
    but for 160 KB) is said as one ("free some space"); once space is freed the table goes on, nothing lost."""
    if os.geteuid() != 0 or subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
        pytest.skip("needs root and unshare -m (a tmpfs of its own)")
    disk = tmp_path / "disk"
    disk.mkdir()
    source = tmp_path / "game.jsonl"
    source.write_text("\n".join(_game(4)) + "\n")
    reference = _cli("replay", str(source), "--json").stdout
    script = (f'mount -t tmpfs -o size=16m tmpfs "{disk}" && head -c 16613376 /dev/zero > "{disk}/filler" && '
              f'exec "{CLI}" run --journal "{disk}/j.sqlite" --events "{source}" --json')
    proc = subprocess.Popen(["unshare", "-m", "sh", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stderr is not None
    told = _told_until_waits(proc)
    Path(f"/proc/{proc.pid}/root{disk}/filler").unlink()  # the space back, inside its namespace
    out, err = proc.communicate(timeout=TIMEOUT)
    # the disk said full as the console's language says it (English here), not SQLite's words
    assert say("en", "os.ENOSPC") in told and "free some space" in told, told
    assert proc.returncode == 0, err
    assert "Traceback" not in told + err and "goes on" in err
    assert out == reference  # nothing lost, nothing twice
