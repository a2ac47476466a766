"""The journal's checksum chain: what makes a row changed, moved or lost behind its back visible.

Every row carries a *link*: the CRC-32 of its id, game, ``seq`` and line, chained to the link of
the row before it (:func:`row_link`), and a *checksum* of its state (taken, refused) over that link
(:func:`state_crc`). Rows of a journal before links kept a CRC of their game and line only
(:func:`line_crc`). Pure functions: no SQL, no file.
"""

from __future__ import annotations

import zlib
from typing import Any


def line_crc(game: int, line: str) -> int:
    """The CRC-32 a row of a journal before links kept of its game and line."""
    return zlib.crc32(f"{game}\n{line}".encode("utf-8", "surrogatepass"))


def legacy_problem(game: Any, line: Any, crc: Any) -> str | None:
    """Why a row of a journal before links is not what was written (the CRC of its game and line,
    :func:`line_crc`; a row without one is taken as it is), or None."""
    if not isinstance(game, int) or not isinstance(line, str):
        return "unreadable"
    if crc is not None and crc != line_crc(game, line):
        return "not what was written"
    return None


def row_link(rowid: int, game: int, seq: int | None, line: str, previous: int) -> int:
    """A row's link: the CRC-32 of its id, game, ``seq`` and line, chained to ``previous`` (the
    link of the row before it, or the journal's base for its first row)."""
    head = f"{rowid}\x1f{game}\x1f{'' if seq is None else seq}\x1f"
    return zlib.crc32((head + line).encode("utf-8", "surrogatepass"), previous)


def state_crc(done: int, link: int) -> int:
    """A row's checksum: its state (pending, taken, refused) over its link."""
    return zlib.crc32(b"%d" % done, link)


def row_problem(row: tuple[Any, ...], previous: int | None) -> str | None:
    """Why the row ``(id, game, line, done, seq, crc, link)`` is not what was written after a row
    whose link is ``previous``, or None. ``previous`` None: the row before it is lost, only the
    row's own checksum can be checked."""
    rowid, game, line, done, seq, crc, link = row
    if not (isinstance(rowid, int) and isinstance(game, int) and isinstance(line, str)
            and isinstance(done, int) and (seq is None or isinstance(seq, int))):
        return "unreadable"
    if crc is None or link is None:
        return "its checksum is missing"
    if not isinstance(crc, int) or not isinstance(link, int):
        return "unreadable"
    if previous is not None and link != row_link(rowid, game, seq, line, previous):
        return "not what was written there (changed, moved, or a row before it missing)"
    if crc != state_crc(done, link):
        return "its state (taken, refused) is not what was written"
    return None
