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
    ('out_of_turn', 'A')
    >>> state, _ = apply(state, Stand("A"))
    >>> PlayCard("A", Card.parse("KH")) in legal_actions(state)
    True
    >>> legal_actions(state).count()
    5

An illegal action is answered with a :class:`engine.faults.Fault` event and the
state is unchanged (save the italian penalty points it records).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from typing import Any, ClassVar

from engine.actions import (
    ACTION_TYPES,
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
from engine.cards import CARDS, SUIT_MASKS, SUIT_NAMES, SUITS, Card, indices_of, parse_cards
from engine.errors import NotationError
from engine.events import (
    Bid,
    DealerChosen,
    Event,
    Exchanged,
    GameEnd,
    HandEnd,
    HandReplayed,
    King,
    MatchEnd,
    Offer,
    Penalty,
    PlayBegins,
    Played,
    Seating,
    TargetSet,
    Trick,
    Trump,
)
from engine.faults import (
    Fault,
    fault,
    not_overtaking_fault,
    not_trumping_fault,
    revoke_fault,
)
from engine.legality import follow_mask, follower_wins, king_index, lead_mask, play_fault_code
from engine.prompts import expectation as expectation
from engine.rules import RuleSet
from engine.rules import rules as rules_by_name
from engine.scoring import KING_POINT, add, as_if_point, hand_trick_points, reached
from engine.sight import SIGHTS, king_known_held, not_held, open_claims, proofs
from engine.state import INDEX, OTHER, SEATS, GameState

Result = tuple[GameState, tuple[Event, ...]]
_Outcome = Fault | Result


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
    table sees every card) or ``partial`` (TRANSCRIPT.md: stacked cards may go unseen).

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
        phase = "retourne"
    elif dealer is None:
        phase = "cut"
    else:
        phase = "deal"
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
        return _penalise(state, outcome)
    return outcome


def check(state: GameState, action: Action) -> Fault | None:
    """The fault ``action`` would cause in ``state``, or None when it is legal."""
    handler = _HANDLERS.get(type(action))
    if handler is None:
        return fault("wrong_time", None, f"not an action: {action!r}")
    outcome = handler(state, action)
    if isinstance(outcome, Fault):
        refused = _penalise(state, outcome)[1][0]
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
    return _ElderDeal(elder, dealer, turn[0])


class _ElderDeal(Deal):
    """A deal written elder first (see :func:`parse_deal`): ``a`` is the elder's
    five, ``b`` the dealer's. Its own JSON kind keeps that meaning on replay."""

    __slots__ = ()
    kind: ClassVar[str] = "elder_deal"

    def __str__(self) -> str:
        return (
            "deal elder " + " ".join(map(str, self.a)) + " / dealer " + " ".join(map(str, self.b))
            + f" / turn {self.turn_up}"
        )


ACTION_TYPES[_ElderDeal.kind] = _ElderDeal


# -- legality ----------------------------------------------------------------------------


def legal_plays(state: GameState, seat: str) -> int:
    """Mask of the cards ``seat`` may play now (0 when it is not its turn to play)."""
    if state.phase != "play" or state.turn != seat or state.offer is not None:
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
    if phase == "retourne":
        yield from (TurnTarget(c) for c in CARDS)
    elif phase == "cut":
        for seat in SEATS:
            if state.cuts[INDEX[seat]] < 0:
                other = state.cuts[1 - INDEX[seat]]
                yield from (Cut(seat, c) for c in CARDS if c.index != other)
    elif phase == "deal":
        free = state.stock_mask
        for seat in SEATS:
            if state.hands[INDEX[seat]].bit_count() < 5:
                yield from (DealCard(seat, CARDS[i]) for i in indices_of(free))
        if state.hands[0].bit_count() == 5 and state.hands[1].bit_count() == 5:
            yield from (TurnUp(CARDS[i]) for i in indices_of(free))
    elif phase in ("propose", "force"):
        yield from ruleset.elder_choice(state.elder)
    elif phase == "respond":
        yield from ruleset.dealer_choice(state.dealer)
    elif phase == "exchange":
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
    elif phase == "play":
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


# -- handlers ----------------------------------------------------------------------------


def _wrong_time(state: GameState, seat: str | None, what: str) -> Fault:
    expects = expectation(state)
    return fault("wrong_time", seat, f"{what} is not possible now: {expects}")


def _retourne(state: GameState, action: TurnTarget) -> _Outcome:
    if state.phase != "retourne":
        return _wrong_time(state, None, "turning a card for the target")
    target = state.rules.retourne_target(action.card.rank)
    phase = "deal" if state.dealer else "cut"
    return state.evolve(phase=phase, target=target), (TargetSet(target, action.card),)


