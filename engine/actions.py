"""What a seat (or the dealer's hands) does: the engine's actions.

Every action is a frozen value that prints and serialises itself::

    >>> PlayCard("B", Card.parse("7S"))
    PlayCard(seat='B', card=Card.parse('7S'))
    >>> str(PlayCard("B", Card.parse("7S")))
    'B plays 7S'
    >>> action_from_json(PlayCard("B", Card.parse("7S")).to_json())
    PlayCard(seat='B', card=Card.parse('7S'))
    >>> parse_action("A discards KS 7H")
    Discard(seat='A', cards=(Card.parse('KS'), Card.parse('7H')))

Single-card forms (``DealCard``, a one-card ``Discard`` or ``Draw``) are what
the table's pads produce; whole forms (``Deal``, several cards at once) are the
same acts in one step.

An action that adds no field to its base (``PlayCard``, ``Accept``...) is a plain subclass with
``__slots__ = ()``, not a dataclass of its own: the base's generated ``__init__``, ``__repr__``,
``__eq__`` and ``__hash__`` read ``self.__class__`` and serve it unchanged, and each ``@dataclass``
compiles six methods from source at import, which every start of the table pays
(``bench/instructions.py --startup``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import Card, parse_cards
from engine.ecarte_errors import NotationError
from engine.notation import decode_fields, encode_fields
from engine.seats import SEATS


def _check_seat(seat: str) -> None:
    if seat not in SEATS:
        raise NotationError(f"no seat {seat!r}: seats are 'A' and 'B'")


@dataclass(frozen=True, slots=True)
class Action:
    """Base of every action."""

    kind: ClassVar[str] = "action"
    verb: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        """The action as JSON data: ``{"action": kind, ...fields}``."""
        return {"action": self.kind, **encode_fields(self)}


@dataclass(frozen=True, slots=True)
class SeatAction(Action):
    """An action by one seat."""

    seat: str

    def __post_init__(self) -> None:
        _check_seat(self.seat)

    def __str__(self) -> str:
        return f"{self.seat} {self.verb}"


@dataclass(frozen=True, slots=True)
class SeatCardAction(Action):
    """An action by one seat with one card."""

    seat: str
    card: Card

    def __post_init__(self) -> None:
        _check_seat(self.seat)

    def __str__(self) -> str:
        return f"{self.seat} {self.verb} {self.card}"


@dataclass(frozen=True, slots=True)
class SeatCardsAction(Action):
    """An action by one seat with one or more cards."""

    seat: str
    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        _check_seat(self.seat)
        if not self.cards:
            raise NotationError(f"{self.kind} needs at least one card")

    def __str__(self) -> str:
        return f"{self.seat} {self.verb} " + " ".join(str(c) for c in self.cards)


@dataclass(frozen=True, slots=True)
class TurnTarget(Action):
    """*À la retourne*: the card turned at random that sets the game's target."""

    kind: ClassVar[str] = "turn_target"
    card: Card

    def __str__(self) -> str:
        return f"target {self.card}"


class Cut(SeatCardAction):
    """A seat cuts for the deal: the higher écarté card deals (rule 5)."""

    __slots__ = ()

    kind: ClassVar[str] = "cut"
    verb: ClassVar[str] = "cuts"


class DealCard(SeatCardAction):
    """The dealer gives one card to ``seat`` (it crosses that seat's hand pad)."""

    __slots__ = ()

    kind: ClassVar[str] = "deal_card"
    verb: ClassVar[str] = "gets"


@dataclass(frozen=True, slots=True)
class Deal(Action):
    """A whole deal at once: five cards to each seat and the turn-up."""

    kind: ClassVar[str] = "deal"
    a: tuple[Card, ...]
    b: tuple[Card, ...]
    turn_up: Card

    def __str__(self) -> str:
        return (
            "deal A " + " ".join(map(str, self.a)) + " / B " + " ".join(map(str, self.b))
            + f" / turn {self.turn_up}"
        )


class ElderDeal(Deal):
    """A deal written elder first (see :func:`engine.game.parse_deal`): ``a`` is the elder's
    five, ``b`` the dealer's. Its own JSON kind keeps that meaning on replay."""

    __slots__ = ()
    kind: ClassVar[str] = "elder_deal"

    def __str__(self) -> str:
        return (
            "deal elder " + " ".join(map(str, self.a)) + " / dealer " + " ".join(map(str, self.b))
            + f" / turn {self.turn_up}"
        )


@dataclass(frozen=True, slots=True)
class TurnUp(Action):
    """The dealer turns up the eleventh card: its suit is trump."""

    kind: ClassVar[str] = "turn_up"
    card: Card

    def __str__(self) -> str:
        return f"turn {self.card}"


class Propose(SeatAction):
    """The elder asks for an exchange."""

    __slots__ = ()

    kind: ClassVar[str] = "propose"
    verb: ClassVar[str] = "proposes"


class Stand(SeatAction):
    """The elder plays without (further) exchange: *je joue*."""

    __slots__ = ()

    kind: ClassVar[str] = "stand"
    verb: ClassVar[str] = "plays on"


class Accept(SeatAction):
    """Yes to the opponent's proposal, double or offer of the point."""

    __slots__ = ()

    kind: ClassVar[str] = "accept"
    verb: ClassVar[str] = "accepts"


class Refuse(SeatAction):
    """No to the opponent's proposal, double or offer of the point."""

    __slots__ = ()

    kind: ClassVar[str] = "refuse"
    verb: ClassVar[str] = "refuses"


