"""The referee: physical events in, table events out.

The controller owns the game. It is not thread-safe by design: one thread (the
service's event loop) calls :meth:`Controller.handle` for each physical event,
in order; readers and buttons only put events on that thread's queue.

    >>> from firmware_host.transcript import CardEvent, ButtonEvent, Setup
    >>> table = Controller()
    >>> _ = table.handle(Setup(rules="classic", dealer="B"))
    >>> cards = ["KH", "QH", "JH", "AH", "TH", "7S", "8S", "9S", "TS", "AS"]
    >>> for i, card in enumerate(cards):
    ...     _ = table.handle(CardEvent("hand.A" if i < 5 else "hand.B", card))
    >>> [e.to_json() for e in table.handle(CardEvent("turnup", "7D"))]
    [{'event': 'trump', 'card': '7D'}]
    >>> [e.to_json()["code"] for e in table.handle(CardEvent("play.B", "7S"))]
    ['out_of_turn']
    >>> table.expectation()
    'play has not begun (A: propose or play?): take back the 7♠'
    >>> [e.to_json()["event"] for e in table.handle(CardEvent("play.B", "7S", gone=True))]
    ['corrected']
    >>> table.expectation()
    'A: propose or play?'
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import engine
from engine import Event, Fault, GameState
from engine.actions import (
    Accept,
    Action,
    Announce,
    Cut,
    DealCard,
    Discard,
    Double,
    Draw,
    OfferPoint,
    PlayCard,
    Refuse,
    TurnTarget,
    TurnUp,
)
from engine.cards import Card
from engine.faults import fault
from firmware_host.transcript import ButtonEvent, CardEvent, PhysicalEvent, Setup

logger = logging.getLogger(__name__)

CONTRACT_EVENTS = frozenset({"trump", "king", "trick", "hand_end", "game_end", "fault"})
"""The event kinds of TRANSCRIPT.md's contract; ``replay --json`` prints these."""


@dataclass(frozen=True, slots=True)
class Notice(Event):
    """Something the table tells the players that is not a fault of the rules: a
    button pressed when nothing asks for it, a card on a pad that means nothing now."""

    event: ClassVar[str] = "notice"
    message: str
    seat: str | None = None
    code: str = "wrong_time"


@dataclass(frozen=True, slots=True)
class Corrected(Event):
    """A refused card was taken back: the fault is put right."""

    event: ClassVar[str] = "corrected"
    code: str
    seat: str | None
    card: str | None = None


@dataclass(frozen=True, slots=True)
class NewGame(Event):
    """A new game starts (after ``yes`` at the end of a game)."""

    event: ClassVar[str] = "new_game"
    rules: str
    dealer: str | None
    target: int


@dataclass(frozen=True, slots=True)
class ReaderState(Event):
    """A pad's reader went offline or came back."""

    event: ClassVar[str] = "reader"
    zone: str
    online: bool
    reason: str = ""


@dataclass
class _Rejected:
    zone: str
    card: str | None
    uid: str | None
    fault: Fault


@dataclass
class TableDefaults:
    """The game a table starts with when a transcript's setup does not say."""

    rules: str = "classic"
    dealer: str | None = None
    target: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    players: tuple[str, ...] | None = None


