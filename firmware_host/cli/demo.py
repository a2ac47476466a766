"""``ecarte-table demo``: two built-in players play a game on the simulated table
(:mod:`firmware_host.players.demo`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from firmware_host.cli.args import check_rules, depth, seconds

__all__ = ["add_parser", "run"]


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
    demo.add_argument("--language", choices=("en", "fr", "it", "de"), default="en", help="the OLED's language")
    demo.add_argument("--delay", type=seconds, default=None,
                      help="seconds between moves (default: 0.3 on a terminal, 0 when piped)")
    demo.add_argument("--frames", choices=("all", "tricks", "none"), default=None,
                      help="which frames to draw (default: all on a terminal, tricks when piped)")
    return demo


def run(args: argparse.Namespace) -> int:
    """Play the demo; returns the exit status."""
    from firmware_host.players.demo import run_demo

    check_rules(args.rules)
    return run_demo(args)
