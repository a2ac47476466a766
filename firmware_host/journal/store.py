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

What makes damage visible (``ecarte-table journal check``):

- every row carries the CRC-32 of its line, checked when a game is read;
- ``PRAGMA quick_check`` when the service opens the journal;
- the *seal*: the lock file beside the journal (``journal.sqlite.lock``), which the
  service holds while it runs, records after every write the journal's last row and
  how many input lines it holds. A journal that has fewer rows than its seal says
  lost some (a ``-wal`` file removed after a kill, a copy of an older file).

Only the newest :data:`KEEP_GAMES` games are kept: starting a game deletes older ones.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import sqlite3
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import quote

from drivers.closing import Closing

logger = logging.getLogger(__name__)

KEEP_GAMES = 200
"""Games kept in the journal (about 14 KB each): starting a new game deletes the older ones."""

PENDING, DONE, REJECTED = 0, 1, 2
"""A row's ``done``: journaled but not yet acted on / acted on and put out / refused by the
referee (skipped on resume)."""

_SEAL_BYTES = 160  # the seal is rewritten in place, padded to this size

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
    done INTEGER NOT NULL DEFAULT 0,
    seq INTEGER,
    crc INTEGER
);
CREATE INDEX IF NOT EXISTS events_game ON events(game, id);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
"""


def default_journal() -> Path:
    """The journal in the service's state directory (systemd's ``StateDirectory=``)."""
    state = os.environ.get("STATE_DIRECTORY")
    if state:
        return Path(state.split(":")[0]) / "journal.sqlite"
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "ecarte-table" / "journal.sqlite"


class JournalError(OSError):
    """The journal cannot be opened or written (the message names the file)."""


class JournalBusy(JournalError):
    """Another service holds the journal (the message says which process)."""


class JournalWriteError(JournalError):
    """A write failed (disk full, I/O error): nothing of it was kept; it may be tried again."""


class JournalDamaged(JournalError):
    """The journal is not what was written: ``problems`` says what is wrong, one line each."""

    def __init__(self, path: str, problems: list[str], *, opening: bool = False) -> None:
        self.problems = problems
        head = f"cannot open the journal {path}: it is damaged" if opening else f"the journal {path} is damaged"
        super().__init__(f"{head}: " + "; ".join(problems))


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game of the journal: its lines in order, with their row ids, state and first ``seq``."""

    game: int
    lines: tuple[str, ...]
    ids: tuple[int, ...]
    status: tuple[int, ...]
    seqs: tuple[int | None, ...] = ()

    @property
    def done(self) -> tuple[bool, ...]:
        """Whether each line was dealt with (acted on, or rejected)."""
        return tuple(s != PENDING for s in self.status)


@dataclass(frozen=True, slots=True)
class Seal:
    """What the lock file says of the journal: its last row, its input lines, who wrote it."""

    rows: int
    lines: int
    pid: int
    since: float