def _cut(state: GameState, action: Cut) -> _Outcome:
    seat = action.seat
    i = INDEX[seat]
    if state.phase != "cut" or state.cuts[i] >= 0:
        return _wrong_time(state, seat, f"a cut by {seat}")
    other = state.cuts[1 - i]
    if other == action.card.index:
        return fault("duplicate_card", seat, f"{action.card.symbol()} was cut already", action.card)
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
        state.evolve(cuts=cuts, dealer=dealer, phase="deal"),
        (DealerChosen(dealer, pair),),
    )


def _void_deal(state: GameState, code: str, message: str, card: Card | None) -> Result:
    # the dealer answers for the deal and the stock (TRANSCRIPT.md)
    seat = state.dealer
    return reset_hand(state, seat), (fault(code, seat, message, card),)


def _deal_card(state: GameState, action: DealCard) -> _Outcome:
    if state.phase != "deal":
        return _wrong_time(state, state.dealer, "dealing")
    i = INDEX[action.seat]
    bit = 1 << action.card.index
    hands = state.hands
    if hands[i] & bit:
        return state, ()  # read again on its own pad: nothing happened
    if (hands[1 - i] | state.seen_in[1 - i]) & bit:
        return _void_deal(
            state, "duplicate_card",
            f"{action.card.symbol()} is already in {OTHER[action.seat]}'s hand: "
            "the pack is imperfect, the deal is void", action.card,
        )
    if hands[i].bit_count() >= 5:
        return _void_deal(
            state, "misdeal", f"{action.seat} was dealt a sixth card: the deal is void", None,
        )
    new = (hands[0] | bit, hands[1]) if i == 0 else (hands[0], hands[1] | bit)
    seen_in = (state.seen_in[0] | new[0], state.seen_in[1] | new[1])
    return state.evolve(hands=new, seen_in=seen_in), ()


def _turn_up(state: GameState, action: TurnUp) -> _Outcome:
    if state.phase != "deal":
        return _wrong_time(state, state.dealer, "turning up")
    bit = 1 << action.card.index
    hands = state.hands
    if (hands[0] | hands[1]) & bit:
        holder = "A" if hands[0] & bit else "B"
        return _void_deal(
            state, "duplicate_card",
            f"{action.card.symbol()} is already in {holder}'s hand: the deal is void", action.card,
        )
    short = [s for s in SEATS if hands[INDEX[s]].bit_count() != 5]
    if state.sight == "partial":
        # a hand seen short is no misdeal: its other cards went unseen
        state = state.evolve(unseen=(5 - hands[0].bit_count(), 5 - hands[1].bit_count()))
    elif short:
        return _void_deal(
            state, "misdeal",
            f"{' and '.join(short)} did not get five cards before the turn-up: the deal is void",
            None,
        )
    return _after_turn_up(state.evolve(turn_up=action.card.index), action.card)


def _deal(state: GameState, action: Deal) -> _Outcome:
    if state.phase != "deal" or state.hands != (0, 0):
        return _wrong_time(state, state.dealer, "a whole deal")
    if isinstance(action, _ElderDeal):
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
        return _void_deal(state, "duplicate_card", "a card was dealt twice: the deal is void", None)
    if len(first) != 5 or len(second) != 5:
        return _void_deal(state, "misdeal", "each seat must get five cards: the deal is void", None)
    return _after_turn_up(state.evolve(hands=(a, b), turn_up=action.turn_up.index), action.turn_up)


def _after_turn_up(state: GameState, card: Card) -> Result:
    state = state.evolve(phase="propose", turn=state.elder)
    events: list[Event] = [Trump(card)]
    if card.rank == "K":
        # rules 22 and 47: a turned-up king scores for the dealer at once
        state = _score_king(state, state.dealer, events)
    return state, tuple(events)


def _score_king(state: GameState, seat: str, events: list[Event]) -> GameState:
    i = INDEX[seat]
    score = add(state.score, i, KING_POINT)
    state = state.evolve(
        score=score, hand_points=add(state.hand_points, i, KING_POINT), king=state.king or seat,
        king_points=add(state.king_points, i, KING_POINT),
    )
    events.append(King(seat, score))
    if score[i] >= state.target:
        state = _end_game(state, seat, events)
    return state


def _finish_dealer_round(state: GameState, seat: str) -> _Outcome | None:
    """In the exchange, a decision by the elder ends the dealer's part when the dealer
    may take no card (italian, german). None: nothing to finish."""
    if state.phase != "exchange":
        return None
    if seat != state.elder or state.exchanger != state.dealer:
        return _wrong_time(state, seat, "a decision during the exchange")
    low = state.rules.dealer_discard[0]
    if state.ex_discarded == 0 and low == 0:
        return _round_done(state, [Exchanged(state.dealer, 0, state.stock_size)])
    if state.ex_discarded > state.ex_drawn:
        missing = state.ex_discarded - state.ex_drawn
        return fault(
            "exchange_count", state.dealer,
            f"{state.dealer} discarded {state.ex_discarded} but drew {state.ex_drawn}: "
            f"draw {missing} more",
        )
    return fault(
        "exchange_count", state.dealer,
        f"{state.dealer} must exchange at least {max(low, 1)} card(s) before {seat} goes on",
    )


