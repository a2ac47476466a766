"""A Swiss system for a club evening: each round pairs players of equal score who have not met.

Round 1 pairs the field as seeded (the session's order): the top half against the bottom
half. Each later round is paired once every game of the last one has its result:

- **no repeat**: two players meet at most once in the evening;
- **by score**: the players' scores (games won, a bye counting as a win) as close as the
  first rule allows: the pairing with the least sum of squared score differences;
- **one bye when the field is odd**: to a player who has had none while that leaves a
  pairing without a repeat, among them the lowest in score, then in the ranking; a bye is
  a win. The pairing **looks ahead**: a round is chosen only if the evening's remaining rounds
  can still be paired without a repeat, each bye to a player with the fewest byes; so a second
  bye goes only where no other pairing exists, and the round says so (``bye_again``);
- seats: the player who has sat at A less often sits at A.

The pairing is a minimum-cost perfect matching (networkx's maximum-weight matching with
maximum cardinality, the blossom algorithm) over the pairs that have not met, plus a
"bye" player when the field is odd; the costs are ordered so that a repeated bye is worse
than any bye's score, which is worse than any score difference. When no pairing without a
repeat is left, the evening has no further round.

    >>> rounds = swiss_evening(["ann", "bob", "cat", "dan", "eve"], 3, [])
    >>> rounds[0].pairs, rounds[0].bye
    ((('ann', 'cat'), ('dan', 'bob')), 'eve')

Ann and Dan win; Eve's bye counts as a win. Cat, beaten by more than Bob, has the bye:

    >>> rounds = swiss_evening(["ann", "bob", "cat", "dan", "eve"], 3,
    ...                        [Played(("ann", "cat"), "A", 3), Played(("dan", "bob"), "A", 1)])
    >>> rounds[1].pairs, rounds[1].bye
    ((('ann', 'dan'), ('eve', 'bob')), 'cat')
"""

from __future__ import annotations

import itertools
import logging
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

from engine.seats import SEATS

logger = logging.getLogger(__name__)

SYSTEMS = ("round-robin", "swiss")
"""How a session's rounds are paired (the venue file's ``[session] system``)."""

_BYE = "\x00bye"


@dataclass(frozen=True, slots=True)
class Played:
    """A finished game as the pairing sees it: the players at A and B, the winning seat
    (``A`` or ``B``), and the winner's margin in points (a tie-break of the ranking)."""

    players: tuple[str, str]
    winner: str
    margin: int = 0


@dataclass(frozen=True, slots=True)
class Round:
    """A round of the evening: its games (the player at A first) and who has the bye."""

    number: int
    pairs: tuple[tuple[str, str], ...]
    bye: str | None = None
    bye_again: bool = False
    """The bye goes to a player who has had more byes than another: no other pairing was left."""


def default_rounds(players: int) -> int:
    """The rounds of a Swiss evening when the venue file does not say: enough for one
    player to stand alone at the top (⌈log₂ n⌉), at least one."""
    return max(1, math.ceil(math.log2(players))) if players > 1 else 0


@dataclass
class _Tally:
    """Where the evening stands after the rounds played so far."""

    scores: Counter[str]
    margins: Counter[str]
    byes: Counter[str]
    at_a: Counter[str]
    met: set[frozenset[str]]

    def ranked(self, players: Sequence[str]) -> list[str]:
        """The players by score, then margin, then seeding (the session's order)."""
        seed = {p: i for i, p in enumerate(players)}
        return sorted(players, key=lambda p: (-self.scores[p], -self.margins[p], seed[p]))


