"""Proposals and the exchange: the elder proposes or stands (or declares or passes), the
dealer accepts or refuses, each discards and draws from the stock, until play begins."""

from __future__ import annotations

from engine.actions import Accept, Action, Declare, Discard, Draw, Pass, Propose, Refuse, Stand
from engine.events import Bid, Event, Exchanged, PlayBegins
from engine.faults import Fault, FaultCode, fault
from engine.phases.deal import void_deal
from engine.phases.offers import answer
from engine.phases.outcome import Outcome, Result, wrong_time
from engine.seats import INDEX, SEATS
from engine.sight import SIGHT
from engine.state import GameState, Phase


def _finish_dealer_round(state: GameState, seat: str) -> Outcome | None:
    """In the exchange, a decision by the elder ends the dealer's part when the dealer
    may take no card (italian, german). None: nothing to finish."""
    if state.phase != Phase.EXCHANGE:
        return None
    if seat != state.elder or state.exchanger != state.dealer:
        return wrong_time(state, seat, "decision")
    low = state.rules.dealer_discard[0]
    if state.ex_discarded == 0 and low == 0:
        return _round_done(state, [Exchanged(state.dealer, 0, state.stock_size)])
    if state.ex_discarded > state.ex_drawn:
        missing = state.ex_discarded - state.ex_drawn
        return fault(
            FaultCode.EXCHANGE_COUNT, state.dealer, "drew_short",
            discarded=state.ex_discarded, drawn=state.ex_drawn, missing=missing,
        )
    return fault(FaultCode.EXCHANGE_COUNT, state.dealer, "exchange_at_least", n=max(low, 1), then=seat)


def decide(state: GameState, action: Action) -> Outcome:
    """Propose, Stand, Declare, Pass by the elder (propose/force) or the dealer (respond)."""
    seat: str = action.seat  # type: ignore[attr-defined]
    events: list[Event] = []
    if state.phase == Phase.EXCHANGE and not SIGHT[state.sight].counts_exchange:
        # the table cannot count the stock: the elder's next button ends the round (docs/transcript.md)
        if seat != state.elder:
            return wrong_time(state, seat, "answer_exchange", elder=state.elder)
        state = state.evolve(phase=Phase.PROPOSE, turn=state.elder, exchanger=None, exchanges=state.exchanges + 1)
    finished = _finish_dealer_round(state, seat)
    if isinstance(finished, Fault):
        return finished
    if finished is not None:
        state, done = finished
        events.extend(done)
    ruleset = state.rules
    declarer_model = ruleset.declares_game
    kind = type(action)
    if state.phase == Phase.PLAY and kind in (Accept, Refuse):
        # the answer to a double or an offer of the point, in every rule set
        return answer(state, seat, kind is Accept)
    if declarer_model != (kind in (Declare, Pass)):
        return wrong_time(state, seat, "rules_declare" if declarer_model else "rules_propose",
                          action=action.kind, rules=ruleset.name)
    phase = state.phase
    if phase in (Phase.PROPOSE, Phase.FORCE):
        if seat != state.elder:
            return fault(FaultCode.OUT_OF_TURN, seat, "turn_to_decide", turn=state.elder)
        if kind is Propose:
            events.append(Bid(seat, "propose"))
            return state.evolve(phase=Phase.RESPOND, turn=state.dealer, proposals=state.proposals + 1), tuple(events)
        if kind is Stand:
            vulnerable = state.proposals == 0
            events.append(Bid(seat, "stand", vulnerable))
            return _begin_play(state.evolve(vulnerable=seat if vulnerable else state.vulnerable), events)
        if kind is Declare:
            events.append(Bid(seat, "declare"))
            return _begin_play(state.evolve(declarer=seat), events)
        # Pass
        events.append(Bid(seat, "pass"))
        if phase == Phase.FORCE:
            # nobody declared and the stock is gone: the dealer must take the game
            events.append(Bid(state.dealer, "declare"))
            return _begin_play(state.evolve(declarer=state.dealer), events)
        return state.evolve(phase=Phase.RESPOND, turn=state.dealer), tuple(events)
    if phase == Phase.RESPOND:
        if seat != state.dealer:
            return fault(FaultCode.OUT_OF_TURN, seat, "turn_to_answer", turn=state.dealer)
        if kind is Declare:
            events.append(Bid(seat, "declare"))
            return _begin_play(state.evolve(declarer=seat), events)
        if kind in (Pass, Accept):
            events.append(Bid(seat, "pass" if kind is Pass else "accept"))
            if state.sight == "partial":
                # whatever each seat discards unseen, the table no longer knows its hand: it knows
                # only the cards it sees arrive after the discard (docs/transcript.md)
                state = state.evolve(hands=(0, 0), unseen=(5, 5))
            return state.evolve(
                phase=Phase.EXCHANGE, turn=state.elder, exchanger=state.elder,
                ex_discarded=0, ex_drawn=0,
            ), tuple(events)
        if kind is Refuse:
            vulnerable = state.proposals == 1
            events.append(Bid(seat, "refuse", vulnerable))
            return _begin_play(state.evolve(vulnerable=seat if vulnerable else state.vulnerable), events)
        return wrong_time(state, seat, "act", action=action.kind)
    return wrong_time(state, seat, "act", action=action.kind)


