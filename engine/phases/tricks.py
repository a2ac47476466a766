"""The tricks: a card played, judged by the duties of play, accepted; under partial sight
the faults its acceptance proves late, and the other seat's remedy (rule 43)."""

from __future__ import annotations

from engine.actions import PlayCard, PlayOn, ReplayHand
from engine.cards import CARDS, SUIT_MASKS, SUITS, Card
from engine.events import Event, HandReplayed, Played, Trick
from engine.faults import Fault, FaultCode, fault, not_overtaking_fault, not_trumping_fault, revoke_fault
from engine.legality import follow_mask, follower_wins, king_index, lead_mask, play_fault_code
from engine.message import Phrase
from engine.phases.king import take_back_king
from engine.phases.match import end_hand, penalty
from engine.phases.outcome import Outcome, Result, wrong_time
from engine.prompts import expecting
from engine.seats import INDEX, OTHER, SEATS
from engine.sight import SIGHT, king_known_held, open_claims, proofs
from engine.state import GameState, Phase


def play(state: GameState, action: PlayCard) -> Outcome:
    seat = action.seat
    card = action.card
    if state.phase != Phase.PLAY:
        if state.phase in (Phase.PROPOSE, Phase.RESPOND, Phase.EXCHANGE, Phase.FORCE):
            return fault(FaultCode.OUT_OF_TURN, seat, "play_not_begun", card, **expecting(state))
        return wrong_time(state, seat, "play", played=card)
    if state.offer is not None or state.awaiting >= 0:
        return fault(FaultCode.OUT_OF_TURN, seat, "first", card, **expecting(state))
    i = INDEX[seat]
    bit = 1 << card.index
    hand = state.hands[i]
    if not hand & bit and SIGHT[state.sight].may_hold(state, i) & bit:
        # not known either way (partial sight): one of the seat's unseen cards, judged by the cards
        # it is known to hold
        hand |= bit
    if not hand & bit:
        # docs/transcript.md: a card the seat does not hold is card_not_in_hand, whoever's turn it is
        return fault(FaultCode.CARD_NOT_IN_HAND, seat, "play_not_held", card)
    if seat != state.turn:
        return fault(FaultCode.OUT_OF_TURN, seat, "turn_to_play", card, turn=state.turn)
    led = state.led
    ruleset = state.rules
    if led < 0:
        if not lead_mask(ruleset, hand, state.turn_up, state.king_to_lead == seat) & bit:
            return fault(FaultCode.KING_NOT_LED, seat, "lead_king", card)
    elif not follow_mask(ruleset, hand, led, state.turn_up >> 3) & bit:
        return _play_fault(state, seat, card, hand, led)
    if hand != state.hands[i]:
        hands, unseen = state.hands, state.unseen
        state = state.evolve(
            hands=(hand, hands[1]) if i == 0 else (hands[0], hand),
            unseen=(unseen[0] - 1, unseen[1]) if i == 0 else (unseen[0], unseen[1] - 1),
        )
    return accept_play(state, seat, i, card, bit)


def _play_fault(state: GameState, seat: str, card: Card, hand: int, led: int) -> Fault:
    """The fault of a card that breaks a duty of play, with its message (the code is
    :func:`engine.legality.play_fault_code`'s)."""
    ruleset = state.rules
    led_card = CARDS[led]
    trump = state.turn_up >> 3
    code = play_fault_code(ruleset, hand, led, trump, card.index)
    if code == FaultCode.REVOKE:
        must_win = ruleset.must_overtake and bool(hand & ruleset.ranking.above[led])
        return revoke_fault(seat, card, led_card.suit, must_win)
    if code == FaultCode.NOT_OVERTAKING:
        return not_overtaking_fault(seat, card, led_card)
    if code == FaultCode.NOT_TRUMPING:
        return not_trumping_fault(seat, card, SUITS[trump])
    same = hand & SUIT_MASKS[led >> 3]
    if same:
        best = CARDS[ruleset.ranking.highest(same & ruleset.ranking.above[led] or same)]
        return fault(FaultCode.NOT_HIGHEST, seat, "highest", card, suit=led_card.suit, best=best)
    best = CARDS[ruleset.ranking.highest(hand & SUIT_MASKS[trump])]
    return fault(FaultCode.NOT_HIGHEST, seat, "highest_trump", card, best=best)


