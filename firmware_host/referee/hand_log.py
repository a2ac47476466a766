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

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

import engine
from engine import Event, Fault, GameState
from engine.actions import Action
from engine.events import HandReplayed
from firmware_host.referee.table_events import HandRecord


def new_deal(before: GameState, after: GameState) -> bool:
    """Whether ``after`` is a new deal (next hand, next game, or a void deal): the cards are gathered."""
    return after is not before and after.phase == "deal" and after.hands == (0, 0) and (
        after.hand_no != before.hand_no or after.game_no != before.game_no or before.hands != (0, 0)
    )


def trick_points(hand: engine.HandEnd, notes: Iterable[Event]) -> tuple[int, int]:
    """What the tricks of ``hand`` scored each seat (A, B): its points less the kings and penalties of
    ``notes`` (the hand's, :attr:`HandLog.notes`), which were scored, and said, when they happened::

        >>> trick_points(engine.HandEnd((3, 2), (2, 0), (4, 1)), [engine.King("A", (3, 1))])
        (1, 0)
    """
    notes = tuple(notes)
    out = []
    for i, seat in enumerate(engine.SEATS):
        kings = sum(1 for n in notes if isinstance(n, engine.King) and n.seat == seat)
        penalties = sum(n.points for n in notes if isinstance(n, engine.Penalty) and n.seat == seat)
        out.append(hand.points[i] - kings - penalties)
    return out[0], out[1]


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
        log = self
        if not refused:
            log = dataclasses.replace(log, actions=(*log.actions, action))
        if new_deal(before, after) and after.hand_no == before.hand_no and after.game_no == before.game_no:
            log = dataclasses.replace(log, actions=())  # a void deal: dealt again, nothing to record
        for ev in events:
            if not isinstance(ev, Fault):
                log = log._remember(ev)
            elif ev.late and ev.code == "false_king":
                log = log._forget_king(ev.seat)
        if not any(isinstance(e, engine.HandEnd | engine.GameEnd) for e in events):
            return log, []
        record = HandRecord(log.game, before.hand_no, before.dealer,
                            {"name": before.rules.name, **before.rules.options()},
                            tuple(a.to_json() for a in log.actions))
        return dataclasses.replace(log, actions=()), [record]

    def _forget_king(self, seat: str | None) -> HandLog:
        """A king proven false: its point is taken back (rule 25, ``take_back_king``), so it is no
        longer among the hand's points."""
        kings = [i for i, n in enumerate(self.notes) if isinstance(n, engine.King) and n.seat == seat]
        if not kings:
            return self
        return dataclasses.replace(self, notes=self.notes[:kings[-1]] + self.notes[kings[-1] + 1:])

    def _remember(self, ev: Event) -> HandLog:
        log = self
        if isinstance(ev, engine.King | engine.Penalty) or (isinstance(ev, engine.Bid) and ev.vulnerable):
            log = dataclasses.replace(log, notes=(*log.notes, ev))
        if isinstance(ev, HandReplayed):
            # the hand played again keeps its kings' points and undoes its penalties (engine.phases.tricks.remedy)
            log = dataclasses.replace(log, notes=tuple(n for n in log.notes if not isinstance(n, engine.Penalty)))
        if isinstance(ev, engine.Trick):
            log = dataclasses.replace(log, last_trick=ev)
        elif isinstance(ev, engine.HandEnd):
            log = dataclasses.replace(log, last_hand=ev)
        elif isinstance(ev, engine.Trump):
            log = dataclasses.replace(log, last_hand=None, last_trick=None, notes=())
        return log

    def new_game(self) -> HandLog:
        """The next game: its number, nothing of the last one's play (the notes stay until its first turn-up)."""
        return HandLog(self.game + 1, notes=self.notes)
