"""The *jeu de règle*: Foster's counts, and the hands the classical rule plays without proposing.

Foster's Hoyle counts the dealer's possible hands, C(26, 5) = 65,780 (the elder has seen his
five and the turn-up), and the odds against the dealer holding two trumps or more when the
elder holds one (44,574 to 21,206) or two (50,274 to 15,506). :func:`foster_counts` counts them
by going through every hand, as the tests do against Foster's figures::

    >>> from engine.cards import Card, mask_of
    >>> foster_counts(mask_of("KH 7S 8S 9D TC".split()), Card.parse("7H").index)
    (44574, 21206)

:data:`JEUX_DE_REGLE` is the classical list of the hands to play without proposing, as the
19th-century authors give it; :func:`hand_type` says which row a hand falls under. Each row is
checked against the computed odds in ``docs/coach.md`` (``bench/coach.py --regle`` makes the table).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

from engine.cards import ALL_CARDS, SUIT_MASKS
from engine.legality import KING

COURT = (KING, KING - 1, KING - 2)
"""Rank indices of the court cards: king, queen, jack (engine.cards.RANKS)."""


def foster_counts(elder: int, turn_up: int, *, at_least: int = 2) -> tuple[int, int]:
    """Dealer's hands with fewer than ``at_least`` trumps, and with ``at_least`` or more: every
    five of the 26 unseen cards, counted one by one."""
    trumps = SUIT_MASKS[turn_up >> 3]
    unseen = [1 << i for i in range(32) if (ALL_CARDS & ~elder & ~(1 << turn_up)) >> i & 1]
    trump_flags = [bool(c & trumps) for c in unseen]
    fewer = more = 0
    for chosen in combinations(trump_flags, 5):
        if sum(chosen) >= at_least:
            more += 1
        else:
            fewer += 1
    return fewer, more


def _suits(hand: int, trump: int) -> list[int]:
    """The plain suits' holdings (masks), longest first."""
    plain = [hand & SUIT_MASKS[s] for s in range(4) if s != trump]
    return sorted((m for m in plain if m), key=lambda m: -m.bit_count())


def _has(mask: int, rank: int) -> bool:
    return any(mask >> (8 * s + rank) & 1 for s in range(4))


def _courts(mask: int) -> int:
    return sum(1 for s in range(4) for r in COURT if mask >> (8 * s + r) & 1)


@dataclass(frozen=True, slots=True)
class HandType:
    """A row of the *jeu de règle*: ``name`` (short), ``text`` (the rule in words), ``test`` (hand, trump suit)."""

    name: str
    text: str
    test: Callable[[int, int], bool]


def _trumps(hand: int, trump: int) -> int:
    return (hand & SUIT_MASKS[trump]).bit_count()


JEUX_DE_REGLE: tuple[HandType, ...] = (
    HandType("3T", "three trumps or more, whatever the other cards",
             lambda h, t: _trumps(h, t) >= 3),
    HandType("2T+3", "two trumps, the other three of one suit",
             lambda h, t: _trumps(h, t) == 2 and len(_suits(h, t)) == 1),
    HandType("2T+Kx", "two trumps, a king with another card of its suit, and a card of a third suit",
             lambda h, t: _trumps(h, t) == 2 and len(_suits(h, t)) == 2
             and _has(_suits(h, t)[0], KING)),
    HandType("2T+2K", "two trumps and two kings",
             lambda h, t: _trumps(h, t) == 2 and _has_kings(h & ~SUIT_MASKS[t], 2)),
    HandType("1T+4", "one trump, four cards of one suit headed by a court card",
             lambda h, t: _trumps(h, t) == 1 and len(_suits(h, t)) == 1 and _courts(_suits(h, t)[0]) >= 1),
    HandType("1T+KQ+K", "one trump, king and queen of one suit and the king of another",
             lambda h, t: _trumps(h, t) == 1 and _kq_and_king(h & ~SUIT_MASKS[t])),
    HandType("0T+4C", "no trump, four court cards",
             lambda h, t: _trumps(h, t) == 0 and _courts(h) >= 4),
)
"""The classical *jeux de règle* (hands to play without proposing), strongest first."""


def _has_kings(mask: int, n: int) -> bool:
    return sum(1 for s in range(4) if mask >> (8 * s + KING) & 1) >= n


def _kq_and_king(plain: int) -> bool:
    for s in range(4):
        if plain >> (8 * s + KING) & 1 and plain >> (8 * s + KING - 1) & 1:
            return any(plain >> (8 * o + KING) & 1 for o in range(4) if o != s)
    return False


def hand_type(hand: int, turn_up: int) -> HandType | None:
    """The first row of :data:`JEUX_DE_REGLE` that ``hand`` (five cards) matches, or None.

    >>> from engine.cards import Card, mask_of
    >>> hand_type(mask_of("7H 8H 9H 7S 8D".split()), Card.parse("TH").index).name
    '3T'
    >>> hand_type(mask_of("7H 8H KS 7S 8D".split()), Card.parse("TH").index).name
    '2T+Kx'
    >>> hand_type(mask_of("7H 9S 7S 8D 9C".split()), Card.parse("TH").index) is None
    True
    """
    trump = turn_up >> 3
    for row in JEUX_DE_REGLE:
        if row.test(hand, trump):
            return row
    return None
