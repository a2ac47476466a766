"""What every phase handler gives back: the new state and its events, or a fault.

A handler takes a state and one action; :func:`engine.game.apply` dispatches to it.
"""

from __future__ import annotations

from engine.events import Event
from engine.faults import Fault, FaultCode, fault
from engine.prompts import expecting
from engine.state import GameState

Result = tuple[GameState, tuple[Event, ...]]
Outcome = Fault | Result


def wrong_time(state: GameState, seat: str | None, what: str, **values: object) -> Fault:
    """``seat`` tried ``what`` (the catalogue's ``says.doing.<what>``) when the table waits for
    something else."""
    return fault(FaultCode.WRONG_TIME, seat, "wrong_time", None, detail=None, what=what, **expecting(state), **values)

