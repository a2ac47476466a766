"""``ecarte-table journal status|check|salvage``: what a journal holds, whether it is whole,
and how to get back every game that can still be read.

- ``status``: the input lines taken (``lines``: feed the service again from there), games, rows.
- ``check``: SQLite's integrity check, every row's CRC, the seal (rows that should be there);
  exit status 1 when the journal is damaged.
- ``salvage``: copies every game that reads whole into a new journal, moves the damaged
  file aside (``journal.sqlite.damaged-20250101T120000``) and says what was lost
  (:mod:`firmware_host.journal.store_salvage`: it reads the file below the journal's API).
"""

from __future__ import annotations

import json
import logging

from catalogue import say, say_n
from catalogue.phrase import said
from firmware_host.errors import BadInput, invoked_as
from firmware_host.journal.store import KEEP_GAMES, Journal, JournalDamaged, JournalError
from firmware_host.journal.store_errors import problem_words
from firmware_host.journal.store_lock import read_seal

logger = logging.getLogger(__name__)

EXIT_DAMAGED = 1


def status(path: str, *, as_json: bool, lang: str = "en") -> int:
    """Print what the journal at ``path`` holds (in ``lang``; ``as_json``: one JSON object); 0.

    :raises BadInput: a journal that cannot be opened.
    """
    try:
        with Journal(path, readonly=True) as journal:
            games = journal.games()
            status = {
                "lines": journal.fed_lines(), "games": len(games), "rows": sum(n for _, n in games),
                "last_game": games[-1][0] if games else None, "keep_games": KEEP_GAMES, "journal": path,
            }
    except JournalError as exc:
        raise BadInput(msgid="journal.unreadable", path=path, why=str(exc)) from None
    seal = read_seal(path)
    if seal is not None:
        status["sealed_rows"] = seal.rows
    if as_json:
        print(json.dumps(status, ensure_ascii=False))
    else:
        print(say_n(lang, "journal.status", len(games), path=path, lines=status["lines"], rows=status["rows"]))
    return 0


def check(path: str, *, as_json: bool, lang: str = "en") -> int:
    """Check the whole journal at ``path`` and say so (in ``lang``; ``as_json``: one JSON object, its
    problems as the journal words them); 1 when it is damaged, else 0."""
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
        print(say(lang, "journal.damaged", path=path))
        for problem in problems:
            print(f"  {said(problem_words(problem), lang)}")
        print(say(lang, "journal.salvage_keeps", path=path, command=invoked_as()))
    else:
        print(say_n(lang, "journal.whole", games, path=path))
    return EXIT_DAMAGED if problems else 0


