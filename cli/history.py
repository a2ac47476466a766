"""``ecarte-table history``: the journal's games and each player's statistics.

The summaries are :mod:`firmware_host.journal.summaries`'.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from cli.args import default_journal, language_option, read_journal

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``history`` to the ``ecarte-table`` sub-commands."""
    history: argparse.ArgumentParser = sub.add_parser(
        "history", description=(
        "Every game of the journal: date and time, rule set, players, winner, score, hands and faults "
        "(replayed through the referee). --players: each player's statistics across the games."))
    history.add_argument("--journal", type=Path, default=default_journal(), help="the journal (default: %(default)s)")
    history.add_argument("--players", action="store_true", help="per-player statistics instead of the games")
    history.add_argument("--json", action="store_true", help="one JSON object a game (or a player)")
    history.add_argument("--detail", action="store_true", help="the players' statistics as figures, not words")
    language_option(history, help="the lines' language (--json stays codes) (default: the language of the table "
                                  "that played the game)")
    return history


def run(args: argparse.Namespace) -> int:
    """Print the history; returns the exit status."""
    from catalogue import say
    from cli.args import journal_language
    from firmware_host.journal.summaries import format_game, format_player, games, player_stats

    summaries = read_journal(args.journal, games)
    last = read_journal(args.journal, lambda journal: journal.current_game()) if args.language is None else None
    lang = journal_language(last, args.language)
    if args.players:
        for stats in player_stats(summaries):
            print(json.dumps(stats.to_json(), ensure_ascii=False) if args.json else
                  format_player(stats, lang, detail=args.detail))
        return 0
    for summary in summaries:
        print(json.dumps(summary.to_json(), ensure_ascii=False) if args.json else format_game(summary, lang))
    if not summaries and not args.json:
        print(say(lang, "history.empty"), file=sys.stderr)
    return 0