def _begin_play(state: GameState, events: list[Event]) -> Result:
    elder = state.elder
    if state.sight == "partial":
        state = state.evolve(unseen=(5 - state.hands[0].bit_count(), 5 - state.hands[1].bit_count()))
    events.append(PlayBegins(elder, state.declarer))
    return state.evolve(phase=Phase.PLAY, turn=elder, leader=elder, exchanger=None), tuple(events)


def discard(state: GameState, action: Discard) -> Outcome:
    seat = action.seat
    if state.phase != Phase.EXCHANGE:
        return wrong_time(state, seat, "discard")
    if seat != state.exchanger:
        return fault(FaultCode.OUT_OF_TURN, seat, "turn_to_discard", action.cards[0], turn=state.exchanger)
    sight = SIGHT[state.sight]
    counted = sight.counts_exchange
    i = INDEX[seat]
    hand = state.hands[i]
    may_hold = sight.may_hold(state, i)
    mask = 0
    for card in action.cards:
        bit = 1 << card.index
        if not may_hold & bit or (counted and mask & bit):
            return fault(FaultCode.CARD_NOT_IN_HAND, seat, "discard_not_held", card)
        mask |= bit
    total = state.ex_discarded + len(action.cards)
    if counted:
        dealer = state.dealer
        if state.ex_drawn:
            return fault(FaultCode.EXCHANGE_COUNT, dealer, "drawing_begun", action.cards[0], who=seat)
        high = (state.rules.elder_discard if seat == state.elder else state.rules.dealer_discard)[1]
        stock = state.stock_size
        if total > min(high, stock):
            if stock < high:
                return fault(FaultCode.EXCHANGE_COUNT, dealer, "discard_stock_left", action.cards[0], who=seat, n=stock)
            return fault(FaultCode.EXCHANGE_COUNT, dealer, "discard_at_most", action.cards[0], who=seat, n=high)
    d = state.discards
    discards = (d[0] | mask, d[1]) if i == 0 else (d[0], d[1] | mask)
    hands = (hand & ~mask, state.hands[1]) if i == 0 else (state.hands[0], hand & ~mask)
    return state.evolve(hands=hands, discards=discards, ex_discarded=total), ()


