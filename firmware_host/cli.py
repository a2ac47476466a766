"""``ecarte-table``: the table's one command line.

Subcommands: ``run`` (the service), ``demo``, ``sim``, ``replay``, ``enroll``,
``doctor``, ``export``. Bad input exits with status 2 and a message that names
the file, the line and what was expected.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from firmware_host.app import default_journal
from firmware_host.errors import BadInput

EXIT_BAD_INPUT = 2

__all__ = ["BadInput", "main"]

logger = logging.getLogger(__name__)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ecarte-table",
        description="A smart card table that referees Écarté: NFC pads, an OLED and buttons.",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv: debug)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="the table service", description=(
        "Run the table: read the pads and buttons, referee the game, show it on the OLED. "
        "With no table file, the simulated table (simulated PN532 pads, simulated display, "
        "mock buttons). Started again on the same journal, it resumes where it stopped."))
    run.add_argument("table", nargs="?", help="the table file (TOML); default: the simulated table")
    run.add_argument("--journal", type=Path, help=f"the journal (default: {default_journal()})")
    run.add_argument("--events", metavar="FILE|-",
                     help="also read physical events from a transcript file or standard input (-), "
                          "line by line as they arrive; the service stops at its end")
    run.add_argument("--json", action="store_true", help="print table events as JSON lines as they happen")
    run.add_argument("--all-events", action="store_true",
                     help="with --json, also the events beyond TRANSCRIPT.md's (bids, plays, notices)")
    run.add_argument("--png", type=Path, metavar="DIR", help="save every display frame as a PNG in DIR")
    run.add_argument("--screen", action="store_true", help="draw the display's frames in the terminal")
    run.add_argument("--web", nargs="?", const="", metavar="ADDR:PORT",
                     help="serve the table's page (default 127.0.0.1:8080, or the table file's [web] listen)")
    run.add_argument("--mqtt", nargs="?", const="", metavar="HOST:PORT",
                     help="publish to an MQTT broker (default 127.0.0.1:1883, or the table file's [mqtt])")

    hub = sub.add_parser("hub", help="the venue's scoreboard from every table's MQTT topics", description=(
        "Subscribe to every table of the venue on MQTT and serve the scoreboard: tables live, results, "
        "standings, records. With no broker named, an embedded broker (amqtt) is started on 127.0.0.1:1883."))
    hub.add_argument("venue_file", nargs="?", help="the venue file (TOML: [hub], [broker], [session])")
    hub.add_argument("--listen", metavar="ADDR:PORT", help="the scoreboard's address (default 127.0.0.1:8090)")
    hub.add_argument("--broker", metavar="HOST:PORT", help="an MQTT broker to use instead of the embedded one")
    hub.add_argument("--venue", help="the venue's topic level (ecarte/<venue>/...; default: venue)")
    run.add_argument("--rules", help="the rule set of the first game (default: the table file's)")
    run.add_argument("--players", metavar="A,B", help="the players' names at A and B, like 'Anne,Bruno'")

    demo = sub.add_parser("demo", help="two built-in players play a game on the simulated table",
                          description=(
                              "Two built-in players play a whole game on the simulated table through the "
                              "real controller, drivers and simulators, with a fault made and corrected. "
                              "The OLED's frames are drawn in the terminal."))
    demo.add_argument("--png", type=Path, metavar="DIR", help="save the frames as PNGs in DIR")
    demo.add_argument("--seed", type=int, default=1, help="the shuffle's seed (default 1)")
    demo.add_argument("--rules", default="classic", help="rule set (default classic)")
    demo.add_argument("--depth", type=_depth, default=None, metavar="N",
                      help="how many stacked cards each simulated pad reads (default: the table file's, 2)")
    demo.add_argument("--players", default="Anne,Bruno", metavar="A,B", help="the players' names (default Anne,Bruno)")
    demo.add_argument("--language", choices=("en", "fr", "it", "de"), default="en", help="the OLED's language")
    demo.add_argument("--delay", type=_seconds, default=None,
                      help="seconds between moves (default: 0.3 on a terminal, 0 when piped)")
    demo.add_argument("--frames", choices=("all", "tricks", "none"), default=None,
                      help="which frames to draw (default: all on a terminal, tricks when piped)")

    sim = sub.add_parser("sim", help="type events and watch the OLED", description=(
        "Interactive simulated table: type events like 'A plays KS', 'B yes', 'deal', 'hand.A 7H', "
        "'help'; the OLED is drawn after each."))
    sim.add_argument("--rules", default="classic")
    sim.add_argument("--dealer", choices=("A", "B"), default="A")
    sim.add_argument("--seed", type=int, default=None, help="seed for 'deal' (random deals)")

    replay = sub.add_parser("replay", help="play a transcript through the controller", description=(
        "Play a transcript (one JSON object a line) through the real controller and print the "
        "table events. Every bad line is reported with its number (exit status 2)."))
    replay.add_argument("file", help="the transcript, or - for standard input")
    replay.add_argument("--json", action="store_true", help="print table events as TRANSCRIPT.md specifies")
    replay.add_argument("--all-events", action="store_true", help="with --json, every event kind")

    enroll = sub.add_parser("enroll", help="register the tags of a pack of cards", description=(
        "Walk through the 32 cards in order: place each on the pad, lift it, next. Writes the tag "
        "registry named in the table file."))
    enroll.add_argument("table", nargs="?", help="the table file (default: the simulated table)")
    enroll.add_argument("--pad", default=None, help="the pad to enroll on (default: the first)")
    enroll.add_argument("--pack", type=int, choices=(1, 2), default=1, help="which pack (1 or 2)")
    enroll.add_argument("--registry", type=Path, help="the registry file (default: the table file's)")
    enroll.add_argument("--write-ndef", action="store_true", help="also write 'ecarte:KS' on each tag")
    enroll.add_argument("--lock", action="store_true",
                        help="password-lock each tag against rewriting ([tags] lock_secret_file)")
    enroll.add_argument("--no-check", dest="check", action="store_false",
                        help="do not check the tags' originality signatures")

    doctor = sub.add_parser("doctor", help="check the table and say how to fix what fails")
    doctor.add_argument("table", nargs="?", help="the table file (default: the simulated table)")

    export = sub.add_parser("export", help="write a game of the journal as a transcript")
    export.add_argument("--journal", type=Path, help=f"the journal (default: {default_journal()})")
    export.add_argument("--game", type=int, default=None, help="the game number (default: the last)")
    export.add_argument("--list", action="store_true", help="list the journal's games (as `history` does)")

    history = sub.add_parser("history", help="the journal's games and each player's statistics", description=(
        "Every game of the journal: date and time, rule set, players, winner, score, hands and faults "
        "(replayed through the referee). --players: each player's statistics across the games."))
    history.add_argument("--journal", type=Path, help=f"the journal (default: {default_journal()})")
    history.add_argument("--players", action="store_true", help="per-player statistics instead of the games")
    history.add_argument("--json", action="store_true", help="one JSON object a game (or a player)")
    export.add_argument("-o", "--output", type=Path, help="the transcript file (default: standard output)")
    export.add_argument("--format", choices=("transcript", "record"), default="transcript",
                        help="transcript (JSON lines, the default) or record (the hand record, docs/web.md)")

    from firmware_host.deck_cli import add_parser as add_deck
    from firmware_host.journal_tools import add_parser as add_journal
    from firmware_host.review_cli import add_parser as add_review

    add_review(sub)
    add_deck(sub)
    add_journal(sub)
    for command in sub.choices.values():
        # -v after the command too (SUPPRESS: without it, the count given before the command stands)
        command.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                             help="more logging (-vv: debug)")
    return parser


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds (a number), got {text!r}") from None
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"expected 0 to 3600 seconds, got {text}")
    return value


def _depth(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of cards, got {text!r}") from None
    if not 1 <= value <= 10:
        raise argparse.ArgumentTypeError(f"a pad reads 1 to 10 stacked cards, got {text}")
    return value


def _check_rules(name: str) -> None:
    import engine

    try:
        engine.rules(name)
    except engine.UnknownRulesError as exc:
        raise BadInput(f"--rules: {exc}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """The entry point: returns the exit status."""
    args = _parser().parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    command = args.command
    try:
        if command == "replay":
            return _replay(args)
        if command == "export":
            return _export(args)
        if command == "history":
            from firmware_host.history import run_history

            return run_history(args)
        if command == "doctor":
            return _doctor(args)
        if command == "run":
            from firmware_host.app import run_service

            return run_service(args)
        if command == "demo":
            from firmware_host.demo import run_demo

            _check_rules(args.rules)
            return run_demo(args)
        if command == "sim":
            from firmware_host.console import run_sim

            _check_rules(args.rules)
            return run_sim(args)
        if command == "journal":
            from firmware_host.journal_tools import run_journal

            return run_journal(args)
        if command == "deck":
            from firmware_host.deck_cli import run_deck

            return run_deck(args)
        if command == "review":
            from firmware_host.review_cli import run_review

            return run_review(args)
        if command == "hub":
            from venue.hub import load_hub_settings, run_hub

            return run_hub(load_hub_settings(args.venue_file, listen=args.listen, broker=args.broker,
                                             venue=args.venue))
        if command == "enroll":
            from firmware_host.enroll_cli import run_enroll

            return run_enroll(args)
    except BadInput as exc:
        print(f"ecarte-table {command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # whoever read our output stopped (`| head`): nothing more to say, and nothing wrong
        from firmware_host.service import _silence

        _silence(sys.stdout)
        return 0
    except KeyboardInterrupt:
        return 130
    return 1


def _open_bytes(path: str) -> IO[bytes]:
    if path == "-":
        from firmware_host.replay import spool

        return spool(sys.stdin.buffer)
    try:
        return open(path, "rb")
    except OSError as exc:
        raise BadInput(f"cannot read {path}: {exc.strerror or exc}") from None


def _replay(args: argparse.Namespace) -> int:
    from firmware_host.controller import Controller
    from firmware_host.replay import check_stream, replay_events, stream_events, write_events
    from firmware_host.transcript import TranscriptError

    source = "<stdin>" if args.file == "-" else args.file
    with _open_bytes(args.file) as stream:
        try:
            errors = check_stream(stream, source)
            if errors:
                for error in errors:
                    print(f"ecarte-table replay: {error}", file=sys.stderr)
                return EXIT_BAD_INPUT
            stream.seek(0)
            controller = Controller()
            table_events = replay_events(controller, stream_events(stream, source), source)
            if args.json:
                write_events(table_events, sys.stdout, everything=args.all_events)
            else:
                for event in table_events:
                    print(_describe(event))
                view = controller.snapshot().view
                print(f"score A {view.score[0]} - B {view.score[1]} ({view.phase})")
            sys.stdout.flush()
        except TranscriptError as exc:
            raise BadInput(str(exc)) from None
        except OSError as exc:
            if isinstance(exc, BrokenPipeError):
                raise
            raise BadInput(f"cannot read {source}: {exc.strerror or exc}") from None
    return 0


def _describe(event) -> str:  # type: ignore[no-untyped-def]
    data = event.to_json()
    kind = data.pop("event")
    return f"{kind:10} " + " ".join(f"{k}={v}" for k, v in data.items())


def _export(args: argparse.Namespace) -> int:
    from firmware_host.journal import Journal, JournalError

    path = args.journal or default_journal()
    if not Path(path).exists():
        raise BadInput(f"no journal at {path}")
    try:
        with Journal(path, readonly=True) as journal:
            if args.list:
                from firmware_host.history import format_game, games

                for summary in games(journal):
                    print(format_game(summary))
                return 0
            record = journal.game(args.game) if args.game is not None else journal.current_game()
    except KeyError as exc:
        raise BadInput(str(exc.args[0])) from None
    except JournalError as exc:
        raise BadInput(str(exc)) from None
    if record is None:
        raise BadInput(f"the journal {path} holds no game")
    lines = list(record.lines)
    # the service writes its own setup line first; a transcript fed to it may bring another
    # before any event: each replaced the last, keeping the table's own values for the keys it
    # left out (the table file's sight, say), so the transcript keeps one line with both
    # (a setup after the first line is not a transcript TRANSCRIPT.md allows)
    while len(lines) > 1 and _is_setup(lines[0]) and _is_setup(lines[1]):
        lines[1] = _merged_setup(lines[0], lines[1])
        del lines[0]
    text = "".join(line + "\n" for line in lines)
    if args.format == "record":
        from venue.export import record_text

        text = record_text(path, record.game)
    if args.output:
        try:
            args.output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise BadInput(f"cannot write {args.output}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text)
    return 0


def _merged_setup(table: str, fed: str) -> str:
    """The setup the table played: the fed line's keys over the table's own (only keys that
    the controller takes from the table's defaults when a line leaves them out)."""
    import json

    own, given = json.loads(table)["setup"], json.loads(fed)["setup"]
    for key in ("sight", "rules", "target", "language"):
        if key not in given and key in own:
            given[key] = own[key]
    return json.dumps({"setup": given}, ensure_ascii=False, separators=(", ", ": "))


def _is_setup(line: str) -> bool:
    import json

    try:
        data = json.loads(line)
    except ValueError:
        return False
    return isinstance(data, dict) and "setup" in data


def _doctor(args: argparse.Namespace) -> int:
    from firmware_host.doctor import all_ok, format_checks, run_checks
    from hardware.table import simulated_table

    checks = run_checks(args.table if args.table else simulated_table())
    print(format_checks(checks))
    return 0 if all_ok(checks) else 1


if __name__ == "__main__":
    sys.exit(main())
