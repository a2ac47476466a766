"""The events the referee adds to the engine's: what the table tells the players beyond the rules.

The engine's events (:mod:`engine.events`) say what the rules decided; these say what the table
did about the cards and buttons around them: a notice, a fault put right, a new game, a reader
offline, and the record of a hand once it is over. Every output takes them with the engine's,
in one :class:`~firmware_host.referee.snapshot.Outcome`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from engine import Event, Fault
from engine.fault_code import FaultCode, NoticeCode
from engine.message import Phrase

CONTRACT_EVENTS = frozenset({"trump", "king", "trick", "hand_end", "game_end", "fault", "replay_hand"})
"""The event kinds of docs/transcript.md's contract; ``replay --json`` prints these."""


@dataclass(frozen=True, slots=True)
class Notice(Event):
    """Something the table tells the players that is not a fault of the rules: a
    button pressed when nothing asks for it, a card on a pad that means nothing now. What it says
    is data (:class:`~engine.message.Phrase`), worded at the edge."""

    event: ClassVar[str] = "notice"
    says: Phrase
    seat: str | None = None
    code: FaultCode | NoticeCode = FaultCode.WRONG_TIME

    def to_json(self) -> dict[str, Any]:
        return {"event": self.event, "seat": self.seat, "code": self.code}

    def values(self) -> dict[str, str]:
        """What the notice says, as one set of values (its seat, then its message's own)."""
        return {"seat": self.seat or "", **dict(self.says.values)}


def notice(says: str, seat: str | None = None, code: FaultCode | NoticeCode = FaultCode.WRONG_TIME,
           **values: object) -> Notice:
    """A notice saying the catalogue's ``says.<says>`` with ``values`` (each as text, a phrase as it is: a
    setup's problem, said in the same language)."""
    return Notice(Phrase("says." + says, tuple((name, value if isinstance(value, Phrase) else str(value))
                                               for name, value in values.items())), seat, code)


def shown_notice(events: Sequence[Event]) -> Fault | None:
    """The notice the table shows after an input that caused ``events`` (the last one, until the next
    input), as the snapshot's :class:`~engine.Fault`; None: the input meant something.

    >>> shown_notice([notice("button", "B", button="yes", expects="play", expects_seat="A")]).code
    <FaultCode.WRONG_TIME: 'wrong_time'>
    """
    shown = next((e for e in reversed(events) if isinstance(e, Notice)), None)
    return Fault(shown.code, shown.seat, "", says=shown.says) if shown is not None else None


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


@dataclass(frozen=True, slots=True)
class HandRecord(Event):
    """What the table saw of a hand, card by card, published once the hand is over (never
    earlier: it names the cards that were hidden in the hands and the discards).

    ``rules`` is the rule set as the engine writes it (``{"name": "italian", "forzare": true}``);
    ``actions`` are the engine actions the table accepted in the hand, in order, in their
    JSON form (deal cards, turn-up, bids, discards and draws, announcements, plays):
    replayed through :func:`engine.apply` from a new game with this dealer they give the hand.
    """

    event: ClassVar[str] = "hand_record"
    game: int
    hand: int
    dealer: str
    rules: Mapping[str, Any]
    actions: tuple[dict[str, Any], ...]
