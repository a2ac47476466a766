"""A transcript, or a game of the journal, through a fresh referee: the one reading of a game.

:func:`replay_game` is how every reader of the journal reads a game — the service resuming
it, ``review``, ``history``, ``export --list`` and the page's history: each line the table
took, in order, through the referee, a refused line skipped as it was when it came. A game of
the journal begins with the table's own setup line and may hold more setups (a transcript fed
with ``run --events`` brings its own, the page's setup), which a transcript may not.

``ecarte-table replay``: a transcript through the real controller, offline.

Streams: a transcript of any length is read twice, line by line (standard input is
spooled to a temporary file first), once to report every bad line and once to play it;
memory does not grow with its length.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import IO, Generic, TextIO, TypeVar

from engine import Event, NotationError
from firmware_host.journal.store import REJECTED, GameRecord
from firmware_host.referee import (
    CONTRACT_EVENTS,
    Controller,
    NewGame,
    Outcome,
    PhysicalEvent,
    Setup,
    TranscriptError,
    event_line,
    parse_line,
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
        yield from _refereed(controller, event, source, line_no).events


def _refereed(controller: Controller, event: PhysicalEvent, source: str, line_no: int) -> Outcome:
    """The controller's outcome of one line, or the line named in a :class:`TranscriptError`."""
    try:
        return controller.handle(event)
    except NotationError as exc:
        raise TranscriptError(source, line_no, str(exc)) from None
    except Exception as exc:  # a referee's bug: say where, without a traceback (-vv has it)
        logger.debug("the referee failed on line %d of %s", line_no, source, exc_info=True)
        raise TranscriptError(
            source, line_no, f"the referee failed on this line ({type(exc).__name__}: {exc})",
        ) from None


OutcomeT = TypeVar("OutcomeT", bound=Outcome)


@dataclass(frozen=True, slots=True)
class Replayed(Generic[OutcomeT]):
    """One line of a journal game as the referee took it again."""

    number: int
    """The line's number in its game, from 1 (the table's setup line)."""
    index: int
    """Its place in :attr:`GameRecord.lines` (from 0)."""
    event: PhysicalEvent
    outcome: OutcomeT | None
    """What the referee made of it; None when it refused it (the line is then as if it had not come)."""

    @property
    def new_game(self) -> bool:
        """The line started a new game (``yes`` once a game is over): what follows is the next game's."""
        return self.outcome is not None and any(isinstance(e, NewGame) for e in self.outcome.events)


def strict(controller: Controller) -> Callable[[PhysicalEvent, str], Outcome]:
    """A referee for :func:`replay_game` that raises on a line the controller refuses.

    :raises TranscriptError: naming the line (a setup the engine cannot play, a referee's bug).
    """

    def referee(event: PhysicalEvent, where: str) -> Outcome:
        source, _, number = where.rpartition(":")
        return _refereed(controller, event, source, int(number) if number.isdigit() else 0)

    return referee


def merged_setup(table: Setup, given: Setup) -> Setup:
    """A setup line after the table's own (a fed transcript's, the page's), as the table took it:
    what it leaves out is the table's (its rules, target, dealer, names, sight, language and tags), as the
    live referee takes it from its defaults."""
    return replace(
        given, rules=given.rules or table.rules, target=given.target or table.target,
        dealer=given.dealer or table.dealer, players=given.players or table.players,
        sight=given.sight or table.sight, language=given.language or table.language,
        tags={**table.tags, **given.tags},
    )


def replay_game(record: GameRecord, referee: Callable[[PhysicalEvent, str], OutcomeT | None], *,
                source: str) -> Iterator[Replayed[OutcomeT]]:
    """Feed the lines of a journal game to a fresh referee, in order: the one reading of a game.

    Lines the table refused when they came (journaled ``REJECTED``) are skipped; blank lines and
    comments hold no event. A setup line after the first is taken as the table took it
    (:func:`merged_setup`). ``referee(event, where)`` is :func:`strict` (a controller) for a
    reader, the service's own for a resume; ``where`` is ``"{source}:{number}"``.

    :raises TranscriptError: for a line that cannot be read (the journal is not what was
        written: its checks should have said so), naming the line.
    """
    status = record.status or (0,) * len(record.lines)
    table: Setup | None = None
    for index, (line, state) in enumerate(zip(record.lines, status, strict=True)):
        if state == REJECTED:
            continue
        number = index + 1
        event = parse_line(line, source=source, line_no=number)
        if event is None:
            continue
        if isinstance(event, Setup):
            if table is None and number == 1:
                table = event  # the table's own setup: its defaults for the setups after it
            elif table is not None:
                event = merged_setup(table, event)
        yield Replayed(number, index, event, referee(event, f"{source}:{number}"))


def write_events(events: Iterable[Event], out: TextIO, *, everything: bool) -> None:
    """Print table events: the contract's kinds, or ``everything``; each with its ``seq`` (every
    kind counts, from 1: the numbers ``run --json`` gives the same game on a new journal)."""
    for seq, event in enumerate(events, start=1):
        if everything or event.event in CONTRACT_EVENTS:
            out.write(event_line(event, seq) + "\n")
