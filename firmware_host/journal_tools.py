"""``ecarte-table journal status|check|salvage``: what a journal holds, whether it is whole,
and how to get back every game that can still be read.

- ``status``: the input lines taken (``lines``: feed the service again from there), games, rows.
- ``check``: SQLite's integrity check, every row's CRC, the seal (rows that should be there);
  exit status 1 when the journal is damaged.
- ``salvage``: copies every game that reads whole into a new journal, moves the damaged
  file aside (``journal.sqlite.damaged-20250101T120000``) and says what was lost.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from firmware_host.errors import BadInput
from firmware_host.journal import (
    KEEP_GAMES,
    Journal,
    JournalBusy,
    JournalDamaged,
    JournalError,
    line_crc,
    lock_path,
    read_seal,
    take_lock,
)

logger = logging.getLogger(__name__)

EXIT_DAMAGED = 1


@dataclass(frozen=True, slots=True)
class SalvageReport:
    """What :func:`salvage` kept and lost."""

    kept: tuple[int, ...]
    lost: tuple[str, ...]
    moved_to: str
    lines: int
    problems: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {"kept_games": list(self.kept), "lost": list(self.lost), "moved_to": self.moved_to,
                "lines": self.lines, "problems": list(self.problems)}


def add_parser(sub: Any) -> None:
    """Register ``journal`` on the command line's subparsers."""
    from firmware_host.app import default_journal

    parser = sub.add_parser("journal", help="what the journal holds; check it; salvage a damaged one",
                            description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, text in (("status", "the input lines taken, games and rows"),
                       ("check", "check the whole journal (exit 1 when damaged)"),
                       ("salvage", "keep every readable game, move the damaged file aside")):
        action = actions.add_parser(name, help=text)
        action.add_argument("--journal", type=Path, help=f"the journal (default: {default_journal()})")
        action.add_argument("--json", action="store_true", help="print one JSON object")
        action.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                            help="more logging (-vv: debug)")


def run_journal(args: argparse.Namespace) -> int:
    """``ecarte-table journal ACTION``: returns the exit status."""
    from firmware_host.app import default_journal

    path = str(args.journal or default_journal())
    if not Path(path).is_file():
        raise BadInput(f"no journal at {path}")
    if args.action == "status":
        return _status(path, as_json=args.json)
    if args.action == "check":
        return _check(path, as_json=args.json)
    try:
        report = salvage(path)
    except JournalBusy as exc:
        raise BadInput(str(exc)) from None
    except (JournalError, OSError) as exc:
        raise BadInput(f"cannot salvage {path}: {exc}") from None
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False))
    else:
        print(f"kept {len(report.kept)} game(s) in {path} ({report.lines} input lines); "
              f"the damaged file is now {report.moved_to}")
        for lost in report.lost:
            print(f"lost: {lost}")
    return 0


def _status(path: str, *, as_json: bool) -> int:
    try:
        with Journal(path, readonly=True) as journal:
            games = journal.games()
            status = {
                "lines": journal.fed_lines(), "games": len(games), "rows": sum(n for _, n in games),
                "last_game": games[-1][0] if games else None, "keep_games": KEEP_GAMES, "journal": path,
            }
    except JournalError as exc:
        raise BadInput(f"{exc} (try `ecarte-table journal check`)") from None
    seal = read_seal(path)
    if seal is not None:
        status["sealed_rows"] = seal.rows
    if as_json:
        print(json.dumps(status, ensure_ascii=False))
    else:
        print(f"{path}: {status['lines']} input lines, {status['games']} game(s), {status['rows']} rows")
    return 0


def _check(path: str, *, as_json: bool) -> int:
    problems: list[str] = []
    try:
        with Journal(path, readonly=True) as journal:
            journal.verify()
            games = len(journal.games())
    except JournalDamaged as exc:
        problems = exc.problems
        games = 0
    except JournalError as exc:
        problems = [str(exc)]
        games = 0
    if as_json:
        print(json.dumps({"ok": not problems, "problems": problems, "games": games, "journal": path}))
    elif problems:
        print(f"{path} is damaged:")
        for problem in problems:
            print(f"  {problem}")
        print(f"`ecarte-table journal salvage --journal {path}` keeps every readable game")
    else:
        print(f"{path}: ok ({games} game(s))")
    return EXIT_DAMAGED if problems else 0


