"""The referee: physical events in, table events out; a thin holder of the referee's state.

The referee is a function of its state, as the engine is
(:func:`~firmware_host.referee.game_under_way.referee`: a frozen
:class:`~firmware_host.referee.referee_state.RefereeState` and a physical event give the next state
and the :class:`~firmware_host.referee.snapshot.Outcome`). The controller keeps the current state
for its callers (the service, the replay, the players): :meth:`Controller.handle` is
``state, outcome = referee(state, event)``; an event the referee refuses (it raises) leaves the
state as it was. The state's parts are described in :mod:`firmware_host.referee.referee_state`
(docs/architecture.md, *The referee's parts*).

The controller is not thread-safe by design: one thread (the service's event loop) calls
:meth:`Controller.handle` for each physical event, in order; readers and buttons only put events
on that thread's queue.

Each input gives an :class:`~firmware_host.referee.snapshot.Outcome`: the table events it
caused, a frozen :class:`~firmware_host.referee.snapshot.TableSnapshot` of what the table
shows after it and each seat's private view (:mod:`firmware_host.referee.private_view`, for that
seat's earpiece alone). Those are the only way out: nothing reads the state's parts.

    >>> from firmware_host.referee.transcript import CardEvent, ButtonEvent, Setup
    >>> from firmware_host.referee.event_words import said_in
    >>> table = Controller()
    >>> _ = table.handle(Setup(rules="classic", dealer="B"))
    >>> cards = ["KH", "QH", "JH", "AH", "TH", "7S", "8S", "9S", "TS", "AS"]
    >>> for i, card in enumerate(cards):
    ...     _ = table.handle(CardEvent("hand.A" if i < 5 else "hand.B", card))
    >>> [e.to_json() for e in table.handle(CardEvent("turnup", "7D")).events]
    [{'event': 'trump', 'card': '7D'}]
    >>> outcome = table.handle(CardEvent("play.B", "7S"))
    >>> [e.to_json()["code"] for e in outcome.events], outcome.snapshot.faulty_seats
    (['out_of_turn'], frozenset({'B'}))
    >>> said_in(outcome.snapshot.expectation)
    'play has not begun (A: propose or play?): take back the 7♠'
    >>> outcome = table.handle(CardEvent("play.B", "7S", gone=True))
    >>> [e.to_json()["event"] for e in outcome.events], said_in(outcome.snapshot.expectation, "it")
    (['corrected'], 'A: proponi o giochi?')
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from engine import Event, RuleSet
from firmware_host.referee import game_under_way, referee_state
from firmware_host.referee.card_namer import Registry
from firmware_host.referee.referee_state import RefereeState
from firmware_host.referee.snapshot import Outcome, TableSnapshot
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.referee.transcript import PhysicalEvent, Setup


class Controller:
    """Turns pad and button events into engine actions; says what the table shows.

    :param defaults: the table's configured game (rule set, target, options, and its tag policy:
        ``require_genuine``, ``ndef_pack``).
    :param registry: the tag registry (``TagRegistry``), asked only for a tag whose line does not
        carry its card's pack (a transcript's); each tag is judged before the rules see its card:
        one pack per game (``foreign_pack``), genuine tags (``counterfeit_card``). See
        :mod:`firmware_host.referee.card_namer` and :mod:`firmware_host.referee.pack_guard`.
    :param advisor: learners' hints (:class:`~firmware_host.referee.elder_hint.ElderHint`).
    """

    def __init__(self, defaults: TableDefaults | None = None, *, registry: Registry | None = None,
                 advisor: Callable[[RuleSet, int, int, str], str] | None = None) -> None:
        self._start = functools.partial(referee_state.start, defaults, registry=registry, advisor=advisor)
        self.state: RefereeState = self._start()
        """The referee's state after the last input (a frozen value: each input replaces it)."""

    def begin(self, game: int) -> None:
        """The table's referee afresh, at the journal's game number ``game`` (before the first
        input: the service's resume, a typed session's journal). The referee numbers the games it
        starts itself, the next one each time, as the journal does."""
        self.state = self._start(game=game)

    def snapshot(self) -> TableSnapshot:
        """What the table shows now."""
        return referee_state.snapshot(self.state)

    def current_setup(self) -> Setup:
        """The setup line that starts the current game (what the journal writes first)."""
        return referee_state.setup_line(self.state)

    def handle(self, event: PhysicalEvent) -> Outcome:
        """Referee one physical event: the table events it causes (maybe none) and the snapshot
        after it. If the referee raises, the state is the one before the event.

        :raises NotationError: for a setup line the engine cannot play (unknown rule set or option).
        """
        self.state, outcome = game_under_way.referee(self.state, event)
        return outcome

    def outcome(self, events: Sequence[Event] = ()) -> Outcome:
        """``events`` with what follows them: the snapshot and each seat's private view (no
        events: the table as it stands, for an output that starts or must be shown it again)."""
        return game_under_way.outcome(self.state, tuple(events))

    def reader(self, zone: str, online: bool, reason: str = "") -> Outcome:
        """A reader went offline or came back (from the pad driver): see
        :func:`~firmware_host.referee.game_under_way.reader`."""
        self.state, outcome = game_under_way.reader(self.state, zone, online, reason)
        return outcome
