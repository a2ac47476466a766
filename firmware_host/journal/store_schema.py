"""The journal's tables, and the migration of journals written by earlier versions."""

from __future__ import annotations

import os
import sqlite3

from firmware_host.journal.store_chain import legacy_problem, row_link, state_crc

CHAINED = 1
"""``meta.chain``: the rows carry links and state checksums (journals before it: a CRC of the line)."""

NO_SYNC_FOR_TESTS = "ECARTE_JOURNAL_UNSAFE_NO_SYNC"
"""Set to ``1`` (tests only, never on a table), the journal waits for the disk nowhere
(``synchronous=OFF``): what it acknowledged is in the page cache, and a power cut loses it. It is
how the VM test's power cuts show that their check can fail (``scripts/vm_test.py
--no-journal-sync``); unset, the journal is what it always was."""


def synchronous() -> str:
    """The journal's ``PRAGMA synchronous`` for a row that must be on the disk before it is acted on:
    ``FULL``, or ``OFF`` under :data:`NO_SYNC_FOR_TESTS`."""
    return "OFF" if os.environ.get(NO_SYNC_FOR_TESTS) == "1" else "FULL"


SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    started REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    game INTEGER NOT NULL REFERENCES games(id),
    t REAL NOT NULL,
    line TEXT NOT NULL,
    done INTEGER NOT NULL DEFAULT 0,
    seq INTEGER,
    crc INTEGER,
    link INTEGER,
    m REAL
);
CREATE INDEX IF NOT EXISTS events_game ON events(game, id);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
"""
"""The tables: ``games`` (number, start time), ``events`` (one transcript line a row, with its
state, ``seq`` and checksums, its wall time ``t`` and monotonic time ``m``), ``meta`` (``lines``: input
lines taken; ``chain``; ``base``: the link the first row kept chains to; ``boot``, ``boot_row``: the boot
of the machine the last opening was in, and the first row written in it)."""


OBJECTS = frozenset({("table", "games"), ("table", "events"), ("table", "meta"), ("index", "events_game"),
                     ("index", "sqlite_autoindex_meta_1")})
"""What a journal's schema holds (:data:`SCHEMA`, and the index SQLite makes for ``meta``'s key)."""

_SQLITE_OWN = frozenset({("table", "sqlite_stat1"), ("table", "sqlite_stat4"), ("table", "sqlite_sequence")})
"""Tables SQLite itself may add (``ANALYZE``): no code runs in them."""


def schema_problems(db: sqlite3.Connection) -> list[str]:
    """What the journal's schema holds that the journal never made: a view (``events`` as a view over
    an endless recursive query spins every reader), a trigger (one on ``events`` runs at each write),
    another table or index, a table of the journal's missing while others are there. Read from
    ``sqlite_master`` alone, so that nothing of the schema runs; ``trusted_schema`` is set off first
    (what the schema names runs no function with side effects, should it run). Empty: the schema is the
    journal's (or no schema yet: a journal being made)."""
    db.execute("PRAGMA trusted_schema=OFF")
    found = {(str(kind), str(name)) for kind, name in db.execute("SELECT type, name FROM sqlite_master")}
    if not found:
        return []
    problems = [f"{'an' if kind == 'index' else 'a'} {kind} {name!r} the journal never made"
                for kind, name in sorted(found - OBJECTS - _SQLITE_OWN)]
    missing = sorted(name for kind, name in {("table", "games"), ("table", "events")} - found)
    if missing:
        problems.append("no table " + ", ".join(repr(name) for name in missing))
    return problems


def create(db: sqlite3.Connection) -> None:
    """Make ``db`` a journal (WAL, ``synchronous=FULL``, the tables), bringing an older one up to date."""
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={synchronous()}")
    db.executescript(SCHEMA)
    migrate(db)


def migrate(db: sqlite3.Connection) -> None:
    """Journals of earlier versions: add the columns and the input line count; chain their rows."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(events)")}
    for column in ("seq", "crc", "link"):
        if column not in columns:
            db.execute(f"ALTER TABLE events ADD COLUMN {column} INTEGER")
    if "m" not in columns:
        db.execute("ALTER TABLE events ADD COLUMN m REAL")
    if db.execute("SELECT 1 FROM meta WHERE key = 'lines'").fetchone() is None:
        # before the count was kept, every line but the games' own setup lines was fed
        events = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        games = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        db.execute("INSERT INTO meta (key, value) VALUES ('lines', ?)", (int(events) - int(games),))
    if db.execute("SELECT 1 FROM meta WHERE key = 'chain'").fetchone() is None:
        # rows of a journal before links: chained now, each once its own CRC is checked
        # (a row that fails it keeps no link: the check reports it)
        db.execute("BEGIN IMMEDIATE")
        previous = 0
        for rowid, game, line, done, seq, crc in db.execute(
            "SELECT id, game, line, done, seq, crc FROM events ORDER BY id",
        ).fetchall():
            if legacy_problem(game, line, crc) is not None:
                db.execute("UPDATE events SET crc = NULL, link = NULL WHERE id = ?", (rowid,))
                continue
            previous = row_link(rowid, game, seq, line, previous)
            db.execute("UPDATE events SET crc = ?, link = ? WHERE id = ?",
                       (state_crc(done, previous), previous, rowid))
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('chain', ?)", (CHAINED,))
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('base', 0)")
        db.execute("COMMIT")
