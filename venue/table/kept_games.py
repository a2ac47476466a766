"""Each game of the journal as the page serves it, made once and kept beside the journal.

A game's summary, hand record and statistics are made once, when the game is over (or, for a
journal older than this, the first time the history is asked for it), and kept in a file a game:
``<journal>-games/<game>.json``, beside the journal as the coach's reviews are. A file is written
whole or not at all (a ``.part`` file renamed over it), and deleted with its game: when the journal
no longer holds a game (it keeps its newest :data:`~firmware_host.journal.store.KEEP_GAMES`), its
file goes.

Nothing a stranger or a long evening leaves in the folder is believed. A file is read only when

- it is this format, of this game, and its content checksum matches (a file cut short, a bit
  flipped, a field rewritten by hand: each is no longer what was written);
- its ``journal`` digest is the digest of the game's lines as the journal holds them now
  (:func:`journal_digest`, of lines the journal's own checksums have just passed): a file of another
  journal at the same path, of this game before a line was added, or copied from another game, is not;
- every field reads as the type it must be.

Anything else is made again from the journal, and the file written over. What is kept is what the
journal says once replayed: no hidden card is in it that the journal's readers cannot see, and the
page decides what to show of it (:mod:`venue.table.page_history`: the reveal delay).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

from firmware_host.journal.store import REJECTED, GameRecord
from firmware_host.journal.summaries import GamePlayed, GameSummary, SeatRecord

logger = logging.getLogger(__name__)

FORMAT = 1
"""The files' format (a file of another format is made again)."""

MAX_FILE_BYTES = 4 * 1024 * 1024
"""A kept game is read only up to this size (a game of 200 hands is well under 1 MB): a larger file
is no file this page wrote."""


class NotBelieved(ValueError):
    """A kept file that is not what the page wrote for this game of this journal."""


def games_folder(journal: Path) -> Path:
    """Where the games of ``journal`` are kept."""
    return journal.with_name(f"{journal.stem}-games")


