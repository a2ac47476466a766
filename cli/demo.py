"""``ecarte-table demo``: two built-in players play a game on the simulated table
(:mod:`firmware_host.players.demo`)."""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from catalogue import LANGUAGES, say
from cli.args import check_rules, depth, noise_level, seconds
from firmware_host.errors import invoked_as  # a hint names the command to type again

__all__ = ["add_parser", "demo_journal", "invoked_as", "run"]

LOG_LEVEL = logging.INFO
"""The console's level: the demo's table's few start-up lines (its page, ...) said at INFO show by default."""


def demo_journal() -> Path:
    """Where the demo keeps its games (beside the table's journal, never in it): ``review`` and
    ``history`` read them with ``--journal``."""
    from firmware_host.journal.store import default_journal

    return default_journal().with_name("demo.sqlite")


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``demo`` to the ``ecarte-table`` sub-commands."""
    demo: argparse.ArgumentParser = sub.add_parser(
        "demo", description=(
                              "Two built-in players play a whole game on the simulated table through the "
                              "real controller, drivers and simulators, with a fault made and corrected. "
                              "The OLED's frames are drawn in the terminal."))
    demo.add_argument("--png", type=Path, metavar="DIR", help="save the frames as PNGs in DIR")
    demo.add_argument("--seed", type=int, default=None,
                      help="the shuffle's seed (default: a new one each time, printed so the game can be played again)")
    demo.add_argument("--rules", default="classic", help="rule set (default classic)")
    demo.add_argument("--depth", type=depth, default=None, metavar="N",
                      help="how many stacked cards each simulated pad reads (default: the table file's, 2)")
    demo.add_argument("--noise", type=noise_level, default=0.0, metavar="LEVEL",
                      help="make the simulated pads' radio noisy: LEVEL times the noise model's rates (default 0)")
    demo.add_argument("--players", default="Anne,Bruno", metavar="A,B", help="the players' names (default Anne,Bruno)")
    demo.add_argument("--language", choices=LANGUAGES, default=None,
                      help="the table's language: the OLED, the page and the narration")
    demo.add_argument("--delay", type=seconds, default=None,
                      help="seconds between moves (default: 0.3 on a terminal, 0 when piped)")
    demo.add_argument("--web", nargs="?", const="", metavar="ADDR:PORT",
                      help="show the game on the table's page (default 127.0.0.1:8080); it stays up until Ctrl-C")
    demo.add_argument("--voice", type=Path, metavar="DIR",
                      help="the table speaks: one WAV and one line of said.txt per announcement in DIR, "
                           "in the --language (each seat's own cards, read when it asks, in DIR/A, DIR/B)")
    demo.add_argument("--journal", type=Path, default=demo_journal(),
                      help="the demo's journal: each demo is a new game in it (default: %(default)s)")
    demo.add_argument("--frames", choices=("all", "tricks", "none"), default=None,
                      help="which frames to draw (default: all on a terminal, tricks when piped)")
    return demo


def run(args: argparse.Namespace) -> int:
    """Play the demo; returns the exit status."""

    from firmware_host.players.demo import DemoError

    check_rules(args.rules)
    from catalogue.phrase import said_at_the_console

    with said_at_the_console(args.language or "en"), terminated_as_interrupted():
        try:
            return _play(args)
        except DemoError as exc:  # the simulated table stuck: one line, never a traceback
            print("ecarte-table demo: " + say(args.language or "en", "demo.stuck", what=exc,
                                              journal=args.journal or demo_journal()), file=sys.stderr)
            return 1


@contextlib.contextmanager
def terminated_as_interrupted() -> Iterator[None]:
    """A SIGTERM ends the demo as Ctrl-C does: the game stopped, the pads, the page and its coach's
    worker closed on the way out (SIGTERM's default ended the process at once, and left the worker and
    multiprocessing's resource tracker running: 8 orphans after 4 demos). Exit status 143 (128 + 15).
    On the main thread only (:func:`signal.signal`'s rule); a second SIGTERM while closing is ignored."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # closing: once is enough
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _play(args: argparse.Namespace) -> int:
    """The demo, its page and its voice (:func:`run`)."""
    import random
    from dataclasses import replace

    from firmware_host.app import GameOptions, build_referee, linger, open_table_voice
    from firmware_host.players.demo import DemoOptions, demo_names, run_demo
    from hardware.table import simulated_table
    from venue.table.wiring import page_alone

    language = args.language or "en"  # the demo's table speaks English unless asked (a refusal: the line's language)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 1_000_000)
    options = DemoOptions(journal=args.journal or demo_journal(), seed=seed, rules=args.rules,
                          players=args.players, depth=args.depth, language=language, delay=args.delay,
                          frames=args.frames, png=args.png, command=invoked_as(),
                          noise=args.noise)
    table = simulated_table()
    referee = build_referee(table, GameOptions(rules=options.rules, players=",".join(demo_names(options.players)),
                                               language=options.language or "en"))
    with contextlib.ExitStack() as stack:
        pages = page_alone(args.web, table, options.journal, stack) if args.web is not None else []
        voice = open_table_voice(args.voice, replace(table, language=language), stack) \
            if args.voice is not None else None
        status = run_demo(options, referee, outputs=[*pages, *(voice.outputs if voice is not None else [])],
                          listen=voice.with_listen if voice is not None else None)
        if voice is not None:
            voice.drain(120.0)  # every announcement written before the demo ends
        if pages and status == 0:
            linger("ecarte-table demo: " + say(language, "demo.page_stays", url=pages[0].url))
    return status