def _decide(state: GameState, action: Action) -> _Outcome:
    """Propose, Stand, Declare, Pass by the elder (propose/force) or the dealer (respond)."""
    seat: str = action.seat  # type: ignore[attr-defined]
    events: list[Event] = []
    if state.sight == "partial" and state.phase == "exchange":
        # the table cannot count the stock: the elder's next button ends the round (TRANSCRIPT.md)
        if seat != state.elder:
            return _wrong_time(state, seat, f"{seat}'s answer during the exchange ({state.elder}'s button ends it)")
        state = state.evolve(phase="propose", turn=state.elder, exchanger=None, exchanges=state.exchanges + 1)
    finished = _finish_dealer_round(state, seat)
    if isinstance(finished, Fault):
        return finished
    if finished is not None:
        state, done = finished
        events.extend(done)
    ruleset = state.rules
    declarer_model = ruleset.declares_game
    kind = type(action)
    if state.phase == "play" and kind in (Accept, Refuse):
        # the answer to a double or an offer of the point, in every rule set
        return _answer(state, seat, kind is Accept)
    if declarer_model != (kind in (Declare, Pass)):
        word = "declare or pass" if declarer_model else "propose or play, accept or refuse"
        return _wrong_time(state, seat, f"{action} ({ruleset.name} rules: {word})")
    phase = state.phase
    if phase in ("propose", "force"):
        if seat != state.elder:
            return fault("out_of_turn", seat, f"it is {state.elder}'s turn to decide")
        if kind is Propose:
            events.append(Bid(seat, "propose"))
            return state.evolve(phase="respond", turn=state.dealer, proposals=state.proposals + 1), tuple(events)
        if kind is Stand:
            vulnerable = state.proposals == 0
            events.append(Bid(seat, "stand", vulnerable))
            return _begin_play(state.evolve(vulnerable=seat if vulnerable else state.vulnerable), events)
        if kind is Declare:
            events.append(Bid(seat, "declare"))
            return _begin_play(state.evolve(declarer=seat), events)
        # Pass
        events.append(Bid(seat, "pass"))
        if phase == "force":
            # nobody declared and the stock is gone: the dealer must take the game
            events.append(Bid(state.dealer, "declare"))
            return _begin_play(state.evolve(declarer=state.dealer), events)
        return state.evolve(phase="respond", turn=state.dealer), tuple(events)
    if phase == "respond":
        if seat != state.dealer:
            return fault("out_of_turn", seat, f"it is {state.dealer}'s turn to answer")
        if kind is Declare:
            events.append(Bid(seat, "declare"))
            return _begin_play(state.evolve(declarer=seat), events)
        if kind in (Pass, Accept):
            events.append(Bid(seat, "pass" if kind is Pass else "accept"))
            if state.sight == "partial":
                # whatever each seat discards unseen, the table no longer knows its hand: it knows
                # only the cards it sees arrive after the discard (TRANSCRIPT.md)
                state = state.evolve(hands=(0, 0), unseen=(5, 5))
            return state.evolve(
                phase="exchange", turn=state.elder, exchanger=state.elder,
                ex_discarded=0, ex_drawn=0,
            ), tuple(events)
        if kind is Refuse:
            vulnerable = state.proposals == 1
            events.append(Bid(seat, "refuse", vulnerable))
            return _begin_play(state.evolve(vulnerable=seat if vulnerable else state.vulnerable), events)
        return _wrong_time(state, seat, str(action))
    return _wrong_time(state, seat, str(action))


def _begin_play(state: GameState, events: list[Event]) -> Result:
    elder = state.elder
    if state.sight == "partial":
        state = state.evolve(unseen=(5 - state.hands[0].bit_count(), 5 - state.hands[1].bit_count()))
    events.append(PlayBegins(elder, state.declarer))
    return state.evolve(phase="play", turn=elder, leader=elder, exchanger=None), tuple(events)