class Controller:
    """Turns pad and button events into engine actions, and keeps what the table shows.

    :param defaults: the table's configured game (rule set, target, options).
    :param card_for_uid: the tag registry's lookup (UID → card), or None.
    :param layout: ``full`` (six pads) or ``compact`` (pads ``A``, ``B``, ``centre``).
    """

    def __init__(
        self,
        defaults: TableDefaults | None = None,
        *,
        card_for_uid: Callable[[str], str | None] | None = None,
        layout: str = "full",
    ) -> None:
        self.defaults = defaults or TableDefaults()
        self._card_for_uid = card_for_uid
        self.layout = layout
        self.setup: Setup = Setup()
        self.tags: dict[str, str] = dict(self.defaults.tags)
        self.state: GameState = self._new_state(self.defaults.dealer)
        self.started = False
        self.on_pad: dict[str, set[str]] = {}
        self.rejected: list[_Rejected] = []
        self.last_fault: Fault | None = None
        self.last_hand: engine.HandEnd | None = None
        self.last_trick: engine.Trick | None = None
        self.offline: set[str] = set()
        self.game_count = 1

    # -- the game --------------------------------------------------------------------------

    def _new_state(self, dealer: str | None) -> GameState:
        d = self.defaults
        rules = self.setup.rules or d.rules
        options = {**d.options, **self.setup.options}
        target = self.setup.target or d.target
        if target is not None:
            options["target"] = target
        players = self.setup.players or d.players
        return engine.new_game(
            rules, dealer=dealer,
            players=tuple(players) if players and len(players) == 3 else None,  # type: ignore[arg-type]
            **options,
        )

    def expectation(self) -> str:
        """What the table waits for, in words (``'A: propose or play?'``)."""
        if self.rejected:
            r = self.rejected[-1]
            return r.fault.message
        return engine.expectation(self.state)

    @property
    def faulty_seats(self) -> set[str]:
        """Seats with a fault still to put right (their LEDs are lit)."""
        return {r.fault.seat for r in self.rejected if r.fault.seat}

    # -- events ----------------------------------------------------------------------------

    def handle(self, event: PhysicalEvent) -> list[Event]:
        """Referee one physical event: the table events it causes (maybe none)."""
        if isinstance(event, Setup):
            return self._setup(event)
        self.started = True
        if isinstance(event, ButtonEvent):
            return self._button(event)
        return self._card(event)

    def reader(self, zone: str, online: bool, reason: str = "") -> list[Event]:
        """A reader went offline or came back (from the pad driver)."""
        if online:
            self.offline.discard(zone)
        else:
            self.offline.add(zone)
        return [ReaderState(zone, online, reason)]

    def _setup(self, setup: Setup) -> list[Event]:
        if self.started:
            return [Notice("a setup line is only read before the game starts", None, "setup_ignored")]
        self.setup = setup
        self.tags = {**self.defaults.tags, **setup.tags}
        try:
            self.state = self._new_state(setup.dealer or self.defaults.dealer)
        except (engine.UnknownRulesError, ValueError) as exc:
            raise engine.NotationError(f"setup: {exc}") from exc
        return []

    def _identify(self, event: CardEvent) -> str | None:
        if event.card is not None:
            return event.card
        uid = event.uid or ""
        card = self.tags.get(uid)
        if card is None and self._card_for_uid is not None:
            card = self._card_for_uid(uid)
        return card

    def _zone(self, zone: str, card: str | None) -> str:
        """The transcript zone a pad stands for now (compact layout: by phase)."""
        if zone in ("A", "B"):
            return ("play." if self.state.phase in ("play", "cut", "over") else "hand.") + zone
        if zone == "centre":
            phase = self.state.phase
            if phase in ("retourne", "deal") or (
                card is not None and self.state.turned_up is not None and card == str(self.state.turned_up)
            ):
                return "turnup"
            return "discard"
        return zone

    def _card(self, event: CardEvent) -> list[Event]:
        card = self._identify(event)
        zone = self._zone(event.zone, card)
        key = card or f"uid:{event.uid}"
        # remembered by the zone the pad stands for now: in the compact layout a card dealt
        # across pad A is a new card when it comes back to pad A as a play
        lying = self.on_pad.setdefault(zone, set())
        if event.gone:
            lying.discard(key)
            return self._taken_back(zone, card, event.uid)
        if key in lying:
            return []  # read again where it lies
        for pad, cards in self.on_pad.items():
            if pad != zone:
                # a card lies on one pad at a time: a discard drawn again is no re-read
                cards.discard(key)
        lying.add(key)
        if card is None:
            # a play pad: that seat's card; elsewhere the dealer handles the cards
            seat = zone[-1] if zone.startswith("play.") else (self.state.dealer or None)
            refused = fault(
                "unknown_tag", seat,
                f"tag {event.uid} is not in the registered pack: put that card aside",
            )
            return self._refused(refused, zone, None, event.uid, card_event=True)
        out: list[Event] = []
        if self.state.phase == "cut" and zone.startswith("hand.") and self.state.cuts == (-1, -1):
            out.extend(self._dealer_agreed(engine.OTHER[zone[-1]]))
        action = self._card_action(zone, Card.parse(card))
        if action is None:
            return out
        return out + self._apply(action, zone=zone, card=card)

    def _dealer_agreed(self, dealer: str) -> list[Event]:
        """The players deal without cutting: the first card dealt goes to the elder
        (rule 8, non-dealer first), so the other seat deals."""
        self.state = self._new_state(dealer)
        return [engine.DealerChosen(dealer, None)]

    def _card_action(self, zone: str, card: Card) -> Action | None:
        state = self.state
        phase = state.phase
        if phase == "over":
            return None
        if phase == "retourne":
            return TurnTarget(card) if zone == "turnup" else None
        if phase == "cut":
            # each seat lays its cut on its play pad (a hand pad starts the deal instead)
            return Cut(zone[-1], card) if zone.startswith("play.") else None
        if zone.startswith("hand."):
            seat = zone[-1]
            if phase == "deal":
                return DealCard(seat, card)
            if phase == "play":
                return None  # cards crossing a hand pad during the tricks mean nothing
            return Draw(seat, (card,))
        if zone == "turnup":
            if phase == "deal":
                return TurnUp(card)
            return None  # the turn-up read again, or a card that means nothing there now
        if zone == "discard":
            if phase == "exchange":
                return Discard(state.exchanger or state.elder, (card,))
            return None
        if zone.startswith("play."):
            return PlayCard(zone[-1], card)
        return None

    def _button(self, event: ButtonEvent) -> list[Event]:
        seat, button = event.seat, event.button
        state = self.state
        if state.phase == "over":
            if button == "yes":
                return self._next_game()
            return []
        action = self._button_action(seat, button)
        if action is None:
            return [Notice(f"{seat}'s {button} means nothing now: {engine.expectation(state)}", seat)]
        return self._apply(action, button=button)

    def _button_action(self, seat: str, button: str) -> Action | None:
        state = self.state
        if button == "king":
            return Announce(seat)
        yes = button == "yes"
        rules = state.rules
        phase = state.phase
        if phase == "play":
            if state.offer is not None:
                return Accept(seat) if yes else Refuse(seat)
            if yes and rules.doubling:
                return Double(seat)
            if not yes and rules.offer_point:
                return OfferPoint(seat)
            return None
        if phase in ("propose", "force", "exchange") or (phase == "respond" and seat == state.elder):
            choice = rules.elder_choice(seat) if seat == state.elder or phase == "exchange" else (
                rules.dealer_choice(seat))
            return choice[0] if yes else choice[1]
        if phase == "respond":
            choice = rules.dealer_choice(seat)
            return choice[0] if yes else choice[1]
        return None

    def _apply(self, action: Action, *, zone: str | None = None, card: str | None = None,
               button: str | None = None) -> list[Event]:
        before = self.state
        self.state, events = engine.apply(before, action)
        after = self.state
        if after is not before and after.phase == "deal" and after.hands == (0, 0) and (
            after.hand_no != before.hand_no or after.game_no != before.game_no or before.hands != (0, 0)
        ):
            # a new deal (next hand, next game, or a void deal): the cards are gathered,
            # refused ones with them
            self.on_pad.clear()
            self.rejected.clear()
            self.last_fault = None
        out: list[Event] = []
        for ev in events:
            if isinstance(ev, Fault):
                if ev.code == "wrong_time" or (button in ("yes", "no") and ev.code == "out_of_turn"):
                    out.append(Notice(ev.message, ev.seat, ev.code))
                    continue
                out.extend(self._refused(ev, zone, card, None, card_event=card is not None))
                continue
            out.append(ev)
            self._remember(ev)
        if not any(isinstance(e, Fault) for e in events):
            if not self.rejected:
                self.last_fault = None  # a void deal's or a false king's warning has been seen
            out.extend(self._accepted(action))
        return out

    def _remember(self, ev: Event) -> None:
        if isinstance(ev, engine.Trick):
            self.last_trick = ev
        elif isinstance(ev, engine.HandEnd):
            self.last_hand = ev
        elif isinstance(ev, engine.Trump):
            self.last_hand = None
            self.last_trick = None

    def _refused(self, refused: Fault, zone: str | None, card: str | None, uid: str | None,
                 *, card_event: bool) -> list[Event]:
        self.last_fault = refused
        if refused.code in ("misdeal", "duplicate_card") and (
            self.state.phase == "deal" and self.state.hands == (0, 0)
        ):
            # the deal is void: nothing to take back, the dealer deals again
            self.rejected.clear()
            return [refused]
        if card_event and zone is not None:
            self.rejected.append(_Rejected(zone, card, uid, refused))
        return [refused]

    def _accepted(self, action: Action) -> list[Event]:
        """A legal action by a seat puts right that seat's refused plays (rule 39)."""
        seat = getattr(action, "seat", None)
        if not self.rejected or seat is None or not isinstance(action, PlayCard | Discard | Draw):
            return []
        out: list[Event] = []
        keep = []
        for r in self.rejected:
            if r.fault.seat == seat and r.fault.code not in ("unknown_tag",) and r.zone.startswith("play."):
                out.append(Corrected(r.fault.code, r.fault.seat, r.card))
            else:
                keep.append(r)
        self.rejected = keep
        return out

    def _taken_back(self, zone: str, card: str | None, uid: str | None) -> list[Event]:
        for i, r in enumerate(self.rejected):
            if (card is not None and r.card == card) or (card is None and uid and r.uid == uid):
                del self.rejected[i]
                if not self.rejected:
                    self.last_fault = None
                return [Corrected(r.fault.code, r.fault.seat, r.card)]
        return []

    def _next_game(self) -> list[Event]:
        last_dealer = self.state.dealer or None
        dealer = engine.OTHER[last_dealer] if last_dealer else None
        self.state = self._new_state(dealer)
        self.game_count += 1
        self.rejected.clear()
        self.last_fault = None
        self.last_hand = None
        self.last_trick = None
        return [NewGame(self.state.rules.name, dealer, self.state.target)]
