"""The hand log: a consumer of the referee's events that keeps what the table shows of past play
and writes each hand's record once it is over (python-chess's ``GameBuilder``: the record is
built beside the game, the board stays a board).

It keeps the last trick and the last hand's result (the screens show them), where the hand's
points came from besides its tricks (a king, a penalty, a bid *d'autorité*), and the actions the
table accepted in the hand; at the hand's end it gives the :class:`HandRecord` of them.

A frozen value: each step gives the log after it (the referee's state keeps it).

    >>> import engine
    >>> before = engine.new_game("classic", dealer="B")
    >>> after, events = engine.apply(before, engine.actions.DealCard("A", engine.Card.parse("KH")))
    >>> log, records = HandLog().consume(before, after, engine.actions.DealCard("A", engine.Card.parse("KH")),
    ...                                  events, refused=False)
    >>> records, log.last_trick is None, log.game, len(log.actions)
    ([], True, 1, 1)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import engine
from engine import Event, Fault, GameState
from engine.actions import Action
from engine.events import HandReplayed
from engine.faults import FaultCode
from engine.state import Phase
from firmware_host.referee.table_events import HandRecord


def new_deal(before: GameState, after: GameState) -> bool:
    """Whether ``after`` is a new deal (next hand, next game, or a void deal): the cards are gathered."""
    return after is not before and after.phase == Phase.DEAL and after.hands == (0, 0) and (
        after.hand_no != before.hand_no or after.game_no != before.game_no or before.hands != (0, 0)
    )


@dataclass(frozen=True, slots=True)
class HandLog:
    """What the table keeps of the play (see the module's docstring)."""

    game: int = 1
    """The number of the game under way (the journal's: each new game is the next number)."""
    last_trick: engine.Trick | None = None
    last_hand: engine.HandEnd | None = None
    notes: tuple[Event, ...] = ()
    """Where the hand's points came from besides its tricks (the hand screen says)."""
    actions: tuple[Action, ...] = ()
    """The actions the table accepted in the hand so far."""

    def consume(self, before: GameState, after: GameState, action: Action, events: Iterable[Event],
                *, refused: bool) -> tuple[HandLog, list[Event]]:
        """The engine took ``action`` from ``before`` to ``after`` with ``events`` (``refused``: it
        refused it): the log after it, and the hand's record when the hand is over."""
        events = tuple(events)
        actions = self.actions if refused else (*self.actions, action)
        if new_deal(before, after) and after.hand_no == before.hand_no and after.game_no == before.game_no:
            actions = ()  # a void deal: dealt again, nothing to record
        notes, last_trick, last_hand = self.notes, self.last_trick, self.last_hand
        for ev in events:
            if isinstance(ev, Fault):
                if ev.late and ev.code == FaultCode.FALSE_KING:
                    notes = _without_king(notes, ev.seat)
                continue
            if isinstance(ev, engine.King | engine.Penalty) or (isinstance(ev, engine.Bid) and ev.vulnerable):
                notes = (*notes, ev)
            if isinstance(ev, HandReplayed):
                # the hand played again keeps its kings' points and undoes its penalties (engine.phases.tricks.remedy)
                notes = tuple(n for n in notes if not isinstance(n, engine.Penalty))
            if isinstance(ev, engine.Trick):
                last_trick = ev
            elif isinstance(ev, engine.HandEnd):
                last_hand = ev
            elif isinstance(ev, engine.Trump):
                last_hand, last_trick, notes = None, None, ()
        records: list[Event] = []
        if any(isinstance(e, engine.HandEnd | engine.GameEnd) for e in events):
            records.append(HandRecord(self.game, before.hand_no, before.dealer,
                                      {"name": before.rules.name, **before.rules.options()},
                                      tuple(a.to_json() for a in actions)))
            actions = ()
        return HandLog(self.game, last_trick, last_hand, notes, actions), records

    def new_game(self) -> HandLog:
        """The next game: its number, nothing of the last one's play (the notes stay until its first turn-up)."""
        return HandLog(self.game + 1, notes=self.notes)


def _without_king(notes: tuple[Event, ...], seat: str | None) -> tuple[Event, ...]:
    """A king proven false: its point is taken back (rule 25, ``take_back_king``), so it is no
    longer among the hand's points."""
    kings = [i for i, n in enumerate(notes) if isinstance(n, engine.King) and n.seat == seat]
    return notes[:kings[-1]] + notes[kings[-1] + 1:] if kings else notes
