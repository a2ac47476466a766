"""``ecarte-table journal status|check|salvage`` (:mod:`firmware_host.journal.tools`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from catalogue import say, say_n
from cli.words import asked
from firmware_host.errors import BadInput
from firmware_host.journal import tools
from firmware_host.journal.store import JournalBusy, JournalError, default_journal
from firmware_host.journal.store_salvage import salvage

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``journal`` on the command line's subparsers."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "journal", description=(
            "status: the input lines taken (the service is fed again from there), the games, the rows. "
            "check: SQLite's integrity check, every row's CRC and the seal (the rows that should be there); "
            "exit status 1 when the journal is damaged. salvage: every game that reads whole copied into a "
            "new journal, the damaged file moved aside (journal.sqlite.damaged-20250101T120000), what was "
            "lost said."))
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    for action in (actions.add_parser("status", help="the input lines taken, games and rows"),
                   actions.add_parser("check", help="check the whole journal (exit 1 when damaged)"),
                   actions.add_parser("salvage", help="keep every readable game, move the damaged file aside")):
        action.add_argument("--journal", type=Path, default=default_journal(),
                            help="the journal (default: %(default)s)")
        action.add_argument("--json", action="store_true", help="print one JSON object")
        action.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                            help="more logging (-vv: debug)")
    return parser


def run(args: argparse.Namespace) -> int:
    """``ecarte-table journal ACTION``: returns the exit status."""
    path = str(args.journal or default_journal())
    if not Path(path).is_file():
        raise BadInput(msgid="error.no_journal", path=path)
    lang = asked(args)
    if args.action == "status":
        return tools.status(path, as_json=args.json, lang=lang)
    if args.action == "check":
        return tools.check(path, as_json=args.json, lang=lang)
    try:
        report = salvage(path)
    except JournalBusy as exc:
        raise BadInput.of(exc) from None
    except (JournalError, OSError) as exc:
        raise BadInput(msgid="error.cannot_salvage", path=path,
                       reason=exc if isinstance(exc, OSError) and exc.errno is not None else str(exc)) from None
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False))
    else:
        print(say_n(lang, "journal.salvaged", len(report.kept), path=path, lines=report.lines, moved=report.moved_to))
        for lost in report.lost:
            print(say(lang, "journal.lost", what=lost))
    return 0
