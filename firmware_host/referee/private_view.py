"""What each seat alone may know now: the referee's private view of one seat, the only way a hidden card leaves it
before its hand is over.

Every :class:`~firmware_host.referee.snapshot.Outcome` carries one :class:`PrivateView` a seat
(``outcome.private["A"]``), made here from the engine's state by :func:`private_views`: the seat's hand
as the referee judged it (the cards dealt to it and drawn, less those it discarded and played, back
when the hands are played again, none once the hand is over or the deal void), how many more it holds
that the pads could not read (partial sight), and its own discards. The service gives each seat's view
to that seat's earpiece alone, and the outcome without any to every other output
(:meth:`Outcome.seen_by <firmware_host.referee.snapshot.Outcome.seen_by>`).

    >>> import engine
    >>> state = engine.new_game("classic", dealer="A")
    >>> for card in ("KS", "9H"):
    ...     state, _ = engine.apply(state, engine.DealCard("B", engine.Card.parse(card)))
    >>> views = private_views(state)
    >>> [str(c) for c in views["B"].hand], views["A"].hand
    (['KS', '9H'], ())
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from engine import GameState
from engine.cards import cards_of
from engine.seats import SEATS
from firmware_host.referee.snapshot import PrivateView, Sight


@dataclass(frozen=True, slots=True)
class PrivateViews(Mapping[str, PrivateView]):
    """Each seat's :class:`PrivateView` of one engine state, by seat (``A``, ``B``), made when it is
    asked for: only a seat's earpiece asks (most tables have none), so an outcome costs the referee
    nothing more than this value."""

    state: GameState

    def __getitem__(self, seat: str) -> PrivateView:
        if seat not in SEATS:
            raise KeyError(seat)
        i, state = SEATS.index(seat), self.state
        sight = Sight.of(state)  # a hand never holds more than five (docs/transcript.md, *Partial sight*)
        return PrivateView(seat, cards_of(state.hands[i]), max(0, sight.held[i] - sight.seen[i]),
                           cards_of(state.discards[i]))

    def __iter__(self) -> Iterator[str]:
        return iter(SEATS)

    def __len__(self) -> int:
        return len(SEATS)

    def __contains__(self, seat: object) -> bool:
        return seat in SEATS


def private_views(state: GameState) -> Mapping[str, PrivateView]:
    """Each seat's private view of ``state`` (read only, made when asked), by seat: ``A`` and ``B``."""
    return PrivateViews(state)
