"""The SQLite journal: durable settings, games and their lines, export, clear errors."""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG_S

from firmware_host.journal.store import Journal, JournalError
from firmware_host.journal.store_schema import NO_SYNC_FOR_TESTS

CLI = Path(sys.executable).parent / "ecarte-table"
SETUP = '{"setup": {"rules": "classic", "dealer": "A"}}'


def test_wal_and_synchronous_full(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite") as journal:
        assert journal.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert journal.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_the_test_only_no_sync_switch_turns_every_disk_wait_off_and_only_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``ECARTE_JOURNAL_UNSAFE_NO_SYNC=1`` (the VM test's cuts, to show their check can fail): no write waits
    for the disk, a marked event's neither; unset (a table), every row waits again (FULL)."""
    monkeypatch.setenv(NO_SYNC_FOR_TESTS, "1")
    with Journal(tmp_path / "j.sqlite") as journal:
        assert journal.db.execute("PRAGMA synchronous").fetchone()[0] == 0  # OFF
        game = journal.start_game(SETUP)
        journal.mark_done(journal.append(game, '{"zone": "hand.B", "card": "KS"}'))
        assert journal.db.execute("PRAGMA synchronous").fetchone()[0] == 0
    monkeypatch.setenv(NO_SYNC_FOR_TESTS, "0")
    with Journal(tmp_path / "j.sqlite") as journal:
        assert journal.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        record = journal.current_game()
        assert record is not None
        journal.mark_done(journal.append(record.game, '{"zone": "hand.B", "card": "QS"}'))
        assert journal.db.execute("PRAGMA synchronous").fetchone()[0] == 2


def test_append_mark_done_and_current_game(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        assert journal.current_game() is None
        game = journal.start_game(SETUP)
        first = journal.append(game, '{"zone": "hand.B", "card": "KS"}')
        second = journal.append(game, '{"zone": "hand.B", "card": "QS"}')
        journal.mark_done(first)
        record = journal.current_game()
        assert record is not None
        assert record.game == game
        assert record.lines == (SETUP, '{"zone": "hand.B", "card": "KS"}', '{"zone": "hand.B", "card": "QS"}')
        assert record.done == (True, True, False)
        assert record.ids[1:] == (first, second)
    # durable across a reopen
    with Journal(path) as journal:
        record = journal.current_game()
        assert record is not None and record.done == (True, True, False)
        other = journal.start_game(SETUP)
        assert other > game
        assert journal.current_game().lines == (SETUP,)  # type: ignore[union-attr]
        assert journal.games() == [(game, 3), (other, 1)]
        assert journal.game(game).lines[1] == '{"zone": "hand.B", "card": "KS"}'
        with pytest.raises(KeyError, match="no game 99"):
            journal.game(99)


def test_an_append_is_on_disk_before_it_returns(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    game = journal.start_game(SETUP)
    journal.append(game, '{"seat": "B", "button": "yes"}')
    # another connection sees it at once, without the writer closing
    with contextlib.closing(sqlite3.connect(path)) as reader, reader:
        assert reader.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 2
    journal.close()
    journal.close()  # twice is fine
    with pytest.raises(JournalError, match="closed"):
        journal.append(game, "{}")


def test_missing_directory_is_created(tmp_path: Path) -> None:
    path = tmp_path / "state" / "deep" / "journal.sqlite"
    with Journal(path) as journal:
        journal.start_game(SETUP)
    assert path.is_file()


@pytest.mark.parametrize("make", ["directory", "parent_is_a_file", "not_a_database"])
def test_unusable_path_gives_a_clear_error(tmp_path: Path, make: str) -> None:
    if make == "directory":
        path = tmp_path / "adir"
        path.mkdir()
    elif make == "parent_is_a_file":
        (tmp_path / "afile").write_text("x")
        path = tmp_path / "afile" / "journal.sqlite"
    else:
        path = tmp_path / "garbage.sqlite"
        path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(JournalError) as raised:
        Journal(path).close()
    assert str(path) in str(raised.value)
    assert "cannot open the journal" in str(raised.value)


def test_run_with_an_unusable_journal_exits_2(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    done = subprocess.run(
        [str(CLI), "run", "--journal", str(tmp_path / "afile" / "j.sqlite"), "--events", "-", "--json"],
        input="", capture_output=True, text=True, timeout=HANG_S, check=False,
    )
    assert done.returncode == 2
    assert "cannot open the journal" in done.stderr
    assert "Traceback" not in done.stderr


def test_export_lists_and_writes_games(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        game = journal.start_game(SETUP)
        journal.append(game, '{"zone": "hand.B", "card": "KS"}')
    listed = subprocess.run([str(CLI), "export", "--journal", str(path), "--list"],
                            capture_output=True, text=True, timeout=HANG_S, check=False)
    assert listed.returncode == 0
    assert listed.stdout.startswith(f"game {game}  ") and "unfinished 0:0  0 hands" in listed.stdout
    out = tmp_path / "t.jsonl"
    done = subprocess.run([str(CLI), "export", "--journal", str(path), "-o", str(out)],
                          capture_output=True, text=True, timeout=HANG_S, check=False)
    assert done.returncode == 0, done.stderr
    assert out.read_text() == SETUP + "\n" + '{"zone": "hand.B", "card": "KS"}\n'
    missing = subprocess.run([str(CLI), "export", "--journal", str(path), "--game", "7"],
                             capture_output=True, text=True, timeout=HANG_S, check=False)
    assert missing.returncode == 2 and "no game 7" in missing.stderr
    nowhere = subprocess.run([str(CLI), "export", "--journal", str(tmp_path / "none.sqlite")],
                             capture_output=True, text=True, timeout=HANG_S, check=False)
    assert nowhere.returncode == 2 and "no journal" in nowhere.stderr


def test_a_journal_killed_as_it_was_made_reads_as_an_empty_one(tmp_path: Path) -> None:
    """A service killed between its lock creating the file and the schema being written left a file
    with no table: read only (``journal status``, ``export``, a watcher counting what was fed), it
    raised "damaged: no such table: meta", where the next start takes it as a new journal."""
    path = tmp_path / "j.sqlite"
    path.touch()
    with Journal(path, readonly=True) as journal:
        assert journal.fed_lines() == 0 and journal.last_row() == 0
    with Journal(path) as journal:  # the next start makes it a journal
        journal.mark_done(journal.append(journal.start_game('{"setup": {}}', seq=1), "{}", seq=2, fed=True))
    with Journal(path, readonly=True) as journal:
        assert journal.fed_lines() == 1


@pytest.mark.parametrize(("lang", "words"), [
    ("fr", "impossible d'ouvrir le journal {path} : il est abîmé (le fichier n'est pas une base SQLite)"),
    ("it", "impossibile aprire il giornale {path}: è danneggiato (il file non è un database SQLite)"),
    ("de", "das Journal {path} lässt sich nicht öffnen: es ist beschädigt (die Datei ist keine SQLite-Datenbank)"),
    ("es", "no se puede abrir el diario {path}: está dañado (el archivo no es una base de datos SQLite)"),
    ("en", "cannot open the journal {path}: it is damaged (the file is not an SQLite database)"),
])
def test_a_journal_that_is_no_database_is_refused_in_the_readers_language(tmp_path: Path, lang: str,
                                                                          words: str) -> None:
    """After a power cut the first message a club reads was English in every language ("cannot open the
    journal ...: it is damaged: SQLite: file is not a database"): it is worded, with the repair command."""
    path = tmp_path / "journal.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    for command in (["history"], ["sim"]):
        done = subprocess.run([str(CLI), "--language", lang, *command, "--journal", str(path)], input="quit\n",
                              capture_output=True, text=True, timeout=HANG_S, check=False)
        assert done.returncode == 2, done.stderr
        assert words.format(path=path) in done.stderr
        hint = re.search(r"`([^`]*journal salvage --journal [^`]*)`", done.stderr)
        assert hint is not None, done.stderr
        assert "SQLite: file is not a database" not in done.stderr and "Traceback" not in done.stderr
    checked = subprocess.run([str(CLI), "--language", lang, "journal", "check", "--journal", str(path)],
                             capture_output=True, text=True, timeout=HANG_S, check=False)
    assert checked.returncode == 1 and "file is not a database" not in checked.stdout + checked.stderr
    # the hint is a command that runs as typed (a bare `ecarte-table` is not on PATH after the README's
    # commands): it salvages the journal
    assert "journal salvage" in checked.stdout
    salvaged = subprocess.run(hint.group(1), shell=True, capture_output=True, text=True, timeout=HANG_S,
                              check=False, env={**os.environ, "PATH": "/usr/bin:/bin"})
    assert salvaged.returncode == 0, salvaged.stdout + salvaged.stderr
    assert subprocess.run([str(CLI), "journal", "check", "--journal", str(path)], capture_output=True,
                          timeout=HANG_S, check=False).returncode == 0