def journal_digest(record: GameRecord) -> str:
    """What a kept game was made from: the game's number and start, its lines, their rows and which of
    them the table refused (a replay skips those). Not whether a line was marked done: a line is
    published before it is, and a replay reads it the same."""
    refused = [status == REJECTED for status in record.status]
    text = json.dumps([record.game, record.started, list(record.lines), list(record.ids), refused],
                      ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _checksum(content: Any) -> str:
    return hashlib.sha256(json.dumps(content, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def read_kept(folder: Path, game: int, digest: str) -> dict[str, Any] | None:
    """The content kept for ``game`` if it was made from the lines whose digest is ``digest``; None
    when there is no such file, or it is not believed (said in the log)."""
    path = folder / f"{game}.json"
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    try:
        if len(data) > MAX_FILE_BYTES:
            raise NotBelieved(f"over {MAX_FILE_BYTES:,} bytes")
        try:
            kept = json.loads(data)
        except (ValueError, RecursionError):
            raise NotBelieved("not JSON") from None
        if not isinstance(kept, dict) or kept.get("format") != FORMAT or kept.get("game") != game:
            raise NotBelieved("not a kept game of this format and number")
        if kept.get("journal") != digest:
            raise NotBelieved("not made from the journal's lines of this game")
        content = kept.get("content")
        if not isinstance(content, dict) or kept.get("check") != _checksum(content):
            raise NotBelieved("its content is not what was written")
    except NotBelieved as exc:
        logger.info("the page makes game %d again from the journal: %s is not believed (%s)", game, path, exc)
        return None
    return content


def write_kept(folder: Path, game: int, digest: str, content: dict[str, Any]) -> None:
    """Keep ``content`` for ``game`` (made from the lines whose digest is ``digest``), whole or not at all."""
    path = folder / f"{game}.json"
    part = path.with_name(f"{path.name}.{os.getpid()}-{threading.get_native_id()}.part")  # one a writer
    data = {"format": FORMAT, "game": game, "journal": digest, "check": _checksum(content), "content": content}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        part.write_bytes(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())
        os.replace(part, path)
    except OSError as exc:  # kept in memory all the same
        logger.warning("game %d cannot be kept in %s: %s", game, folder, exc)


def prune_kept(folder: Path, oldest: int) -> None:
    """Delete the kept games older than ``oldest``, the journal's oldest game (it no longer holds them)."""
    prune_games(folder, ".", oldest)


def prune_games(folder: Path, separator: str, oldest: int) -> None:
    """Delete the files of ``folder`` named by a game older than ``oldest`` (``<game><separator>…``: a
    kept game ``12.json``, a review ``12-3-fr.txt``); a file that cannot be deleted stays."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        number, sep, _ = name.partition(separator)
        if sep and number.isdigit() and int(number) < oldest:
            with contextlib.suppress(OSError):
                os.unlink(folder / name)


# -- reading the content's fields back (each a NotBelieved when it is not its type) ----------------


def as_int(value: Any) -> int:
    if type(value) is not int:
        raise NotBelieved(f"{value!r:.40} is not a whole number")
    return value


def as_str(value: Any) -> str:
    if not isinstance(value, str):
        raise NotBelieved(f"{value!r:.40} is not text")
    return value


def as_seat(value: Any) -> str | None:
    if value not in (None, "A", "B"):
        raise NotBelieved(f"{value!r:.40} is no seat")
    return value  # type: ignore[no-any-return]


def as_pair(value: Any) -> tuple[int, int]:
    if not isinstance(value, list) or len(value) != 2:
        raise NotBelieved(f"{value!r:.40} is not a pair")
    return as_int(value[0]), as_int(value[1])


def as_list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise NotBelieved(f"{value!r:.40} is not a list")
    return value


def summary_json(summary: GameSummary | None) -> dict[str, Any] | None:
    """A game's summary (its statistics' source) as kept."""
    if summary is None:
        return None
    return {
        "game": summary.game, "started": summary.started, "rules": summary.rules,
        "seats": [{"name": s.name, "points": s.points, "voles": s.voles, "vulnerable": s.vulnerable,
                   "punished": s.punished, "faults": [list(f) for f in s.faults], "tricks": s.tricks,
                   "kings": s.kings} for s in summary.seats],
        "winner": summary.winner, "score": list(summary.score), "hands": summary.hands, "faults": summary.faults,
        "problem": summary.problem, "parts": [[p.winner, list(p.score), p.hands] for p in summary.parts],
        "rubber": None if summary.rubber is None else list(summary.rubber),
    }


def summary_of(data: Any) -> GameSummary | None:
    """A kept summary read back. :raises NotBelieved: a field that is not its type."""
    if data is None:
        return None
    if not isinstance(data, dict):
        raise NotBelieved("the summary is no object")
    try:
        seats = [SeatRecord(as_str(s["name"]), as_int(s["points"]), as_int(s["voles"]), as_int(s["vulnerable"]),
                            as_int(s["punished"]), tuple((as_str(c), as_int(n)) for c, n in as_list(s["faults"])),
                            as_int(s["tricks"]), as_int(s["kings"])) for s in as_list(data["seats"])]
        if len(seats) != 2:
            raise NotBelieved("a summary has two seats")
        parts = tuple(GamePlayed(as_seat(w), as_pair(score), as_int(hands))
                      for w, score, hands in as_list(data["parts"]))
        started = data["started"]
        if type(started) not in (int, float):
            raise NotBelieved("its start is no time")
        return GameSummary(as_int(data["game"]), float(started), as_str(data["rules"]), (seats[0], seats[1]),
                           as_seat(data["winner"]), as_pair(data["score"]), as_int(data["hands"]),
                           as_int(data["faults"]), as_str(data["problem"]), parts,
                           None if data["rubber"] is None else as_pair(data["rubber"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise NotBelieved(f"the summary does not read: {exc}") from None
