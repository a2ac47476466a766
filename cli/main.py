"""``ecarte-table``: the table's one command line.

One module per command in this package, each with ``add_parser(sub)`` (its arguments) and
``run(args)`` (its exit status), calling the room that does the work. Bad input exits with
status 2 and a message that names the file, the line and what was expected.

A command's module is imported only when that command runs (pip's ``commands_dict``, Mercurial's
command table): :data:`COMMANDS` names each command with the line ``--help`` lists for it, so
``--help`` and ``--version`` import none of them, and ``run`` imports neither the hub nor the
enrolment. A table restarts after the watchdog, a crash and every power cut, and pays its imports
each time (``bench/instructions.py --startup``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from cli import words

TYPE_CHECKING = False  # typing, logging and the errors are imported once a command runs: not for --help
if TYPE_CHECKING:
    from typing import Any, NoReturn

__all__ = ["main"]

COMMANDS: dict[str, dict[str, str]] = {
    "run": dict(help="the table service"),
    "hub": dict(help="the venue's scoreboard from every table's MQTT topics"),
    "demo": dict(help="two built-in players play a game on the simulated table"),
    "sim": dict(help="type events and watch the OLED"),
    "replay": dict(help="play a transcript through the controller"),
    "enroll": dict(help="register the tags of a pack of cards"),
    "doctor": dict(help="check the table and say how to fix what fails"),
    "export": dict(help="write a game of the journal as a transcript"),
    "history": dict(help="the journal's games and each player's statistics"),
    "review": dict(help="the coach's review of a game's hands"),
    "deck": dict(help="check a pack before a game: 32 cards, none twice, none foreign or fake"),
    "journal": dict(help="what the journal holds; check it; salvage a damaged one"),
    "chips": dict(help="simulated PN532s that outlive the service (--pads to serve, --ask to talk)"),
}
"""Every command (its module is ``cli.<name>``) and its line in ``--help`` (as ``add_parser`` takes it: a
message of the catalogue by its English, as every ``help=``), in the order ``--help`` lists them."""

ALL = "*"
"""``_parser(command=ALL)``: every command's arguments (the docs' and the help's tests read them all)."""


class _Commands(argparse._SubParsersAction):  # type: ignore[type-arg]
    """The sub-commands' action: each command's line in ``--help`` from :data:`COMMANDS`."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        kwargs = {**COMMANDS[name], **kwargs}
        parser: argparse.ArgumentParser = super().add_parser(name, **kwargs)
        return parser


class _Version(argparse.Action):
    """``--version``: the installed version (:func:`_version`), looked up only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, lang: str = "en", **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)
        self.lang = lang

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        parser._print_message(f"{parser.prog} {_version(self.lang)}\n", sys.stdout)
        parser.exit()


def command_named(argv: Sequence[str]) -> str | None:
    """The command a command line names (its first word that is one: no option before it takes a
    command's name as its value), else None."""
    return next((word for word in argv if word in COMMANDS), None)


def _columns() -> int:
    """The terminal's width as :func:`shutil.get_terminal_size` reads it (``COLUMNS``, else standard
    output's terminal, else 80), without importing :mod:`shutil` and the compressors it imports."""
    import os

    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):  # no standard output (None), not a terminal
            columns = 0
    return columns or 80


class _Parser(argparse.ArgumentParser):
    """argparse's parser, with "did you mean" for a mistyped option (``--dpeth``), in ``lang``."""

    commands: dict[str, argparse.ArgumentParser]
    lang = "en"

    def _get_formatter(self) -> argparse.HelpFormatter:
        """argparse's formatter at the terminal's width (:func:`_columns`, less 2, as argparse takes
        it): argparse would import :mod:`shutil` for it, even to check each argument as it is added,
        and ``--version`` and ``--help`` have no other use for it (``bench/instructions.py --startup``)."""
        formatter: argparse.HelpFormatter = self.formatter_class(prog=self.prog, width=_columns() - 2)  # type: ignore[call-arg]
        return formatter

    def error(self, message: str) -> NoReturn:
        import difflib

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
    """The installed version. An installed wheel's metadata folder names its version
    (``ecarte_table-0.1.0.dist-info``: the wheel format's ``{name}-{version}.dist-info``), so it is
    read from the name, the first on ``sys.path``; only without one (a checkout's ``.egg-info``) is
    :mod:`importlib.metadata` asked, which costs more than the rest of ``--version`` together
    (``bench/instructions.py --startup``)."""
    import os

    from catalogue import say

    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in names:
            if name.startswith("ecarte_table-") and name.endswith(".dist-info"):
                return name.removeprefix("ecarte_table-").removesuffix(".dist-info")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ecarte-table")
    except PackageNotFoundError:
        return say(lang, "cli.version_unknown")


