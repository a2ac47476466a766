"""The king of trumps: turned up, announced (within the rule set's window), and under
partial sight claimed until proven false (rule 25)."""

from __future__ import annotations

from engine.actions import Announce
from engine.events import Event, King
from engine.faults import FaultCode, fault
from engine.legality import king_index
from engine.phases.match import end_game
from engine.phases.outcome import Outcome, wrong_time
from engine.scoring import KING_POINT, add
from engine.seats import INDEX, SEATS
from engine.sight import king_known_held, not_held
from engine.state import GameState, Phase


def score_king(state: GameState, seat: str, events: list[Event]) -> GameState:
    i = INDEX[seat]
    score = add(state.score, i, KING_POINT)
    state = state.evolve(
        score=score, hand_points=add(state.hand_points, i, KING_POINT), king=state.king or seat,
        king_points=add(state.king_points, i, KING_POINT),
    )
    events.append(King(seat, score))
    if score[i] >= state.target:
        state = end_game(state, seat, events)
    return state


def announce(state: GameState, action: Announce) -> Outcome:
    seat = action.seat
    i = INDEX[seat]
    if state.phase != Phase.PLAY or state.offer is not None:
        return wrong_time(state, seat, "king")
    if state.sight == "partial":
        return _announce_unseen(state, seat)
    king = king_index(state.turn_up)
    if state.king is not None:
        if state.king == seat and state.turn_up != king:
            return wrong_time(state, seat, "king_again")
        return fault(FaultCode.FALSE_KING, seat, "false_king")
    held = state.hands[i] >> king & 1
    if not (held or state.king_played_by == seat):
        # rule 25: announcing a king one never held is false, whenever it is said
        return fault(FaultCode.FALSE_KING, seat, "false_king")
    late = _king_too_late(state, seat, king)
    if late:
        return wrong_time(state, seat, late)
    if state.rules.king_must_be_led and held:
        # 002 "muß dann den Trumpf-König aufspielen": a king already played has been led or won
        state = state.evolve(king_to_lead=seat)
    events: list[Event] = []
    return score_king(state, seat, events), tuple(events)


def _king_too_late(state: GameState, seat: str, king: int) -> str:
    """Why ``seat`` may no longer announce the king (``""``: it may): the rule set's window."""
    i = INDEX[seat]
    return state.rules.king_too_late(
        count=state.counts[i], king_first=state.first_cards[i] == king, dealer=seat == state.dealer,
        king_on_trick=state.led == king, won=state.tricks[i], any_card=bool(state.played) or state.led >= 0,
    )


def _announce_unseen(state: GameState, seat: str) -> Outcome:
    """Partial sight: a king the table knows the seat holds is scored; one it knows the seat
    does not hold is false at once; any other is scored until it is proven false (rule 25).

    Judged for its time as with full sight (docs/transcript.md, *Announcements*): a king the
    announcer himself played in this hand is one he held (the table saw it), so rule 24's
    king led first, or played as the dealer's first card, scores, and under a rule set with
    no rule-24 exception a late announcement is out of time, not false."""
    i = INDEX[seat]
    if state.awaiting >= 0:
        return wrong_time(state, seat, "king_awaited")
    if state.replaying:
        return wrong_time(state, seat, "king_replayed")
    king = king_index(state.turn_up)
    if state.king_points[i] > 0 and state.turn_up != king:
        return wrong_time(state, seat, "king_again")
    if state.king_played_by != seat and not_held(state, i) >> king & 1:
        return fault(FaultCode.FALSE_KING, seat, "false_king")
    late = _king_too_late(state, seat, king)
    if late:
        return wrong_time(state, seat, late)
    if not king_known_held(state, i):
        trick = state.tricks[0] + state.tricks[1] + 1  # the trick under way, or the next one
        state = state.evolve(claims=(*state.claims, (i, trick)))
    if state.rules.king_must_be_led and state.hands[i] >> king & 1:
        state = state.evolve(king_to_lead=seat)
    events: list[Event] = []
    return score_king(state, seat, events), tuple(events)


def take_back_king(state: GameState, seat: int) -> GameState:
    """A false king's point is always taken back (rule 25)."""
    claims = tuple(c for c in state.claims if c[0] != seat)
    king = state.king
    if king == SEATS[seat]:
        king = next((SEATS[s] for s, _t in claims), None)
    return state.evolve(
        score=add(state.score, seat, -KING_POINT), hand_points=add(state.hand_points, seat, -KING_POINT),
        king_points=add(state.king_points, seat, -KING_POINT), claims=claims, king=king,
    )
