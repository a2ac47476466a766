"""The journal tells the truth about itself.

Each kind of damage is written into a real journal (three games played through the service);
then ``journal check``'s verdict, what ``journal salvage`` keeps, and that ``run`` either
resumes or exits 2 with a clear line, all from the command line.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from waiting import HANG_S

import engine
from firmware_host.feeder import feed_lines
from firmware_host.journal.store import DONE, REJECTED, Journal
from firmware_host.players.builtin import game_transcript
from firmware_host.referee.controller import Controller
from firmware_host.referee.transcript import dumps
from firmware_host.service import TableService

CLI = Path(sys.executable).parent / "ecarte-table"
TIMEOUT = HANG_S


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, timeout=TIMEOUT, check=False)


def _game(seed: int, dealer: str = "A") -> list[str]:
    return [dumps(e) for e in game_transcript(engine.new_game("classic", dealer=dealer), random.Random(seed))]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A journal of three whole games, each begun by a `yes` after the one before."""
    path = tmp_path_factory.mktemp("pristine") / "j.sqlite"
    yes = '{"seat": "A", "button": "yes"}'
    lines = [*_game(1), yes, *_game(2, "B")[1:], yes, *_game(3)[1:]]
    with Journal(path, lock=True) as journal:
        service = TableService(journal=journal, controller=Controller())
        threading.Thread(target=feed_lines, args=(service, io.BytesIO("\n".join(lines).encode()), "f"),
                         daemon=True).start()
        service.run()
        assert [g for g, _ in journal.games()][:3] == [1, 2, 3]
    return path


@pytest.fixture
def journal(pristine: Path, tmp_path: Path) -> Path:
    path = tmp_path / "j.sqlite"
    for suffix in ("", ".lock"):
        shutil.copy(str(pristine) + suffix, str(path) + suffix)
    return path


def _rows(path: Path, game: int) -> list[tuple[int, str, int]]:
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        return [(int(i), str(line), int(done)) for i, line, done in
                db.execute("SELECT id, line, done FROM events WHERE game = ? ORDER BY id", (game,))]


def _card_rows(path: Path, game: int) -> list[tuple[int, str, int]]:
    return [row for row in _rows(path, game) if '"zone"' in row[1]]