def _discard(state: GameState, action: Discard) -> _Outcome:
    seat = action.seat
    if state.phase != "exchange":
        return _wrong_time(state, seat, "discarding")
    if state.sight == "partial":
        return _discard_unseen(state, action)
    if seat != state.exchanger:
        return fault(
            "out_of_turn", seat, f"it is {state.exchanger}'s turn to discard (rule 28)",
            action.cards[0],
        )
    i = INDEX[seat]
    hand = state.hands[i]
    mask = 0
    for card in action.cards:
        bit = 1 << card.index
        if not hand & bit or mask & bit:
            return fault(
                "card_not_in_hand", seat,
                f"{seat} does not hold the {card.symbol()}: take it back", card,
            )
        mask |= bit
    dealer = state.dealer
    if state.ex_drawn:
        return fault(
            "exchange_count", dealer,
            f"{seat} has begun to draw: no more discards this round", action.cards[0],
        )
    high = (state.rules.elder_discard if seat == state.elder else state.rules.dealer_discard)[1]
    stock = state.stock_size
    total = state.ex_discarded + len(action.cards)
    if total > min(high, stock):
        why = f"only {stock} card(s) left in the stock (rule 38)" if stock < high else (
            f"at most {high} cards"
        )
        return fault("exchange_count", dealer, f"{seat} may discard {why}: take one back", action.cards[0])
    d = state.discards
    discards = (d[0] | mask, d[1]) if i == 0 else (d[0], d[1] | mask)
    hands = (hand & ~mask, state.hands[1]) if i == 0 else (state.hands[0], hand & ~mask)
    return state.evolve(hands=hands, discards=discards, ex_discarded=total), ()


def _draw(state: GameState, action: Draw) -> _Outcome:
    seat = action.seat
    dealer = state.dealer
    if state.phase not in ("propose", "respond", "exchange", "force"):
        return _wrong_time(state, seat, "drawing")
    if state.sight == "partial":
        return _draw_unseen(state, action)
    i = INDEX[seat]
    hands = state.hands
    stock = state.stock_mask
    mask = 0
    for card in action.cards:
        bit = 1 << card.index
        if hands[i] & bit and len(action.cards) == 1:
            return state, ()  # read again on its own hand pad
        if not stock & bit or mask & bit:
            where = _where(state, card.index)
            return _void_deal(
                state, "duplicate_card",
                f"{card.symbol()} is {where}: it cannot come from the stock; the deal is void",
                card,
            )
        mask |= bit
    if state.phase != "exchange":
        return fault(
            "exchange_count", dealer,
            f"no exchange is under way: take the {action.cards[0].symbol()} back to the stock",
            action.cards[0],
        )
    if seat != state.exchanger:
        return fault(
            "exchange_count", dealer,
            f"{seat} may not draw now: it is {state.exchanger}'s exchange; take the "
            f"{action.cards[0].symbol()} back", action.cards[0],
        )
    low = (state.rules.elder_discard if seat == state.elder else state.rules.dealer_discard)[0]
    drawn = state.ex_drawn + len(action.cards)
    if drawn > state.ex_discarded or state.ex_discarded < max(low, 1):
        return fault(
            "exchange_count", dealer,
            f"{seat} discarded {state.ex_discarded} and may draw no more: take the "
            f"{action.cards[0].symbol()} back", action.cards[0],
        )
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


def _discard_unseen(state: GameState, action: Discard) -> _Outcome:
    """Partial sight: a discard seen (the elder's until his first replacement arrives, then the
    dealer's); the table cannot count them."""
    seat = action.seat
    i = INDEX[seat]
    if seat != state.exchanger:
        return fault("out_of_turn", seat, f"it is {state.exchanger}'s turn to discard (rule 28)", action.cards[0])
    mask = 0
    for card in action.cards:
        bit = 1 << card.index
        if not_held(state, i) & bit:
            return fault("card_not_in_hand", seat, f"{seat} does not hold the {card.symbol()}: take it back", card)
        mask |= bit
    d = state.discards
    hands = state.hands
    return state.evolve(
        hands=(hands[0] & ~mask, hands[1]) if i == 0 else (hands[0], hands[1] & ~mask),
        discards=(d[0] | mask, d[1]) if i == 0 else (d[0], d[1] | mask),
        ex_discarded=state.ex_discarded + len(action.cards),
    ), ()


def _draw_unseen(state: GameState, action: Draw) -> _Outcome:
    """Partial sight: a replacement seen arriving on a seat's hand pad. A card seen elsewhere
    voids the deal; a sixth card known in a hand is refused (exchange_count)."""
    seat = action.seat
    i = INDEX[seat]
    hands = state.hands
    mask = 0
    for card in action.cards:
        bit = 1 << card.index
        if hands[i] & bit and len(action.cards) == 1:
            return state, ()  # read again on its own hand pad
        if not_held(state, i) & bit or mask & bit:
            where = _where(state, card.index)
            return _void_deal(
                state, "duplicate_card",
                f"{card.symbol()} is {where}: it cannot come from the stock; the deal is void", card,
            )
        mask |= bit
    dealer = state.dealer
    if state.phase != "exchange":
        return fault(
            "exchange_count", dealer,
            f"no exchange is under way: take the {action.cards[0].symbol()} back to the stock", action.cards[0],
        )
    new = hands[i] | mask
    if new.bit_count() > 5:
        return fault(
            "exchange_count", dealer,
            f"{seat} would hold six cards: take the {action.cards[0].symbol()} back", action.cards[0],
        )
    seen = state.seen_in
    state = state.evolve(
        hands=(new, hands[1]) if i == 0 else (hands[0], new),
        seen_in=(seen[0] | mask, seen[1]) if i == 0 else (seen[0], seen[1] | mask),
        ex_drawn=state.ex_drawn + len(action.cards),
    )
    if state.exchanger == state.elder:
        # a replacement has arrived: further discards are the dealer's (TRANSCRIPT.md)
        state = state.evolve(exchanger=dealer, turn=dealer)
    return state, ()


