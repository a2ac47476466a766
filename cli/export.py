"""``ecarte-table export``: a game of the journal as a transcript or a hand record."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli.args import default_journal, journal_game, read_journal
from firmware_host.errors import BadInput

if TYPE_CHECKING:
    from firmware_host.journal.store import GameRecord
    from firmware_host.referee import Outcome, PhysicalEvent

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``export`` to the ``ecarte-table`` sub-commands."""
    export: argparse.ArgumentParser = sub.add_parser(
        "export", description=(
            "Write a game of the journal as a transcript (the physical events, one JSON object a line, that "
            "`replay` and `run --events` read), or as a hand record (--format record)."))
    export.add_argument("--journal", type=Path, default=default_journal(), help="the journal (default: %(default)s)")
    export.add_argument("--game", type=int, default=None, help="the game number (default: the last)")
    export.add_argument("--list", action="store_true", help="list the journal's games (as `history` does)")
    export.add_argument("-o", "--output", type=Path, help="the transcript file (default: standard output)")
    export.add_argument("--format", choices=("transcript", "record"), default="transcript",
                        help="transcript (JSON lines, the default) or record (the hand record, docs/web.md)")

    return export


def run(args: argparse.Namespace) -> int:
    if args.list:  # as `history` lists them: in the language asked before the command, else the journal's
        from cli.args import journal_language
        from firmware_host.journal.summaries import format_game, games

        last = read_journal(args.journal, lambda journal: journal.current_game())
        lang = journal_language(last, getattr(args, "line_language", None))
        for summary in read_journal(args.journal, games):
            print(format_game(summary, lang))
        return 0
    path, record = journal_game(args.journal, args.game)
    if args.format == "record":
        from venue.table.export import record_text

        text = record_text(path, record.game)
    else:
        text = _transcript(record, f"{path}#game{record.game}")
    if args.output:
        try:
            args.output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise BadInput(msgid="error.cannot_write", path=args.output, reason=exc) from None
    else:
        sys.stdout.write(text)
    return 0


def _transcript(record: GameRecord, source: str) -> str:
    """The game's lines as the table took them, read as every reader of the journal reads a game
    (:func:`~firmware_host.journal.replay.replay_game`): a line it refused is left out, and the
    setup lines before the first event are one line (the service writes its own setup first; a
    transcript fed to it, or the page, may bring another, taken with the table's own values for
    the keys it leaves out), as a transcript has one setup line, its first.

    :raises BadInput: a line that cannot be read back.
    """
    from firmware_host.journal.replay import replay_game
    from firmware_host.referee import Setup, TranscriptError, dumps

    def unrefereed(event: PhysicalEvent, where: str) -> Outcome | None:
        return None  # the lines are written out, not played

    lines: list[str] = []
    leading = True  # no event yet: a setup line replaces the one before it
    try:
        for step in replay_game(record, unrefereed, source=source):
            if leading and isinstance(step.event, Setup):
                lines = [record.lines[step.index] if step.number == 1 else dumps(step.event)]
                continue
            leading = False
            lines.append(record.lines[step.index])
    except TranscriptError as exc:
        raise BadInput(str(exc)) from None
    return "".join(line + "\n" for line in lines)