def swiss_evening(players: Sequence[str], rounds: int, games: Iterable[Played]) -> list[Round]:
    """The evening's rounds so far: the first from the seeding, each next one once every game
    of the one before has a result in ``games`` (played in any order, at any table; a game
    between players who were not paired together does not count), up to ``rounds``."""
    field = list(dict.fromkeys(players))
    if len(field) < 2 or rounds < 1:
        return []
    pending = list(games)
    tally = _Tally(Counter(), Counter(), Counter(), Counter(), set())
    out = [_first_round(field)]
    while True:
        last = out[-1]
        results = _results(last, pending)
        if results is None:
            return out  # the last round is still being played
        _count(tally, last, results)
        if len(out) == rounds:
            return out
        following = swiss_round(len(out) + 1, tally.ranked(field), tally.scores, tally.met, tally.byes, tally.at_a,
                                rounds_left=rounds - len(out) - 1)
        if following is None:
            logger.info("no round %d without a repeat: the evening ends after round %d", len(out) + 1, len(out))
            return out
        out.append(following)


def _first_round(field: list[str]) -> Round:
    bye = field[-1] if len(field) % 2 else None
    seated = field[:-1] if bye else field
    half = len(seated) // 2
    pairs = tuple((seated[i], seated[i + half]) if i % 2 == 0 else (seated[i + half], seated[i]) for i in range(half))
    return Round(1, pairs, bye)


def _results(played: Round, pending: list[Played]) -> list[Played] | None:
    """The round's results, taken out of ``pending`` (None, and nothing taken, until all are in)."""
    found: list[int] = []
    for a, b in played.pairs:
        index = next((i for i, g in enumerate(pending) if i not in found and set(g.players) == {a, b}), None)
        if index is None:
            return None
        found.append(index)
    results = [pending[i] for i in found]
    for i in sorted(found, reverse=True):
        del pending[i]
    return results


def _count(tally: _Tally, played: Round, results: list[Played]) -> None:
    for a, b in played.pairs:
        tally.met.add(frozenset((a, b)))
        tally.at_a[a] += 1
    for game in results:
        seat = SEATS.index(game.winner)
        winner, loser = game.players[seat], game.players[1 - seat]
        tally.scores[winner] += 1
        tally.margins[winner] += game.margin
        tally.margins[loser] -= game.margin
    if played.bye:
        tally.scores[played.bye] += 1
        tally.byes[played.bye] += 1


def swiss_round(number: int, ranked: Sequence[str], scores: Mapping[str, int], met: set[frozenset[str]],
                byes: Mapping[str, int], at_a: Mapping[str, int], rounds_left: int = 0) -> Round | None:
    """Round ``number`` for the players ``ranked`` best first (see the module's rules), or None
    when no pairing without a repeat exists. ``rounds_left``: the evening's rounds after this one
    (looked ahead at, for the byes)."""
    best = _matched(ranked, scores, met, byes)
    if best is None:
        return None
    bye, pairs = best
    if bye is not None and rounds_left > 0:
        ahead = _look_ahead(ranked, scores, met, byes, rounds_left)
        if ahead is not None:
            bye, pairs = ahead
    fewest = min((byes.get(p, 0) for p in ranked), default=0)
    again = bye is not None and byes.get(bye, 0) > fewest
    if again:
        logger.warning("round %d: a second bye for %s: no other pairing without a repeat is left", number, bye)
    position = {p: i for i, p in enumerate(ranked)}
    seated = []
    for a, b in pairs:
        first, second = sorted((a, b), key=lambda p: (at_a.get(p, 0), position[p]))
        seated.append((first, second))
    seated.sort(key=lambda pair: min(position[pair[0]], position[pair[1]]))
    return Round(number, tuple(seated), bye, again)