def _where(state: GameState, index: int) -> str:
    bit = 1 << index
    if state.hands[0] & bit:
        return "in A's hand"
    if state.hands[1] & bit:
        return "in B's hand"
    if index == state.turn_up:
        return "the turn-up"
    if (state.discards[0] | state.discards[1]) & bit:
        return "among the discards"
    for seat in SEATS:
        if state.seen_in[INDEX[seat]] & bit:
            return f"seen in {seat}'s hand"
    return "played already"


def _round_done(state: GameState, events: list[Event]) -> Result:
    state = state.evolve(exchanges=state.exchanges + 1, exchanger=None, ex_discarded=0, ex_drawn=0)
    if state.stock_size == 0:
        return _stock_gone(state, events)
    return state.evolve(phase="propose", turn=state.elder), tuple(events)


def _stock_gone(state: GameState, events: list[Event]) -> Result:
    if state.rules.declares_game:
        return state.evolve(phase="force", turn=state.elder, exchanger=None), tuple(events)
    return _begin_play(state, events)


def _announce(state: GameState, action: Announce) -> _Outcome:
    seat = action.seat
    i = INDEX[seat]
    if state.phase != "play" or state.offer is not None:
        return _wrong_time(state, seat, "announcing the king")
    if state.sight == "partial":
        return _announce_unseen(state, seat)
    king = king_index(state.turn_up)
    if state.king is not None:
        if state.king == seat and state.turn_up != king:
            return _wrong_time(state, seat, "announcing the king again")
        return fault("false_king", seat, f"{seat} announced the king but does not hold it: no point")
    held = state.hands[i] >> king & 1
    if not (held or state.king_played_by == seat):
        # rule 25: announcing a king one never held is false, whenever it is said
        return fault("false_king", seat, f"{seat} announced the king but does not hold it: no point")
    late = _king_too_late(state, seat, king)
    if late:
        return _wrong_time(state, seat, late)
    if state.rules.king_must_be_led and held:
        # 002 "muß dann den Trumpf-König aufspielen": a king already played has been led or won
        state = state.evolve(king_to_lead=seat)
    events: list[Event] = []
    return _score_king(state, seat, events), tuple(events)


def _king_too_late(state: GameState, seat: str, king: int) -> str:
    """Why ``seat`` may no longer announce the king (``""``: it may): the rule set's window."""
    i = INDEX[seat]
    return state.rules.king_too_late(
        count=state.counts[i], king_first=state.first_cards[i] == king, dealer=seat == state.dealer,
        king_on_trick=state.led == king, won=state.tricks[i], any_card=bool(state.played) or state.led >= 0,
    )


def _announce_unseen(state: GameState, seat: str) -> _Outcome:
    """Partial sight: a king the table knows the seat holds is scored; one it knows the seat
    does not hold is false at once; any other is scored until it is proven false (rule 25)."""
    i = INDEX[seat]
    if state.awaiting >= 0:
        return _wrong_time(state, seat, "announcing the king while a choice is awaited")
    if state.replaying:
        return _wrong_time(state, seat, "announcing the king in a hand played again")
    king = king_index(state.turn_up)
    if state.king_points[i] > 0 and state.turn_up != king:
        return _wrong_time(state, seat, "announcing the king again")
    if not_held(state, i) >> king & 1:
        return fault("false_king", seat, f"{seat} announced the king but does not hold it: no point")
    late = _king_too_late(state, seat, king)
    if late:
        return _wrong_time(state, seat, late)
    if not king_known_held(state, i):
        trick = state.tricks[0] + state.tricks[1] + 1  # the trick under way, or the next one
        state = state.evolve(claims=(*state.claims, (i, trick)))
    if state.rules.king_must_be_led and state.hands[i] >> king & 1:
        state = state.evolve(king_to_lead=seat)
    events: list[Event] = []
    return _score_king(state, seat, events), tuple(events)