def _parser(lang: str = "en", command: str | None = ALL) -> argparse.ArgumentParser:
    """The command line's parser, its help in ``lang`` (:mod:`cli.words`), with ``command``'s arguments
    (its module imported; :data:`ALL`: every command's); the other commands are only listed."""
    from catalogue import LANGUAGES

    parser = _Parser(
        prog="ecarte-table",
        description="A smart card table that referees Écarté: NFC pads, an OLED and buttons.",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv: debug)")
    parser.add_argument("--version", action=_Version, lang=lang, help="show program's version number and exit")
    parser.add_argument("--language", choices=LANGUAGES, dest="line_language", default=None,
                        help="the language of the help, the errors and what a command says when it has no "
                             "--language of its own (default: LANGUAGE, LC_ALL, LC_MESSAGES or LANG, else English)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser,
                                action=_Commands)
    parser.commands = {}
    for name in COMMANDS:
        if command not in (ALL, name):
            sub.add_parser(name)  # listed, its arguments unread: the line names another command
            continue
        import logging

        module = importlib.import_module(f"cli.{name}")
        built = module.add_parser(sub)
        built.set_defaults(run=module.run, log_level=getattr(module, "LOG_LEVEL", logging.WARNING))
        # -v after the command too (SUPPRESS: without it, the count given before the command stands)
        built.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                           help="more logging (-vv: debug)")
        parser.commands[built.prog.split()[-1]] = built
    parser.lang = lang
    return words.worded(parser, lang)


def log_level(args: argparse.Namespace) -> int:
    """The console's logging level for a parsed command line: the command's own (``LOG_LEVEL`` in its
    module: INFO for the commands that run a table or a hub, whose few start-up lines a person starting
    it by hand reads and systemd's journal keeps; WARNING for the others), one step lower for each
    ``-v``, DEBUG at the lowest."""
    import logging

    return max(logging.DEBUG, int(args.log_level) - 10 * int(args.verbose))


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line parsed, its help and its errors in the language asked (:func:`cli.words.language_asked`;
    argparse exits with status 2 on a bad line). A ``--language`` before the command is the command's
    own when it takes one and was not given it."""
    argv = sys.argv[1:] if argv is None else list(argv)
    lang = words.language_asked(argv)
    with words.argparse_speaking(lang):
        args = _parser(lang, command_named(argv)).parse_args(argv)
    if args.line_language is not None and getattr(args, "language", "") is None:
        args.language = args.line_language
    return args


asked_language = words.asked


def main(argv: Sequence[str] | None = None) -> int:
    """The entry point: returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if command_named(argv) is not None:  # a command's classes: their methods compiled once (not for --help)
        from cli.compiled_methods import install

        install()
    args = parse_args(argv)  # --help and --version end here (SystemExit)
    import logging

    from firmware_host.errors import BadInput

    logging.basicConfig(level=log_level(args), format="%(levelname)s %(name)s: %(message)s")
    try:
        status: int = args.run(args)
        return status
    except BadInput as exc:
        from catalogue import say
        from catalogue.phrase import said
        from cli.args import EXIT_BAD_INPUT

        lang = asked_language(args, table=exc.language)
        print(say(lang, "cli.refused", program=f"ecarte-table {args.command}", why=said(exc, lang)), file=sys.stderr)
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
