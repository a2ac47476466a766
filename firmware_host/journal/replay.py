"""``ecarte-table replay``: a transcript through the real controller, offline.

Streams: a transcript of any length is read twice, line by line (standard input is
spooled to a temporary file first), once to report every bad line and once to play it;
memory does not grow with its length.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from typing import IO, TextIO

from engine import Event, NotationError
from firmware_host.referee.controller import CONTRACT_EVENTS, Controller
from firmware_host.referee.transcript import (
    PhysicalEvent,
    TranscriptError,
    event_line,
    read_lines,
    read_numbered,
    read_transcript,
)

logger = logging.getLogger(__name__)

_SPOOL_BYTES = 1 << 20  # standard input is kept in memory up to this size, then on disk


def read_all(lines: Iterable[str], source: str) -> tuple[list[tuple[int, PhysicalEvent]], list[TranscriptError]]:
    """Every event of a transcript and every bad line (with its number)."""
    errors: list[TranscriptError] = []
    events = list(read_transcript(lines, source=source, errors=errors))
    return events, errors


def spool(stream: IO[bytes]) -> IO[bytes]:
    """A rewindable copy of ``stream`` (standard input), in memory while small."""
    copy = tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES)  # noqa: SIM115 (the caller closes it)
    shutil.copyfileobj(stream, copy)
    copy.seek(0)
    return copy


def check_stream(stream: IO[bytes], source: str) -> list[TranscriptError]:
    """Every bad line of a transcript (its events are read and dropped)."""
    errors: list[TranscriptError] = []
    for _ in read_numbered(read_lines(stream, source), source=source, errors=errors):
        pass
    return errors


def stream_events(stream: IO[bytes], source: str) -> Iterator[tuple[int, PhysicalEvent]]:
    """The events of a transcript checked by :func:`check_stream`."""
    return read_numbered(read_lines(stream, source), source=source, errors=[])


def replay_events(controller: Controller, events: Iterable[tuple[int, PhysicalEvent]],
                  source: str) -> Iterator[Event]:
    """The table events of a transcript's physical events.

    :raises TranscriptError: for a line the controller cannot take (a setup that the
        engine cannot play), naming the line.
    """
    for line_no, event in events:
        try:
            outcome = controller.handle(event)
        except NotationError as exc:
            raise TranscriptError(source, line_no, str(exc)) from None
        except Exception as exc:  # a referee's bug: say where, without a traceback (-vv has it)
            logger.debug("the referee failed on line %d", line_no, exc_info=True)
            raise TranscriptError(
                source, line_no, f"the referee failed on this line ({type(exc).__name__}: {exc})",
            ) from None
        yield from outcome.events


def write_events(events: Iterable[Event], out: TextIO, *, everything: bool) -> None:
    """Print table events: the contract's kinds, or ``everything``; each with its ``seq`` (every
    kind counts, from 1: the numbers ``run --json`` gives the same game on a new journal)."""
    for seq, event in enumerate(events, start=1):
        if everything or event.event in CONTRACT_EVENTS:
            out.write(event_line(event, seq) + "\n")
