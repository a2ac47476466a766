"""The journal: every physical event, on disk before it is acted on.

SQLite in WAL mode with ``synchronous=FULL``: an event whose :meth:`Journal.append`
returned survives ``kill -9`` and power loss. Each game of the table is a run of
transcript lines (its setup line first), so any game can be exported as a
transcript and the current one replayed to resume exactly where the table stopped.

    >>> with Journal(":memory:") as journal:
    ...     game = journal.start_game('{"setup": {"rules": "classic", "dealer": "A"}}', seq=1)
    ...     first = journal.append(game, '{"zone": "hand.B", "card": "KS"}', seq=1, fed=True)
    ...     journal.mark_done(first)
    ...     journal.current_game().lines, journal.fed_lines()
    (('{"setup": {"rules": "classic", "dealer": "A"}}', '{"zone": "hand.B", "card": "KS"}'), 1)

This module is the journal's API; its parts live beside it: the tables and their migration
(``store_schema``), the checksum chain (``store_chain``), the lock file and its seal
(``store_lock``), a write's transaction (``store_transaction``) and the errors (``store_errors``).
Only these modules speak SQL.

What makes damage visible (``ecarte-table journal check``):

- every row carries a *link*: the CRC-32 of its id, game, ``seq`` and line, chained to the
  link of the row before it (:func:`~firmware_host.journal.store_chain.row_link`), and a *checksum*
  of its state (taken, refused) over that link (:func:`~firmware_host.journal.store_chain.state_crc`).
  A row deleted, moved, copied over another, rewritten, or marked taken or refused behind the
  journal's back breaks the chain where it happened; a row without its link or checksum is damage;
- every line reads back as the transcript line it was (``journal check``);
- ``PRAGMA quick_check`` when the service opens the journal;
- the *seal*: the lock file beside the journal (``journal.sqlite.lock``), which the
  service holds while it runs, records after every write the journal's last row, its link,
  how many rows and how many input lines it holds. A journal that has fewer rows than its
  seal says lost some (a ``-wal`` file removed after a kill, a copy of an older file); a
  seal that cannot be read is damage too.

Only the newest :data:`KEEP_GAMES` games are kept: starting a game deletes older ones.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from catalogue.phrase import Phrase
from drivers.closing import Closing
from firmware_host.journal.store_chain import legacy_problem, row_link, row_problem, state_crc
from firmware_host.journal.store_errors import JournalBusy, JournalDamaged, JournalError, JournalWriteError
from firmware_host.journal.store_lock import Seal, hold, lock_path, read_seal, write_seal
from firmware_host.journal.store_schema import CHAINED, create, schema_problems, synchronous
from firmware_host.journal.store_transaction import Transaction

__all__ = [
    "DONE", "KEEP_GAMES", "PENDING", "REJECTED", "GameEntry", "GameRecord", "Journal", "JournalBusy", "JournalDamaged",
    "JournalError", "JournalWriteError", "default_journal",
]

logger = logging.getLogger(__name__)

KEEP_GAMES = 200
"""Games kept in the journal (about 14 KB each): starting a new game deletes the older ones."""

PENDING, DONE, REJECTED = 0, 1, 2
"""A row's ``done``: journaled but not yet acted on / acted on and put out / refused by the
referee (skipped on resume)."""


def boot_id() -> int:
    """This boot of the machine (a CRC of the kernel's ``boot_id``; 0 where there is none)."""
    try:
        with open("/proc/sys/kernel/random/boot_id", "rb") as file:
            return zlib.crc32(file.read(64).strip())
    except OSError:
        return 0


def row_age(m: float | None, now: float) -> float:
    """At least how many seconds ago a row was written, by the monotonic clock (``now``:
    ``time.monotonic()``): ``now - m`` for a row of this boot (``m``), else (a row of an earlier
    boot, or of a journal before ``m``) the time since this boot began, which it is older than.
    Never the wall clock: a Pi's jumps when NTP answers."""
    return now if m is None else max(0.0, now - m)


def default_journal() -> Path:
    """The journal in the service's state directory (systemd's ``StateDirectory=``)."""
    state = os.environ.get("STATE_DIRECTORY")
    if state:
        return Path(state.split(":")[0]) / "journal.sqlite"
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "ecarte-table" / "journal.sqlite"


@dataclass(frozen=True, slots=True)
class GameEntry:
    """A game as the journal lists it: its number, when it began (seconds since the epoch), its lines."""

    game: int
    started: float
    lines: int


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game of the journal: its lines in order, with their row ids, state and first ``seq``,
    the time each was journaled (seconds since the epoch) and when the game began."""

    game: int
    lines: tuple[str, ...]
    ids: tuple[int, ...]
    status: tuple[int, ...]
    seqs: tuple[int | None, ...] = ()
    times: tuple[float, ...] = ()
    started: float = 0.0
    written: tuple[float | None, ...] = ()
    """Each line's monotonic time (``m``) when it was written in the boot under way, else None:
    how long ago it was is :func:`row_age` of it, never the wall clock's ``times``."""

    def first(self, count: int) -> GameRecord:
        """The record of its first ``count`` lines only (every field cut alike)."""
        return replace(
            self, lines=self.lines[:count], ids=self.ids[:count], status=self.status[:count],
            seqs=self.seqs[:count], times=self.times[:count], written=self.written[:count])

    @property
    def done(self) -> tuple[bool, ...]:
        """Whether each line was dealt with (acted on, or rejected)."""
        return tuple(s != PENDING for s in self.status)


class Journal(Closing):
    """An append-only journal of transcript lines, game by game.

    Not shared between threads: the service's event loop owns it.

    :param readonly: open for reading only (``export``, ``journal status``): works on a
        journal the user cannot write, and never changes it.
    :param lock: hold the journal for one service (``fcntl.flock`` on ``PATH.lock``),
        check it (:meth:`verify`) and keep its seal.
    :raises JournalBusy: (``lock``) when another process holds it.
    :raises JournalDamaged: (``lock``) when it fails its checks.
    :raises JournalError: when the file cannot be opened (missing directory, permission).

    Each row keeps two times: ``t``, the wall clock (a Pi has no real-time clock: it may be hours
    off until NTP answers), and ``m``, the monotonic clock, which never jumps but starts again at
    each boot; ``meta.boot`` and ``meta.boot_row`` say which rows were written in the boot under way.
    """

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False, lock: bool = False,
                 clock: Callable[[], float] = time.time) -> None:
        self.path = str(path)
        self.clock = clock
        """The wall clock a row's ``t`` and a game's start are read from (what a person reads: the
        record's date). Nothing waits on it: how long ago a row was written is its ``m``, the
        machine's monotonic clock, within one boot (:func:`row_age`)."""
        self._file_fd: int | None = None
        self._boot: int | None = None  # the first row of the boot under way (-1: none of its rows here)
        self.readonly = readonly
        self._lock_fd: int | None = None
        self._db: sqlite3.Connection | None = None
        self._pending: tuple[int, int] = (0, 0)  # rows, input lines of the transaction under way
        self._pending_tail: tuple[int, int] = (0, 0)
        self._pending_count = 0
        self._tail: tuple[int, int] = (0, 0)  # the last row's id and link
        self._count = 0  # rows
        self._lines = 0  # input lines
        self._since = round(time.time(), 3)
        memory = self.path == ":memory:"
        if not readonly and not memory:
            try:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise JournalError(Phrase.of("journal.no_folder", path=self.path, reason=exc)) from exc
        if not memory and os.path.exists(self.path) and not os.path.isfile(self.path):
            raise JournalError(Phrase.of("journal.not_a_file", path=self.path))
        if lock and not memory:
            # the file itself too: no other path to it lets a second in
            self._file_fd, self._lock_fd = hold(self.path)
        try:
            self._connect(memory)
            if lock:
                self.verify(quick=True, opening=True)
                self._write_seal()
        except BaseException:
            self.close()
            raise

    def _connect(self, memory: bool) -> None:
        try:
            if self.readonly:
                if not Path(self.path).is_file():
                    raise JournalError(Phrase.of("error.no_journal", path=self.path))
                # no -wal: nobody has it open and everything is in the file; read it as it is and
                # leave nothing beside it. A -wal: a service may be writing; read through it.
                live = Path(self.path + "-wal").exists()
                uri = f"file:{quote(os.path.abspath(self.path))}?mode=ro" + ("" if live else "&immutable=1")
                self._db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
                try:
                    self._db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
                except sqlite3.OperationalError:
                    if not live:
                        raise
                    # a -wal left by a stop, in a directory we cannot write: the file as it is
                    self._db.close()
                    uri = f"file:{quote(os.path.abspath(self.path))}?mode=ro&immutable=1"
                    self._db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
                    self._db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
                self._check_schema()
                if not self._db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]:
                    # no table yet: a service killed as it made the journal (its lock opens the file
                    # before the schema is written). That is an empty journal, not a damaged one, as
                    # the next start takes it: read it as one, from an empty schema in memory.
                    self._db.close()
                    self._db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
                    create(self._db)
                return
            # opened by whoever starts the service, then used by the event loop alone
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._check_schema()
            create(self._db)
            self._load_tail()
            self._mark_boot()
            self._lines = self.fed_lines()
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and "malformed" not in str(exc):
                raise JournalError(f"cannot open the journal {self.path}: {exc}") from exc
            raise JournalDamaged(self.path, [f"SQLite: {exc}"], opening=True) from exc

    def _check_schema(self) -> None:
        """A schema the journal never made (a view, a trigger, another table) is refused before any
        of it is read through (:func:`schema_problems`).

        :raises JournalDamaged: naming each foreign object.
        """
        problems = schema_problems(self.db)
        if problems:
            raise JournalDamaged(self.path, problems, opening=True)

    def _mark_boot(self) -> None:
        """The first row this boot of the machine writes (``meta.boot_row``) and the boot's id: a
        row's ``m`` (its monotonic time) means something only for rows of the same boot."""
        boot = boot_id()
        row = self.db.execute("SELECT value FROM meta WHERE key = 'boot'").fetchone()
        if row is None or row[0] != boot:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('boot', ?)", (boot,))
            self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('boot_row', ?)", (self._tail[0] + 1,))
            self.db.execute("COMMIT")

    def _load_tail(self) -> None:
        """The last row's id and link and the number of rows (what the next row chains to)."""
        last = self.db.execute("SELECT id, link FROM events ORDER BY id DESC LIMIT 1").fetchone()
        base = self.db.execute("SELECT value FROM meta WHERE key = 'base'").fetchone()
        if last is None:
            self._tail = (0, int(base[0]) if base else 0)
        else:
            self._tail = (int(last[0]), int(last[1]) if isinstance(last[1], int) else 0)
        self._count = int(self.db.execute("SELECT COUNT(*) FROM events").fetchone()[0])

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            raise JournalError(f"the journal {self.path} is closed")
        return self._db

    # -- writing -------------------------------------------------------------------------------

    def start_game(self, setup_line: str, *, seq: int | None = None) -> int:
        """Begin a new game whose first line is ``setup_line``; its number. Games older than the
        newest :data:`KEEP_GAMES` are deleted.

        :raises JournalWriteError: when it cannot be written (nothing was).
        """
        with self._transaction() as db:
            cur = db.execute("INSERT INTO games (started) VALUES (?)", (self.clock(),))
            game = int(cur.lastrowid or 0)
            self._insert(db, game, setup_line, seq, DONE)
            old = game - KEEP_GAMES
            if old > 0:
                gone = db.execute("SELECT id, link FROM events WHERE game <= ? ORDER BY id DESC LIMIT 1",
                                  (old,)).fetchone()
                if gone is not None:  # the oldest row kept chains to the last row deleted
                    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('base', ?)", (gone[1] or 0,))
                    self._pending_count -= int(db.execute("SELECT COUNT(*) FROM events WHERE game <= ?",
                                                          (old,)).fetchone()[0])
                db.execute("DELETE FROM events WHERE game <= ?", (old,))
                db.execute("DELETE FROM games WHERE id <= ?", (old,))
            self._seal_later(rows=1)
        return game

    def _insert(self, db: sqlite3.Connection, game: int, line: str, seq: int | None, done: int) -> int:
        rowid = self._tail[0] + 1
        link = row_link(rowid, game, seq, line, self._tail[1])
        db.execute("INSERT INTO events (id, game, t, line, done, seq, crc, link, m) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (rowid, game, self.clock(), line, done, seq, state_crc(done, link), link, time.monotonic()))
        self._pending_tail = (rowid, link)
        self._pending_count += 1
        return rowid

    def append(self, game: int, line: str, *, seq: int | None = None, fed: bool = False) -> int:
        """Write one transcript line, durably, before it is acted on; its id.

        :param seq: the ``seq`` its first table event will have.
        :param fed: an input line (``--events``): counted in :meth:`fed_lines`.
        :raises JournalWriteError: when it cannot be written (nothing was).
        """
        with self._transaction() as db:
            rowid = self._insert(db, game, line, seq, PENDING)
            if fed:
                db.execute("UPDATE meta SET value = value + 1 WHERE key = 'lines'")
            self._seal_later(rows=1, lines=int(fed))
        return rowid

    def count_line(self) -> None:
        """An input line that holds no event (blank, a comment, a line that cannot be read): counted
        in :meth:`fed_lines` all the same, so that feeding resumes after it.

        :raises JournalWriteError: when it cannot be written.
        """
        with self._transaction() as db:
            db.execute("UPDATE meta SET value = value + 1 WHERE key = 'lines'")
            self._seal_later(lines=1)

    def mark_done(self, event_id: int, status: int = DONE) -> None:
        """The event was acted on and its table events were put out (or, ``REJECTED``, refused).

        Written without waiting for the disk (``synchronous=NORMAL``): in WAL mode a
        process killed at any moment keeps it; only a power cut right after it can
        lose it, and then the event's table events are put out once more on resume
        (with the same ``seq``). The event itself (:meth:`append`) always waits for the disk.

        :raises JournalWriteError: when it cannot be written.
        """
        db = self.db
        if event_id == self._tail[0]:
            link: Any = self._tail[1]
        else:
            row = self._read("SELECT link FROM events WHERE id = ?", (event_id,))
            link = row[0][0] if row else None
        if not isinstance(link, int):
            raise JournalDamaged(self.path, [f"row {event_id}: its checksum is missing"])
        full = synchronous()
        db.execute(f"PRAGMA synchronous={'NORMAL' if full == 'FULL' else full}")
        try:
            with self._transaction() as tx:
                tx.execute("UPDATE events SET done = ?, crc = ? WHERE id = ?",
                           (status, state_crc(status, link), event_id))
        finally:
            db.execute(f"PRAGMA synchronous={full}")

    # -- reading -------------------------------------------------------------------------------

    def fed_lines(self) -> int:
        """How many input lines (``--events``) the journal has taken, in all games: feeding
        again from that line loses nothing and doubles nothing."""
        row = self._read("SELECT value FROM meta WHERE key = 'lines'")
        return int(row[0][0]) if row and isinstance(row[0][0], int) else 0

    def listing(self) -> list[GameEntry]:
        """Every game's number, start time and line count, oldest first (nothing read of its lines)."""
        rows = self._read(
            "SELECT g.id, g.started, COUNT(e.id) FROM games g LEFT JOIN events e ON e.game = g.id "
            "GROUP BY g.id ORDER BY g.id"
        )
        return [GameEntry(int(g), float(t) if isinstance(t, int | float) else 0.0, int(n))
                for g, t, n in rows if isinstance(g, int)]

    def games(self) -> list[tuple[int, int]]:
        """``(game number, number of lines)`` for every game, oldest first (:meth:`listing`)."""
        return [(entry.game, entry.lines) for entry in self.listing()]

    def last_row(self) -> int:
        """The id of the last row written (0 for an empty journal)."""
        rows = self._read("SELECT COALESCE(MAX(id), 0) FROM events")
        return int(rows[0][0])

    def _chained(self) -> bool:
        row = self._read("SELECT value FROM meta WHERE key = 'chain'")
        return bool(row) and row[0][0] == CHAINED

    def _base(self) -> int:
        row = self._read("SELECT value FROM meta WHERE key = 'base'")
        return int(row[0][0]) if row and isinstance(row[0][0], int) else 0

    def game(self, game: int) -> GameRecord:
        """Every line of ``game``.

        :raises KeyError: when the journal has no such game.
        :raises JournalDamaged: when a row is not what was written (its link, its checksum).
        """
        chained = self._chained()
        m = "m" if self._has_m() else "NULL"
        rows = self._read(f"SELECT id, game, line, done, seq, crc, {'link' if chained else 'NULL'}, t, {m} "
                          "FROM events WHERE game = ? ORDER BY id", (game,))
        if not rows:
            raise KeyError(f"no game {game} in the journal {self.path}")
        if chained:
            before = self._read("SELECT link FROM events WHERE id < ? ORDER BY id DESC LIMIT 1", (rows[0][0],))
            previous = before[0][0] if before else self._base()
            for number, row in enumerate(rows, start=1):
                problem = row_problem(row[:7], previous if isinstance(previous, int) else 0)
                if problem is not None:
                    raise JournalDamaged(self.path, [f"game {game}, line {number}: {problem}"])
                previous = row[6]
        else:
            for number, (_, _, line, _, _, crc, _, _, _) in enumerate(rows, start=1):
                if legacy_problem(game, line, crc) is not None:
                    raise JournalDamaged(self.path, [f"game {game}, line {number}: not the line that was written"])
        started = self._read("SELECT started FROM games WHERE id = ?", (game,))
        return GameRecord(
            game, tuple(r[2] for r in rows), tuple(int(r[0]) for r in rows), tuple(int(r[3]) for r in rows),
            tuple(None if r[4] is None else int(r[4]) for r in rows), tuple(float(r[7]) for r in rows),
            float(started[0][0]) if started else 0.0, tuple(self._written(int(r[0]), r[8]) for r in rows),
        )

    def _has_m(self) -> bool:
        return bool(self._read("SELECT 1 FROM pragma_table_info('events') WHERE name = 'm'"))

    def _written(self, rowid: int, m: Any) -> float | None:
        """A row's monotonic time if it was written in the boot under way (``meta.boot``, ``boot_row``)."""
        if self._boot is None:
            meta = dict(self._read("SELECT key, value FROM meta WHERE key IN ('boot', 'boot_row')"))
            self._boot = int(meta.get("boot_row", 0)) if meta.get("boot") == boot_id() else -1
        if self._boot < 0 or rowid < self._boot or not isinstance(m, int | float):
            return None
        return float(m)

    def current_game(self) -> GameRecord | None:
        """The last game, or None for an empty journal."""
        row = self._read("SELECT MAX(id) FROM games")
        if not row or row[0][0] is None:
            return None
        return self.game(int(row[0][0]))

    def verify(self, *, quick: bool = False, opening: bool = False) -> None:
        """Check the whole journal: SQLite's own check, every row's link and checksum in order,
        every line read back (not ``quick``), the seal.

        :raises JournalDamaged: naming every problem found.
        """
        problems: list[str] = []
        try:
            pragma = "quick_check" if quick else "integrity_check"
            result = [str(r[0]) for r in self.db.execute(f"PRAGMA {pragma}").fetchall()]
            if result != ["ok"]:
                problems.append("SQLite: " + "; ".join(result[:3]))
            problems += self._row_problems(lines=not quick)
            problems += self._seal_problems()
        except sqlite3.DatabaseError as exc:
            problems.append(f"SQLite: {exc}")
        if problems:
            raise JournalDamaged(self.path, problems, opening=opening)

    def _row_problems(self, *, lines: bool) -> list[str]:
        """Each damaged row, by game and line number, the first five of each game."""
        from firmware_host.referee import TranscriptError, parse_line

        chained = self._chained()
        previous: Any = self._base()
        numbers: dict[Any, int] = {}
        bad: dict[Any, list[str]] = {}
        link = "link" if chained else "NULL"  # a journal before links may have no such column
        for row in self.db.execute(f"SELECT id, game, line, done, seq, crc, {link} FROM events ORDER BY id"):
            game, line = row[1], row[2]
            number = numbers[game] = numbers.get(game, 0) + 1
            if chained:
                problem = row_problem(row, previous if isinstance(previous, int) else 0)
                previous = row[6]
            else:
                problem = legacy_problem(game, line, row[5])
            if problem is None and lines:
                try:
                    parse_line(line, source="", line_no=number)
                except TranscriptError as exc:
                    problem = f"cannot be read back ({exc.problem})"
            if problem is not None:
                bad.setdefault(game, []).append(f"line {number}: {problem}")
        out = []
        for game, found in bad.items():
            more = f"; and {len(found) - 5} more" if len(found) > 5 else ""
            out.append(f"game {game}: " + "; ".join(found[:5]) + more)
        return out

    def _seal_problems(self) -> list[str]:
        """What the seal says that the journal does not hold."""
        try:
            raw = lock_path(self.path).read_bytes()
        except OSError:
            return []
        seal = read_seal(self.path)
        if seal is None:
            return [] if not raw.strip(b"\0 \n") or raw.strip() == b"null" else [
                f"the seal {lock_path(self.path)} cannot be read (the lock file was overwritten)"]
        problems = []
        last = self.last_row()
        if seal.rows > last:
            problems.append(
                f"rows {last + 1} to {seal.rows} are missing (the journal ends before what was written: "
                "a -wal file removed after a stop?)"
            )
        elif seal.link is not None and seal.rows:
            row = self.db.execute("SELECT link FROM events WHERE id = ?", (seal.rows,)).fetchone()
            if row is None or row[0] != seal.link:
                problems.append(f"row {seal.rows} is not the last row the seal recorded")
            elif seal.count is not None and seal.rows == last:
                count = int(self.db.execute("SELECT COUNT(*) FROM events").fetchone()[0])
                if count != seal.count:
                    problems.append(f"{count} rows where the seal recorded {seal.count} (rows deleted or added)")
        if self.fed_lines() < seal.lines:
            problems.append(f"{self.fed_lines()} input lines where the seal recorded {seal.lines}")
        return problems

    def _read(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return list(self.db.execute(sql, args).fetchall())
        except sqlite3.DatabaseError as exc:
            raise JournalDamaged(self.path, [f"SQLite: {exc}"]) from exc

    # -- the lock and the seal -----------------------------------------------------------------

    def _write_seal(self) -> None:
        if self._lock_fd is None:
            return
        write_seal(self._lock_fd, Seal(self._tail[0], self._lines, os.getpid(), self._since, self._count,
                                       self._tail[1]))

    def _seal_later(self, *, rows: int = 0, lines: int = 0) -> None:
        """What the transaction under way adds: taken (and sealed) once it commits."""
        self._pending = (rows, lines)

    def _committed(self) -> None:
        rows, lines = self._pending
        self._pending = (0, 0)
        if rows:
            self._tail = self._pending_tail
            self._count += self._pending_count
        self._pending_count = 0
        self._lines += lines
        if self._lock_fd is None or not (rows or lines):
            return
        self._write_seal()

    def _rolled_back(self) -> None:
        self._pending = (0, 0)
        self._pending_count = 0

    def _transaction(self) -> Transaction:
        if self.readonly:
            raise JournalError(f"the journal {self.path} is open read-only")
        return Transaction(self)

    def close(self) -> None:
        """Close the file and let go of the lock (safe to call twice)."""
        try:
            if self._db is not None:
                try:
                    self._db.close()
                finally:
                    self._db = None
        finally:
            for fd in (self._lock_fd, self._file_fd):
                if fd is not None:
                    os.close(fd)  # also releases the flock
            self._lock_fd = self._file_fd = None


