"""``ecarte-table sim``: type events and watch the OLED (:mod:`firmware_host.players.console`)."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from cli.args import check_rules, language_option
from engine.seats import SEATS

__all__ = ["add_parser", "run"]

LOG_LEVEL = logging.INFO
"""The console's level: the simulated table's few start-up lines (its page, ...) said at INFO show by default."""


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``sim`` to the ``ecarte-table`` sub-commands."""
    sim: argparse.ArgumentParser = sub.add_parser(
        "sim", description=(
        "Interactive simulated table: type events like 'A plays KS', 'B yes', 'deal', 'hand.A 7H', "
        "'help'; the OLED is drawn after each."))
    sim.add_argument("--rules", default="classic", help="rule set (default classic)")
    sim.add_argument("--dealer", choices=SEATS, default="A", help="the first dealer (default A)")
    sim.add_argument("--web", nargs="?", const="", metavar="ADDR:PORT",
                     help="show the table on its page (default 127.0.0.1:8080); it stays up until Ctrl-C")
    sim.add_argument("--seed", type=int, default=None, help="seed for 'deal' (random deals)")
    sim.add_argument("--journal", type=Path, default=None,
                     help="where the session is journaled, a new game each time (default: sim.sqlite beside the "
                          "table's journal); 'export', 'review' and 'history' read it")
    language_option(sim, help="what the bench, the OLED and the journal's game say (default: the table file's "
                              "language)")
    return sim


def run(args: argparse.Namespace) -> int:
    """Run the typing console; returns the exit status."""
    import contextlib

    from catalogue import language, say
    from catalogue.phrase import said_at_the_console
    from firmware_host.app import GameOptions, build_referee, linger
    from firmware_host.players.console import SimOptions, run_sim
    from hardware.table import simulated_table
    from venue.table.wiring import page_alone

    check_rules(args.rules)
    table = simulated_table()
    options = SimOptions(rules=args.rules, dealer=args.dealer, seed=args.seed, journal=args.journal,
                         language=args.language or table.language)
    # typed events name every card: the whole hands are seen, whatever the simulated pads read
    referee = build_referee(table, GameOptions(rules=options.rules, dealer=options.dealer, sight="full",
                                               language=options.language))
    with contextlib.ExitStack() as stack:
        # the console's lines a person reads (the page's address...) in the bench's language, as the demo's
        stack.enter_context(said_at_the_console(language(options.language)))
        pages = page_alone(args.web, table, None, stack) if args.web is not None else []
        status = run_sim(options, referee, outputs=pages)
        if pages:
            url = pages[0].url
            linger(f"ecarte-table sim: {say(language(options.language), 'sim.input_ended', url=url)}")
    return status
