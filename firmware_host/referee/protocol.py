"""The physical protocol, both ways: what a card on a pad or a button means, and how players do an action.

:func:`card_action` and :func:`button_action` turn what the sensors saw into the engine
action it stands for in a given state (the referee's direction); :func:`physical_events`
turns an action into the pad and button events by which people do it (the built-in
players' direction). The tests check that the two are inverses::

    >>> import engine
    >>> state = engine.new_game("classic", dealer="A")
    >>> [e.to_json() for e in physical_events(state, engine.DealCard("B", engine.Card.parse("KS")))]
    [{'zone': 'hand.B', 'card': 'KS'}]
    >>> card_action(state, Zone.HAND_B, engine.Card.parse("KS"))
    DealCard(seat='B', card=Card.parse('KS'))
"""

from __future__ import annotations

from engine import CARDS, Card, GameState
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
from engine.state import Phase
from firmware_host.referee.transcript import ButtonEvent, CardEvent, PhysicalEvent
from hardware.layout import Zone, ZoneKind

_YES = (Propose, Accept, Declare, Double)
_NO = (Stand, Refuse, Pass, OfferPoint)


# -- the referee's direction: sensors → action -------------------------------------------------


def zone_of(pad: Zone, state: GameState, card: Card | None) -> Zone:
    """The zone a pad stands for now: itself in the full layout; in the compact layout a
    seat's pad is its play pad during the cut and the tricks and its hand pad otherwise, and
    the centre pad is the turn-up during the deal (and for the turn-up card), else the discards."""
    if pad.kind == ZoneKind.PAD and pad.seat is not None:
        return (Zone.play if state.phase in (Phase.PLAY, Phase.CUT, Phase.OVER) else Zone.hand)(pad.seat)
    if pad.kind == ZoneKind.CENTRE:
        if state.phase in (Phase.RETOURNE, Phase.DEAL) or (card is not None and card.index == state.turn_up):
            return Zone.TURNUP
        return Zone.DISCARD
    return pad


def card_action(state: GameState, zone: Zone, card: Card) -> Action | None:
    """The action a card arriving on ``zone`` stands for in ``state`` (None: it means nothing now)."""
    phase = state.phase
    kind, seat = zone.kind, zone.seat
    if phase == Phase.OVER:
        return None
    if phase == Phase.RETOURNE:
        return TurnTarget(card) if kind == ZoneKind.TURNUP else None
    if phase == Phase.CUT:
        # each seat lays its cut on its play pad (a hand pad starts the deal instead)
        return Cut(seat, card) if kind == ZoneKind.PLAY and seat is not None else None
    if kind == ZoneKind.HAND and seat is not None:
        if phase == Phase.DEAL:
            return DealCard(seat, card)
        if phase == Phase.PLAY:
            return None  # cards crossing a hand pad during the tricks mean nothing
        return Draw(seat, (card,))
    if kind == ZoneKind.TURNUP:
        return TurnUp(card) if phase == Phase.DEAL else None
    if kind == ZoneKind.DISCARD:
        return Discard(state.exchanger or state.elder, (card,)) if phase == Phase.EXCHANGE else None
    if kind == ZoneKind.PLAY and seat is not None:
        return PlayCard(seat, card)
    return None


def button_action(state: GameState, seat: str, button: str) -> Action | None:
    """The action a seat's button stands for in ``state`` (None: it means nothing now).

    ``king`` announces; ``yes``/``no`` answer what the table asks: the elder proposes
    or plays (declares or passes), the dealer accepts or refuses; during the tricks they
    answer an offer, or make one where the table plays doubling (``yes``) or the offer
    of the point (``no``).
    """
    if button == "king":
        return Announce(seat)
    yes = button == "yes"
    rules = state.rules
    phase = state.phase
    if phase == Phase.PLAY:
        if state.awaiting >= 0:
            # a fault proven late: the other seat has the hands played again, or plays on
            return ReplayHand(seat) if yes else PlayOn(seat)
        if state.offer is not None:
            return Accept(seat) if yes else Refuse(seat)
        if yes and rules.doubling:
            return Double(seat)
        if not yes and rules.offer_point:
            return OfferPoint(seat)
        return None
    if phase in (Phase.PROPOSE, Phase.FORCE, Phase.EXCHANGE, Phase.RESPOND):
        # the elder's buttons (and, during the exchange, anyone's) ask the elder's question;
        # a button pressed out of turn is the engine's to refuse
        asks_elder = seat == state.elder or phase == Phase.EXCHANGE
        choice = rules.elder_choice(seat) if asks_elder else rules.dealer_choice(seat)
        return choice[0] if yes else choice[1]
    return None


# -- the players' direction: action → sensors --------------------------------------------------


def physical_events(state: GameState, action: Action, *, lift_tricks: bool = True) -> list[PhysicalEvent]:
    """The pad and button events by which players do ``action`` in ``state``, one card at a time.

    A whole deal is dealt in packets of three then two, non-dealer first (rule 8); with
    ``lift_tricks`` a completed trick is gathered at once.
    """
    if isinstance(action, Deal):
        first, second = (action.a, action.b) if state.elder == "A" else (action.b, action.a)
        out: list[PhysicalEvent] = []
        for packet in (slice(0, 3), slice(3, 5)):
            for seat, cards in ((state.elder, first), (state.dealer, second)):
                out.extend(CardEvent(Zone.hand(seat), str(c)) for c in cards[packet])
        out.append(CardEvent(Zone.TURNUP, str(action.turn_up)))
        return out
    if isinstance(action, DealCard):
        return [CardEvent(Zone.hand(action.seat), str(action.card))]
    if isinstance(action, TurnUp | TurnTarget):
        return [CardEvent(Zone.TURNUP, str(action.card))]
    if isinstance(action, Cut):
        return [CardEvent(Zone.play(action.seat), str(action.card))]
    if isinstance(action, Discard):
        return [CardEvent(Zone.DISCARD, str(c)) for c in action.cards]
    if isinstance(action, Draw):
        return [CardEvent(Zone.hand(action.seat), str(c)) for c in action.cards]
    if isinstance(action, Announce):
        return [ButtonEvent(action.seat, "king")]
    if isinstance(action, _YES):
        return [ButtonEvent(action.seat, "yes")]
    if isinstance(action, _NO):
        return [ButtonEvent(action.seat, "no")]
    if isinstance(action, PlayCard):
        out = [CardEvent(Zone.play(action.seat), str(action.card))]
        if lift_tricks and state.led >= 0 and state.leader is not None:
            # the trick is complete: both cards are gathered
            out.append(CardEvent(Zone.play(state.leader), str(CARDS[state.led]), gone=True))
            out.append(CardEvent(Zone.play(action.seat), str(action.card), gone=True))
        return out
    raise ValueError(f"no physical form for {action!r}")

