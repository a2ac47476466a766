"""What the table announces: the events an action causes.

Each event prints itself as one line of the table's JSON stream (the contract in
docs/transcript.md)::

    >>> from engine.cards import Card
    >>> Trick("A", Card.parse("KD"), Card.parse("AD"), "A").to_json()
    {'event': 'trick', 'winner': 'A', 'cards': {'A': 'KD', 'B': 'AD'}, 'leader': 'A'}
    >>> HandEnd((3, 2), (1, 0), (4, 2)).to_json()
    {'event': 'hand_end', 'tricks': {'A': 3, 'B': 2}, 'points': {'A': 1, 'B': 0}, 'score': {'A': 4, 'B': 2}}
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.cards import Card
from engine.ecarte_errors import NotationError
from engine.fault_code import FaultCode, NoticeCode
from engine.message import Phrase
from engine.notation import decode_fields, encode_value
from engine.seats import PerSeat

_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls))
        _FIELD_NAMES[cls] = names
    return names


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every table event."""

    event: ClassVar[str] = "event"
    pairs: ClassVar[tuple[str, ...]] = ()
    """Fields holding one value per seat (A, B), written as ``{"A": .., "B": ..}``."""

    def to_json(self) -> dict[str, Any]:
        """The event as one JSON object of the table's event stream."""
        out: dict[str, Any] = {"event": self.event}
        for name in _field_names(type(self)):
            value = getattr(self, name)
            if name in self.pairs and value is not None:
                out[name] = PerSeat.of(value).map(encode_value).to_json()
            else:
                out[name] = encode_value(value)
        return out


@dataclass(frozen=True, slots=True)
class TargetSet(Event):
    """*À la retourne*: the game is played to ``target`` points."""

    event: ClassVar[str] = "target"
    target: int
    card: Card


@dataclass(frozen=True, slots=True)
class DealerChosen(Event):
    """The cut chose the first dealer (or the cut must be made again: ``seat`` None).
    ``cut`` is None when the players dealt without cutting."""

    event: ClassVar[str] = "dealer"
    seat: str | None
    cut: tuple[Card, Card] | None = None
    pairs: ClassVar[tuple[str, ...]] = ("cut",)


@dataclass(frozen=True, slots=True)
class Trump(Event):
    """The turn-up: its suit is trump for the hand."""

    event: ClassVar[str] = "trump"
    card: Card


@dataclass(frozen=True, slots=True)
class King(Event):
    """A king point was scored: turned up (the dealer) or announced (the holder)."""

    event: ClassVar[str] = "king"
    seat: str
    score: tuple[int, int]
    pairs: ClassVar[tuple[str, ...]] = ("score",)


@dataclass(frozen=True, slots=True)
class Bid(Event):
    """A decision in the exchange phase: ``propose``, ``stand``, ``accept``,
    ``refuse`` (classic) or ``declare``, ``pass`` (german). ``vulnerable`` is true
    when this decision makes the seat play *d'autorité* (rule 49)."""

    event: ClassVar[str] = "bid"
    seat: str
    bid: str
    vulnerable: bool = False


@dataclass(frozen=True, slots=True)
class Exchanged(Event):
    """A seat finished its part of an exchange round: ``count`` cards replaced."""

    event: ClassVar[str] = "exchange"
    seat: str
    count: int
    stock: int


@dataclass(frozen=True, slots=True)
class PlayBegins(Event):
    """The exchanges are over; ``leader`` leads the first trick."""

    event: ClassVar[str] = "play_begins"
    leader: str
    declarer: str | None = None


@dataclass(frozen=True, slots=True)
class Played(Event):
    """A card was accepted on the trick."""

    event: ClassVar[str] = "play"
    seat: str
    card: Card


@dataclass(frozen=True, slots=True)
class Trick(Event):
    """A trick is complete: ``cards`` per seat and who won it."""

    event: ClassVar[str] = "trick"
    winner: str
    cards: tuple[Card, Card]
    leader: str
    pairs: ClassVar[tuple[str, ...]] = ("cards",)

    def __init__(self, winner: str, a: Card, b: Card, leader: str) -> None:
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "cards", (a, b))
        object.__setattr__(self, "leader", leader)


@dataclass(frozen=True, slots=True)
class Offer(Event):
    """A double or an offer of the point, and its answer (``accepted`` None while open)."""

    event: ClassVar[str] = "offer"
    seat: str
    offer: str
    accepted: bool | None = None


@dataclass(frozen=True, slots=True)
class Penalty(Event):
    """Points taken from a seat (italian penalties)."""

    event: ClassVar[str] = "penalty"
    seat: str
    points: int
    reason: str


@dataclass(frozen=True, slots=True)
class HandEnd(Event):
    """A hand is over: tricks, everything each seat scored in it, the game score."""

    event: ClassVar[str] = "hand_end"
    tricks: tuple[int, int]
    points: tuple[int, int]
    score: tuple[int, int]
    pairs: ClassVar[tuple[str, ...]] = ("tricks", "points", "score")