def draw(state: GameState, action: Draw) -> Outcome:
    seat = action.seat
    dealer = state.dealer
    if state.phase not in (Phase.PROPOSE, Phase.RESPOND, Phase.EXCHANGE, Phase.FORCE):
        return wrong_time(state, seat, "draw")
    sight = SIGHT[state.sight]
    i = INDEX[seat]
    hands = state.hands
    stock = sight.stock_may_hold(state, i)
    mask = 0
    for card in action.cards:
        bit = 1 << card.index
        if hands[i] & bit and len(action.cards) == 1:
            return state, ()  # read again on its own hand pad
        if not stock & bit or mask & bit:
            where, holder = _where(state, card.index)
            return void_deal(state, FaultCode.DUPLICATE_CARD, "not_from_stock", card, where=where, holder=holder)
        mask |= bit
    if state.phase != Phase.EXCHANGE:
        return fault(FaultCode.EXCHANGE_COUNT, dealer, "no_exchange", action.cards[0])
    if not sight.counts_exchange:
        return _draw_uncounted(state, action, mask)
    if seat != state.exchanger:
        return fault(FaultCode.EXCHANGE_COUNT, dealer, "not_your_exchange", action.cards[0], who=seat,
                     turn=state.exchanger)
    low = (state.rules.elder_discard if seat == state.elder else state.rules.dealer_discard)[0]
    drawn = state.ex_drawn + len(action.cards)
    if drawn > state.ex_discarded or state.ex_discarded < max(low, 1):
        return fault(FaultCode.EXCHANGE_COUNT, dealer, "draw_no_more", action.cards[0], who=seat,
                     discarded=state.ex_discarded)
    new_hands = (hands[0] | mask, hands[1]) if i == 0 else (hands[0], hands[1] | mask)
    state = state.evolve(hands=new_hands, ex_drawn=drawn)
    if drawn < state.ex_discarded:
        return state, ()
    events: list[Event] = [Exchanged(seat, drawn, state.stock_size)]
    if seat == state.elder:
        if state.stock_size == 0:
            # rule 38: the stock is gone, the dealer must play
            return _stock_gone(state, events)
        return state.evolve(exchanger=dealer, turn=dealer, ex_discarded=0, ex_drawn=0), tuple(events)
    return _round_done(state, events)


def _draw_uncounted(state: GameState, action: Draw, mask: int) -> Outcome:
    """A replacement seen arriving on a seat's hand pad when the table cannot count the
    exchange (partial sight): a sixth card known in a hand is refused (exchange_count); the
    first replacement to arrive ends the elder's discards."""
    seat = action.seat
    i = INDEX[seat]
    hands = state.hands
    dealer = state.dealer
    new = hands[i] | mask
    if new.bit_count() > 5:
        return fault(FaultCode.EXCHANGE_COUNT, dealer, "six_cards", action.cards[0], who=seat)
    seen = state.seen_in
    state = state.evolve(
        hands=(new, hands[1]) if i == 0 else (hands[0], new),
        seen_in=(seen[0] | mask, seen[1]) if i == 0 else (seen[0], seen[1] | mask),
        ex_drawn=state.ex_drawn + len(action.cards),
    )
    if state.exchanger == state.elder:
        # a replacement has arrived: further discards are the dealer's (docs/transcript.md)
        state = state.evolve(exchanger=dealer, turn=dealer)
    return state, ()


def _where(state: GameState, index: int) -> tuple[str, str]:
    """Where the card ``index`` is (the catalogue's ``says.where.<where>``), and whose hand."""
    bit = 1 << index
    if state.hands[0] & bit:
        return "hand", "A"
    if state.hands[1] & bit:
        return "hand", "B"
    if index == state.turn_up:
        return "turn_up", ""
    if (state.discards[0] | state.discards[1]) & bit:
        return "discards", ""
    for seat in SEATS:
        if state.seen_in[INDEX[seat]] & bit:
            return "seen", seat
    return "played", ""


def _round_done(state: GameState, events: list[Event]) -> Result:
    state = state.evolve(exchanges=state.exchanges + 1, exchanger=None, ex_discarded=0, ex_drawn=0)
    if state.stock_size == 0:
        return _stock_gone(state, events)
    return state.evolve(phase=Phase.PROPOSE, turn=state.elder), tuple(events)


def _stock_gone(state: GameState, events: list[Event]) -> Result:
    if state.rules.declares_game:
        return state.evolve(phase=Phase.FORCE, turn=state.elder, exchanger=None), tuple(events)
    return _begin_play(state, events)