class Declare(SeatAction):
    """German: the seat declares the game (guarantees three tricks)."""

    __slots__ = ()

    kind: ClassVar[str] = "declare"
    verb: ClassVar[str] = "declares"


class Pass(SeatAction):
    """German: the elder passes, or the dealer insists on an exchange."""

    __slots__ = ()

    kind: ClassVar[str] = "pass"
    verb: ClassVar[str] = "passes"


class Discard(SeatCardsAction):
    """Cards put face down on the discard pile."""

    __slots__ = ()

    kind: ClassVar[str] = "discard"
    verb: ClassVar[str] = "discards"


class Draw(SeatCardsAction):
    """Replacement cards from the stock."""

    __slots__ = ()

    kind: ClassVar[str] = "draw"
    verb: ClassVar[str] = "draws"


class Announce(SeatAction):
    """The seat announces the king of trumps."""

    __slots__ = ()

    kind: ClassVar[str] = "announce"
    verb: ClassVar[str] = "announces the king"


class PlayCard(SeatCardAction):
    """A card played to the trick."""

    __slots__ = ()

    kind: ClassVar[str] = "play"
    verb: ClassVar[str] = "plays"


class Double(SeatAction):
    """Option ``doubling``: the seat proposes to double the hand."""

    __slots__ = ()

    kind: ClassVar[str] = "double"
    verb: ClassVar[str] = "doubles"


class OfferPoint(SeatAction):
    """Option ``offer_point``: the seat offers the point to its opponent."""

    __slots__ = ()

    kind: ClassVar[str] = "offer_point"
    verb: ClassVar[str] = "offers the point"


class ReplayHand(SeatAction):
    """Partial sight, after a fault proven late (rules 25, 43): the other seat has the hands
    played again (its ``yes``)."""

    __slots__ = ()

    kind: ClassVar[str] = "replay_hand"
    verb: ClassVar[str] = "has the hands played again"


class PlayOn(SeatAction):
    """Partial sight, after a fault proven late (rule 43): the other seat plays on, the
    offender's points being reduced at the hand's end (its ``no``)."""

    __slots__ = ()

    kind: ClassVar[str] = "play_on"
    verb: ClassVar[str] = "plays on"


ACTION_TYPES: dict[str, type[Action]] = {
    cls.kind: cls
    for cls in (
        TurnTarget, Cut, DealCard, Deal, ElderDeal, TurnUp, Propose, Stand, Accept, Refuse, Declare,
        Pass, Discard, Draw, Announce, PlayCard, Double, OfferPoint, ReplayHand, PlayOn,
    )
}


def action_from_json(data: dict[str, Any]) -> Action:
    """The action that :meth:`Action.to_json` wrote.

    :raises NotationError: for an unknown kind or a field that does not fit.
    """
    if not isinstance(data, dict) or "action" not in data:
        raise NotationError(f"not an action: {data!r}")
    cls = ACTION_TYPES.get(data["action"])
    if cls is None:
        raise NotationError(f"unknown action {data['action']!r}")
    result: Action = decode_fields(cls, data, f"action {data['action']!r}")
    return result


_VERBS: dict[str, type[Action]] = {
    "proposes": Propose, "propose": Propose, "stands": Stand, "stand": Stand,
    "accepts": Accept, "accept": Accept, "refuses": Refuse, "refuse": Refuse,
    "declares": Declare, "declare": Declare, "passes": Pass, "pass": Pass,
    "announces": Announce, "announce": Announce, "king": Announce,
    "doubles": Double, "double": Double, "offers": OfferPoint, "offer": OfferPoint,
    "plays": PlayCard, "play": PlayCard, "cuts": Cut, "cut": Cut,
    "gets": DealCard, "get": DealCard, "discards": Discard, "discard": Discard,
    "draws": Draw, "draw": Draw, "replays": ReplayHand, "replay": ReplayHand,
    "plays-on": PlayOn,
}


def parse_action(text: str) -> Action:
    """Read an action written as ``A plays KS``, ``B accepts``, ``turn 9D``.

    :raises NotationError: naming the text and what was expected.
    """
    words = text.split()
    if len(words) == 2 and words[0].lower() in ("turn", "target"):
        card = Card.parse(words[1])
        return TurnUp(card) if words[0].lower() == "turn" else TurnTarget(card)
    if len(words) < 2 or words[0].upper() not in SEATS:
        raise NotationError(f"cannot read action {text!r}: expected '<A|B> <verb> [cards]'")
    seat, verb, rest = words[0].upper(), words[1].lower(), words[2:]
    cls = _VERBS.get(verb)
    if cls is None:
        raise NotationError(f"cannot read action {text!r}: unknown verb {verb!r}")
    if issubclass(cls, SeatCardsAction):
        return cls(seat, parse_cards(" ".join(rest)))
    if issubclass(cls, SeatCardAction):
        if len(rest) != 1:
            raise NotationError(f"cannot read action {text!r}: {verb} takes one card")
        return cls(seat, Card.parse(rest[0]))
    if (issubclass(cls, SeatAction) and not rest) or (verb in ("announces", "offers") and (
        rest in (["the", "king"], ["king"], ["the", "point"], ["point"])
    )):
        return cls(seat)  # type: ignore[call-arg]
    raise NotationError(f"cannot read action {text!r}: {verb} takes no card")