@dataclass(frozen=True, slots=True)
class GameEnd(Event):
    """A seat reached the target: the game is over (even in the middle of a hand)."""

    event: ClassVar[str] = "game_end"
    winner: str
    score: tuple[int, int]
    value: int = 1
    pairs: ClassVar[tuple[str, ...]] = ("score",)


@dataclass(frozen=True, slots=True)
class MatchEnd(Event):
    """The rubber or the pool is won."""

    event: ClassVar[str] = "match_end"
    winner: str
    games: tuple[int, int]
    points: tuple[int, int]
    player: str = ""
    pairs: ClassVar[tuple[str, ...]] = ("games", "points")


@dataclass(frozen=True, slots=True)
class Seating(Event):
    """Pool: who sits at A and B and who watches, for the next game."""

    event: ClassVar[str] = "seating"
    a: str
    b: str
    watcher: str


@dataclass(frozen=True, slots=True)
class Fault(Event):
    """A refused action: ``code`` (see :data:`engine.faults.FAULT_CODES`), the offending seat,
    the London rule, the card, and what the message says as data (``detail``, ``says``): no words."""

    event: ClassVar[str] = "fault"
    code: FaultCode | NoticeCode
    """A fault's code; a notice's, where the snapshot shows a notice (:func:`firmware_host.referee.shown_notice`)."""
    seat: str | None
    rule: str = ""
    card: Card | None = None
    late: bool = False
    """Partial sight: proven after the offence, by a card accepted later (docs/transcript.md)."""
    trick: int | None = None
    """With ``late``: the trick of the offence (1-5)."""
    detail: tuple[tuple[str, str], ...] = ()
    """What the fault is about, as data for a display that words it in its own language
    (``(("suit", "H"), ("win", "yes"))``); written to JSON only when there is some."""
    says: Phrase | None = field(default=None, compare=False)
    """What the fault tells the players, as data and in no language: the catalogue's message ``msgid``
    (``says.revoke``) and its ``values`` (seats, card codes, numbers, the ids of the words it nests:
    ``what``, ``expects``...), worded at the edge (:func:`catalogue.said`: the OLED, the voice, the page,
    ``--json`` in English); not in the JSON data: its values may name a card lying face down, which only
    ``--json``'s own line words (docs/transcript.md's ``message``)."""

    def to_json(self) -> dict[str, Any]:
        out = Event.to_json(self)
        if not self.late:
            del out["late"], out["trick"]
        del out["detail"], out["says"]
        if self.detail:
            out["detail"] = dict(self.detail)
        return out

    def values(self) -> dict[str, str]:
        """What the message says, as one set of values: the seat, the card's code, the detail and the
        message's own values (these last win)."""
        said = self.says.values if self.says is not None else ()
        return {"seat": self.seat or "", "card": str(self.card) if self.card is not None else "",
                **dict(self.detail), **dict(said)}


class HandReplayed(Event):
    """Partial sight: after a fault proven late the other seat chose to have the hands played
    again: the tricks are void and play starts again at the first trick. (No field of its own: a
    plain subclass, as :mod:`engine.actions`' actions with none.)"""

    __slots__ = ()

    event: ClassVar[str] = "replay_hand"


def event_from_json(data: dict[str, Any]) -> Event:
    """The event that :meth:`Event.to_json` wrote.

    :raises NotationError: for an unknown event or a field that does not fit.
    """
    types: dict[str, type[Event]] = {cls.event: cls for cls in _EVENT_TYPES}
    types["fault"] = Fault
    if not isinstance(data, dict) or data.get("event") not in types:
        raise NotationError(f"not a table event: {data!r}")
    cls = types[data["event"]]
    fields = dict(data)
    for name in cls.pairs:
        if fields.get(name) is not None:
            try:
                fields[name] = list(PerSeat.from_json(fields[name]))
            except ValueError as exc:
                raise NotationError(f"event {cls.event!r}: {name} {exc}") from None
    if cls is Trick:
        a, b = (Card.parse(c) for c in fields["cards"])
        return Trick(fields["winner"], a, b, fields["leader"])
    detail = fields.pop("detail", None) if cls is Fault else None
    result: Event = decode_fields(cls, fields, f"event {cls.event!r}")
    if isinstance(detail, dict) and isinstance(result, Fault):
        result = dataclasses.replace(result, detail=tuple((str(k), str(v)) for k, v in detail.items()))
    return result


_EVENT_TYPES: tuple[type[Event], ...] = (
    TargetSet, DealerChosen, Trump, King, Bid, Exchanged, PlayBegins, Played, Trick, Offer,
    Penalty, HandEnd, GameEnd, MatchEnd, Seating, HandReplayed,
)