def _play(state: GameState, action: PlayCard) -> _Outcome:
    seat = action.seat
    card = action.card
    if state.phase != "play":
        if state.phase in ("propose", "respond", "exchange", "force"):
            return fault(
                "out_of_turn", seat,
                f"play has not begun ({expectation(state)}): take back the {card.symbol()}", card,
            )
        return _wrong_time(state, seat, f"playing the {card.symbol()}")
    if state.offer is not None or state.awaiting >= 0:
        return fault(
            "out_of_turn", seat,
            f"{expectation(state)} first: take back the {card.symbol()}", card,
        )
    i = INDEX[seat]
    bit = 1 << card.index
    hand = state.hands[i]
    if state.sight == "partial" and not hand & bit and not not_held(state, i) & bit:
        # not known either way: one of the seat's unseen cards, judged by the cards it is known to hold
        hand |= bit
    if not hand & bit:
        # TRANSCRIPT.md: a card the seat does not hold is card_not_in_hand, whoever's turn it is
        return fault(
            "card_not_in_hand", seat,
            f"{seat} does not hold the {card.symbol()}: take it back and play from your hand", card,
        )
    if seat != state.turn:
        return fault(
            "out_of_turn", seat, f"it is {state.turn}'s turn: take back the {card.symbol()}", card,
        )
    led = state.led
    ruleset = state.rules
    if led < 0:
        if not lead_mask(ruleset, hand, state.turn_up, state.king_to_lead == seat) & bit:
            return fault(
                "king_not_led", seat,
                f"{seat} announced the king and must lead it: take back the {card.symbol()}",
                card,
            )
    elif not follow_mask(ruleset, hand, led, state.turn_up >> 3) & bit:
        return _play_fault(state, seat, card, hand, led)
    if hand != state.hands[i]:
        hands, unseen = state.hands, state.unseen
        state = state.evolve(
            hands=(hand, hands[1]) if i == 0 else (hands[0], hand),
            unseen=(unseen[0] - 1, unseen[1]) if i == 0 else (unseen[0], unseen[1] - 1),
        )
    return _accept_play(state, seat, i, card, bit)


def _play_fault(state: GameState, seat: str, card: Card, hand: int, led: int) -> Fault:
    """The fault of a card that breaks a duty of play, with its message (the code is
    :func:`engine.legality.play_fault_code`'s)."""
    ruleset = state.rules
    led_card = CARDS[led]
    trump = state.turn_up >> 3
    code = play_fault_code(ruleset, hand, led, trump, card.index)
    if code == "revoke":
        must_win = ruleset.must_overtake and bool(hand & ruleset.ranking.above[led])
        return revoke_fault(seat, card, led_card.suit, must_win)
    if code == "not_overtaking":
        return not_overtaking_fault(seat, card, led_card)
    if code == "not_trumping":
        return not_trumping_fault(seat, card, SUITS[trump])
    same = hand & SUIT_MASKS[led >> 3]
    if same:
        best = CARDS[ruleset.ranking.highest(same & ruleset.ranking.above[led] or same)]
        return fault(
            "not_highest", seat,
            f"{seat} must play the highest {SUIT_NAMES[led_card.suit]} (forzare), the "
            f"{best.symbol()}: take back the {card.symbol()}", card,
        )
    best = CARDS[ruleset.ranking.highest(hand & SUIT_MASKS[trump])]
    return fault(
        "not_highest", seat,
        f"{seat} must trump with the highest, the {best.symbol()} (forzare): take back the "
        f"{card.symbol()}", card,
    )


def _accept_play(state: GameState, seat: str, i: int, card: Card, bit: int) -> Result:
    events: list[Event] = []
    if state.sight == "partial":
        trick = state.tricks[0] + state.tricks[1] + 1
        state = state.evolve(history=(*state.history, (trick, i, card.index, state.led)))
    counts = state.counts
    first_cards = state.first_cards
    if counts[i] == 0:
        if state.rules.king_penalty and state.king is None and state.hands[i] >> king_index(state.turn_up) & 1:
            state = _penalty(state, seat, state.rules.king_penalty, "king_not_declared", events)
            if state.phase == "over":
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
        return _end_hand(state, events, None)
    return state, tuple(events)


# -- faults proven late (partial sight) --------------------------------------------------------


def _prove(state: GameState, events: list[Event], *, hand_done: bool) -> Result:
    """After a card is accepted: print what it proves (TRANSCRIPT.md, *Partial sight*)."""
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
        if code == "false_king":
            state = _take_back_king(state, seat)
            events.append(_late(code, name, trick, f"{name} announced the king but did not hold it: the point is "
                                                   "taken back (rule 25)"))
            if king_known_held(state, 1 - seat):
                continue  # rule 25: the other seat holds the king, no further penalty
        else:
            events.append(_late(code, name, trick, f"{name} broke a duty of play at trick {trick} (rule 43)"))
        return state.evolve(awaiting=seat), tuple(events)
    if state.hand_over:
        return _end_hand(state.evolve(hand_over=False), events, None)
    return state, tuple(events)


def _late(code: str, seat: str, trick: int, message: str) -> Fault:
    other = OTHER[seat]
    remedy = f"{other}: yes, the hands are played again; no, play on and {seat}'s points are reduced"
    if code == "false_king":
        return Fault(code, seat, "25", message, remedy, None, True, trick)
    return Fault(code, seat, "43", message, remedy, None, True, trick)


