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

from firmware_host.errors import BadInput
from firmware_host.journal.store import KEEP_GAMES, Journal, JournalDamaged, JournalError
from firmware_host.journal.store_lock import read_seal

logger = logging.getLogger(__name__)

EXIT_DAMAGED = 1


def status(path: str, *, as_json: bool) -> int:
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


def check(path: str, *, as_json: bool) -> int:
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


