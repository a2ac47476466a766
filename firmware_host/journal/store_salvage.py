"""``ecarte-table journal salvage``: every game of a damaged journal that can still be read,
copied into a new journal; the damaged file moved aside (``journal.sqlite.damaged-20250101T120000``).

It reads the file row by row (a damaged page loses its rows, not the rest) and, where SQLite cannot
reach a row, the file's pages directly; a game is kept when every row of it reads and chains.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from catalogue.phrase import Count, Phrase, log_said
from firmware_host.journal.store import Journal
from firmware_host.journal.store_chain import legacy_problem, row_link, row_problem, state_crc
from firmware_host.journal.store_lock import Seal, hold, lock_path, read_seal, write_seal
from firmware_host.journal.store_schema import CHAINED, schema_problems

logger = logging.getLogger(__name__)


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


def salvage(path: str) -> SalvageReport:
    """Copy every game of the journal at ``path`` that reads whole (rows, CRCs) into a new journal
    at ``path``, the damaged file (and its ``-wal``, ``-shm``) moved aside.

    :raises JournalBusy: while a service holds the journal.
    """
    held, fd = hold(path, file=os.path.exists(path))  # the file itself, whatever path names it
    try:
        problems: list[str] = []
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
            tail, count = journal._tail, journal._count
        write_seal(fd, Seal(tail[0], lines, os.getpid(), round(time.time(), 3), count, tail[1]))
        log_said(logger, logging.WARNING, Phrase.of("log.salvaged", path=path, kept=Count(len(games)),
                                                    lost=Count(len(lost)), moved=moved_to))
        return SalvageReport(tuple(games), tuple(lost), moved_to, lines, tuple(problems))
    finally:
        os.close(fd)
        if held is not None:
            os.close(held)


_Row = tuple[int, int, float, str, int, Any, Any, Any]
"""A row as salvage reads it: id, game, t, line, done, seq, crc, link."""
_PROBE = 1000  # rows tried past the last one read when the journal cannot say how many it has


def _read_games(path: str, problems: list[str]) -> tuple[dict[int, list[_Row]], list[str], int]:
    """Every game that reads whole, what was lost, and the input line count.

    Reads row by row (a damaged page loses its rows, not the rest): a game is kept when
    every row from its first to the next game's first reads, chains to the row before it
    and matches its checksum. A line with its checksums right that cannot be read back as a
    transcript line is dropped (its game is kept without it; a game whose setup line it is,
    is lost).
    """
    uri = f"file:{quote(os.path.abspath(path))}?mode=ro"
    db = sqlite3.connect(uri, uri=True)
    seal = read_seal(path)
    rows: dict[int, _Row] = {}
    broken: list[int] = []
    try:
        foreign = schema_problems(db)
    except sqlite3.DatabaseError:
        foreign = []
    if foreign:  # a view or a trigger the journal never made: nothing read through SQL, the pages only
        db.close()
        problems += foreign
        db = sqlite3.connect(":memory:")
    try:
        lines = _count(db, "SELECT value FROM meta WHERE key = 'lines'")
        if lines is None:
            lines = seal.lines if seal is not None else 0
            problems.append(f"the input line count cannot be read: {lines} taken from the seal")
        chained = _count(db, "SELECT value FROM meta WHERE key = 'chain'") == CHAINED
        base = _count(db, "SELECT value FROM meta WHERE key = 'base'") or 0
        has_link = chained or _count(db, "SELECT COUNT(*) FROM pragma_table_info('events') WHERE name = 'link'")
        last = max(_count(db, "SELECT MAX(id) FROM events") or 0, seal.rows if seal is not None else 0)
        select = ("SELECT id, game, t, line, done, seq, crc, link FROM events WHERE id = ?" if has_link else
                  "SELECT id, game, t, line, done, seq, crc, NULL FROM events WHERE id = ?")
        rowid, misses = 0, 0
        while rowid < last or misses < _PROBE:
            rowid += 1
            try:
                row = db.execute(select, (rowid,)).fetchone()
            except sqlite3.DatabaseError:
                broken.append(rowid)
                misses = 0 if rowid <= last else misses + 1
                continue
            if row is None:
                misses += 1
                continue
            misses = 0
            rows[rowid] = row
    finally:
        db.close()
    read = set(rows)  # what SQLite read is what the file holds there: no page scan replaces it
    if broken or not rows:
        scanned, scanned_lines = _scan_pages(path)
        recovered = [rowid for rowid in scanned if rowid not in read]
        for rowid in recovered:
            rows[rowid] = scanned[rowid]
        if recovered:
            problems.append(f"{len(recovered)} row(s) recovered from the file's pages (SQLite could not read them)")
        if scanned_lines is not None and lines == (seal.lines if seal is not None else 0):
            lines = scanned_lines
    # rows past the last one known were only probed for: not finding them loses nothing
    broken = sorted({b for b in broken if b not in rows and (not last or b <= last)})
    if not chained and any(isinstance(row[7], int) for row in rows.values()):
        chained = True  # its meta cannot be read, but its rows carry links
    bad = _unchained(rows, broken, base) if chained else _legacy_bad(rows)
    for rowid in bad:
        del rows[rowid]
    broken += bad
    dropped = _unreadable(rows)
    for rowid, (_, number, _) in dropped:
        if number == 1:
            broken.append(rowid)  # a setup line that cannot be read: its game is lost
        else:
            del rows[rowid]
    lost = [f"game {game}, line {number} dropped ({problem})" for _, (game, number, problem) in dropped
            if number != 1]
    return _whole_games(rows, broken), _lost(rows, broken) + lost, lines


def _unchained(rows: dict[int, _Row], broken: list[int], base: int) -> list[int]:
    """The rows that do not chain to the row before them or fail their checksum. A row after
    one that cannot be read is only checked against its own checksum (what it chains to is lost)."""
    bad = []
    previous: Any = base
    last = 0
    gaps = sorted(broken)
    for rowid in sorted(rows):
        row = rows[rowid]
        after_gap = any(last < b < rowid for b in gaps)
        known = None if after_gap else previous if isinstance(previous, int) else 0
        if row_problem((row[0], row[1], row[3], row[4], row[5], row[6], row[7]), known) is not None:
            bad.append(rowid)
        previous = row[7]
        last = rowid
    return bad


def _legacy_bad(rows: dict[int, _Row]) -> list[int]:
    """The rows of a journal before links whose line does not match its CRC."""
    return [rowid for rowid, row in rows.items() if legacy_problem(row[1], row[3], row[6]) is not None]


def _unreadable(rows: dict[int, _Row]) -> list[tuple[int, tuple[int, int, str]]]:
    """The rows whose line cannot be read back: ``(id, (game, line number, problem))``."""
    from firmware_host.referee import TranscriptError, parse_line

    out = []
    numbers: dict[int, int] = {}
    for rowid, row in sorted(rows.items()):
        number = numbers[row[1]] = numbers.get(row[1], 0) + 1
        try:
            parse_line(row[3], line_no=number)
        except TranscriptError as exc:
            out.append((rowid, (int(row[1]), number, exc.problem)))
    return out


def _scan_pages(path: str) -> tuple[dict[int, _Row], int | None]:
    """The journal's event rows found by reading its pages directly (what SQLite cannot reach
    through a damaged page or a truncated file), each checked by its checksum; and the input
    line count, if found. Rows that overflow a page are not found."""
    data = Path(path).read_bytes()
    if len(data) < 100:
        return {}, None
    size = int.from_bytes(data[16:18], "big")
    size = 65536 if size == 1 else size
    if size < 512 or size & (size - 1):
        size = 4096
    found: dict[int, _Row] = {}
    lines: int | None = None
    for start in range(0, len(data), size):
        page = data[start:start + size]
        head = 100 if start == 0 else 0
        if len(page) < head + 8 or page[head] != 0x0D:
            continue
        for index in range(int.from_bytes(page[head + 3:head + 5], "big")):
            pointer = head + 8 + 2 * index
            with contextlib.suppress(IndexError, ValueError, struct.error):
                cell = int.from_bytes(page[pointer:pointer + 2], "big")
                length, at = _varint(page, cell)
                rowid, at = _varint(page, at)
                if length > size - 35:
                    continue  # spills onto overflow pages
                values = _record(page[at:at + length])
                if len(values) == 2 and values[0] == "lines" and isinstance(values[1], int):
                    lines = values[1]
                if len(values) == 7:
                    values.append(None)
                if len(values) == 9:  # a row with its monotonic time (m): salvage keeps the rest
                    values.pop()
                if len(values) != 8:
                    continue
                _, game, t, line, done, seq, crc, link = values
                if not (isinstance(game, int) and isinstance(line, str) and isinstance(crc, int)
                        and isinstance(done, int)):
                    continue
                if (crc == state_crc(done, link) if isinstance(link, int) else legacy_problem(game, line, crc) is None):
                    row = (rowid, game, float(t) if isinstance(t, int | float) else 0.0, line, done, seq, crc, link)
                    if rowid not in found or done > found[rowid][4]:
                        found[rowid] = row
    return found, lines


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = 0
    for i in range(9):
        byte = data[at + i]
        if i == 8:
            return (value << 8) | byte, at + 9
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    raise ValueError("varint")


def _record(payload: bytes) -> list[Any]:
    header, at = _varint(payload, 0)
    types = []
    while at < header:
        kind, at = _varint(payload, at)
        types.append(kind)
    values: list[Any] = []
    at = header
    for kind in types:
        if kind == 0:
            values.append(None)
        elif kind in (8, 9):
            values.append(kind - 8)
        elif 1 <= kind <= 6:
            width = (1, 2, 3, 4, 6, 8)[kind - 1]
            values.append(int.from_bytes(payload[at:at + width], "big", signed=True))
            at += width
        elif kind == 7:
            values.append(struct.unpack(">d", payload[at:at + 8])[0])
            at += 8
        elif kind >= 12:
            width = (kind - 12) // 2
            chunk = payload[at:at + width]
            if len(chunk) != width:
                raise ValueError("short record")
            values.append(chunk.decode("utf-8") if kind % 2 else chunk)
            at += width
        else:
            raise ValueError("serial type")
    return values


def _firsts(rows: dict[int, _Row]) -> dict[int, int]:
    first_of: dict[int, int] = {}
    for rowid, row in sorted(rows.items()):
        first_of.setdefault(int(row[1]), rowid)
    return first_of


def _damaged(rows: dict[int, _Row], broken: list[int]) -> dict[int, list[int]]:
    """The unreadable rows of each game (a row belongs to the game begun last before it)."""
    first_of = _firsts(rows)
    starts = sorted((first, game) for game, first in first_of.items())
    damaged: dict[int, list[int]] = {}
    for rowid in broken:
        owner = [game for first, game in starts if first <= rowid]
        damaged.setdefault(owner[-1] if owner else 0, []).append(rowid)
    return damaged


def _whole_games(rows: dict[int, _Row], broken: list[int]) -> dict[int, list[_Row]]:
    """The games with every row read, their setup line first."""
    damaged = _damaged(rows, broken)
    games: dict[int, list[_Row]] = {}
    for _, row in sorted(rows.items()):
        games.setdefault(int(row[1]), []).append(row)
    return {game: kept for game, kept in games.items() if game not in damaged and _is_setup(kept[0][3])}


def _is_setup(line: str) -> bool:
    return line.lstrip().startswith('{"setup"')


def _lost(rows: dict[int, _Row], broken: list[int]) -> list[str]:
    lost = []
    damaged = _damaged(rows, broken)
    whole = _whole_games(rows, broken)
    for game in sorted(set(damaged) | {int(r[1]) for r in rows.values()}):
        kept = sum(1 for row in rows.values() if row[1] == game)
        bad = len(damaged.get(game, []))
        if game == 0:
            lost.append(f"{bad} line(s) before the first game that can be read")
        elif game not in whole:
            why = f"{bad} unreadable" if bad else "its first lines unreadable"
            lost.append(f"game {game} ({kept + bad} lines, {why})")
    return lost


def _count(db: sqlite3.Connection, sql: str) -> int | None:
    try:
        row = db.execute(sql).fetchone()
    except sqlite3.DatabaseError:
        return None
    return None if row is None or row[0] is None else int(row[0])


def _write_games(path: str, games: dict[int, list[_Row]], lines: int) -> None:
    with Journal(path) as journal:
        db = journal.db
        db.execute("BEGIN IMMEDIATE")
        previous = 0
        for game, rows in sorted(games.items()):
            db.execute("INSERT INTO games (id, started) VALUES (?, ?)", (game, rows[0][2]))
            for r in rows:  # chained afresh: the rows kept, in order
                previous = row_link(r[0], game, r[5], r[3], previous)
                db.execute("INSERT INTO events (id, game, t, line, done, seq, crc, link) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           (r[0], game, r[2], r[3], r[4], r[5], state_crc(r[4], previous), previous))
        db.execute("UPDATE meta SET value = 0 WHERE key = 'base'")
        db.execute("UPDATE meta SET value = ? WHERE key = 'lines'", (lines,))
        db.execute("COMMIT")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(path + suffix)
    with contextlib.suppress(FileNotFoundError):
        os.remove(str(lock_path(path)))
