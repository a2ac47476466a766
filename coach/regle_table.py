"""Every row of the *jeu de règle* weighed over every hand it describes, with the exact odds.

A row is a predicate on the five cards and the turn-up. :func:`row_hands` goes through every
five of the 32 cards with hearts for trumps and, for each that the row describes, every turn-up
left in the trump suit (the other suits give the same figures by symmetry: the counts are
multiplied by four). The odds of a hand are those of :func:`coach.odds.stand_odds` (the elder's
rows) or :func:`coach.odds.refuse_odds` (the dealer's): every one of the 65,780 other hands, played
double dummy. They depend only on which live cards of each suit the hand holds, in rank order, so
hands that differ only by

- the order of the three plain suits, or
- the rank of the turn-up (the trump suit's seven live cards keep their order),

share one computation (:class:`OddsKey`); the king of trumps turned up changes the value of the
hand (nobody can announce it), not its tricks. The figures of a row are taken over every hand,
each hand counted once. Proposing cannot be counted; its value is the sampled one of
:func:`coach.odds.propose_value` (the stated exchange policy), one estimate per key.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import combinations

from coach.jeu_de_regle import ROWS, Row, Shape
from coach.odds import TrickOdds, accept_value, propose_value, refuse_odds, stand_odds
from engine.legality import KING
from engine.rules import RuleSet

TRUMP = 1
"""Hearts: the suit the table is computed with (engine.cards.SUITS = "SHDC")."""
PLAIN = (0, 2, 3)
TWO_TO_ONE = 2 / 3
"""The classical rule: play when the odds are two to one for the point."""


@dataclass(frozen=True, slots=True, order=True)
class OddsKey:
    """What the odds of a hand depend on: ``pattern``, the hand's trumps among the seven live ones
    (bit i: the i-th lowest live trump), ``plain``, the three plain holdings sorted."""

    pattern: int
    plain: tuple[int, int, int]

    def hand(self, king_turned: bool) -> tuple[int, int]:
        """A hand of this key and its turn-up (hearts): the seven turned (the king live), or the king."""
        held, turn_up = (self.pattern, 8 * TRUMP + KING) if king_turned else (self.pattern << 1, 8 * TRUMP)
        hand = held << (8 * TRUMP)
        for suit, holding in zip(PLAIN, self.plain, strict=True):
            hand |= holding << (8 * suit)
        return hand, turn_up


def key_of(hand: int, turn_up: int) -> tuple[OddsKey, bool]:
    """The key of a hand and turn-up of hearts, and whether the turn-up is the king."""
    rank = turn_up & 7
    held = hand >> (8 * TRUMP) & 0xFF
    pattern = (held & ((1 << rank) - 1)) | (held >> (rank + 1)) << rank
    plain = sorted(hand >> (8 * s) & 0xFF for s in PLAIN)
    return OddsKey(pattern, (plain[0], plain[1], plain[2])), rank == KING


def row_hands(row: Row) -> Iterator[tuple[int, int]]:
    """Every (hand, turn-up) of the row with hearts for trumps."""
    memo: dict[tuple[int, bool, tuple[int, ...]], bool] = {}
    for cards in combinations(range(32), 5):
        hand = sum(1 << c for c in cards)
        shape = Shape.of(hand, TRUMP)
        memo_key = (shape.trumps, shape.king, tuple(sorted(shape.plain)))
        found = memo.get(memo_key)
        if found is None:
            found = memo[memo_key] = row.test(shape)
        if not found:
            continue
        held = hand >> (8 * TRUMP) & 0xFF
        for rank in range(8):
            if not held >> rank & 1:
                yield hand, 8 * TRUMP + rank


def key_odds(rules: RuleSet, seat: str, key: OddsKey) -> TrickOdds:
    """The odds of playing a hand of ``key`` as dealt: the elder standing (:func:`coach.odds.stand_odds`),
    the dealer refusing (:func:`coach.odds.refuse_odds`); the seven turned up (the tricks are the same
    with the king turned)."""
    hand, turn_up = key.hand(False)
    fn = stand_odds if seat == "elder" else refuse_odds
    return fn(rules, hand, turn_up)


def key_proposal(rules: RuleSet, seat: str, key: OddsKey, king_turned: bool, samples: int) -> float:
    """The mean value of proposing (the elder, :func:`coach.odds.propose_value`) or accepting (the dealer,
    :func:`coach.odds.accept_value`) with a hand of ``key``, from ``samples`` exchanges."""
    hand, turn_up = key.hand(king_turned)
    fn = propose_value if seat == "elder" else accept_value
    return fn(rules, hand, turn_up, samples=samples).mean


Groups = dict[tuple[OddsKey, bool], list[bool]]
"""A row's hands by (key, king turned up): for each hand, whether it holds the king of trumps."""


