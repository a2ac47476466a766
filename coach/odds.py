"""Stand or propose: the exact odds of playing a hand as dealt, over every hand the other seat may hold.

The elder sees his five cards and the turn-up; the dealer's hand is any five of the 26
cards he has not seen: C(26, 5) = 65,780 hands, all equally likely (Foster's count).
:func:`stand_odds` plays the elder's hand against each of them, double dummy, and counts
the tricks he takes; :func:`refuse_odds` does the same for the dealer who refuses, over
the 65,780 hands the elder may hold::

    >>> from engine.cards import Card, mask_of
    >>> from engine.rules import rules
    >>> odds = stand_odds(rules("classic"), mask_of("KH QH JH KS KD".split()), Card.parse("7H").index)
    >>> odds.total, round(odds.point, 4), round(odds.vole, 4)
    (65780, 1.0, 0.9997)

Scores follow the rule set's own hooks (``trick_points`` with the vulnerable seat or the
declarer) and the king of trumps is always announced by its holder (``KING_POINT``). The
value of proposing is estimated by playing out the stated :class:`ExchangePolicy` on random
deals (:func:`propose_value`): the exchange has too many outcomes to count them all.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import combinations
from math import comb, sqrt

from catalogue import number, percent, say
from coach import double_dummy
from coach.double_dummy import Position, kernel_tables, leader_tricks, searcher
from coach.jeu_de_regle import Classical, choices, classify
from engine.cards import ALL_CARDS, SUIT_MASKS
from engine.legality import KING, king_index, lead_mask
from engine.policy import strong
from engine.rules import RuleSet
from engine.scoring import KING_POINT

HAND_SIZE = 5
UNSEEN = 26
"""Cards a seat has not seen at its first decision: 32 - its five - the turn-up."""
OTHER_HANDS = comb(UNSEEN, HAND_SIZE)
"""65,780: the hands the other seat may hold (Foster's count)."""


@dataclass(frozen=True, slots=True)
class TrickOdds:
    """How a hand played as dealt ends, counted over every hand the other seat may hold.

    ``counts[t]``: the other hands against which this seat takes ``t`` tricks (t = 0..5),
    double dummy; ``king_counts[t]``: those of them in which the other seat holds the king
    of trumps. ``holds_king``: this seat holds it.
    """

    counts: tuple[int, ...]
    king_counts: tuple[int, ...]
    holds_king: bool

    @property
    def total(self) -> int:
        """The number of hands counted (65,780 at a first decision)."""
        return sum(self.counts)

    @property
    def point(self) -> float:
        """The probability of winning the point (3 tricks or more)."""
        return sum(self.counts[3:]) / self.total

    @property
    def vole(self) -> float:
        """The probability of the vole (all five tricks)."""
        return self.counts[5] / self.total

    @property
    def lose_vole(self) -> float:
        """The probability of losing every trick."""
        return self.counts[0] / self.total

    def value(self, rules: RuleSet, *, vulnerable: bool, declarer: bool) -> float:
        """The expected net score of the hand for this seat (its points minus the other's), in
        points: tricks scored with the rule set's ``trick_points`` (this seat vulnerable, or the
        declarer, as said), plus the king of trumps for whoever holds it."""
        total = self.total
        expected = 0.0
        for tricks, count in enumerate(self.counts):
            expected += count * net_points(rules, tricks, vulnerable=vulnerable, declarer=declarer)
        king = KING_POINT if self.holds_king else -KING_POINT * sum(self.king_counts) / total
        return expected / total + king

    def dealt_value(self, rules: RuleSet) -> float:
        """:meth:`value` of playing as dealt (standing, refusing): this seat vulnerable, german the declarer."""
        german = rules.declares_game
        return self.value(rules, vulnerable=not german, declarer=german)


def net_points(rules: RuleSet, tricks: int, *, vulnerable: bool | None, declarer: bool | None) -> int:
    """This seat's points minus the other's for ``tricks`` of five, by the rule set's hook.

    ``vulnerable``/``declarer``: True for this seat, False for the other, None for nobody.

    >>> from engine.rules import rules
    >>> net_points(rules("classic"), 2, vulnerable=True, declarer=None)
    -2
    >>> net_points(rules("german"), 5, vulnerable=None, declarer=False)
    2
    """
    vul = None if vulnerable is None else (0 if vulnerable else 1)
    dec = None if declarer is None else (0 if declarer else 1)
    points = rules.trick_points((tricks, HAND_SIZE - tricks), vul, dec)
    return points[0] - points[1]


def forced_king(rules: RuleSet, turn_up: int) -> int:
    """The king of trumps' bit when its holder, having announced it, must lead it (german), else 0:
    asked of :func:`engine.legality.lead_mask`."""
    king = 1 << king_index(turn_up)
    other = 1 << (king_index(turn_up) ^ 8)  # any card of another suit
    return king if lead_mask(rules, king | other, turn_up, True) == king else 0


def _odds(rules: RuleSet, fixed: int, turn_up: int, *, fixed_leads: bool, pure: bool) -> TrickOdds:
    pool = ALL_CARDS & ~fixed & ~(1 << turn_up)
    king = 1 << king_index(turn_up)
    if turn_up & 7 == KING:
        king = 0  # turned up: the dealer has scored it, nobody holds it
    forced = forced_king(rules, turn_up)
    k = fixed.bit_count()
    kernel = double_dummy.kernel
    if kernel is not None and not pure:
        raw = kernel.histogram(kernel_tables(rules, turn_up >> 3), fixed, pool, int(fixed_leads), forced, king,
                               int(bool(forced)))
        counts = [raw[t] + raw[6 + t] for t in range(6)]
        king_counts = list(raw[6:12])
    else:
        counts = [0] * 6
        king_counts = [0] * 6
        search = searcher(rules, turn_up)
        cards = [1 << i for i in range(32) if pool >> i & 1]
        for chosen in combinations(cards, k):
            other = sum(chosen)
            holder = 1 if fixed & forced else 2 if other & forced else 0  # 1: the fixed seat must lead the king
            if fixed_leads:
                tricks = search.lead_value(fixed, other, holder)
            else:
                tricks = k - search.lead_value(other, fixed, (0, 2, 1)[holder])
            counts[tricks] += 1
            if other & king:
                king_counts[tricks] += 1
    return TrickOdds(tuple(counts), tuple(king_counts), bool(fixed & king))


def stand_odds(rules: RuleSet, elder: int, turn_up: int, *, pure: bool = False) -> TrickOdds:
    """The elder's tricks if he plays ``elder`` (a mask of five) as dealt, over every dealer's hand."""
    return _odds(rules, elder, turn_up, fixed_leads=True, pure=pure)


def refuse_odds(rules: RuleSet, dealer: int, turn_up: int, *, pure: bool = False) -> TrickOdds:
    """The dealer's tricks if he refuses (plays ``dealer`` as dealt, the elder leading), over every elder's hand."""
    return _odds(rules, dealer, turn_up, fixed_leads=False, pure=pure)


# -- proposing: the exchange policy, played out -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExchangePolicy:
    """The play assumed after a proposal, stated once (docs/coach.md).

    - The dealer refuses (german: takes the game) when his hand is strong by
      :func:`engine.policy.strong` (three trumps, or two with the king), else accepts.
    - Each seat keeps its trumps and kings and discards the rest, within the rule set's
      ``elder_discard``/``dealer_discard`` bounds (when it must discard more, the lowest
      kept cards go first, plain cards before trumps).
    - One round only: after it the elder plays (german: the elder declares if strong, else the
      dealer takes the game).
    """

    keep_kings: bool = True

    def keep(self, hand: int, turn_up: int) -> int:
        """The cards a seat keeps: its trumps and (when ``keep_kings``) its kings."""
        keep = hand & SUIT_MASKS[turn_up >> 3]
        if self.keep_kings:
            keep |= hand & _KINGS
        return keep

    def discard(self, rules: RuleSet, hand: int, turn_up: int, bounds: tuple[int, int], stock: int) -> int:
        """The cards a seat discards (a mask)."""
        low, high = bounds
        high = min(high, stock)
        out = hand & ~self.keep(hand, turn_up)
        power = rules.ranking.power
        trumps = SUIT_MASKS[turn_up >> 3]
        order = sorted((i for i in range(32) if hand >> i & 1),
                       key=lambda i: (bool(trumps >> i & 1), power[i]))
        for i in order:  # too few: the lowest kept cards, plain before trumps
            if out.bit_count() >= low:
                break
            out |= 1 << i
        while out.bit_count() > high:  # too many: keep the highest of the discards
            out &= ~(1 << max((i for i in range(32) if out >> i & 1), key=lambda i: power[i]))
        return out

    def dealer_refuses(self, hand: int, turn_up: int) -> bool:
        """The dealer's answer to the first proposal."""
        return strong(hand, turn_up)


_KINGS = sum(1 << (8 * s + KING) for s in range(4))


@dataclass(frozen=True, slots=True)
class Estimate:
    """A sampled expectation: ``mean`` in points, its standard error, the number of samples."""

    mean: float
    stderr: float
    samples: int


def _take(pool: list[int], count: int, rng: random.Random) -> int:
    taken = 0
    for i in rng.sample(pool, count):
        taken |= 1 << i
    return taken


def _play_value(rules: RuleSet, elder: int, dealer: int, turn_up: int, *, vulnerable: int | None,
                declarer: int | None, me: int, pure: bool) -> int:
    """Net points for seat ``me`` (0 elder, 1 dealer) of the hands played double dummy, the elder
    leading, king points included."""
    forced = forced_king(rules, turn_up)
    holder = 0 if elder & forced else 1 if dealer & forced else -1
    position = Position((elder, dealer), 0, turn_up, king_to_lead=holder)
    tricks = leader_tricks(rules, position, pure=pure)
    points = rules.trick_points((tricks, HAND_SIZE - tricks), vulnerable, declarer)
    net = points[0] - points[1]
    king = 1 << king_index(turn_up)
    if turn_up & 7 != KING:
        net += KING_POINT if elder & king else -KING_POINT if dealer & king else 0
    return net if me == 0 else -net


def propose_value(rules: RuleSet, elder: int, turn_up: int, *, samples: int = 2000, seed: int = 0,
                  policy: ExchangePolicy = ExchangePolicy(), pure: bool = False) -> Estimate:
    """The elder's expected net score if he proposes (german: passes), under ``policy``, from
    ``samples`` random deals of the unseen cards (seeded: the same figure every time)."""
    return _sampled(rules, elder, turn_up, samples=samples, seed=seed, policy=policy, pure=pure, me=0)


def accept_value(rules: RuleSet, dealer: int, turn_up: int, *, samples: int = 2000, seed: int = 0,
                 policy: ExchangePolicy = ExchangePolicy(), pure: bool = False) -> Estimate:
    """The dealer's expected net score if he accepts a proposal (german: insists on the exchange)."""
    return _sampled(rules, dealer, turn_up, samples=samples, seed=seed, policy=policy, pure=pure, me=1)


def _sampled(rules: RuleSet, mine: int, turn_up: int, *, samples: int, seed: int, policy: ExchangePolicy,
             pure: bool, me: int) -> Estimate:
    rng = random.Random(seed)
    unseen = [i for i in range(32) if not (mine | 1 << turn_up) >> i & 1]
    total = 0.0
    square = 0.0
    for _ in range(samples):
        other = _take(unseen, HAND_SIZE, rng)
        elder, dealer = (mine, other) if me == 0 else (other, mine)
        stock = [i for i in unseen if not other >> i & 1]
        if me == 0 and policy.dealer_refuses(dealer, turn_up):
            declarer = 1 if rules.declares_game else None
            vulnerable = None if rules.declares_game else 1
            value = _play_value(rules, elder, dealer, turn_up, vulnerable=vulnerable, declarer=declarer,
                                me=me, pure=pure)
        else:
            for seat, bounds in ((0, rules.elder_discard), (1, rules.dealer_discard)):
                hand = elder if seat == 0 else dealer
                out = policy.discard(rules, hand, turn_up, (max(bounds[0], 1) if seat == 0 else bounds[0],
                                                            bounds[1]), len(stock))
                new = _take(stock, out.bit_count(), rng)
                stock = [i for i in stock if not new >> i & 1]
                hand = (hand & ~out) | new
                elder, dealer = (hand, dealer) if seat == 0 else (elder, hand)
            declarer = (0 if strong(elder, turn_up) else 1) if rules.declares_game else None
            value = _play_value(rules, elder, dealer, turn_up, vulnerable=None, declarer=declarer, me=me, pure=pure)
        total += value
        square += value * value
    mean = total / samples
    variance = max(square / samples - mean * mean, 0.0)
    return Estimate(mean, sqrt(variance / samples), samples)


@dataclass(frozen=True, slots=True)
class Advice:
    """The first decision of a seat, weighed: ``stand`` (exact, double dummy) against ``propose``
    (sampled, under the exchange policy), both expected net scores in points; ``classical``: the seat,
    the row of the *jeu de règle* its hand falls under and what the classics advise
    (:func:`coach.jeu_de_regle.classify`); ``german``: the rule set declares the game."""

    odds: TrickOdds
    stand: float
    propose: Estimate
    classical: Classical
    german: bool

    @property
    def should_stand(self) -> bool:
        """Standing (the elder) or refusing (the dealer) is worth more."""
        return self.stand >= self.propose.mean

    @property
    def agrees(self) -> bool:
        """The classics advise what the exact figures do."""
        return self.classical.plays == self.should_stand

    def words(self) -> tuple[str, str]:
        """The words of this seat's two choices: (playing as dealt, the other)."""
        return choices(self.classical.seat, german=self.german)

    def decision(self) -> str:
        """The exact decision's code (``'stand'``, ``'propose'``, ``'refuse'``, ``'accept'``...; its words:
        ``bid.<code>`` in the catalogue)."""
        return self.words()[0 if self.should_stand else 1]

    def text(self, lang: str = "en") -> str:
        """The decision in one line, with the classical row, in ``lang``:
        ``'stand (point 73.4%, vole 3.1%): stand +0.39 pt, propose +0.05 pt (±0.03); jeu de règle 2T+3 (two
        trumps, the other three cards of one plain suit): the classics stand (agreed)'``, or ``(the exact odds
        disagree)``."""
        play, other = self.words()
        odds = self.odds
        # the numbers as the language writes them (Babel): "73,4 %", "+0,39"
        return say(lang, "coach.advice", decision=say(lang, "bid." + self.decision()),
                   point=percent(lang, odds.point, 1),
                   vole=percent(lang, odds.vole, 1), play=say(lang, "bid." + play),
                   stand=number(lang, self.stand, signed=True), other=say(lang, "bid." + other),
                   propose=number(lang, self.propose.mean, signed=True),
                   stderr=number(lang, self.propose.stderr), classical=self.classical.words(lang),
                   agree=say(lang, "coach.agreed" if self.agrees else "coach.disagree"))


def elder_advice(rules: RuleSet, elder: int, turn_up: int, *, samples: int = 2000, pure: bool = False) -> Advice:
    """Stand or propose, for the elder's first decision (german: declare or pass)."""
    odds = stand_odds(rules, elder, turn_up, pure=pure)
    return Advice(odds, odds.dealt_value(rules), propose_value(rules, elder, turn_up, samples=samples, pure=pure),
                  classify(elder, turn_up, "elder"), rules.declares_game)


def dealer_advice(rules: RuleSet, dealer: int, turn_up: int, *, samples: int = 2000, pure: bool = False) -> Advice:
    """Refuse or accept, for the dealer's answer to the first proposal (german: take the game or not)."""
    odds = refuse_odds(rules, dealer, turn_up, pure=pure)
    return Advice(odds, odds.dealt_value(rules), accept_value(rules, dealer, turn_up, samples=samples, pure=pure),
                  classify(dealer, turn_up, "dealer"), rules.declares_game)


def hint_text(rules: RuleSet, elder: int, turn_up: int, lang: str = "en", *, samples: int = 2000,
              pure: bool = False) -> str:
    """The learner's hint before the elder decides (at most 21 characters; the OLED's status line, where
    the widest of every row is drawn in a test):
    the exact decision, the chance of the point as dealt, and the classical row the hand falls under
    (``-`` none), with ``!`` when the classics advise the other way: ``'stand 93% 2T+3'``,
    ``'propose 57% 3T!'`` (three small trumps: the classics stand), ``'propose 9% -'``."""
    advice = elder_advice(rules, elder, turn_up, samples=samples, pure=pure)
    row = advice.classical.row.name if advice.classical.row is not None else "-"
    point = percent(lang, advice.odds.point)
    return f"{say(lang, 'hint.' + advice.decision())} {point} {row}{'' if advice.agrees else '!'}"


