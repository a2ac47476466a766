"""Before the first bid: the target turned (à la retourne), the cut for the deal, the
deal card by card or whole, the turn-up; a misdeal or a card dealt twice voids the deal."""

from __future__ import annotations

from engine.actions import Cut, Deal, DealCard, ElderDeal, TurnTarget, TurnUp
from engine.cards import CARDS, Card, parse_cards
from engine.ecarte_errors import NotationError
from engine.events import DealerChosen, Event, TargetSet, Trump
from engine.faults import FaultCode, fault
from engine.phases.king import score_king
from engine.phases.match import reset_hand
from engine.phases.outcome import Outcome, Result, wrong_time
from engine.seats import INDEX, OTHER, SEATS
from engine.state import GameState, Phase


def parse_deal(text: str) -> Deal:
    """A whole deal written ``"<elder's five> / <dealer's five> / <turn-up>"``.

    The seats are given by the state it is applied to; this helper writes the
    elder's cards first. Use :class:`Deal` to name A and B directly.
    """
    parts = text.split("/")
    if len(parts) != 3:
        raise NotationError(f"cannot read deal {text!r}: expected 'elder / dealer / turn-up'")
    elder, dealer, turn = (parse_cards(p) for p in parts)
    if len(turn) != 1:
        raise NotationError(f"cannot read deal {text!r}: one turn-up card")
    return ElderDeal(elder, dealer, turn[0])


def retourne(state: GameState, action: TurnTarget) -> Outcome:
    if state.phase != Phase.RETOURNE:
        return wrong_time(state, None, "target")
    target = state.rules.retourne_target(action.card.rank)
    phase = Phase.DEAL if state.dealer else Phase.CUT
    return state.evolve(phase=phase, target=target), (TargetSet(target, action.card),)


def cut(state: GameState, action: Cut) -> Outcome:
    seat = action.seat
    i = INDEX[seat]
    if state.phase != Phase.CUT or state.cuts[i] >= 0:
        return wrong_time(state, seat, "cut")
    other = state.cuts[1 - i]
    if other == action.card.index:
        return fault(FaultCode.DUPLICATE_CARD, seat, "cut_twice", action.card)
    cuts = (action.card.index, other) if i == 0 else (other, action.card.index)
    if other < 0:
        return state.evolve(cuts=cuts), ()
    power = state.rules.ranking.power
    a, b = power[cuts[0]], power[cuts[1]]
    pair = (CARDS[cuts[0]], CARDS[cuts[1]])
    if a == b:
        return state.evolve(cuts=(-1, -1)), (DealerChosen(None, pair),)
    dealer = "A" if a > b else "B"
    return (
        state.evolve(cuts=cuts, dealer=dealer, phase=Phase.DEAL),
        (DealerChosen(dealer, pair),),
    )


def void_deal(state: GameState, code: FaultCode, says: str, card: Card | None, **values: object) -> Result:
    # the dealer answers for the deal and the stock (docs/transcript.md)
    seat = state.dealer
    return reset_hand(state, seat), (fault(code, seat, says, card, detail=None, **values),)


def deal_card(state: GameState, action: DealCard) -> Outcome:
    if state.phase != Phase.DEAL:
        return wrong_time(state, state.dealer, "deal")
    i = INDEX[action.seat]
    bit = 1 << action.card.index
    hands = state.hands
    if hands[i] & bit:
        return state, ()  # read again on its own pad: nothing happened
    if (hands[1 - i] | state.seen_in[1 - i]) & bit:
        return void_deal(
            state, FaultCode.DUPLICATE_CARD, "dealt_in_other_hand", action.card, other=OTHER[action.seat],
        )
    if hands[i].bit_count() >= 5:
        return void_deal(
            state, FaultCode.MISDEAL, "sixth_card", None, who=action.seat,
        )
    new = (hands[0] | bit, hands[1]) if i == 0 else (hands[0], hands[1] | bit)
    seen_in = (state.seen_in[0] | new[0], state.seen_in[1] | new[1])
    return state.evolve(hands=new, seen_in=seen_in), ()


def turn_up(state: GameState, action: TurnUp) -> Outcome:
    if state.phase != Phase.DEAL:
        return wrong_time(state, state.dealer, "turn_up")
    bit = 1 << action.card.index
    hands = state.hands
    if (hands[0] | hands[1]) & bit:
        holder = "A" if hands[0] & bit else "B"
        return void_deal(
            state, FaultCode.DUPLICATE_CARD, "turn_up_in_hand", action.card, holder=holder,
        )
    short = [s for s in SEATS if hands[INDEX[s]].bit_count() != 5]
    if state.sight == "partial":
        # a hand seen short is no misdeal: its other cards went unseen
        state = state.evolve(unseen=(5 - hands[0].bit_count(), 5 - hands[1].bit_count()))
    elif short:
        return void_deal(
            state, FaultCode.MISDEAL, "short_hands" if len(short) == 2 else "short_hand", None, who=short[0],
        )
    return _after_turn_up(state.evolve(turn_up=action.card.index), action.card)


def deal(state: GameState, action: Deal) -> Outcome:
    if state.phase != Phase.DEAL or state.hands != (0, 0):
        return wrong_time(state, state.dealer, "whole_deal")
    if isinstance(action, ElderDeal):
        first, second = (action.a, action.b) if state.elder == "A" else (action.b, action.a)
    else:
        first, second = action.a, action.b
    a = b = 0
    for card in first:
        a |= 1 << card.index
    for card in second:
        b |= 1 << card.index
    turn_bit = 1 << action.turn_up.index
    if a & b or (a | b) & turn_bit or a.bit_count() != len(first) or b.bit_count() != len(second):
        return void_deal(state, FaultCode.DUPLICATE_CARD, "dealt_twice", None)
    if len(first) != 5 or len(second) != 5:
        return void_deal(state, FaultCode.MISDEAL, "five_each", None)
    return _after_turn_up(state.evolve(hands=(a, b), turn_up=action.turn_up.index), action.turn_up)


def _after_turn_up(state: GameState, card: Card) -> Result:
    state = state.evolve(phase=Phase.PROPOSE, turn=state.elder)
    events: list[Event] = [Trump(card)]
    if card.rank == "K":
        # rules 22 and 47: a turned-up king scores for the dealer at once
        state = score_king(state, state.dealer, events)
    return state, tuple(events)
