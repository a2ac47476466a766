"""``ecarte-table export --format record``: a journal game as a hand record (docs/web.md)."""

from __future__ import annotations

import math
from pathlib import Path

from venue.table.page_history import JournalHistory
from venue.table.record import write_record


def record_text(journal: str | Path, game: int, *, table: str = "") -> str:
    """The record of ``game`` in the journal, every hand that is over (nothing is held back:
    the export is for after the game).

    :raises KeyError: when the journal has no such game.
    """
    # a tool reading the journal writes nothing beside it (the page keeps its games: venue.table.kept_games)
    history = JournalHistory(Path(journal), table=table, keep=False)
    played = history.game(game)
    if played is None:
        raise KeyError(f"no game {game} in the journal {journal}")
    return write_record(played.log(table=table, now=math.inf, delay=0.0))
