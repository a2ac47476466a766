"""Offers during the tricks: doubling the stakes, offering the point, and the answer."""

from __future__ import annotations

from engine.actions import Double, OfferPoint
from engine.events import Event, Offer
from engine.faults import FaultCode, fault
from engine.phases.match import end_hand
from engine.phases.outcome import Outcome, wrong_time
from engine.scoring import as_if_point
from engine.seats import INDEX, OTHER
from engine.state import GameState, Phase


def double(state: GameState, action: Double) -> Outcome:
    seat = action.seat
    if not state.rules.doubling:
        return wrong_time(state, seat, "double_off")
    done = state.tricks[0] + state.tricks[1]
    if state.phase != Phase.PLAY or state.offer is not None or state.multiplier != 1 or done > 2 or (
        done == 2 and state.led >= 0
    ):
        return wrong_time(state, seat, "double_once")
    return state.evolve(offer="double", offer_by=seat), (Offer(seat, "double"),)


def offer_point(state: GameState, action: OfferPoint) -> Outcome:
    seat = action.seat
    if not state.rules.offer_point:
        return wrong_time(state, seat, "point_off")
    if state.phase != Phase.PLAY or state.offer is not None or state.must_vole or (
        state.played or state.led >= 0
    ):
        return wrong_time(state, seat, "point_first")
    return state.evolve(offer="point", offer_by=seat), (Offer(seat, "point"),)


def answer(state: GameState, seat: str, accepted: bool) -> Outcome:
    if state.offer is None or state.offer_by is None:
        return wrong_time(state, seat, "answer")
    by = state.offer_by
    if seat == by:
        return fault(FaultCode.OUT_OF_TURN, seat, "answer_offer", other=OTHER[by], by=by)
    events: list[Event] = [Offer(by, state.offer, accepted)]
    ruleset = state.rules
    vulnerable = INDEX[state.vulnerable] if state.vulnerable else None
    cleared = state.evolve(offer=None, offer_by=None)
    if state.offer == "double":
        if accepted:
            return cleared.evolve(multiplier=2), tuple(events)
        # declined: the proposer scores as if he had won the point, not the vole
        winner = INDEX[by]
        return end_hand(cleared, events, as_if_point(ruleset, winner, vulnerable))
    if accepted:
        return end_hand(cleared, events, as_if_point(ruleset, INDEX[seat], vulnerable))
    return cleared.evolve(must_vole=seat), tuple(events)