def row_groups(row: Row) -> Groups:
    """The hands of a row (hearts for trumps), grouped by what their odds depend on."""
    groups: Groups = defaultdict(list)
    for hand, turn_up in row_hands(row):
        key, king_turned = key_of(hand, turn_up)
        groups[(key, king_turned)].append(bool(hand >> (8 * TRUMP + KING) & 1))
    return groups


@dataclass(frozen=True, slots=True)
class RowFigures:
    """A row over every hand it describes (all four trump suits): ``hands``; the probability of the
    point playing as dealt (``p_min``, ``p_mean``, ``p_max``); ``below`` the hands under two to one;
    ``stand`` the mean expected net points of playing (exact), ``propose`` of proposing (sampled;
    the dealer: accepting), ``play_better`` the hands where playing is worth at least as much;
    ``king_hands`` those holding the king of trumps and ``king_play_better`` of them where playing is
    still worth at least as much (the classics say propose/accept with the king)."""

    row: str
    hands: int
    p_min: float
    p_mean: float
    p_max: float
    below: int
    stand: float
    propose: float
    play_better: int
    king_hands: int
    king_play_better: int
    keys: int

    def as_dict(self) -> dict[str, float | int | str]:
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass
class Table:
    """The odds of every key met, kept between rows (elder's and dealer's apart)."""

    rules: RuleSet
    samples: int = 400
    odds: dict[tuple[str, OddsKey], TrickOdds] = field(default_factory=dict)
    proposals: dict[tuple[str, OddsKey, bool], float] = field(default_factory=dict)

    def trick_odds(self, seat: str, key: OddsKey) -> TrickOdds:
        found = self.odds.get((seat, key))
        if found is None:
            found = self.odds[(seat, key)] = key_odds(self.rules, seat, key)
        return found

    def proposal(self, seat: str, key: OddsKey, king_turned: bool) -> float:
        found = self.proposals.get((seat, key, king_turned))
        if found is None:
            found = self.proposals[(seat, key, king_turned)] = key_proposal(self.rules, seat, key, king_turned,
                                                                            self.samples)
        return found

    def figures(self, row: Row, groups: Groups | None = None, *, propose: bool = True) -> RowFigures:
        """The row's figures over every hand it describes (``groups``: :func:`row_groups`, if made already)."""
        if groups is None:
            groups = row_groups(row)
        n = below = play_better = king_hands = king_better = 0
        p_sum = stand_sum = propose_sum = 0.0
        p_min, p_max = 1.0, 0.0
        for (key, king_turned), kings in groups.items():
            odds = self.trick_odds(row.seat, key)
            if king_turned:
                odds = TrickOdds(odds.counts, (0,) * 6, False)
            count = len(kings)
            point = odds.point
            stand = odds.dealt_value(self.rules)
            offer = self.proposal(row.seat, key, king_turned) if propose else float("nan")
            n += count
            p_sum += point * count
            p_min, p_max = min(p_min, point), max(p_max, point)
            below += count if point < TWO_TO_ONE else 0
            stand_sum += stand * count
            propose_sum += offer * count
            better = stand >= offer
            play_better += count if better else 0
            holding = sum(kings)
            king_hands += holding
            king_better += holding if better else 0
        return RowFigures(row.key, 4 * n, p_min, p_sum / n, p_max, 4 * below, stand_sum / n, propose_sum / n,
                          4 * play_better, 4 * king_hands, 4 * king_better, len({k for k, _ in groups}))


def table(rules: RuleSet, rows: tuple[Row, ...] = ROWS, *, samples: int = 400,
          propose: bool = True) -> list[RowFigures]:
    """Every row's figures (``samples``: the exchanges sampled per key for proposing)."""
    computed = Table(rules, samples)
    return [computed.figures(row, propose=propose) for row in rows]
