"""Partial sight: what the table knows of the hands, and what that knowledge proves.

With ``sight="partial"`` (docs/transcript.md, *Partial sight*) a state's ``hands`` are the cards
the table *knows* each seat holds and ``unseen`` how many more it holds. This module says,
from that knowledge alone, which cards a seat is known **not** to hold and which faults the
cards accepted so far prove. Nothing else is proof: no reasoning about where unseen cards
might be, an announcement proves nothing, a card refused on a play pad tells nothing.

    >>> from engine.game import new_game
    >>> state = new_game("classic", dealer="A", sight="partial")
    >>> state.evolve(hands=(0, 1), turn_up=9, phase=Phase.PLAY, unseen=(5, 4)).sight
    'partial'
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cards import ALL_CARDS
from engine.faults import FaultCode
from engine.legality import king_index, play_fault_code
from engine.seats import SEATS
from engine.state import GameState, Phase


class FullSight:
    """Full sight: every card laid on a pad is seen. The hooks the handlers ask (as
    python-chess's variants answer the board's questions): what a seat may hold, what may
    come from the stock, whether the table counts the exchange."""

    name = "full"
    counts_exchange = True
    """The table sees every discard and draw: it counts them against the rule set's limits."""

    def may_hold(self, state: GameState, seat: int) -> int:
        """The cards ``seat`` (an index) may hold: those the table saw it get."""
        return state.hands[seat]

    def stock_may_hold(self, state: GameState, seat: int) -> int:
        """The cards ``seat`` may draw: those in the stock."""
        return state.stock_mask


class PartialSight(FullSight):
    """Partial sight (docs/transcript.md, *Partial sight*): a card not seen may lie in a hand or the
    stock, so a seat may hold, or draw, every card not known elsewhere; the table cannot count
    the exchange (the elder's next button ends the round)."""

    name = "partial"
    counts_exchange = False

    def may_hold(self, state: GameState, seat: int) -> int:
        """Every card the table does not know ``seat`` not to hold (:func:`not_held`)."""
        return ALL_CARDS & ~not_held(state, seat)

    def stock_may_hold(self, state: GameState, seat: int) -> int:
        """What ``seat`` may hold (:meth:`may_hold`): the table cannot count the stock."""
        return self.may_hold(state, seat)


SIGHT: dict[str, FullSight] = {"full": FullSight(), "partial": PartialSight()}
"""Each sight by its name (``GameState.sight``)."""
SIGHTS = tuple(SIGHT)


def not_held(state: GameState, seat: int) -> int:
    """The cards the table knows ``seat`` (an index) does not hold.

    Those seen in the other hand during this hand, on the turn-up, among the discards,
    and the cards played; and, during the tricks, every card not known in its hand once
    it has no unseen card left.
    """
    other = 1 - seat
    mask = state.seen_in[other] | state.hands[other] | state.discards[0] | state.discards[1] | state.played
    if state.turn_up >= 0:
        mask |= 1 << state.turn_up
    if state.led >= 0:
        mask |= 1 << state.led
    if state.phase == Phase.PLAY and state.unseen[seat] == 0:
        mask |= ALL_CARDS
    return mask & ~state.hands[seat]


def king_known_held(state: GameState, seat: int) -> bool:
    """Whether the table knows ``seat`` holds (or held, in this hand) the king of trumps."""
    return bool(state.hands[seat] >> king_index(state.turn_up) & 1) or state.king_played_by == SEATS[seat]


@dataclass(frozen=True, slots=True)
class Proof:
    """A fault proven by what the table knows now: ``code`` by ``seat`` (an index) at ``trick``;
    ``play`` is the index in the hand's history of the card it is about (-1 for a king)."""

    trick: int
    code: FaultCode
    seat: int
    play: int = -1

    @property
    def order(self) -> tuple[int, int]:
        """Printed in the order of their tricks, a false king before a fault of play."""
        return self.trick, 0 if self.code == FaultCode.FALSE_KING else 1


def proofs(state: GameState) -> list[Proof]:
    """Every fault the table can now prove and has not yet proven, in the order to print them.

    A follow breaks a duty of play when the cards its seat is known to have held at that
    trick show it (those it played then or later, and those it is known to hold now: during
    the tricks no card enters a hand). A king scored by a seat not known to hold it is false
    once the table knows that seat does not hold it.
    """
    found: list[Proof] = []
    rules = state.rules
    trump = state.turn_up >> 3
    for k, (trick, seat, card, led) in enumerate(state.history):
        if led < 0 or state.proven >> k & 1:
            continue
        held = state.hands[seat]
        for t, s, c, _led in state.history:
            if s == seat and t >= trick:
                held |= 1 << c
        code = play_fault_code(rules, held, led, trump, card)
        if code:
            found.append(Proof(trick, code, seat, k))
    king = king_index(state.turn_up)
    for seat, trick in state.claims:
        if not king_known_held(state, seat) and not_held(state, seat) >> king & 1:
            found.append(Proof(trick, FaultCode.FALSE_KING, seat))
    return sorted(found, key=lambda p: p.order)


def open_claims(state: GameState) -> tuple[tuple[int, int], ...]:
    """The claims still open once those now known true (the seat holds or played the king) are dropped."""
    return tuple(c for c in state.claims if not king_known_held(state, c[0]))