def _take_back_king(state: GameState, seat: int) -> GameState:
    """A false king's point is always taken back (rule 25)."""
    claims = tuple(c for c in state.claims if c[0] != seat)
    king = state.king
    if king == SEATS[seat]:
        king = next((SEATS[s] for s, _t in claims), None)
    return state.evolve(
        score=add(state.score, seat, -KING_POINT), hand_points=add(state.hand_points, seat, -KING_POINT),
        king_points=add(state.king_points, seat, -KING_POINT), claims=claims, king=king,
    )


def _remedy(state: GameState, action: ReplayHand | PlayOn) -> _Outcome:
    """The other seat's choice after a fault proven late: have the hands played again, or play on."""
    seat = action.seat
    offender = state.awaiting
    if offender < 0:
        return _wrong_time(state, seat, "a choice (no fault waits for one)")
    if INDEX[seat] == offender:
        return fault("out_of_turn", seat, f"{OTHER[seat]} chooses, not {seat}")
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


def _penalty(state: GameState, seat: str, points: int, reason: str, events: list[Event]) -> GameState:
    i = INDEX[seat]
    events.append(Penalty(seat, -points, reason))
    return state.evolve(score=add(state.score, i, -points), hand_points=add(state.hand_points, i, -points))


def _penalise(state: GameState, refused: Fault) -> Result:
    """Italian: a refused revoke still costs its point (source 000: "-1 a chi NON ha
    risposto al seme")."""
    points = state.rules.revoke_penalty
    if points and refused.code in ("revoke", "not_trumping") and refused.seat:
        events: list[Event] = [
            dataclasses.replace(
                refused, remedy=f"take the card back; {points} point lost (italian rules)",
            ),
        ]
        return _penalty(state, refused.seat, points, refused.code, events), tuple(events)
    return state, (refused,)


def _end_hand(state: GameState, events: list[Event], forced: tuple[int, int] | None) -> Result:
    if forced is not None:
        points = forced
    else:
        points = hand_trick_points(
            state.rules, state.tricks,
            vulnerable=INDEX[state.vulnerable] if state.vulnerable else None,
            declarer=INDEX[state.declarer] if state.declarer else None,
            must_vole=INDEX[state.must_vole] if state.must_vole else None,
        )
    if state.reduced != (False, False):
        # rule 43: the offender scores the point as nothing, the vole (or a point won against a
        # seat that played d'autorité) as one
        points = (
            points[0] - 1 if state.reduced[0] and points[0] > 0 else points[0],
            points[1] - 1 if state.reduced[1] and points[1] > 0 else points[1],
        )
    m = state.multiplier
    hp = state.hand_points
    total = (points[0] * m + hp[0], points[1] * m + hp[1])
    score = (state.score[0] + points[0] * m, state.score[1] + points[1] * m)
    events.append(HandEnd(state.tricks, total, score))
    state = state.evolve(score=score)
    won = reached(score, state.target)
    if won is not None:
        return _end_game(state, SEATS[won], events), tuple(events)
    if state.rules.winner_leads_next_hand:
        # 002: the hand's winner leads the next one, so its loser deals. The winner is the seat
        # whose trick points are the higher (never equal): who took three tricks or more, the
        # opponent of a declarer who failed, the seat scored as if it had won the point.
        dealer = SEATS[1] if points[0] > points[1] else SEATS[0]
    else:
        dealer = OTHER[state.dealer]
    return reset_hand(state, dealer, hand_no=state.hand_no + 1), tuple(events)


def reset_hand(state: GameState, dealer: str, **changes: Any) -> GameState:
    """``state`` ready for ``dealer`` to deal: nothing of the last deal is left (a void deal
    keeps its hand number; the next hand passes ``hand_no``)."""
    return state.evolve(
        phase="deal", dealer=dealer, turn=None, hands=(0, 0), turn_up=-1, discards=(0, 0),
        played=0, proposals=0, exchanges=0, vulnerable=None, declarer=None, exchanger=None,
        ex_discarded=0, ex_drawn=0, leader=None, led=-1, tricks=(0, 0), counts=(0, 0),
        first_cards=(-1, -1), king=None, king_played_by=None, king_to_lead=None, hand_points=(0, 0), multiplier=1,
        offer=None, offer_by=None, must_vole=None, unseen=(0, 0), seen_in=(0, 0), king_points=(0, 0), claims=(),
        history=(), proven=0, pending=(), awaiting=-1, reduced=(False, False), hand_over=False, replaying=False,
        **changes,
    )