def _matched(ranked: Sequence[str], scores: Mapping[str, int], met: set[frozenset[str]], byes: Mapping[str, int],
             only_bye: str | None = None) -> tuple[str | None, list[tuple[str, str]]] | None:
    """The least-cost pairing of the round (its bye and its pairs), or None; ``only_bye``: with that bye."""
    n = len(ranked)
    top = max((scores.get(p, 0) for p in ranked), default=0)
    low = min((scores.get(p, 0) for p in ranked), default=0)
    # the costs' orders of magnitude: each rule outweighs every lower one summed over the round
    pair_unit = 1
    rank_unit = pair_unit * (n * (top - low + 1) ** 2 + 1)
    score_unit = rank_unit * (n + 1)
    bye_unit = score_unit * (n * (top - low + 1) + 1)
    costs: dict[tuple[str, str], int] = {}
    for index, a in enumerate(ranked):
        for b in ranked[index + 1:]:
            if frozenset((a, b)) not in met:
                costs[(a, b)] = pair_unit * (scores.get(a, 0) - scores.get(b, 0)) ** 2
    if n % 2:
        for place, p in enumerate(ranked):
            if only_bye is None or p == only_bye:
                costs[(p, _BYE)] = (bye_unit * byes.get(p, 0) + score_unit * (scores.get(p, 0) - low)
                                    + rank_unit * (n - 1 - place))
    ceiling = max(costs.values(), default=0) + 1
    graph = nx.Graph()
    graph.add_weighted_edges_from((a, b, ceiling - cost) for (a, b), cost in costs.items())
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) < n + n % 2:
        return None
    bye: str | None = None
    pairs: list[tuple[str, str]] = []
    for a, b in matching:
        if _BYE in (a, b):
            bye = b if a == _BYE else a
        else:
            pairs.append((a, b))
    return bye, pairs


LOOK_AHEAD_STEPS = 20_000
"""Pairings tried when looking ahead, at most (past it, the round is paired as if it were the last)."""


def _look_ahead(ranked: Sequence[str], scores: Mapping[str, int], met: set[frozenset[str]],
                byes: Mapping[str, int], rounds_left: int) -> tuple[str, list[tuple[str, str]]] | None:
    """The best round (its bye to a player with the fewest byes, as the costs order them) after which
    the ``rounds_left`` next can be paired without a repeat, each bye again to one with the fewest;
    None when there is none (or the search is too long)."""
    budget = [LOOK_AHEAD_STEPS]
    fewest = min(byes.get(p, 0) for p in ranked)
    low = min(scores.get(p, 0) for p in ranked)
    place = {p: i for i, p in enumerate(ranked)}
    candidates = sorted((p for p in ranked if byes.get(p, 0) == fewest),
                        key=lambda p: (scores.get(p, 0) - low, -place[p]))
    for bye in candidates:
        best = _matched(ranked, scores, met, byes, only_bye=bye)
        if best is None:
            continue
        others = itertools.islice(_matchings([p for p in ranked if p != bye], met, budget), 200)
        options = [best[1], *sorted(others, key=lambda m: sum((scores.get(a, 0) - scores.get(b, 0)) ** 2
                                                               for a, b in m))]
        for pairs in options:
            after = met | {frozenset(pair) for pair in pairs}
            had = {**byes, bye: byes.get(bye, 0) + 1}
            if _completable(list(ranked), after, had, rounds_left, budget):
                return bye, pairs
            if budget[0] <= 0:
                return None
    return None


def _matchings(players: list[str], met: set[frozenset[str]], budget: list[int]) -> Iterable[list[tuple[str, str]]]:
    """Every pairing of ``players`` without a repeat (while ``budget`` lasts)."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for i, other in enumerate(rest):
        if frozenset((first, other)) in met:
            continue
        budget[0] -= 1
        if budget[0] <= 0:
            return
        for more in _matchings(rest[:i] + rest[i + 1:], met, budget):
            yield [(first, other), *more]


def _completable(players: list[str], met: set[frozenset[str]], byes: Mapping[str, int], rounds: int,
                 budget: list[int]) -> bool:
    """Whether ``rounds`` more rounds can be paired without a repeat, each bye to one with the fewest."""
    if rounds == 0:
        return True
    fewest = min(byes.get(p, 0) for p in players)
    for bye in [p for p in players if byes.get(p, 0) == fewest] if len(players) % 2 else [None]:
        rest = [p for p in players if p != bye]
        for pairs in _matchings(rest, met, budget):
            had = byes if bye is None else {**byes, bye: byes.get(bye, 0) + 1}
            if _completable(players, met | {frozenset(pair) for pair in pairs}, had, rounds - 1, budget):
                return True
            if budget[0] <= 0:
                return False
    return False


__all__ = ["SYSTEMS", "Played", "Round", "default_rounds", "swiss_evening", "swiss_round"]
