"""``ecarte-table``: the table's one command line.

One module per command in this package, each with ``add_parser(sub)`` (its arguments) and
``run(args)`` (its exit status), calling the room that does the work. Bad input exits with
status 2 and a message that names the file, the line and what was expected.
"""

from __future__ import annotations

import argparse
import difflib
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from typing import NoReturn

from cli import (
    chips,
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
from cli.args import EXIT_BAD_INPUT
from firmware_host.errors import BadInput

__all__ = ["BadInput", "main"]

logger = logging.getLogger(__name__)

COMMANDS = (run, hub, demo, sim, replay, enroll, doctor, export, history, review, deck, journal, chips)
"""Every command, in the order ``--help`` lists them."""


class _Parser(argparse.ArgumentParser):
    """argparse's parser, with "did you mean" for a mistyped option (``--dpeth``)."""

    commands: dict[str, argparse.ArgumentParser]

    def error(self, message: str) -> NoReturn:
        words = message.split(": ", 1)
        if words[0] == "unrecognized arguments" and len(words) == 2:
            known = [o for p in [self, *getattr(self, "commands", {}).values()] for o in p._option_string_actions]
            hints = []
            for word in words[1].split():
                close = difflib.get_close_matches(word.split("=")[0], known, n=1, cutoff=0.6)
                if word.startswith("-") and close:
                    hints.append(f"did you mean `{close[0]}` for `{word}`?")
            message = f"{message} ({'; '.join(hints)})" if hints else message
        super().error(message)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ecarte-table")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="ecarte-table",
        description="A smart card table that referees Écarté: NFC pads, an OLED and buttons.",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv: debug)")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    parser.commands = {}
    for module in COMMANDS:
        command = module.add_parser(sub)
        command.set_defaults(run=module.run, log_level=getattr(module, "LOG_LEVEL", logging.WARNING))
        # -v after the command too (SUPPRESS: without it, the count given before the command stands)
        command.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                             help="more logging (-vv: debug)")
        parser.commands[command.prog.split()[-1]] = command
    return parser


def log_level(args: argparse.Namespace) -> int:
    """The console's logging level for a parsed command line: the command's own (``LOG_LEVEL`` in its
    module: INFO for the commands that run a table or a hub, whose few start-up lines a person starting
    it by hand reads and systemd's journal keeps; WARNING for the others), one step lower for each
    ``-v``, DEBUG at the lowest."""
    return max(logging.DEBUG, int(args.log_level) - 10 * int(args.verbose))


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line parsed (argparse exits with status 2 on a bad one)."""
    return _parser().parse_args(argv)


def asked_language(args: argparse.Namespace, env: Mapping[str, str] | None = None, *,
                   table: str | None = None) -> str:
    """The language a command speaks when it has no table to ask: ``--language``, else the ``table``'s
    (a table file refused names its own), else the environment's (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``,
    ``LANG``: ``es_ES.UTF-8`` is Spanish), else English."""
    from catalogue import LANGUAGES

    given = getattr(args, "language", None)
    if given in LANGUAGES:
        return str(given)
    if table in LANGUAGES:
        return str(table)
    env = os.environ if env is None else env
    for key in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        for part in env.get(key, "").split(":"):
            code = part[:2].lower()
            if code in LANGUAGES:
                return code
    return "en"


def main(argv: Sequence[str] | None = None) -> int:
    """The entry point: returns the exit status."""
    args = parse_args(argv)
    logging.basicConfig(level=log_level(args), format="%(levelname)s %(name)s: %(message)s")
    try:
        status: int = args.run(args)
        return status
    except BadInput as exc:
        print(f"ecarte-table {args.command}: {exc.said(asked_language(args, table=exc.language))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # whoever read our output stopped (`| head`): nothing more to say, and nothing wrong
        from firmware_host.outputs import silence

        silence(sys.stdout)
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