def _delete_middle(path: Path) -> None:
    rows = _rows(path, 2)
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("DELETE FROM events WHERE id = ?", (rows[len(rows) // 2][0],))


def _swap_lines(path: Path) -> None:
    cards = _card_rows(path, 2)
    (a, line_a, _), (b, line_b, _) = cards[3], cards[7]
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE events SET line = ? WHERE id = ?", (line_b, a))
        db.execute("UPDATE events SET line = ? WHERE id = ?", (line_a, b))


def _copy_over_next(path: Path) -> None:
    row = _card_rows(path, 2)[4][0]
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE events SET (line, done, seq, crc, link) = (SELECT line, done, seq, crc, link FROM events "
                   "WHERE id = ?) WHERE id = ?", (row, row + 1))


def _null_crc(path: Path) -> None:
    row, line, _ = _card_rows(path, 2)[5]
    card = json.loads(line)["card"]
    other = "7C" if card != "7C" else "8C"
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE events SET line = ?, crc = NULL WHERE id = ?", (line.replace(card, other), row))


def _taken_marked_refused(path: Path) -> None:
    row = next(i for i, _, done in _card_rows(path, 2) if done == DONE)
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE events SET done = ? WHERE id = ?", (REJECTED, row))


def _random_lock(path: Path) -> None:
    Path(str(path) + ".lock").write_bytes(random.Random(5).randbytes(160))


DAMAGE: dict[str, tuple[Callable[[Path], None], str, bool]] = {
    # how, what check says, whether salvage loses game 2 (and only it)
    "row_deleted": (_delete_middle, "game 2: line", True),
    "lines_swapped": (_swap_lines, "game 2: line", True),
    "row_copied_over_next": (_copy_over_next, "game 2: line", True),
    "card_with_null_crc": (_null_crc, "checksum is missing", True),
    "taken_marked_refused": (_taken_marked_refused, "its state (taken, refused)", True),
    "lock_of_random_bytes": (_random_lock, "seal", False),
}


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_each_damage_is_found_salvaged_and_never_restarts_the_table(journal: Path, kind: str) -> None:
    damage, words, loses_game_2 = DAMAGE[kind]
    with Journal(journal, readonly=True) as before:
        kept = [g for g, _ in before.games() if g != 2 or not loses_game_2]
    damage(journal)

    checked = _cli("journal", "check", "--journal", str(journal), "--json")
    verdict = json.loads(checked.stdout)
    assert checked.returncode == 1 and not verdict["ok"], checked.stdout
    assert any(words in problem for problem in verdict["problems"]), verdict

    ran = _cli("run", "--journal", str(journal), "--events", "/dev/null")
    assert ran.returncode == 2 and "Traceback" not in ran.stderr, ran.stderr  # the unit does not restart on 2
    assert "damaged" in ran.stderr and "journal salvage" in ran.stderr

    saved = _cli("journal", "salvage", "--journal", str(journal), "--json")
    assert saved.returncode == 0, saved.stderr
    assert json.loads(saved.stdout)["kept_games"] == kept
    assert _cli("journal", "check", "--journal", str(journal)).returncode == 0
    resumed = _cli("run", "--journal", str(journal), "--events", "/dev/null")
    assert resumed.returncode == 0, resumed.stderr


def test_a_line_the_resume_cannot_read_exits_2_and_salvage_drops_it(tmp_path: Path) -> None:
    """What an earlier version let the page journal: every start exited 1 (a restart loop)."""
    path = tmp_path / "j.sqlite"
    with Journal(path, lock=True) as journal:
        game = journal.start_game('{"setup": {"rules": "classic", "dealer": "A"}}', seq=1)
        journal.mark_done(journal.append(game, '{"setup": {"target": true}}', seq=1))
        journal.mark_done(journal.append(game, '{"zone": "hand.B", "card": "KS"}', seq=1))
    ran = _cli("run", "--journal", str(path), "--events", "/dev/null")
    assert ran.returncode == 2 and "Traceback" not in ran.stderr, ran.stderr
    assert "game 1, line 2 cannot be read back" in ran.stderr and "journal salvage" in ran.stderr
    checked = _cli("journal", "check", "--journal", str(path))
    assert checked.returncode == 1 and "line 2: cannot be read back" in checked.stdout
    saved = _cli("journal", "salvage", "--journal", str(path), "--json")
    report = json.loads(saved.stdout)
    assert report["kept_games"] == [1] and any("line 2 dropped" in lost for lost in report["lost"])
    assert _cli("run", "--journal", str(path), "--events", "/dev/null").returncode == 0
    with Journal(path, readonly=True) as journal:
        record = journal.current_game()
        assert record is not None and record.lines[1] == '{"zone": "hand.B", "card": "KS"}'


def test_a_zeroed_block_is_reported_and_salvaged_never_a_traceback(journal: Path, tmp_path: Path) -> None:
    """Power lost in a write: a 512-byte block of zeros anywhere in the file."""
    from cli.main import main

    size = journal.stat().st_size
    damaged = 0
    for block in range(1, size // 512, 3):
        path = tmp_path / f"z{block}.sqlite"
        shutil.copy(journal, path)
        shutil.copy(str(journal) + ".lock", str(path) + ".lock")
        with open(path, "r+b") as file:
            file.seek(block * 512)
            file.write(bytes(512))
        verdict = main(["journal", "check", "--journal", str(path)])
        assert verdict in (0, 1)
        damaged += verdict
        if verdict:
            assert main(["journal", "salvage", "--journal", str(path)]) == 0
            assert main(["journal", "check", "--journal", str(path)]) == 0
    assert damaged >= 5  # most blocks hold rows
    # one of them through the service as installed: exit 2 and a clear line
    path = tmp_path / "run.sqlite"
    shutil.copy(journal, path)
    with open(path, "r+b") as file:
        file.seek(size // 2 // 512 * 512)
        file.write(bytes(512))
    ran = _cli("run", "--journal", str(path), "--events", "/dev/null")
    assert ran.returncode in (0, 2) and "Traceback" not in ran.stderr, ran.stderr


def test_game_numbers_survive_a_restart(tmp_path: Path) -> None:
    """hand_record, the snapshot (and so /api/state and MQTT) carry the journal's game number."""
    path = tmp_path / "j.sqlite"
    first = tmp_path / "first.jsonl"
    first.write_text("\n".join([*_game(1), '{"seat": "A", "button": "yes"}']) + "\n")
    one = _cli("run", "--journal", str(path), "--events", str(first), "--json", "--all-events")
    assert one.returncode == 0, one.stderr
    second = tmp_path / "second.jsonl"
    second.write_text("\n".join(_game(2, "B")[1:]) + "\n")
    two = _cli("run", "--journal", str(path), "--events", str(second), "--json", "--all-events")
    assert two.returncode == 0, two.stderr
    numbers = {json.loads(line)["game"] for line in two.stdout.splitlines() if '"hand_record"' in line}
    with Journal(path, readonly=True) as journal:
        games = [g for g, _ in journal.games()]
    assert numbers == {2} and games == [1, 2], (numbers, games)
    assert {json.loads(line)["game"] for line in one.stdout.splitlines() if '"hand_record"' in line} == {1}


def test_a_journal_of_the_version_before_links_is_chained_when_the_service_opens_it(tmp_path: Path) -> None:
    """Rows with a CRC of their line only (the earlier format): checked, then chained, on start."""
    from firmware_host.journal.store_chain import line_crc

    path = tmp_path / "old.sqlite"
    lines = _game(4)
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.executescript(
            "CREATE TABLE games (id INTEGER PRIMARY KEY, started REAL NOT NULL);"
            "CREATE TABLE events (id INTEGER PRIMARY KEY, game INTEGER NOT NULL REFERENCES games(id), t REAL NOT NULL,"
            " line TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0, seq INTEGER, crc INTEGER);"
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);"
            "INSERT INTO games (id, started) VALUES (1, 0);")
        db.executemany("INSERT INTO events (game, t, line, done, seq, crc) VALUES (1, 0, ?, 1, NULL, ?)",
                       [(line, line_crc(1, line)) for line in lines[:20]])
        db.execute("INSERT INTO meta (key, value) VALUES ('lines', 19)")
    assert _cli("journal", "check", "--journal", str(path)).returncode == 0  # read as it is
    resumed = _cli("run", "--journal", str(path), "--events", "/dev/null")
    assert resumed.returncode == 0, resumed.stderr
    assert _cli("journal", "check", "--journal", str(path)).returncode == 0
    _taken_marked_refused_anywhere(path)
    assert _cli("journal", "check", "--journal", str(path)).returncode == 1  # chained now


def _taken_marked_refused_anywhere(path: Path) -> None:
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE events SET done = ? WHERE id = (SELECT MAX(id) FROM events WHERE done = ?)",
                   (REJECTED, DONE))


def test_the_page_shows_the_journals_game_number_after_a_restart(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from firmware_host.referee.snapshot import Outcome
    from venue.settings import WebSettings
    from venue.table.page import LiveTable, table_app
    from venue.table.public import PublicFeed

    path = tmp_path / "j.sqlite"
    first = tmp_path / "first.jsonl"
    first.write_text("\n".join([*_game(1), '{"seat": "A", "button": "yes"}']) + "\n")
    assert _cli("run", "--journal", str(path), "--events", str(first)).returncode == 0

    class Kept:
        def __init__(self) -> None:
            self.outcomes: list[Outcome] = []

        def publish(self, outcome: Outcome) -> None:
            self.outcomes.append(outcome)

    kept = Kept()
    with Journal(path, lock=True) as journal:
        TableService(journal=journal, controller=Controller(), outputs=[kept]).resume()
    live = LiveTable(PublicFeed(table="T"))
    for outcome in kept.outcomes:
        live.feed.take(outcome, now=0.0)
    with TestClient(table_app(live, history=None, settings=WebSettings())) as client:
        assert client.get("/api/state").json()["game"] == 2


def _endless_view(path: Path) -> None:
    """``events`` as a view over a recursive query that never ends: every reader would spin."""
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.executescript(
            "DROP INDEX events_game; ALTER TABLE events RENAME TO kept;"
            "CREATE VIEW events AS WITH RECURSIVE r(id, game, t, line, done, seq, crc, link, m) AS "
            "(SELECT 1, 1, 0.0, '{}', 1, 1, 0, 0, 0.0 UNION ALL "
            "SELECT id + 1, 1, 0.0, '{}', 1, 1, 0, 0, 0.0 FROM r) SELECT * FROM r;")


def _trigger_on_events(path: Path) -> None:
    """A trigger that spins at the first row written."""
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.executescript(
            "CREATE TRIGGER spin AFTER INSERT ON events BEGIN "
            "SELECT COUNT(*) FROM (WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
            "SELECT n FROM r); END;")


@pytest.mark.parametrize(("craft", "foreign"), [(_endless_view, "a view 'events'"),
                                                (_trigger_on_events, "a trigger 'spin'")])
def test_a_crafted_schema_is_refused_on_open_and_reported_by_check(
        journal: Path, tmp_path: Path, craft: Callable[[Path], None], foreign: str) -> None:
    """A journal made to spin its readers (``events`` a view over an endless query) or its writer (a
    trigger on ``events``): before, ``review``, ``history``, ``export``, ``journal status`` and
    ``check`` spun forever on the view, and ``check`` said "ok" of the trigger and ``run`` spun at its
    first write. Each is refused on open (exit 2; ``check`` names the object, 1), and salvage makes a
    journal of what the pages hold."""
    craft(journal)
    checked = _cli("journal", "check", "--journal", str(journal), "--json")
    verdict = json.loads(checked.stdout)
    assert checked.returncode == 1 and any(foreign in p for p in verdict["problems"]), verdict
    for command in (["journal", "status"], ["review"], ["history"], ["export", "-o", str(tmp_path / "x.json")],
                    ["run", "--events", "/dev/null"]):
        done = _cli(*command, "--journal", str(journal))
        assert done.returncode == 2 and "Traceback" not in done.stderr, (command, done.stderr)
        assert foreign in done.stderr, (command, done.stderr)
    saved = _cli("journal", "salvage", "--journal", str(journal), "--json")
    assert saved.returncode == 0, saved.stderr
    assert _cli("journal", "check", "--journal", str(journal)).returncode == 0
    game = '{"setup": {"rules": "classic", "dealer": "A", "players": ["Ann", "Bob"]}}\n'
    (tmp_path / "g.jsonl").write_text(game)
    assert _cli("run", "--journal", str(journal), "--events", str(tmp_path / "g.jsonl")).returncode == 0
