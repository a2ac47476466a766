"""``ecarte-table export``: a game of the journal as a transcript or a hand record."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from firmware_host.cli.args import default_journal, journal_game, read_journal
from firmware_host.errors import BadInput

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``export`` to the ``ecarte-table`` sub-commands."""
    export: argparse.ArgumentParser = sub.add_parser(
        "export", help="write a game of the journal as a transcript", description=(
            "Write a game of the journal as a transcript (the physical events, one JSON object a line, that "
            "`replay` and `run --events` read), or as a hand record (--format record)."))
    export.add_argument("--journal", type=Path, help=f"the journal (default: {default_journal()})")
    export.add_argument("--game", type=int, default=None, help="the game number (default: the last)")
    export.add_argument("--list", action="store_true", help="list the journal's games (as `history` does)")
    export.add_argument("-o", "--output", type=Path, help="the transcript file (default: standard output)")
    export.add_argument("--format", choices=("transcript", "record"), default="transcript",
                        help="transcript (JSON lines, the default) or record (the hand record, docs/web.md)")

    return export


def run(args: argparse.Namespace) -> int:
    if args.list:
        from firmware_host.journal.history import format_game, games

        for summary in read_journal(args.journal, games):
            print(format_game(summary))
        return 0
    path, record = journal_game(args.journal, args.game)
    lines = list(record.lines)
    # the service writes its own setup line first; a transcript fed to it may bring another
    # before any event: each replaced the last, keeping the table's own values for the keys it
    # left out (the table file's sight, say), so the transcript keeps one line with both
    # (a setup after the first line is not a transcript TRANSCRIPT.md allows)
    while len(lines) > 1 and _is_setup(lines[0]) and _is_setup(lines[1]):
        lines[1] = _merged_setup(lines[0], lines[1])
        del lines[0]
    text = "".join(line + "\n" for line in lines)
    if args.format == "record":
        from venue.export import record_text

        text = record_text(path, record.game)
    if args.output:
        try:
            args.output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise BadInput(f"cannot write {args.output}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text)
    return 0


def _merged_setup(table: str, fed: str) -> str:
    """The setup the table played: the fed line's keys over the table's own
    (:func:`firmware_host.journal.replay.merged_setup`, as every reader of the journal takes it)."""
    from firmware_host.journal.replay import merged_setup
    from firmware_host.referee.transcript import Setup, dumps, parse_line

    own, given = parse_line(table, source="journal"), parse_line(fed, source="journal")
    if not isinstance(own, Setup) or not isinstance(given, Setup):
        return fed
    return dumps(merged_setup(own, given))


def _is_setup(line: str) -> bool:
    import json

    try:
        data = json.loads(line)
    except ValueError:
        return False
    return isinstance(data, dict) and "setup" in data
