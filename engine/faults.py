"""Faults: what a player did wrong, as a value the table shows.

An illegal action is never a crash: :func:`engine.game.apply` answers it with a
``Fault`` that says who, what, under which London rule, and how to put it right::

    >>> from engine.cards import Card
    >>> fault = revoke_fault("B", Card.parse("7S"), "H", True)
    >>> fault.message
    'B must follow hearts and win the trick: take back the 7♠'
    >>> fault.to_json()["code"], fault.rule
    ('revoke', '43')
"""

from __future__ import annotations

from engine.cards import SUIT_NAMES, Card
from engine.events import Fault as Fault

# code -> (London rule(s), what the table does about it)
FAULT_CODES: dict[str, tuple[str, str]] = {
    "misdeal": ("8, 9, 15-21", "the deal is void: the same dealer deals again"),
    "duplicate_card": ("45", "the deal is void: the same dealer deals again"),
    "unknown_tag": ("45", "put the card aside: it is not in the registered pack"),
    "foreign_pack": ("45", "put the card aside: it is from another pack than the one this game is played with"),
    "counterfeit_card": ("45", "put the card aside: its tag failed the originality check (a copy or a fake)"),
    "exchange_count": ("29-34", "take back the extra card, or complete the exchange"),
    "false_king": ("25", "no point for the king"),
    "out_of_turn": ("40", "take the card back and wait for your turn"),
    "revoke": ("43", "take the card back and follow suit (rule 39: no penalty)"),
    "not_overtaking": ("43", "take the card back and win the trick (rule 39: no penalty)"),
    "not_trumping": ("43", "take the card back and trump (rule 39: no penalty)"),
    "card_not_in_hand": ("29-34, 43", "take the card back: play one from your hand"),
    "not_highest": ("forzare (000)", "take the card back and play your highest"),
    "king_not_led": ("002", "take the card back and lead the king of trumps"),
    "wrong_time": ("-", "nothing to do now: wait for what the table asks"),
}
"""Every fault code the table reports, with its rule and its remedy."""

VOID_DEAL_CODES = frozenset({"misdeal", "duplicate_card"})
"""The faults that void the deal (TRANSCRIPT.md): nothing to take back, the hands are gathered and the
same dealer deals again (a duplicate card on the cut is the one cut again instead)."""


def fault(code: str, seat: str | None, message: str, card: Card | None = None, **detail: str) -> Fault:
    """A fault of ``code`` with its rule and remedy from :data:`FAULT_CODES`; ``detail``:
    what the message says, as data (a display words it in its own language)."""
    rule, remedy = FAULT_CODES[code]
    return Fault(code, seat, rule, message, remedy, card, detail=tuple(sorted(detail.items())))


def revoke_fault(seat: str, card: Card, led_suit: str, must_win: bool) -> Fault:
    """``seat`` played ``card`` though holding a card of the suit led."""
    win = " and win the trick" if must_win else ""
    return fault(
        "revoke", seat,
        f"{seat} must follow {SUIT_NAMES[led_suit]}{win}: take back the {card.symbol()}", card,
        suit=led_suit, win="yes" if must_win else "no",
    )


def not_overtaking_fault(seat: str, card: Card, led: Card) -> Fault:
    """``seat`` followed suit low though able to beat ``led``."""
    return fault(
        "not_overtaking", seat,
        f"{seat} must beat the {led.symbol()}: take back the {card.symbol()}", card, beat=str(led),
    )


def not_trumping_fault(seat: str, card: Card, trump_suit: str) -> Fault:
    """``seat`` was void in the suit led, held a trump and did not trump."""
    return fault(
        "not_trumping", seat,
        f"{seat} must trump with {SUIT_NAMES[trump_suit]}: take back the {card.symbol()}", card,
        suit=trump_suit,
    )