def line_crc(game: int, line: str) -> int:
    """The CRC-32 a row keeps of its game and line."""
    return zlib.crc32(f"{game}\n{line}".encode("utf-8", "surrogatepass"))


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
    """

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False, lock: bool = False) -> None:
        self.path = str(path)
        self.readonly = readonly
        self._lock_fd: int | None = None
        self._db: sqlite3.Connection | None = None
        self._sealed: tuple[int, int] | None = None  # (last row, input lines) as last sealed
        self._pending: tuple[int, int] = (0, 0)
        self._since = round(time.time(), 3)
        memory = self.path == ":memory:"
        if not readonly and not memory:
            try:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise JournalError(
                    f"cannot open the journal {self.path}: cannot create its directory ({exc.strerror or exc})"
                ) from exc
        if lock and not memory:
            self._lock_fd = take_lock(self.path)
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
                    raise JournalError(f"no journal at {self.path}")
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
                return
            # opened by whoever starts the service, then used by the event loop alone
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            self._migrate()
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and "malformed" not in str(exc):
                raise JournalError(f"cannot open the journal {self.path}: {exc}") from exc
            raise JournalDamaged(self.path, [f"SQLite: {exc}"], opening=True) from exc

    def _migrate(self) -> None:
        """Journals of earlier versions: add the columns and the input line count."""
        db = self.db
        columns = {row[1] for row in db.execute("PRAGMA table_info(events)")}
        for column in ("seq", "crc"):
            if column not in columns:
                db.execute(f"ALTER TABLE events ADD COLUMN {column} INTEGER")
        if db.execute("SELECT 1 FROM meta WHERE key = 'lines'").fetchone() is None:
            # before the count was kept, every line but the games' own setup lines was fed
            events = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
            games = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            db.execute("INSERT INTO meta (key, value) VALUES ('lines', ?)", (int(events) - int(games),))

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
            cur = db.execute("INSERT INTO games (started) VALUES (?)", (time.time(),))
            game = int(cur.lastrowid or 0)
            db.execute(
                "INSERT INTO events (game, t, line, done, seq, crc) VALUES (?, ?, ?, 1, ?, ?)",
                (game, time.time(), setup_line, seq, line_crc(game, setup_line)),
            )
            old = game - KEEP_GAMES
            if old > 0:
                db.execute("DELETE FROM events WHERE game <= ?", (old,))
                db.execute("DELETE FROM games WHERE id <= ?", (old,))
            self._seal_later(rows=1)
        return game

    def append(self, game: int, line: str, *, seq: int | None = None, fed: bool = False) -> int:
        """Write one transcript line, durably, before it is acted on; its id.

        :param seq: the ``seq`` its first table event will have.
        :param fed: an input line (``--events``): counted in :meth:`fed_lines`.
        :raises JournalWriteError: when it cannot be written (nothing was).
        """
        with self._transaction() as db:
            cur = db.execute(
                "INSERT INTO events (game, t, line, seq, crc) VALUES (?, ?, ?, ?, ?)",
                (game, time.time(), line, seq, line_crc(game, line)),
            )
            if fed:
                db.execute("UPDATE meta SET value = value + 1 WHERE key = 'lines'")
            self._seal_later(rows=1, lines=int(fed))
        return int(cur.lastrowid or 0)

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
        db.execute("PRAGMA synchronous=NORMAL")
        try:
            with self._transaction() as tx:
                tx.execute("UPDATE events SET done = ? WHERE id = ?", (status, event_id))
        finally:
            db.execute("PRAGMA synchronous=FULL")

    # -- reading -------------------------------------------------------------------------------

    def fed_lines(self) -> int:
        """How many input lines (``--events``) the journal has taken, in all games: feeding
        again from that line loses nothing and doubles nothing."""
        row = self._read("SELECT value FROM meta WHERE key = 'lines'")
        return int(row[0][0]) if row else 0

    def games(self) -> list[tuple[int, int]]:
        """``(game number, number of lines)`` for every game, oldest first."""
        rows = self._read(
            "SELECT g.id, COUNT(e.id) FROM games g LEFT JOIN events e ON e.game = g.id "
            "GROUP BY g.id ORDER BY g.id"
        )
        return [(int(g), int(n)) for g, n in rows]

    def last_row(self) -> int:
        """The id of the last row written (0 for an empty journal)."""
        rows = self._read("SELECT COALESCE(MAX(id), 0) FROM events")
        return int(rows[0][0])

    def game(self, game: int) -> GameRecord:
        """Every line of ``game``.

        :raises KeyError: when the journal has no such game.
        :raises JournalDamaged: when a row is not what was written (its CRC).
        """
        rows = self._read("SELECT id, line, done, seq, crc FROM events WHERE game = ? ORDER BY id", (game,))
        if not rows:
            raise KeyError(f"no game {game} in the journal {self.path}")
        for number, (_, line, _, _, crc) in enumerate(rows, start=1):
            if not isinstance(line, str) or (crc is not None and crc != line_crc(game, line)):
                raise JournalDamaged(self.path, [f"game {game}, line {number}: not the line that was written"])
        return GameRecord(
            game, tuple(r[1] for r in rows), tuple(int(r[0]) for r in rows), tuple(int(r[2]) for r in rows),
            tuple(None if r[3] is None else int(r[3]) for r in rows),
        )

    def current_game(self) -> GameRecord | None:
        """The last game, or None for an empty journal."""
        row = self._read("SELECT MAX(id) FROM games")
        if not row or row[0][0] is None:
            return None
        return self.game(int(row[0][0]))

    def verify(self, *, quick: bool = False, opening: bool = False) -> None:
        """Check the whole journal: SQLite's own check, every row's CRC, the seal.

        :raises JournalDamaged: naming every problem found.
        """
        problems: list[str] = []
        try:
            pragma = "quick_check" if quick else "integrity_check"
            result = [str(r[0]) for r in self.db.execute(f"PRAGMA {pragma}").fetchall()]
            if result != ["ok"]:
                problems.append("SQLite: " + "; ".join(result[:3]))
            bad: dict[int, list[int]] = {}
            for game, rows in self._rows_by_game():
                for number, (line, crc) in enumerate(rows, start=1):
                    if not isinstance(line, str) or (crc is not None and crc != line_crc(game, line)):
                        bad.setdefault(game, []).append(number)
            for game, numbers in bad.items():
                shown = ", ".join(str(n) for n in numbers[:5]) + (" ..." if len(numbers) > 5 else "")
                problems.append(f"game {game}: line(s) {shown} not what was written")
            seal = read_seal(self.path)
            last = self.last_row()
            if seal is not None and seal.rows > last:
                problems.append(
                    f"rows {last + 1} to {seal.rows} are missing (the journal ends before what was written: "
                    "a -wal file removed after a stop?)"
                )
        except sqlite3.DatabaseError as exc:
            problems.append(f"SQLite: {exc}")
        if problems:
            raise JournalDamaged(self.path, problems, opening=opening)

    def _rows_by_game(self) -> list[tuple[int, list[tuple[object, int | None]]]]:
        by_game: dict[int, list[tuple[object, int | None]]] = {}
        for game, line, crc in self.db.execute("SELECT game, line, crc FROM events ORDER BY id"):
            by_game.setdefault(int(game), []).append((line, crc))
        return sorted(by_game.items())

    def _read(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return list(self.db.execute(sql, args).fetchall())
        except sqlite3.DatabaseError as exc:
            raise JournalDamaged(self.path, [f"SQLite: {exc}"]) from exc

    # -- the lock and the seal -----------------------------------------------------------------

    def _write_seal(self) -> None:
        if self._lock_fd is None:
            return
        if self._sealed is None:
            self._sealed = (self.last_row(), self.fed_lines())
        rows, lines = self._sealed
        seal = {"pid": os.getpid(), "since": self._since, "rows": rows, "lines": lines}
        data = json.dumps(seal).encode().ljust(_SEAL_BYTES - 1) + b"\n"
        with contextlib.suppress(OSError):  # the seal helps find damage; the journal is what counts
            os.pwrite(self._lock_fd, data, 0)

    def _seal_later(self, *, rows: int = 0, lines: int = 0) -> None:
        """What the transaction under way adds: sealed once it commits."""
        self._pending = (rows, lines)

    def _committed(self) -> None:
        rows, lines = self._pending
        self._pending = (0, 0)
        if self._lock_fd is None or not (rows or lines):
            return
        if self._sealed is None:
            self._sealed = (self.last_row(), self.fed_lines())
        else:
            self._sealed = (self.last_row() if rows else self._sealed[0], self._sealed[1] + lines)
        self._write_seal()

    def _transaction(self) -> _Transaction:
        if self.readonly:
            raise JournalError(f"the journal {self.path} is open read-only")
        return _Transaction(self)

    def close(self) -> None:
        """Close the file and let go of the lock (safe to call twice)."""
        try:
            if self._db is not None:
                try:
                    self._db.close()
                finally:
                    self._db = None
        finally:
            if self._lock_fd is not None:
                os.close(self._lock_fd)  # also releases the flock
                self._lock_fd = None


def lock_path(path: str) -> Path:
    """The lock file (and seal) of the journal at ``path``."""
    return Path(path + ".lock")


def read_seal(path: str) -> Seal | None:
    """The seal beside the journal at ``path``, or None (none yet, or unreadable)."""
    try:
        data = json.loads(lock_path(path).read_bytes().decode() or "null")
        return Seal(int(data["rows"]), int(data["lines"]), int(data["pid"]), float(data["since"]))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def take_lock(path: str) -> int:
    """Hold the journal at ``path`` for this process (``flock`` on its lock file); the file's fd.

    :raises JournalBusy: naming the process that holds it.
    """
    lock = lock_path(path)
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o640)
    except OSError as exc:
        raise JournalError(f"cannot open the journal's lock {lock}: {exc.strerror or exc}") from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        seal = read_seal(path)
        who = f"process {seal.pid}, running since {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(seal.since))}" \
            if seal is not None else "another process"
        raise JournalBusy(f"the journal {path} is in use by {who} (one service per journal)") from None
    except OSError as exc:
        os.close(fd)
        raise JournalError(f"cannot lock the journal {path}: {exc.strerror or exc}") from exc
    return fd


class _Transaction:
    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.db = journal.db

    def __enter__(self) -> sqlite3.Connection:
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise JournalWriteError(f"cannot write the journal {self.journal.path}: {error}") from error
        return self.db

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            try:
                self.db.execute("COMMIT")
            except sqlite3.Error as error:
                self.journal._pending = (0, 0)
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
                raise JournalWriteError(f"cannot write the journal {self.journal.path}: {error}") from error
            self.journal._committed()
            return
        self.journal._pending = (0, 0)
        with contextlib.suppress(sqlite3.Error):
            self.db.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise JournalWriteError(f"cannot write the journal {self.journal.path}: {exc}") from exc
