"""Cards, suits, ranks and the 32-card pack.

A card is a small value that parses and prints itself::

    >>> card = Card.parse("TH")
    >>> str(card)
    'TH'
    >>> card
    Card.parse('TH')
    >>> Card.parse("10h") == Card.parse("T♥") == card
    True
    >>> card.symbol()
    '10♥'
    >>> len(PACK)
    32

Inside the engine a set of cards is an ``int`` bit mask: bit ``card.index``.
Indices run suit by suit (spades, hearts, diamonds, clubs) and, inside a
suit, from the seven up in the *classic* order 7 8 9 10 A J Q K.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from engine.ecarte_errors import NotationError

SUITS = "SHDC"
"""Suit letters in index order: spades, hearts, diamonds, clubs."""

RANKS = "789TAJQK"
"""Rank letters in index order (the classic order, low to high)."""

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_NAMES = {
    "7": "seven", "8": "eight", "9": "nine", "T": "ten",
    "A": "ace", "J": "jack", "Q": "queen", "K": "king",
}
_SYMBOL_TO_SUIT = {v: k for k, v in SUIT_SYMBOLS.items()} | {"♤": "S", "♡": "H", "♢": "D", "♧": "C"}

ALL_CARDS = (1 << 32) - 1
"""Mask of the whole pack."""

SUIT_MASKS = tuple(0xFF << (8 * s) for s in range(4))
"""``SUIT_MASKS[s]``: the eight cards of suit index ``s``."""


@dataclass(frozen=True, slots=True)
class Card:
    """One card of the 32-card pack: ``rank`` in ``789TAJQK``, ``suit`` in ``SHDC``.

    :raises NotationError: for a rank or suit that is not in the pack.
    """

    rank: str
    suit: str
    index: int = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if len(self.rank) != 1 or self.rank not in RANKS:
            raise NotationError(f"no such rank {self.rank!r} in an écarté pack (7 to ace)")
        if len(self.suit) != 1 or self.suit not in SUITS:
            raise NotationError(f"no such suit {self.suit!r} (S, H, D or C)")
        object.__setattr__(self, "index", SUITS.index(self.suit) * 8 + RANKS.index(self.rank))

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``TH``, ``10H``, ``th``, ``K♠`` or ``10♥``.

        >>> Card.parse("K♠")
        Card.parse('KS')

        :raises NotationError: naming the text when it is not a card.
        """
        card = _PARSED.get(text)
        if card is not None:
            return card
        if not isinstance(text, str):
            raise NotationError(f"a card is written as text like 'TH', not {text!r}")
        cleaned = text.strip().upper()
        if len(cleaned) >= 2:
            rank, suit = cleaned[:-1], cleaned[-1]
            suit = _SYMBOL_TO_SUIT.get(text.strip()[-1], suit)
            if rank == "10":
                rank = "T"
            if rank in RANKS and len(rank) == 1 and suit in SUITS:
                return CARDS[SUITS.index(suit) * 8 + RANKS.index(rank)]
        raise NotationError(
            f"cannot read card {text!r}: expected a rank 7 8 9 T(10) A J Q K "
            f"and a suit S H D C (or ♠ ♥ ♦ ♣), like 'TH' or '10♥'"
        )

    @property
    def mask(self) -> int:
        """This card's bit in a card mask."""
        return 1 << self.index

    @property
    def suit_index(self) -> int:
        """0 spades, 1 hearts, 2 diamonds, 3 clubs."""
        return self.index >> 3

    def symbol(self) -> str:
        """The card for a display: ``10♥``, ``K♠``."""
        rank = "10" if self.rank == "T" else self.rank
        return rank + SUIT_SYMBOLS[self.suit]

    def name(self) -> str:
        """The card in words: ``'ten of hearts'``."""
        return f"{RANK_NAMES[self.rank]} of {SUIT_NAMES[self.suit]}"

    def __str__(self) -> str:
        return self.rank + self.suit

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


CARDS: tuple[Card, ...] = tuple(Card(r, s) for s in SUITS for r in RANKS)
"""``CARDS[i]`` is the card of index ``i``."""

PACK: tuple[Card, ...] = CARDS
"""The 32-card écarté pack, in index order."""

_PARSED: dict[str, Card] = {str(c): c for c in CARDS}


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a mask, in index order.

    >>> cards_of(Card.parse("KS").mask | Card.parse("7H").mask)
    (Card.parse('KS'), Card.parse('7H'))
    """
    out = []
    while mask:
        low = mask & -mask
        out.append(CARDS[low.bit_length() - 1])
        mask ^= low
    return tuple(out)


def indices_of(mask: int) -> Iterator[int]:
    """The card indices of a mask, low to high."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def mask_of(cards: Iterable[Card | str]) -> int:
    """The mask of some cards (or card notations)."""
    mask = 0
    for card in cards:
        if isinstance(card, str):
            card = Card.parse(card)
        mask |= 1 << card.index
    return mask


def parse_cards(text: str) -> tuple[Card, ...]:
    """Cards written with spaces or commas: ``"KS QS 7H"``.

    :raises NotationError: naming the first card that cannot be read.
    """
    return tuple(Card.parse(t) for t in text.replace(",", " ").split())


@dataclass(frozen=True, slots=True)
class Ranking:
    """An order of the ranks inside a suit, high to low, with its lookup masks.

    >>> CLASSIC.order
    'KQJAT987'
    >>> CLASSIC.beats(Card.parse("JH"), Card.parse("AH"))
    True
    >>> ACE_HIGH.beats(Card.parse("JH"), Card.parse("AH"))
    False
    """

    order: str
    power: tuple[int, ...] = field(init=False, repr=False, compare=False, hash=False)
    above: tuple[int, ...] = field(init=False, repr=False, compare=False, hash=False)
    """``above[i]``: mask of the cards of card ``i``'s suit that rank above it."""

    def __post_init__(self) -> None:
        if sorted(self.order) != sorted(RANKS):
            raise NotationError(f"a ranking must order all of {RANKS!r}, got {self.order!r}")
        power = tuple(8 - self.order.index(c.rank) for c in CARDS)
        above = tuple(
            sum(1 << o.index for o in CARDS if o.suit == c.suit and power[o.index] > power[c.index])
            for c in CARDS
        )
        object.__setattr__(self, "power", power)
        object.__setattr__(self, "above", above)

    def beats(self, card: Card, other: Card) -> bool:
        """True when ``card`` ranks above ``other`` (same suit assumed)."""
        return self.power[card.index] > self.power[other.index]

    def highest(self, mask: int) -> int:
        """Index of the highest-ranked card of a non-empty mask (one suit assumed)."""
        best = -1
        best_power = -1
        power = self.power
        while mask:
            low = mask & -mask
            i = low.bit_length() - 1
            if power[i] > best_power:
                best, best_power = i, power[i]
            mask ^= low
        return best


CLASSIC = Ranking("KQJAT987")
"""K Q J A 10 9 8 7: the ace between the jack and the ten."""

ACE_HIGH = Ranking("AKQJT987")
"""A K Q J 10 9 8 7 (the ``ace_high`` option)."""
