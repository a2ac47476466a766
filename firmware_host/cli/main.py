"""``ecarte-table``: the table's one command line.

One module per command in this package, each with ``add_parser(sub)`` (its arguments) and
``run(args)`` (its exit status), calling the room that does the work. Bad input exits with
status 2 and a message that names the file, the line and what was expected.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from firmware_host.cli import (
    deck,
    demo,
    doctor,
    enroll,
    export,
    history,
    hub,
    journal,
    replay,
    review,
    run,
    sim,
)
from firmware_host.cli.args import EXIT_BAD_INPUT
from firmware_host.errors import BadInput

__all__ = ["BadInput", "main"]

logger = logging.getLogger(__name__)

COMMANDS = (run, hub, demo, sim, replay, enroll, doctor, export, history, review, deck, journal)
"""Every command, in the order ``--help`` lists them."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ecarte-table",
        description="A smart card table that referees Écarté: NFC pads, an OLED and buttons.",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv: debug)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        command = module.add_parser(sub)
        command.set_defaults(run=module.run)
        # -v after the command too (SUPPRESS: without it, the count given before the command stands)
        command.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                             help="more logging (-vv: debug)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The entry point: returns the exit status."""
    args = _parser().parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    try:
        status: int = args.run(args)
        return status
    except BadInput as exc:
        print(f"ecarte-table {args.command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # whoever read our output stopped (`| head`): nothing more to say, and nothing wrong
        from firmware_host.service import silence

        silence(sys.stdout)
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