def accept_play(state: GameState, seat: str, i: int, card: Card, bit: int) -> Result:
    """Accept ``card`` (``bit``, ``1 << card.index``) from ``seat`` (index ``i``) without judging it.

    :func:`play` calls it for a card it found legal; the demo's players call it for a card the
    table, under partial sight, cannot yet prove wrong.
    """
    events: list[Event] = []
    if state.sight == "partial":
        trick = state.tricks[0] + state.tricks[1] + 1
        state = state.evolve(history=(*state.history, (trick, i, card.index, state.led)))
    counts = state.counts
    first_cards = state.first_cards
    if counts[i] == 0:
        if state.rules.king_penalty and state.king is None and state.hands[i] >> king_index(state.turn_up) & 1:
            state = penalty(state, seat, state.rules.king_penalty, "king_not_declared", events)
            if state.phase == Phase.OVER:
                return state, tuple(events)
        first_cards = (card.index, first_cards[1]) if i == 0 else (first_cards[0], card.index)
    counts = (counts[0] + 1, counts[1]) if i == 0 else (counts[0], counts[1] + 1)
    hands = state.hands
    hands = (hands[0] & ~bit, hands[1]) if i == 0 else (hands[0], hands[1] & ~bit)
    king_to_lead = state.king_to_lead
    king_played_by = state.king_played_by
    if card.index == king_index(state.turn_up):
        king_played_by = seat  # the king point may still be his (rule 24, 002)
        if king_to_lead == seat:
            king_to_lead = None
    events.append(_PLAYED[i][card.index])
    led = state.led
    if led < 0:
        state = state.evolve(
            hands=hands, led=card.index, turn=OTHER[seat], counts=counts,
            first_cards=first_cards, king_to_lead=king_to_lead, king_played_by=king_played_by,
        )
        if state.sight == "partial":
            return _prove(state, events, hand_done=False)
        return state, tuple(events)
    # the trick is complete
    leader = OTHER[seat]
    winner = seat if follower_wins(state.rules.ranking.power, state.turn_up >> 3, led, card.index) else leader
    w = INDEX[winner]
    tricks = state.tricks
    tricks = (tricks[0] + 1, tricks[1]) if w == 0 else (tricks[0], tricks[1] + 1)
    a, b = (card, CARDS[led]) if i == 0 else (CARDS[led], card)
    events.append(Trick(winner, a, b, leader))
    state = state.evolve(
        hands=hands, led=-1, leader=winner, turn=winner, tricks=tricks, counts=counts,
        first_cards=first_cards, played=state.played | bit | (1 << led), king_to_lead=king_to_lead,
        king_played_by=king_played_by,
    )
    if state.sight == "partial":
        return _prove(state, events, hand_done=tricks[0] + tricks[1] == 5)
    if tricks[0] + tricks[1] == 5:
        return end_hand(state, events, None)
    return state, tuple(events)


def _prove(state: GameState, events: list[Event], *, hand_done: bool) -> Result:
    """After a card is accepted: print what it proves (docs/transcript.md, *Partial sight*)."""
    found = proofs(state)
    proven = state.proven
    for proof in found:
        if proof.play >= 0:
            proven |= 1 << proof.play
    state = state.evolve(
        claims=open_claims(state), proven=proven, hand_over=state.hand_over or hand_done,
        pending=(*state.pending, *((p.code, p.seat, p.trick) for p in found)),
    )
    return _next_proof(state, events)


def _next_proof(state: GameState, events: list[Event]) -> Result:
    """Print the proofs not yet printed, up to the first that waits for a choice; then, with
    none waiting, end the hand if its last trick is done."""
    while state.pending:
        (code, seat, trick), rest = state.pending[0], state.pending[1:]
        state = state.evolve(pending=rest)
        name = SEATS[seat]
        if code == FaultCode.FALSE_KING:
            state = take_back_king(state, seat)
            events.append(_late(code, name, trick, "late_king"))
            if king_known_held(state, 1 - seat):
                continue  # rule 25: the other seat holds the king, no further penalty
        else:
            events.append(_late(code, name, trick, "late_play"))
        return state.evolve(awaiting=seat), tuple(events)
    if state.hand_over:
        return end_hand(state.evolve(hand_over=False), events, None)
    return state, tuple(events)


def _late(code: FaultCode, seat: str, trick: int, says: str) -> Fault:
    """A fault proven late: its message ``says.<says>``, its remedy the other seat's choice
    (``remedy.late``)."""
    return Fault(code, seat, "25" if code == FaultCode.FALSE_KING else "43", None, True, trick,
                 says=Phrase("says." + says, (("other", OTHER[seat]), ("trick", str(trick)))))


def remedy(state: GameState, action: ReplayHand | PlayOn) -> Outcome:
    """The other seat's choice after a fault proven late: have the hands played again, or play on."""
    seat = action.seat
    offender = state.awaiting
    if offender < 0:
        return wrong_time(state, seat, "choice")
    if INDEX[seat] == offender:
        return fault(FaultCode.OUT_OF_TURN, seat, "chooses", other=OTHER[seat])
    if isinstance(action, PlayOn):
        reduced = (True, state.reduced[1]) if offender == 0 else (state.reduced[0], True)
        return _next_proof(state.evolve(awaiting=-1, reduced=reduced), [])
    returned = [0, 0]
    for _trick, s, card, _led in state.history:
        returned[s] |= 1 << card
    hands = (state.hands[0] | returned[0], state.hands[1] | returned[1])
    start = (state.score[0] - state.hand_points[0], state.score[1] - state.hand_points[1])
    kings = state.king_points
    king_to_lead = None
    if state.rules.king_must_be_led and state.king and hands[INDEX[state.king]] >> king_index(state.turn_up) & 1:
        king_to_lead = state.king
    elder = state.elder
    return state.evolve(
        hands=hands, played=0, led=-1, leader=elder, turn=elder, tricks=(0, 0), counts=(0, 0),
        first_cards=(-1, -1), king_played_by=None, king_to_lead=king_to_lead, history=(), proven=0,
        pending=(), awaiting=-1, reduced=(False, False), hand_over=False, replaying=True, offer=None,
        offer_by=None, score=(start[0] + kings[0], start[1] + kings[1]), hand_points=kings,
    ), (HandReplayed(),)


_PLAYED = tuple(tuple(Played(seat, card) for card in CARDS) for seat in SEATS)
"""Every Played event, made once (events are values)."""
