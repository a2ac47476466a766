"""``ecarte-table``: the table's one command line.

One module per command in this package, each with ``add_parser(sub)`` (its arguments) and
``run(args)`` (its exit status), calling the room that does the work. Bad input exits with
status 2 and a message that names the file, the line and what was expected.
"""

from __future__ import annotations

import argparse
import difflib
import logging
import sys
from collections.abc import Sequence
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
    words,
)
from cli.args import EXIT_BAD_INPUT
from firmware_host.errors import BadInput

__all__ = ["BadInput", "main"]

logger = logging.getLogger(__name__)

COMMANDS = (run, hub, demo, sim, replay, enroll, doctor, export, history, review, deck, journal, chips)
"""Every command, in the order ``--help`` lists them."""


class _Parser(argparse.ArgumentParser):
    """argparse's parser, with "did you mean" for a mistyped option (``--dpeth``), in ``lang``."""

    commands: dict[str, argparse.ArgumentParser]
    lang = "en"

    def error(self, message: str) -> NoReturn:
        from catalogue import say

        unrecognized = argparse._("unrecognized arguments: %s")  # type: ignore[attr-defined]
        if message.startswith(unrecognized.split("%s")[0]):
            typed = message[len(unrecognized.split("%s")[0]):]
            known = [o for p in [self, *getattr(self, "commands", {}).values()] for o in p._option_string_actions]
            hints = []
            for word in typed.split():
                close = difflib.get_close_matches(word.split("=")[0], known, n=1, cutoff=0.6)
                if word.startswith("-") and close:
                    hints.append(say(self.lang, "cli.did_you_mean", option=close[0], typed=word))
            message = f"{message} ({'; '.join(hints)})" if hints else message
        super().error(message)


def _version(lang: str = "en") -> str:
    from importlib.metadata import PackageNotFoundError, version

    from catalogue import say

    try:
        return version("ecarte-table")
    except PackageNotFoundError:
        return say(lang, "cli.version_unknown")


def _parser(lang: str = "en") -> argparse.ArgumentParser:
    """The command line's parser, its help in ``lang`` (:mod:`cli.words`)."""
    from catalogue import LANGUAGES

    parser = _Parser(
        prog="ecarte-table",
        description="A smart card table that referees Écarté: NFC pads, an OLED and buttons.",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv: debug)")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version(lang)}",
                        help="show program's version number and exit")
    parser.add_argument("--language", choices=LANGUAGES, dest="line_language", default=None,
                        help="the language of the help, the errors and what a command says when it has no "
                             "--language of its own (default: LANGUAGE, LC_ALL, LC_MESSAGES or LANG, else English)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    parser.commands = {}
    for module in COMMANDS:
        command = module.add_parser(sub)
        command.set_defaults(run=module.run, log_level=getattr(module, "LOG_LEVEL", logging.WARNING))
        # -v after the command too (SUPPRESS: without it, the count given before the command stands)
        command.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                             help="more logging (-vv: debug)")
        parser.commands[command.prog.split()[-1]] = command
    parser.lang = lang
    return words.worded(parser, lang)


def log_level(args: argparse.Namespace) -> int:
    """The console's logging level for a parsed command line: the command's own (``LOG_LEVEL`` in its
    module: INFO for the commands that run a table or a hub, whose few start-up lines a person starting
    it by hand reads and systemd's journal keeps; WARNING for the others), one step lower for each
    ``-v``, DEBUG at the lowest."""
    return max(logging.DEBUG, int(args.log_level) - 10 * int(args.verbose))


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line parsed, its help and its errors in the language asked (:func:`cli.words.language_asked`;
    argparse exits with status 2 on a bad line). A ``--language`` before the command is the command's
    own when it takes one and was not given it."""
    argv = sys.argv[1:] if argv is None else list(argv)
    lang = words.language_asked(argv)
    with words.argparse_speaking(lang):
        args = _parser(lang).parse_args(argv)
    if args.line_language is not None and getattr(args, "language", "") is None:
        args.language = args.line_language
    return args


asked_language = words.asked


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
