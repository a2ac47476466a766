"""Single dummy: play with what a seat can know, approximated by averaging double-dummy results.

A seat sees its own cards, its own discards, the turn-up and the cards played. The other
seat's hand is any set of the cards it has not seen that agrees with how the other seat has
played so far (each card it played had to be legal from the hand it then held: the engine's
``lead_mask`` and ``rules.follow`` say so; a revoke is never made, so a card not followed shows
a void). :func:`worlds` lists those hands (all of them when there are at most ``limit``, else a
seeded sample), and :func:`card_values` averages, for each card the seat may play, the
double-dummy score of the hand after it over those worlds.

This is the classical *perfect-information Monte Carlo* approximation: it lets each world
be played as if the seat knew it, so it overrates a seat's chances a little (it may guess a
different way in each world) and ignores what a seat's bidding tells the other. Its distance
from double dummy, measured on the stand odds, is in ``docs/coach.md``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from itertools import combinations
from math import comb

from coach.double_dummy import Position, solve
from coach.odds import HAND_SIZE, net_points
from engine.cards import ALL_CARDS
from engine.rules import RuleSet


@dataclass(frozen=True, slots=True)
class Step:
    """One card of the hand: the position before it, and the card played (an index)."""

    position: Position
    card: int


def utility(rules: RuleSet, seat: int, *, vulnerable: int | None, declarer: int | None) -> tuple[int, ...]:
    """The net score (points of ``seat`` minus the other's) for each number of tricks ``seat``
    may end with, 0 to 5, by the rule set's hook."""
    return tuple(
        net_points(rules, t, vulnerable=None if vulnerable is None else vulnerable == seat,
                   declarer=None if declarer is None else declarer == seat)
        for t in range(HAND_SIZE + 1)
    )


def _with_hand(position: Position, seat: int, hand: int) -> Position:
    hands = (hand, position.hands[1]) if seat == 0 else (position.hands[0], hand)
    return replace(position, hands=hands)


def _legal_then(rules: RuleSet, step: Step, seat: int, hand: int) -> bool:
    return bool(_with_hand(step.position, seat, hand).legal(rules) >> step.card & 1)


def worlds(rules: RuleSet, position: Position, steps: tuple[Step, ...], *, known: int = 0, limit: int = 24,
           rng: random.Random | None = None) -> list[int]:
    """The hands the other seat may hold, seen from the seat to play in ``position``.

    ``steps``: the cards played so far in the hand; ``known``: other cards this seat has seen
    (its discards). All hands when there are at most ``limit``, else ``limit`` drawn at random
    (``rng``, seeded by the caller: reviews say the same thing every time).
    """
    seat = position.to_play
    other = 1 - seat
    count = position.hands[other].bit_count()
    played = 0
    for step in steps:
        played |= 1 << step.card
    pool_mask = ALL_CARDS & ~position.hands[seat] & ~played & ~known & ~(1 << position.turn_up)
    theirs = [s for s in steps if s.position.to_play == other]
    later = 0
    marks = []
    for step in reversed(theirs):  # the cards the other seat still held at each of its plays
        later |= 1 << step.card
        marks.append((step, later))
    marks.reverse()

    def fits(hand: int) -> bool:
        return all(_legal_then(rules, step, other, hand | held) for step, held in marks)

    pool = [1 << i for i in range(32) if pool_mask >> i & 1 and fits(1 << i)]
    if count == 0:
        return [0]
    if comb(len(pool), count) <= limit:
        return [h for h in (sum(c) for c in combinations(pool, count)) if fits(h)]
    rng = rng or random.Random(0)
    found: list[int] = []
    for _ in range(limit * 20):
        hand = sum(rng.sample(pool, count))
        if fits(hand):
            found.append(hand)
            if len(found) == limit:
                break
    return found


def card_values(rules: RuleSet, position: Position, hands: list[int], values: tuple[int, ...], *,
                pure: bool = False) -> dict[int, float]:
    """For each card the seat to play may play: its expected net score (``values`` by its final
    tricks, see :func:`utility`) over the other seat's possible ``hands``, double dummy after the card."""
    seat = position.to_play
    legal = position.legal(rules)
    cards = [i for i in range(32) if legal >> i & 1]
    totals = dict.fromkeys(cards, 0.0)
    for hand in hands:
        world = _with_hand(position, 1 - seat, hand)
        for card in cards:
            after = world.play(rules, card)
            tricks = solve(rules, after, pure=pure) if after.cards_left else after.tricks
            totals[card] += values[tricks[seat]]
    n = max(len(hands), 1)
    return {c: v / n for c, v in totals.items()}


def play_out(rules: RuleSet, position: Position, *, vulnerable: int | None = None, declarer: int | None = None,
             known: tuple[int, int] = (0, 0), limit: int = 24, seed: int = 0,
             pure: bool = False) -> tuple[tuple[int, int], tuple[Step, ...]]:
    """Both seats play single dummy from ``position`` to the end: the tricks (A, B) and the cards."""
    rng = random.Random(seed)
    values = (utility(rules, 0, vulnerable=vulnerable, declarer=declarer),
              utility(rules, 1, vulnerable=vulnerable, declarer=declarer))
    steps: list[Step] = []
    while position.cards_left:
        seat = position.to_play
        hands = worlds(rules, position, tuple(steps), known=known[seat], limit=limit, rng=rng)
        scores = card_values(rules, position, hands, values[seat], pure=pure)
        card = max(sorted(scores), key=lambda c: scores[c])
        steps.append(Step(position, card))
        position = position.play(rules, card)
    return position.tricks, tuple(steps)
