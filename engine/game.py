"""The state machine: ``apply(state, action)`` → the new state and its events.

    >>> from engine.cards import Card
    >>> state = new_game("classic", dealer="B")
    >>> state.phase, state.elder
    ('deal', 'A')
    >>> state, events = apply(state, parse_deal("KH QH JH AH TH / 7S 8S 9S TS AS / 7D"))
    >>> [e.event for e in events]
    ['trump']
    >>> state, events = apply(state, PlayCard("A", Card.parse("KH")))
    >>> events[0].code, events[0].seat
    (<FaultCode.OUT_OF_TURN: 'out_of_turn'>, 'A')
    >>> state, _ = apply(state, Stand("A"))
    >>> PlayCard("A", Card.parse("KH")) in legal_actions(state)
    True
    >>> legal_actions(state).count()
    5

An illegal action is answered with a :class:`engine.faults.Fault` event and the
state is unchanged (save the italian penalty points it records).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from engine.actions import (
    Accept,
    Action,
    Announce,
    Cut,
    Deal,
    DealCard,
    Declare,
    Discard,
    Double,
    Draw,
    ElderDeal,
    OfferPoint,
    Pass,
    PlayCard,
    PlayOn,
    Propose,
    Refuse,
    ReplayHand,
    Stand,
    TurnTarget,
    TurnUp,
)
from engine.cards import CARDS, indices_of
from engine.ecarte_errors import NotationError
from engine.events import Event
from engine.faults import Fault, FaultCode, fault
from engine.legality import follow_mask, lead_mask
from engine.phases.deal import cut, deal, deal_card, parse_deal, retourne, turn_up
from engine.phases.exchange import decide, discard, draw
from engine.phases.king import announce
from engine.phases.match import penalise, reset_hand
from engine.phases.offers import double, offer_point
from engine.phases.outcome import Outcome, Result
from engine.phases.tricks import play, remedy
from engine.prompts import expectation as expectation
from engine.rules import RuleSet
from engine.rules import rules as rules_by_name
from engine.seats import INDEX, OTHER, SEATS
from engine.sight import SIGHTS
from engine.state import GameState, Phase

__all__ = [
    "LegalActions", "Result", "apply", "check", "expectation", "legal_actions", "legal_plays", "new_game", "parse_deal",
    "replay", "reset_hand",
]


def new_game(
    rules: RuleSet | str = "classic",
    *,
    dealer: str | None = None,
    players: tuple[str, str, str] | None = None,
    sight: str = "full",
    **options: Any,
) -> GameState:
    """A match about to start.

    ``dealer`` deals the first hand; without one the seats cut for it. ``players``
    names the seats A and B and, for a pool, the watcher. ``sight`` is ``full`` (the
    table sees every card) or ``partial`` (docs/transcript.md: stacked cards may go unseen).

    :raises UnknownRulesError: for an unknown rule set or option.
    :raises NotationError: for a dealer that is not A or B, or an unknown sight.
    """
    ruleset = rules_by_name(rules, **options) if isinstance(rules, str) else (
        rules.with_options(**options) if options else rules
    )
    if dealer is not None and dealer not in INDEX:
        raise NotationError(f"no seat {dealer!r} to deal: seats are 'A' and 'B'")
    if sight not in SIGHTS:
        raise NotationError(f"no sight {sight!r}: 'full' or 'partial'")
    if players is None:
        players = ("A", "B", "C" if ruleset.pool else "")
    if ruleset.a_la_retourne:
        phase = Phase.RETOURNE
    elif dealer is None:
        phase = Phase.CUT
    else:
        phase = Phase.DEAL
    return GameState(
        rules=ruleset, phase=phase, dealer=dealer or "", target=ruleset.target, players=players, sight=sight,
    )


def apply(state: GameState, action: Action) -> Result:
    """Apply ``action``: the new state and the events it caused.

    An illegal action gives back ``state`` and a :class:`Fault` event; under
    italian rules a refused revoke still costs a point (a :class:`Penalty` event
    follows the fault, and only the score changes).
    """
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise NotationError(f"not an action: {action!r}")
    outcome = handler(state, action)
    if isinstance(outcome, Fault):
        return penalise(state, outcome)
    return outcome


def check(state: GameState, action: Action) -> Fault | None:
    """The fault ``action`` would cause in ``state``, or None when it is legal."""
    handler = _HANDLERS.get(type(action))
    if handler is None:
        return fault(FaultCode.WRONG_TIME, None, "not_an_action", action=repr(action))
    outcome = handler(state, action)
    if isinstance(outcome, Fault):
        refused = penalise(state, outcome)[1][0]
        return refused if isinstance(refused, Fault) else outcome
    # a deal voided by the action (misdeal, duplicate card) is a fault too
    return next((e for e in outcome[1] if isinstance(e, Fault)), None)


def replay(state: GameState, actions: Iterable[Action]) -> Result:
    """Apply ``actions`` in order: the final state and every event."""
    events: list[Event] = []
    for action in actions:
        state, caused = apply(state, action)
        events.extend(caused)
    return state, tuple(events)


def legal_plays(state: GameState, seat: str) -> int:
    """Mask of the cards ``seat`` may play now (0 when it is not its turn to play)."""
    if state.phase != Phase.PLAY or state.turn != seat or state.offer is not None:
        return 0
    hand = state.hands[INDEX[seat]]
    if state.led < 0:
        return lead_mask(state.rules, hand, state.turn_up, state.king_to_lead == seat)
    return follow_mask(state.rules, hand, state.led, state.turn_up >> 3)


class LegalActions:
    """The legal actions of a state, as a lazy view: iterate, ``in``, ``count()``.

    Iteration gives the single-card forms of deals, discards and draws (what the
    pads produce); ``in`` also accepts the whole forms (:class:`Deal`, a Discard of
    three cards) when they are legal.
    """

    __slots__ = ("state",)

    def __init__(self, state: GameState) -> None:
        self.state = state

    def __contains__(self, action: object) -> bool:
        return isinstance(action, Action) and check(self.state, action) is None

    def __iter__(self) -> Iterator[Action]:
        return _generate(self.state)

    def __bool__(self) -> bool:
        return any(True for _ in self)

    def count(self) -> int:
        """How many legal actions there are."""
        return sum(1 for _ in self)

    def __len__(self) -> int:
        return self.count()

    def __repr__(self) -> str:
        return f"<LegalActions ({', '.join(str(a) for a in self)})>"


def legal_actions(state: GameState) -> LegalActions:
    """The lazy view of the legal actions in ``state``."""
    return LegalActions(state)


def _generate(state: GameState) -> Iterator[Action]:
    phase = state.phase
    ruleset = state.rules
    if phase == Phase.RETOURNE:
        yield from (TurnTarget(c) for c in CARDS)
    elif phase == Phase.CUT:
        for seat in SEATS:
            if state.cuts[INDEX[seat]] < 0:
                other = state.cuts[1 - INDEX[seat]]
                yield from (Cut(seat, c) for c in CARDS if c.index != other)
    elif phase == Phase.DEAL:
        free = state.stock_mask
        for seat in SEATS:
            if state.hands[INDEX[seat]].bit_count() < 5:
                yield from (DealCard(seat, CARDS[i]) for i in indices_of(free))
        if state.hands[0].bit_count() == 5 and state.hands[1].bit_count() == 5:
            yield from (TurnUp(CARDS[i]) for i in indices_of(free))
    elif phase in (Phase.PROPOSE, Phase.FORCE):
        yield from ruleset.elder_choice(state.elder)
    elif phase == Phase.RESPOND:
        yield from ruleset.dealer_choice(state.dealer)
    elif phase == Phase.EXCHANGE:
        seat = state.exchanger or state.elder
        i = INDEX[seat]
        low, high = ruleset.elder_discard if seat == state.elder else ruleset.dealer_discard
        stock = state.stock_mask
        if state.ex_drawn == 0 and state.ex_discarded < min(high, stock.bit_count()):
            yield from (Discard(seat, (CARDS[c],)) for c in indices_of(state.hands[i]))
        if state.ex_discarded > state.ex_drawn:
            yield from (Draw(seat, (CARDS[c],)) for c in indices_of(stock))
        if seat == state.dealer and state.ex_discarded == 0 and low == 0:
            yield from ruleset.elder_choice(state.elder)
    elif phase == Phase.PLAY:
        if state.offer is not None:
            answer = OTHER[state.offer_by or "A"]
            yield from (Accept(answer), Refuse(answer))
            return
        seat = state.turn or ""
        yield from (PlayCard(seat, CARDS[i]) for i in indices_of(legal_plays(state, seat)))
        for seat in SEATS:
            for extra in (Announce(seat), Double(seat), OfferPoint(seat)):
                if _HANDLERS[type(extra)](state, extra).__class__ is not Fault:
                    yield extra


_Handler = Callable[[GameState, Any], Outcome]


_HANDLERS: dict[type, _Handler] = {
    TurnTarget: retourne,
    Cut: cut,
    DealCard: deal_card,
    Deal: deal,
    ElderDeal: deal,
    TurnUp: turn_up,
    Propose: decide,
    Stand: decide,
    Accept: decide,
    Refuse: decide,
    Declare: decide,
    Pass: decide,
    Discard: discard,
    Draw: draw,
    Announce: announce,
    PlayCard: play,
    Double: double,
    OfferPoint: offer_point,
    ReplayHand: remedy,
    PlayOn: remedy,
}