def salvage(path: str) -> SalvageReport:
    """Copy every game of the journal at ``path`` that reads whole (rows, CRCs) into a new journal
    at ``path``, the damaged file (and its ``-wal``, ``-shm``) moved aside.

    :raises JournalBusy: while a service holds the journal.
    """
    fd = take_lock(path)
    try:
        problems: list[str] = []
        with contextlib.suppress(JournalDamaged, JournalError), Journal(path, readonly=True) as journal:
            journal.verify()
        games, lost, lines = _read_games(path, problems)
        stamp = time.strftime("%Y%m%dT%H%M%S")
        moved_to = f"{path}.damaged-{stamp}"
        fresh = f"{path}.salvage-{stamp}"
        _write_games(fresh, games, lines)
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.replace(path + suffix, moved_to + suffix)
        os.replace(fresh, path)
        with Journal(path) as journal:
            last = journal.last_row()
        seal = {"pid": os.getpid(), "since": round(time.time(), 3), "rows": last, "lines": lines}
        os.pwrite(fd, json.dumps(seal).encode().ljust(159) + b"\n", 0)
        logger.warning("journal %s salvaged: %d game(s) kept, %d lost; the damaged file is %s",
                       path, len(games), len(lost), moved_to)
        return SalvageReport(tuple(games), tuple(lost), moved_to, lines, tuple(problems))
    finally:
        os.close(fd)


_Row = tuple[int, int, float, str, int, Any, Any]


def _read_games(path: str, problems: list[str]) -> tuple[dict[int, list[_Row]], list[str], int]:
    """Every game that reads whole, what was lost, and the input line count."""
    uri = f"file:{quote(os.path.abspath(path))}?mode=ro"
    db = sqlite3.connect(uri, uri=True)
    games: dict[int, list[_Row]] = {}
    lost: list[str] = []
    lines = 0
    try:
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'lines'").fetchone()
            lines = int(row[0]) if row else 0
        except sqlite3.DatabaseError as exc:
            problems.append(f"the input line count cannot be read ({exc})")
        numbers = _game_numbers(db, problems)
        for game in numbers:
            try:
                rows = db.execute(
                    "SELECT id, game, t, line, done, seq, crc FROM events WHERE game = ? ORDER BY id", (game,),
                ).fetchall()
            except sqlite3.DatabaseError as exc:
                lost.append(f"game {game} (cannot be read: {exc})")
                continue
            bad = [n for n, r in enumerate(rows, start=1)
                   if not isinstance(r[3], str) or (r[6] is not None and r[6] != line_crc(game, r[3]))]
            if bad:
                lost.append(f"game {game} ({len(rows)} lines; line(s) {', '.join(map(str, bad[:5]))} damaged)")
            elif rows:
                games[game] = rows
    finally:
        db.close()
    return games, lost, lines


def _game_numbers(db: sqlite3.Connection, problems: list[str]) -> list[int]:
    found: set[int] = set()
    for sql in ("SELECT id FROM games", "SELECT DISTINCT game FROM events"):
        try:
            found.update(int(r[0]) for r in db.execute(sql).fetchall())
        except sqlite3.DatabaseError as exc:
            problems.append(f"{sql}: {exc}")
    if not found:
        # the index pages are gone: walk the rows one by one
        try:
            last = db.execute("SELECT MAX(id) FROM events").fetchone()[0] or 0
        except sqlite3.DatabaseError:
            last = 0
        for rowid in range(1, int(last) + 1):
            with contextlib.suppress(sqlite3.DatabaseError):
                row = db.execute("SELECT game FROM events WHERE id = ?", (rowid,)).fetchone()
                if row is not None:
                    found.add(int(row[0]))
    return sorted(found)


def _write_games(path: str, games: dict[int, list[_Row]], lines: int) -> None:
    with Journal(path) as journal:
        db = journal.db
        db.execute("BEGIN IMMEDIATE")
        for game, rows in sorted(games.items()):
            db.execute("INSERT INTO games (id, started) VALUES (?, ?)", (game, rows[0][2]))
            db.executemany("INSERT INTO events (id, game, t, line, done, seq, crc) VALUES (?, ?, ?, ?, ?, ?, ?)",
                           [(r[0], game, r[2], r[3], r[4], r[5], line_crc(game, r[3])) for r in rows])
        db.execute("UPDATE meta SET value = ? WHERE key = 'lines'", (lines,))
        db.execute("COMMIT")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(path + suffix)
    with contextlib.suppress(FileNotFoundError):
        os.remove(str(lock_path(path)))
