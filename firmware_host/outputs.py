"""What consumes the referee's outcomes on the event loop's thread, and the service's own outputs.

:class:`TableOutput` is what every output is to the loop (the panel, the demo, the web page and
MQTT are others), :class:`OutputSource` what brings outputs from above the service (the venue's
page and MQTT, registered by the command line); here the seats' fault lights (:class:`FaultLights`)
and ``--json`` (:class:`JsonLines`), and :class:`JournaledOutcome`, an outcome numbered as the
journal numbers it. Every output is given its outcome through :func:`deliver`, the one door of the
seats' private views: a seat's earpiece (:class:`SeatOutput`) gets its own, no other output any. The
service's own lines on the console are here too: its start (:func:`say_the_start`) and, when the fed input
ended before the game did, where it stands (:func:`say_where_it_stands`).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TextIO

from catalogue.phrase import Count, Phrase, log_said
from engine.seats import SEATS
from engine.state import Phase
from firmware_host.errors import run_said
from firmware_host.referee import CONTRACT_EVENTS, Outcome, PhysicalEvent, event_line, said_in

if TYPE_CHECKING:
    from firmware_host.journal.store import Journal
    from firmware_host.referee import Controller
    from hardware.table import TableConfig

logger = logging.getLogger(__name__)


class TableOutput(Protocol):
    """What consumes the referee's outcomes: the display, the LEDs, ``--json``, the demo,
    the web page, MQTT. Called on the event loop's thread: it must not block."""

    def publish(self, outcome: Outcome) -> None: ...


class SeatOutput(Protocol):
    """An output of one seat alone (its earpiece: :class:`firmware_host.voice.hands.Earpiece`): the
    only kind given a seat's private view, and only its own ``private_seat``'s (:func:`deliver`)."""

    private_seat: str

    def publish(self, outcome: Outcome) -> None: ...


def deliver(outputs: Iterable[TableOutput], outcome: Outcome,
            failed: Callable[[TableOutput, OSError], None] | None = None) -> None:
    """Give each output the outcome it may see, in order: the one door of the seats' private views
    (hidden cards). A :class:`SeatOutput` gets its own seat's view only; every other output (the OLED,
    the LEDs, ``--json``, the page, MQTT, the table's voice) gets the outcome with none.

    :param failed: told of an output that raised :class:`OSError` (a display unplugged, a closed
        pipe), and the others are still given the outcome; None: the error is raised.
    :raises OSError: from an output, without ``failed``.
    """
    public = outcome.seen_by(None)  # made once: most outputs take it
    for output in outputs:
        seat = getattr(output, "private_seat", None)  # a SeatOutput (a Protocol's isinstance is slow)
        try:
            output.publish(outcome.seen_by(seat) if isinstance(seat, str) else public)
        except OSError as exc:
            if failed is None:
                raise
            failed(output, exc)


class OutputSource(Protocol):
    """Something above the service that brings outputs of its own (the venue's page and MQTT
    publisher: :class:`venue.table.wiring.VenueOutputs`), registered by the command line; the service
    knows only this protocol, never the venue (mopidy's extensions registering themselves)."""

    def check(self, table: TableConfig) -> None:
        """Read and check what the outputs will need (their settings, their secret files) before any
        device starts. :raises BadInput: for a configuration they cannot start with."""
        ...

    def open(self, table: TableConfig, journal: Path | None, control: Callable[[PhysicalEvent], None],
             stack: contextlib.ExitStack) -> list[TableOutput]:
        """The outputs, started; ``stack`` closes them. ``control``: where they may put an event
        (the page's setup line). :raises BadInput: for a configuration they cannot start with."""
        ...


class SeatLights(Protocol):
    """The seats' LEDs and buzzers (:class:`drivers.seat_controls.SeatControls`)."""

    def led_on(self, seat: str) -> None: ...

    def led_off(self, seat: str) -> None: ...

    def beep(self, seat: str, *, on_time: float = 0.1, off_time: float = 0.1, n: int = 1) -> bool: ...


class FaultLights:
    """A :class:`TableOutput` that lights (and beeps) the seats with a fault to put right."""

    def __init__(self, lights: SeatLights) -> None:
        self.lights = lights
        self._lit: frozenset[str] = frozenset()

    def publish(self, outcome: Outcome) -> None:
        lit = outcome.snapshot.faulty_seats
        for seat in lit - self._lit:
            self.lights.led_on(seat)
            self.lights.beep(seat, n=2)  # a seat without a buzzer only lights up
        for seat in self._lit - lit:
            self.lights.led_off(seat)
        self._lit = lit


class JsonLines:
    """A :class:`TableOutput` that prints table events as JSON lines (``--json``): the kinds
    of docs/transcript.md's contract, or ``everything``. Each carries its ``seq`` when the outcome
    has one (:class:`JournaledOutcome`). A reader that went away (a closed pipe) is told once
    in the log; the table referees on."""

    def __init__(self, out: TextIO, *, everything: bool = False) -> None:
        self.out = out
        self.everything = everything
        self.closed = False

    def publish(self, outcome: Outcome) -> None:
        if self.closed:
            return
        first = outcome.first_seq if isinstance(outcome, JournaledOutcome) else None
        names = outcome.snapshot.players
        seated = {"players": dict(zip(SEATS, names[:2], strict=True))} if names[:2] != SEATS else None
        text = "".join(
            event_line(ev, None if first is None else first + index,
                       seated if ev.event in ("game_end", "new_game") else None) + "\n"
            for index, ev in enumerate(outcome.events)
            if self.everything or ev.event in CONTRACT_EVENTS
        )
        if not text:
            return
        try:
            self.out.write(text)
            self.out.flush()
        except BrokenPipeError:
            self.closed = True
            log_said(logger, logging.WARNING, Phrase.of("log.json_reader_gone"))
            silence(self.out)


def silence(out: TextIO) -> None:
    """Point a stream whose reader is gone at /dev/null (so that closing it says nothing)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, out.fileno())
        os.close(devnull)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


@dataclass(frozen=True, slots=True)
class JournaledOutcome(Outcome):
    """An :class:`Outcome` of a journaled line: its events are numbered ``first_seq``,
    ``first_seq + 1``... (every kind counts), the same numbers after a restart."""

    first_seq: int = 0


def say_the_start(journal: Journal, table: TableConfig) -> None:
    """The service's first console line (at INFO, in the console's language): its journal, how much it
    holds, the table and its pads."""
    games, lines = len(journal.games()), journal.fed_lines()
    pads = ", ".join(f"{pad.name}={pad.device}" for pad in table.pads)
    log_said(logger, logging.INFO, Phrase.of("log.service", journal=str(journal.path), n=games, lines=Count(lines),
                                             table=table.name, pads=pads or Phrase.of("log.no_pads")))


def say_where_it_stands(controller: Controller, journal: str | os.PathLike[str], lang: str = "en") -> None:
    """The input ended with the game unfinished: say where it stands and how to go on, in ``lang``."""
    from catalogue import say

    snapshot = controller.snapshot()
    view = snapshot.view
    if view.phase == Phase.OVER:
        return
    a, b = snapshot.players[0], snapshot.players[1]
    where = say(lang, "run.where_it_stands", game=snapshot.game, hand=snapshot.hand_no,
                phase=say(lang, f"phase.{view.phase}"), a=a, score_a=view.score[0], b=b, score_b=view.score[1],
                waits=said_in(snapshot.expectation, lang), journal=str(journal))
    print(run_said(lang, where), file=sys.stderr)
