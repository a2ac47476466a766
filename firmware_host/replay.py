"""``ecarte-table replay``: a transcript through the real controller, offline."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import TextIO

from engine import Event
from firmware_host.controller import CONTRACT_EVENTS, Controller
from firmware_host.transcript import PhysicalEvent, TranscriptError, read_transcript


def read_all(lines: Iterable[str], source: str) -> tuple[list[tuple[int, PhysicalEvent]], list[TranscriptError]]:
    """Every event of a transcript and every bad line (with its number)."""
    errors: list[TranscriptError] = []
    events = list(read_transcript(lines, source=source, errors=errors))
    return events, errors


def replay_events(controller: Controller, events: Iterable[tuple[int, PhysicalEvent]],
                  source: str) -> Iterator[Event]:
    """The table events of a transcript's physical events.

    :raises TranscriptError: for a setup the engine cannot play (unknown rule set).
    """
    from engine import NotationError

    for line_no, event in events:
        try:
            yield from controller.handle(event).events
        except NotationError as exc:
            raise TranscriptError(source, line_no, str(exc)) from None


def event_line(event: Event) -> str:
    """One line of ``--json`` output."""
    return json.dumps(event.to_json(), ensure_ascii=False)


def write_events(events: Iterable[Event], out: TextIO, *, everything: bool) -> None:
    """Print table events: the contract's kinds, or ``everything``."""
    for event in events:
        if everything or event.event in CONTRACT_EVENTS:
            out.write(event_line(event) + "\n")
