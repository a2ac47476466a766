"""``ecarte-table replay``: a transcript through the referee (:mod:`firmware_host.journal.replay`)."""

from __future__ import annotations

import argparse
import sys
from typing import IO, Any

from catalogue import say
from catalogue.phrase import said
from cli.args import EXIT_BAD_INPUT
from cli.words import asked
from firmware_host.errors import BadInput

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``replay`` to the ``ecarte-table`` sub-commands."""
    replay: argparse.ArgumentParser = sub.add_parser(
        "replay", description=(
        "Play a transcript (one JSON object a line) through the real controller and print the "
        "table events. Every bad line is reported with its number (exit status 2)."))
    replay.add_argument("file", help="the transcript, or - for standard input")
    replay.add_argument("--json", action="store_true", help="print table events as docs/transcript.md specifies")
    replay.add_argument("--all-events", action="store_true", help="with --json, every event kind")
    return replay


def _open_bytes(path: str) -> IO[bytes]:
    if path == "-":
        from firmware_host.journal.replay import spool

        return spool(sys.stdin.buffer)
    try:
        return open(path, "rb")
    except OSError as exc:
        raise BadInput(msgid="error.cannot_read", path=path, reason=exc) from None


def run(args: argparse.Namespace) -> int:
    from firmware_host.journal.replay import check_stream, replay_events, stream_events, write_events
    from firmware_host.referee import Controller, TranscriptError

    source = "<stdin>" if args.file == "-" else args.file
    with _open_bytes(args.file) as stream:
        try:
            errors = check_stream(stream, source)
            if errors:
                for error in errors:  # each bad line in the reader's language (the --json protocol is stdout's)
                    print(f"ecarte-table replay: {said(error, asked(args))}", file=sys.stderr)
                return EXIT_BAD_INPUT
            stream.seek(0)
            controller = Controller()
            table_events = replay_events(controller, stream_events(stream, source), source)
            if args.json:
                write_events(table_events, sys.stdout, everything=args.all_events)
            else:
                for event in table_events:
                    print(_describe(event))
                view = controller.snapshot().view  # the events above are the protocol's fields; the score in words
                lang = asked(args)
                print(say(lang, "replay.score", a=view.score[0], b=view.score[1],
                          phase=say(lang, "phase." + view.phase)))
            sys.stdout.flush()
        except TranscriptError as exc:
            raise BadInput(str(exc), words=exc) from None
        except OSError as exc:
            if isinstance(exc, BrokenPipeError):
                raise
            raise BadInput(msgid="error.cannot_read", path=source, reason=exc) from None
    return 0


def _describe(event) -> str:  # type: ignore[no-untyped-def]
    from firmware_host.referee import contract_json

    data = contract_json(event)  # a fault's and a notice's words, in English, as --json prints them
    kind = data.pop("event")
    return f"{kind:10} " + " ".join(f"{k}={v}" for k, v in data.items())
