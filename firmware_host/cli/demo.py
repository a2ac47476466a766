"""``ecarte-table demo``: two built-in players play a game on the simulated table
(:mod:`firmware_host.players.demo`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from catalogue import LANGUAGES
from firmware_host.cli.args import check_rules, depth, seconds

__all__ = ["add_parser", "demo_journal", "run"]


def demo_journal() -> Path:
    """Where the demo keeps its games (beside the table's journal, never in it): ``review`` and
    ``history`` read them with ``--journal``."""
    from firmware_host.journal.store import default_journal

    return default_journal().with_name("demo.sqlite")


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``demo`` to the ``ecarte-table`` sub-commands."""
    demo: argparse.ArgumentParser = sub.add_parser(
        "demo", help="two built-in players play a game on the simulated table",
                          description=(
                              "Two built-in players play a whole game on the simulated table through the "
                              "real controller, drivers and simulators, with a fault made and corrected. "
                              "The OLED's frames are drawn in the terminal."))
    demo.add_argument("--png", type=Path, metavar="DIR", help="save the frames as PNGs in DIR")
    demo.add_argument("--seed", type=int, default=1, help="the shuffle's seed (default 1)")
    demo.add_argument("--rules", default="classic", help="rule set (default classic)")
    demo.add_argument("--depth", type=depth, default=None, metavar="N",
                      help="how many stacked cards each simulated pad reads (default: the table file's, 2)")
    demo.add_argument("--players", default="Anne,Bruno", metavar="A,B", help="the players' names (default Anne,Bruno)")
    demo.add_argument("--language", choices=LANGUAGES, default="en",
                      help="the table's language: the OLED, the page and the narration")
    demo.add_argument("--delay", type=seconds, default=None,
                      help="seconds between moves (default: 0.3 on a terminal, 0 when piped)")
    demo.add_argument("--web", nargs="?", const="", metavar="ADDR:PORT",
                      help="show the game on the table's page (default 127.0.0.1:8080); it stays up until Ctrl-C")
    demo.add_argument("--journal", type=Path, default=None,
                      help=f"the demo's journal: each demo is a new game in it (default: {demo_journal()})")
    demo.add_argument("--frames", choices=("all", "tricks", "none"), default=None,
                      help="which frames to draw (default: all on a terminal, tricks when piped)")
    return demo


def run(args: argparse.Namespace) -> int:
    """Play the demo; returns the exit status."""
    import contextlib

    from firmware_host.app import linger, open_page
    from firmware_host.players.demo import run_demo
    from hardware.table import simulated_table

    check_rules(args.rules)
    args.journal = args.journal or demo_journal()
    with contextlib.ExitStack() as stack:
        pages = open_page(args.web, simulated_table(), args.journal, stack) if args.web is not None else []
        status = run_demo(args, outputs=pages)
        if pages and status == 0:
            linger(f"ecarte-table demo: the game is over; its page stays up at {pages[0].url} until Ctrl-C")
    return status
