"""``ecarte-table run``: the table service (the composition root builds it: :mod:`firmware_host.app`)."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from cli.args import default_journal, seconds

__all__ = ["add_parser", "run"]

LOG_LEVEL = logging.INFO
"""The console's level: the table's few start-up lines (its page, ...) said at INFO show by default."""


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``run`` to the ``ecarte-table`` sub-commands."""
    run: argparse.ArgumentParser = sub.add_parser(
        "run", description=(
        "Run the table: read the pads and buttons, referee the game, show it on the OLED. "
        "With no table file, the simulated table (simulated PN532 pads, simulated display, "
        "mock buttons). Started again on the same journal, it resumes where it stopped."))
    run.add_argument("table", nargs="?", help="the table file (TOML); default: the simulated table")
    run.add_argument("--journal", type=Path, default=default_journal(), help="the journal (default: %(default)s)")
    run.add_argument("--events", metavar="FILE|-",
                     help="also read physical events from a transcript file or standard input (-), "
                          "line by line as they arrive; the service stops at its end (with --web, the page "
                          "stays up until Ctrl-C)")
    run.add_argument("--pace", type=seconds, default=0.0, metavar="SECONDS",
                     help="with --events, wait this long before each line (to watch the game on the page)")
    run.add_argument("--json", action="store_true", help="print table events as JSON lines as they happen")
    run.add_argument("--all-events", action="store_true",
                     help="with --json, also the events beyond docs/transcript.md's (bids, plays, notices)")
    run.add_argument("--png", type=Path, metavar="DIR", help="save every display frame as a PNG in DIR")
    run.add_argument("--screen", action="store_true", help="draw the display's frames in the terminal")
    run.add_argument("--voice", type=Path, metavar="DIR",
                     help="the table speaks into DIR: one WAV and one line of said.txt per announcement "
                          "(each seat's own cards in DIR/A, DIR/B); without it [voice] says where")
    run.add_argument("--web", nargs="?", const="", metavar="ADDR:PORT",
                     help="serve the table's page (default 127.0.0.1:8080, or the table file's [web] listen)")
    run.add_argument("--mqtt", nargs="?", const="", metavar="HOST:PORT",
                     help="publish to an MQTT broker (default 127.0.0.1:1883, or the table file's [mqtt])")
    run.add_argument("--rules", help="the rule set of the first game (default: the table file's)")
    run.add_argument("--players", metavar="A,B", help="the players' names at A and B, like 'Anne,Bruno'")

    return run


def run(args: argparse.Namespace) -> int:
    """Run the table; returns the exit status. The composition's top: the flags become
    :class:`~firmware_host.app.RunOptions`, and the venue's outputs are registered here."""
    from firmware_host.app import GameOptions, RunOptions, run_service
    from venue.table.wiring import VenueOutputs

    return run_service(RunOptions(
        table=args.table, journal=args.journal, events=args.events, pace=args.pace or 0.0, json=args.json,
        all_events=args.all_events, png=args.png, screen=args.screen, voice=args.voice,
        game=GameOptions(rules=args.rules, players=args.players),
        sources=(VenueOutputs(args.table, args.web, args.mqtt),), language=getattr(args, "line_language", None),
    ))
