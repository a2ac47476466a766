"""Faults: what a player did wrong, as a value the table shows.

An illegal action is never a crash: :func:`engine.game.apply` answers it with a
``Fault`` that says who, what and under which London rule, as data: the words, and how to put it
right, are the catalogue's (``says.<key>``, ``remedy.<code>``), at the edge::

    >>> from engine.cards import Card
    >>> fault = revoke_fault("B", Card.parse("7S"), "H", True)
    >>> fault.says.msgid, fault.values()["suit"], fault.values()["card"]
    ('says.revoke_win', 'H', '7S')
    >>> fault.to_json()["code"], fault.rule
    ('revoke', '43')
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.cards import Card
from engine.events import Fault as Fault
from engine.fault_code import FaultCode as FaultCode
from engine.message import Phrase

FAULT_CODES: dict[FaultCode, str] = {
    FaultCode.MISDEAL: "8, 9, 15-21",
    FaultCode.DUPLICATE_CARD: "45",
    FaultCode.UNKNOWN_TAG: "45",
    FaultCode.FOREIGN_PACK: "45",
    FaultCode.COUNTERFEIT_CARD: "45",
    FaultCode.EXCHANGE_COUNT: "29-34",
    FaultCode.FALSE_KING: "25",
    FaultCode.OUT_OF_TURN: "40",
    FaultCode.REVOKE: "43",
    FaultCode.NOT_OVERTAKING: "43",
    FaultCode.NOT_TRUMPING: "43",
    FaultCode.CARD_NOT_IN_HAND: "29-34, 43",
    FaultCode.NOT_HIGHEST: "forzare (000)",
    FaultCode.KING_NOT_LED: "002",
    FaultCode.WRONG_TIME: "-",
}
"""Every fault code the table reports, with its London rule(s) (its remedy is the catalogue's
``remedy.<code>``)."""

VOID_DEAL_CODES = frozenset({FaultCode.MISDEAL, FaultCode.DUPLICATE_CARD})
"""The faults that void the deal (docs/transcript.md): nothing to take back, the hands are gathered and the
same dealer deals again (a duplicate card on the cut is the one cut again instead)."""


def fault(code: FaultCode, seat: str | None, says: str, card: Card | None = None, *,
          detail: Mapping[str, str] | None = None, **values: object) -> Fault:
    """A fault of ``code`` with its rule from :data:`FAULT_CODES`. ``says``: the message's id in the
    catalogue (``says.<says>``), ``values`` what it puts in (each as text: a seat, a card's code, a
    number); ``detail``: what the fault is about, as data a display words it from."""
    return Fault(code, seat, FAULT_CODES[code], card, detail=tuple(sorted((detail or {}).items())),
                 says=Phrase("says." + says, tuple((name, str(value)) for name, value in values.items())))


def revoke_fault(seat: str, card: Card, led_suit: str, must_win: bool) -> Fault:
    """``seat`` played ``card`` though holding a card of the suit led."""
    return fault(FaultCode.REVOKE, seat, "revoke_win" if must_win else "revoke", card,
                 detail={"suit": led_suit, "win": "yes" if must_win else "no"})


def not_overtaking_fault(seat: str, card: Card, led: Card) -> Fault:
    """``seat`` followed suit low though able to beat ``led``."""
    return fault(FaultCode.NOT_OVERTAKING, seat, "not_overtaking", card, detail={"beat": str(led)})


def not_trumping_fault(seat: str, card: Card, trump_suit: str) -> Fault:
    """``seat`` was void in the suit led, held a trump and did not trump."""
    return fault(FaultCode.NOT_TRUMPING, seat, "not_trumping", card, detail={"suit": trump_suit})
