"""Double dummy: the exact result of a position when both hands are known.

A :class:`Position` is the play of a hand at one moment: both seats' cards (bit masks, as
in :mod:`engine.cards`), who leads (and the card led, when the trick is half played), the
turn-up and, for the german rule set, the seat that must lead the king of trumps it
announced. :func:`solve` gives the tricks each seat takes from there with best play on both
sides; :func:`card_values` the same after each card the seat to play may choose, so the
best cards are those that keep the solution::

    >>> from engine.cards import mask_of, Card
    >>> from engine.rules import rules
    >>> a = mask_of("AS AH AD TC QC".split())
    >>> b = mask_of("KS 7D AC JC KC".split())
    >>> pos = Position(hands=(a, b), leader=0, turn_up=Card.parse("7S").index)
    >>> solve(rules("classic"), pos)
    (3, 2)
    >>> [str(c) for c in best_cards(rules("classic"), pos)]
    ['AD']

Every duty of play comes from :mod:`engine.legality` and the rule set: ``lead_mask``,
``rules.follow`` and ``follower_wins``. Since every rule set's score is a non-decreasing
function of a seat's tricks, the best play for the score is the best play for tricks.

Two searches give the same answers (the tests check it on thousands of positions of every
rule set, and both against a plain brute force): a compiled kernel (``coach/_ddkernel.c``,
built at ``pip install`` when a C compiler and the Python headers are there) that reads
tables made here from :mod:`engine.legality`, and this module's pure-Python search, used when
the kernel is missing (or asked for with ``pure=True``). Both keep a transposition table on the two hands' masks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType

from engine.cards import CARDS, Card
from engine.legality import follower_wins, king_index, lead_mask
from engine.rules import RuleSet

try:  # the compiled kernel is optional: a machine without a compiler runs the same search in Python
    from coach import _ddkernel as _compiled  # type: ignore[attr-defined]

    kernel: ModuleType | None = _compiled
except ImportError:  # pragma: no cover - depends on the install
    kernel = None

KERNEL_VERSION = 1
"""The version of ``coach/_ddkernel.c`` this module speaks to (a stale build is not used)."""

if kernel is not None and getattr(kernel, "VERSION", None) != KERNEL_VERSION:  # pragma: no cover
    kernel = None

TABLE_BYTES = 17409
"""The size of :func:`kernel_tables` (see the layout in ``coach/_ddkernel.c``)."""


@dataclass(frozen=True, slots=True)
class Position:
    """A moment of the play, both hands known.

    ``hands``: each seat's cards (masks; seat 0 is A). ``leader``: the seat that leads the
    trick (or has led ``led``, a card index no longer in its hand). ``king_to_lead``: the seat
    that announced the king of trumps under a rule set where it must be led (german), else -1.
    ``tricks``: the tricks each seat has already won (they are added to the results).
    """

    hands: tuple[int, int]
    leader: int
    turn_up: int
    led: int = -1
    king_to_lead: int = -1
    tricks: tuple[int, int] = (0, 0)

    @property
    def to_play(self) -> int:
        """The seat whose card is next."""
        return self.leader if self.led < 0 else 1 - self.leader

    @property
    def trump(self) -> int:
        """The trump suit index."""
        return self.turn_up >> 3

    def legal(self, rules: RuleSet) -> int:
        """The cards the seat to play may play (the engine's own masks)."""
        seat = self.to_play
        hand = self.hands[seat]
        if self.led < 0:
            return lead_mask(rules, hand, self.turn_up, self.king_to_lead == seat)
        return rules.follow(hand, self.led, self.trump)

    def play(self, rules: RuleSet, card: int) -> Position:
        """The position after the seat to play plays ``card`` (an index; assumed legal)."""
        seat = self.to_play
        bit = 1 << card
        hands = (self.hands[0] & ~bit, self.hands[1]) if seat == 0 else (self.hands[0], self.hands[1] & ~bit)
        king_to_lead = self.king_to_lead
        if seat == king_to_lead and card == king_index(self.turn_up):
            king_to_lead = -1
        if self.led < 0:
            return Position(hands, self.leader, self.turn_up, card, king_to_lead, self.tricks)
        winner = seat if follower_wins(rules.ranking.power, self.trump, self.led, card) else self.leader
        tricks = (self.tricks[0] + 1, self.tricks[1]) if winner == 0 else (self.tricks[0], self.tricks[1] + 1)
        return Position(hands, winner, self.turn_up, -1, king_to_lead, tricks)

    @property
    def cards_left(self) -> int:
        """Tricks still to play (the one on the table included)."""
        return max(self.hands[0].bit_count(), self.hands[1].bit_count())


# -- the kernel's tables, made from engine.legality ----------------------------------------------------


@cache
def kernel_tables(rules: RuleSet, trump: int) -> bytes:
    """The follow and trick-winner tables of one rule set and trump suit, for the compiled kernel.

    Made by calling ``rules.follow`` on each holding of the led suit and of trumps, and
    ``follower_wins`` on every pair of cards; the layout is in ``coach/_ddkernel.c``.
    """
    same = bytearray(8192)
    void = bytearray(8192)
    for led in range(32):
        suit = led >> 3
        for held in range(1, 256):
            same[led * 256 + held] = rules.follow(held << (8 * suit), led, trump) >> (8 * suit) & 0xFF
            if suit != trump:
                void[led * 256 + held] = rules.follow(held << (8 * trump), led, trump) >> (8 * trump) & 0xFF
    power = rules.ranking.power
    wins = bytes(1 if follower_wins(power, trump, led, card) else 0 for led in range(32) for card in range(32))
    return bytes(same) + bytes(void) + wins + bytes([trump])


# -- the pure-Python search ---------------------------------------------------------------------------


@dataclass
class Searcher:
    """The pure-Python search for one rule set and turn-up, with its transposition table.

    ``lead_value(leader_cards, follower_cards, ktl)``: the tricks the leader takes from here;
    ``ktl`` 0, or 1 / 2 when the leader / follower must lead the king (german). The table
    (``memo``) is kept between calls: positions met in one deal are met again in the next.
    """

    rules: RuleSet
    turn_up: int
    memo: dict[tuple[int, int, int], int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._follow: Callable[[int, int, int], int] = self.rules.follow
        self._power = self.rules.ranking.power
        self._trump = self.turn_up >> 3

    def lead_value(self, leader: int, follower: int, ktl: int) -> int:
        if not leader:
            return 0
        key = (leader, follower, ktl)
        memo = self.memo
        if key in memo:
            return memo[key]
        n = leader.bit_count()
        leads = lead_mask(self.rules, leader, self.turn_up, ktl == 1)
        best = -1
        while leads:
            bit = leads & -leads
            leads ^= bit
            value = self.follow_value(leader ^ bit, follower, bit.bit_length() - 1, ktl, n, best)
            if value > best:
                best = value
                if best == n:
                    break
        memo[key] = best
        return best

    def follow_value(self, leader: int, follower: int, led: int, ktl: int, n: int, best: int) -> int:
        """The leader has led ``led`` (``leader``: his other cards): the tricks he takes from here,
        the follower choosing; the search stops once the follower holds him to ``best``."""
        choices = self._follow(follower, led, self._trump)
        power = self._power
        trump = self._trump
        worst = 99
        while choices:
            bit = choices & -choices
            choices ^= bit
            if follower_wins(power, trump, led, bit.bit_length() - 1):
                value = n - 1 - self.lead_value(follower ^ bit, leader, _SWAP[ktl])
            else:
                value = 1 + self.lead_value(leader, follower ^ bit, ktl)
            if value < worst:
                worst = value
                if worst <= best:
                    break
        return worst


_SWAP = (0, 2, 1)
MEMO_LIMIT = 400_000
"""Positions the pure-Python table keeps per rule set and turn-up before it starts again (about 60 MB)."""


@cache
def searcher(rules: RuleSet, turn_up: int) -> Searcher:
    """The pure-Python search of one rule set and turn-up (kept, with its table)."""
    return Searcher(rules, turn_up)


# -- solving -------------------------------------------------------------------------------------------


def _ktl(position: Position) -> int:
    if position.king_to_lead < 0:
        return 0
    return 1 if position.king_to_lead == position.leader else 2


def leader_tricks(rules: RuleSet, position: Position, *, pure: bool = False) -> int:
    """The tricks the leader of the current trick takes from here (the trick on the table included)."""
    leader = position.hands[position.leader]
    follower = position.hands[1 - position.leader]
    ktl = _ktl(position)
    if kernel is not None and not pure:
        forced = 1 << king_index(position.turn_up) if position.king_to_lead >= 0 else 0
        return int(kernel.solve(kernel_tables(rules, position.trump), leader, follower, position.led, ktl, forced))
    search = searcher(rules, position.turn_up)
    if len(search.memo) > MEMO_LIMIT:
        search.memo.clear()
    if position.led < 0:
        return search.lead_value(leader, follower, ktl)
    return search.follow_value(leader, follower, position.led, ktl, follower.bit_count(), -1)


def solve(rules: RuleSet, position: Position, *, pure: bool = False) -> tuple[int, int]:
    """The tricks each seat (A, B) ends the hand with, both playing their best from here."""
    left = position.cards_left
    mine = leader_tricks(rules, position, pure=pure)
    gained = (mine, left - mine) if position.leader == 0 else (left - mine, mine)
    return position.tricks[0] + gained[0], position.tricks[1] + gained[1]


def card_values(rules: RuleSet, position: Position, *, pure: bool = False) -> dict[int, tuple[int, int]]:
    """For each card the seat to play may play: the tricks (A, B) each ends with after it, best play on."""
    out = {}
    legal = position.legal(rules)
    while legal:
        bit = legal & -legal
        legal ^= bit
        card = bit.bit_length() - 1
        after = position.play(rules, card)
        out[card] = solve(rules, after, pure=pure) if after.cards_left else after.tricks
    return out


def best_cards(rules: RuleSet, position: Position, *, pure: bool = False) -> tuple[Card, ...]:
    """The cards that keep the double-dummy result for the seat to play."""
    seat = position.to_play
    values = card_values(rules, position, pure=pure)
    top = max(v[seat] for v in values.values())
    return tuple(CARDS[c] for c, v in sorted(values.items()) if v[seat] == top)


@dataclass(frozen=True, slots=True)
class Solution:
    """A position's double-dummy result: ``tricks`` per seat (A, B) and ``line``, one line of best
    play (seat, card) to the end, with the best cards at each step (``choices``)."""

    tricks: tuple[int, int]
    line: tuple[tuple[int, Card], ...]
    choices: tuple[tuple[Card, ...], ...]


def solution(rules: RuleSet, position: Position, *, pure: bool = False) -> Solution:
    """The result and a line of best play (at each step the lowest-index best card)."""
    result = solve(rules, position, pure=pure)
    line = []
    choices = []
    while position.cards_left:
        best = best_cards(rules, position, pure=pure)
        line.append((position.to_play, best[0]))
        choices.append(best)
        position = position.play(rules, best[0].index)
    return Solution(result, tuple(line), tuple(choices))


def brute_force(rules: RuleSet, position: Position) -> tuple[int, int]:
    """The same result by plain minimax, no table, no pruning: what the tests check the searches against."""
    if not position.cards_left:
        return position.tricks
    seat = position.to_play
    results = [brute_force(rules, position.play(rules, c.index)) for c in _cards(position.legal(rules))]
    return max(results, key=lambda t: t[seat])


def _cards(mask: int) -> list[Card]:
    return [CARDS[i] for i in range(32) if mask >> i & 1]
