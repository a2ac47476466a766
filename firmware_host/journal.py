"""The journal: every physical event, on disk before it is acted on.

SQLite in WAL mode with ``synchronous=FULL``: an event whose :meth:`Journal.append`
returned survives ``kill -9`` and power loss. Each game of the table is a run of
transcript lines (its setup line first), so any game can be exported as a
transcript and the current one replayed to resume exactly where the table stopped.

    >>> with Journal(":memory:") as journal:
    ...     game = journal.start_game('{"setup": {"rules": "classic", "dealer": "A"}}')
    ...     first = journal.append(game, '{"zone": "hand.B", "card": "KS"}')
    ...     journal.mark_done(first)
    ...     journal.current_game().lines
    ('{"setup": {"rules": "classic", "dealer": "A"}}', '{"zone": "hand.B", "card": "KS"}')
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from drivers.closing import Closing

logger = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    started REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    game INTEGER NOT NULL REFERENCES games(id),
    t REAL NOT NULL,
    line TEXT NOT NULL,
    done INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS events_game ON events(game, id);
"""


class JournalError(OSError):
    """The journal cannot be opened or written (the message names the file)."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game of the journal: its lines in order, and how many were fully handled."""

    game: int
    lines: tuple[str, ...]
    ids: tuple[int, ...]
    done: tuple[bool, ...]


class Journal(Closing):
    """An append-only journal of transcript lines, game by game.

    Not shared between threads: the service's event loop owns it.

    :raises JournalError: when the file cannot be opened (missing directory, permission).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalError(
                f"cannot open the journal {self.path}: cannot create its directory ({exc.strerror or exc})"
            ) from exc
        try:
            # opened by whoever starts the service, then used by the event loop alone
            self._db: sqlite3.Connection | None = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False,
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            raise JournalError(f"cannot open the journal {self.path}: {exc}") from exc

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            raise JournalError(f"the journal {self.path} is closed")
        return self._db

    def start_game(self, setup_line: str) -> int:
        """Begin a new game whose first line is ``setup_line``; its number."""
        with self._transaction() as db:
            cur = db.execute("INSERT INTO games (started) VALUES (?)", (time.time(),))
            game = int(cur.lastrowid or 0)
            db.execute(
                "INSERT INTO events (game, t, line, done) VALUES (?, ?, ?, 1)",
                (game, time.time(), setup_line),
            )
        return game

    def append(self, game: int, line: str) -> int:
        """Write one transcript line, durably, before it is acted on; its id."""
        with self._transaction() as db:
            cur = db.execute(
                "INSERT INTO events (game, t, line) VALUES (?, ?, ?)", (game, time.time(), line),
            )
        return int(cur.lastrowid or 0)

    def mark_done(self, event_id: int) -> None:
        """The event was acted on and its table events were put out.

        Written without waiting for the disk (``synchronous=NORMAL``): in WAL mode a
        process killed at any moment keeps it; only a power cut right after it can
        lose it, and then the event's table events are put out once more on resume.
        The event itself (:meth:`append`) always waits for the disk.
        """
        db = self.db
        db.execute("PRAGMA synchronous=NORMAL")
        try:
            with self._transaction() as tx:
                tx.execute("UPDATE events SET done = 1 WHERE id = ?", (event_id,))
        finally:
            db.execute("PRAGMA synchronous=FULL")

    def games(self) -> list[tuple[int, int]]:
        """``(game number, number of lines)`` for every game, oldest first."""
        rows = self.db.execute(
            "SELECT g.id, COUNT(e.id) FROM games g LEFT JOIN events e ON e.game = g.id "
            "GROUP BY g.id ORDER BY g.id"
        ).fetchall()
        return [(int(g), int(n)) for g, n in rows]

    def game(self, game: int) -> GameRecord:
        """Every line of ``game``.

        :raises KeyError: when the journal has no such game.
        """
        rows = self.db.execute(
            "SELECT id, line, done FROM events WHERE game = ? ORDER BY id", (game,),
        ).fetchall()
        if not rows:
            raise KeyError(f"no game {game} in the journal {self.path}")
        return GameRecord(
            game, tuple(r[1] for r in rows), tuple(int(r[0]) for r in rows), tuple(bool(r[2]) for r in rows),
        )

    def current_game(self) -> GameRecord | None:
        """The last game, or None for an empty journal."""
        row = self.db.execute("SELECT MAX(id) FROM games").fetchone()
        if row is None or row[0] is None:
            return None
        return self.game(int(row[0]))

    def _transaction(self) -> _Transaction:
        return _Transaction(self.db, self.path)

    def close(self) -> None:
        """Close the file (safe to call twice)."""
        if self._db is not None:
            try:
                self._db.close()
            finally:
                self._db = None


class _Transaction:
    def __init__(self, db: sqlite3.Connection, path: str) -> None:
        self.db = db
        self.path = path

    def __enter__(self) -> sqlite3.Connection:
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            try:
                self.db.execute("COMMIT")
            except sqlite3.Error as error:
                raise JournalError(f"cannot write the journal {self.path}: {error}") from error
        else:
            self.db.execute("ROLLBACK")
