"""``--events``: transcript lines read as they arrive and queued for the event loop, in order.

The reader runs on its own thread and only queues (:meth:`~firmware_host.service.TableService.put_line`);
the loop journals and referees each line as it does a pad's event.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from typing import IO

from catalogue.phrase import Phrase, log_said, os_words
from firmware_host.referee import CardEvent, PhysicalEvent, Setup, TranscriptError, parse_line, read_lines
from firmware_host.service import InputLine, TableService

__all__ = ["feed_lines", "refuse_card_names"]

logger = logging.getLogger(__name__)


def refuse_card_names(event: PhysicalEvent, source: str, line_no: int) -> None:
    """On a table with a tag registry, a stream line may not name cards (see :func:`feed_lines`).

    :raises TranscriptError: a card event naming its card, or vouching for its tag (its ``origin``
        or ``pack``: only the pads' sightings carry them), or a setup mapping tags to cards.
    """
    if isinstance(event, CardEvent) and event.card is not None:
        raise TranscriptError(source, line_no, "this table names its cards by their tags (a registry): a card "
                                               f"named on the stream ({event.card}) is refused; give its \"uid\"")
    seen = event.sighting if isinstance(event, CardEvent) else None
    if seen is not None and (seen.origin is not None or seen.pack is not None):
        raise TranscriptError(source, line_no, "this table checks its tags itself (a registry): a tag's "
                                               "\"origin\" or \"pack\" on the stream is refused; give its \"uid\"")
    if isinstance(event, Setup) and event.tags:
        raise TranscriptError(source, line_no, "this table names its cards by their tags (a registry): "
                                               "a setup's \"tags\" map is refused")


def feed_lines(
    service: TableService, stream: IO[bytes], source: str, *, stop_at_end: bool = True, pads_sight: str = "full",
    registry: bool = False, pace: float = 0.0, at_end: Callable[[], None] | None = None, language: str = "en",
) -> None:
    """Read transcript lines as they arrive and queue them, in order (runs on its own thread).

    Streams (at most :data:`~firmware_host.service.FEED_WINDOW` lines wait in the queue). Every line is queued, a bad
    one with its problem, so that the loop counts it in the journal and reports it with its
    number; the reader never dies of a line, and the service is always told when it ends
    (``stop_at_end``), or ``at_end`` is called.

    A transcript's setup rules its game as ``replay`` plays it: one that names no ``sight`` is
    at full sight (docs/transcript.md's default), whatever the table's own pads (``pads_sight``) read,
    and is journaled so. Where the table's pads cannot give what it asks (full sight on pads that
    may miss stacked cards) one line says so, in the console's ``language``.

    :param pace: seconds to wait before each line after the first that holds an event (a
        person watching the page follows the game); 0: as fast as they come.
    :param registry: the table names its cards by a tag registry: a line that names a card
        (``"card"``), vouches for its tag (``"origin"``, ``"pack"``) or maps tags to cards (a
        setup's ``tags``) is refused at the door, as the pads' sightings are the only source of
        card names and verdicts there (the registry, the pack guard and the originality check
        stand behind them; a stream line has none of them). Tags by ``uid`` alone go through the
        registry and the guard like a pad's (where genuine tags are required, refused: nothing
        vouches for them).
    """
    first = True
    try:
        for line_no, text in read_lines(stream, source):
            if pace:
                holds = isinstance(text, str) and bool(text.strip()) and not text.lstrip().startswith("#")
                if holds and not first:
                    time.sleep(pace)
                first = first and not holds
            service.feed_slots.acquire()
            if isinstance(text, TranscriptError):
                service.put_line(InputLine(None, text, slot=True))
                continue
            try:
                event = parse_line(text, source=source, line_no=line_no)
                if registry and event is not None:
                    refuse_card_names(event, source, line_no)
            except TranscriptError as exc:
                service.put_line(InputLine(None, exc, slot=True))
                continue
            if isinstance(event, Setup):
                event = _transcript_setup(event, service, f"{source}:{line_no}", pads_sight, language)
            service.put_line(InputLine(event, slot=True, where=f"{source}:{line_no}"))
    except OSError as exc:
        log_said(logger, logging.ERROR, Phrase.of("log.reading", source=source, why=os_words(exc)))
        problem = TranscriptError(source, 0, f"cannot read on: {exc.strerror or exc}")
        service.put_line(InputLine(None, problem, fed=False))
    finally:
        if stop_at_end:
            service.stop(f"end of {source}", wait=True, said=Phrase.of("log.end_of", source=source))
        elif at_end is not None:
            at_end()


def _transcript_setup(setup: Setup, service: TableService, where: str, pads_sight: str, language: str) -> Setup:
    """A fed setup as ``replay`` reads it (no ``sight``: full), and the one line that says when the
    table's own pads cannot give that sight (in the console's ``language``)."""
    named = setup.sight is not None
    if not named:
        setup = dataclasses.replace(setup, sight="full")
    if setup.sight == "full" and pads_sight == "partial":
        service.report(Phrase.of("run.full_sight" if named else "run.full_sight_unnamed", where=where))
    return setup
