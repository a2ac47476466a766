"""What every phase handler gives back: the new state and its events, or a fault.

A handler takes a state and one action; :func:`engine.game.apply` dispatches to it.
"""

from __future__ import annotations

from engine.events import Event
from engine.faults import Fault, fault
from engine.prompts import expectation
from engine.state import GameState

Result = tuple[GameState, tuple[Event, ...]]
Outcome = Fault | Result


def wrong_time(state: GameState, seat: str | None, what: str) -> Fault:
    expects = expectation(state)
    return fault("wrong_time", seat, f"{what} is not possible now: {expects}")