def _end_game(state: GameState, winner: str, events: list[Event]) -> GameState:
    ruleset = state.rules
    w = INDEX[winner]
    loser_score = state.score[1 - w]
    value = ruleset.game_points(loser_score)
    games = (state.games[0] + 1, state.games[1]) if w == 0 else (state.games[0], state.games[1] + 1)
    mp = state.match_points
    match_points = (mp[0] + value, mp[1]) if w == 0 else (mp[0], mp[1] + value)
    events.append(GameEnd(winner, state.score, value))
    state = state.evolve(games=games, match_points=match_points, winner=winner)
    if ruleset.pool:
        return _pool_change(state, winner, events)
    if ruleset.rubber > 1 and games[w] <= ruleset.rubber // 2:
        # german: the game's winner won its last hand (only a hand's winner gains trick points)
        # or scored the king that ended it: he leads the next game's first hand, the loser deals
        dealer = OTHER[winner] if ruleset.winner_leads_next_hand else OTHER[state.dealer]
        return reset_hand(
            state, dealer, score=(0, 0), hand_no=state.hand_no + 1, game_no=state.game_no + 1, winner=None,
        )
    if ruleset.rubber > 1:
        events.append(MatchEnd(winner, games, match_points, state.players[w]))
    return state.evolve(phase="over", turn=None)


def _pool_change(state: GameState, winner: str, events: list[Event]) -> GameState:
    """Pool écarté: the loser changes places with the watcher; two wins in a row take the pool."""
    w = INDEX[winner]
    player = state.players[w]
    name, run = state.streak
    streak = (player, run + 1 if name == player else 1)
    if streak[1] >= 2:
        events.append(MatchEnd(winner, state.games, state.match_points, player))
        return state.evolve(phase="over", turn=None, streak=streak)
    a, b, watcher = state.players
    loser = OTHER[winner]
    players = (watcher, b, a) if loser == "A" else (a, watcher, b)
    events.append(Seating(*players))
    # the newcomer deals: the winner leads the next game
    return reset_hand(
        state, loser, score=(0, 0), hand_no=state.hand_no + 1, game_no=state.game_no + 1, winner=None, players=players,
        streak=streak,
    )


def _double(state: GameState, action: Double) -> _Outcome:
    seat = action.seat
    if not state.rules.doubling:
        return _wrong_time(state, seat, "doubling (not played at this table)")
    done = state.tricks[0] + state.tricks[1]
    if state.phase != "play" or state.offer is not None or state.multiplier != 1 or done > 2 or (
        done == 2 and state.led >= 0
    ):
        return _wrong_time(state, seat, "doubling (only once, before the third trick)")
    return state.evolve(offer="double", offer_by=seat), (Offer(seat, "double"),)


def _offer_point(state: GameState, action: OfferPoint) -> _Outcome:
    seat = action.seat
    if not state.rules.offer_point:
        return _wrong_time(state, seat, "offering the point (not played at this table)")
    if state.phase != "play" or state.offer is not None or state.must_vole or (
        state.played or state.led >= 0
    ):
        return _wrong_time(state, seat, "offering the point (only before the first card)")
    return state.evolve(offer="point", offer_by=seat), (Offer(seat, "point"),)


def _answer(state: GameState, seat: str, accepted: bool) -> _Outcome:
    if state.offer is None or state.offer_by is None:
        return _wrong_time(state, seat, "an answer")
    by = state.offer_by
    if seat == by:
        return fault("out_of_turn", seat, f"{OTHER[by]} must answer {by}'s offer")
    events: list[Event] = [Offer(by, state.offer, accepted)]
    ruleset = state.rules
    vulnerable = INDEX[state.vulnerable] if state.vulnerable else None
    cleared = state.evolve(offer=None, offer_by=None)
    if state.offer == "double":
        if accepted:
            return cleared.evolve(multiplier=2), tuple(events)
        # declined: the proposer scores as if he had won the point, not the vole
        winner = INDEX[by]
        return _end_hand(cleared, events, as_if_point(ruleset, winner, vulnerable))
    if accepted:
        return _end_hand(cleared, events, as_if_point(ruleset, INDEX[seat], vulnerable))
    return cleared.evolve(must_vole=seat), tuple(events)


_PLAYED = tuple(tuple(Played(seat, card) for card in CARDS) for seat in SEATS)
"""Every Played event, made once (events are values)."""

_Handler = Callable[[GameState, Any], _Outcome]

_HANDLERS: dict[type, _Handler] = {
    TurnTarget: _retourne,
    Cut: _cut,
    DealCard: _deal_card,
    Deal: _deal,
    _ElderDeal: _deal,
    TurnUp: _turn_up,
    Propose: _decide,
    Stand: _decide,
    Accept: _decide,
    Refuse: _decide,
    Declare: _decide,
    Pass: _decide,
    Discard: _discard,
    Draw: _draw,
    Announce: _announce,
    PlayCard: _play,
    Double: _double,
    OfferPoint: _offer_point,
    ReplayHand: _remedy,
    PlayOn: _remedy,
}
