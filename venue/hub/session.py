"""A session of the venue and its finished games: who plays whom (:class:`Session`, its
round-robin by :func:`round_robin`) and a game as a table reports it (:class:`Result`).

Plain values, shared by the room (:mod:`venue.hub.room`, which reads the tables' messages) and the
ledger (:mod:`venue.hub.ledger`, which counts the results): neither imports the other for them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.seats import PerSeat


def round_robin(players: Iterable[str]) -> list[list[tuple[str, str]]]:
    """Every round of a round-robin (the circle method): each pair meets once, seats alternating.

    An odd field gets a bye (the pair with ``""``, left out of the rounds' pairings).

    >>> round_robin(["ann", "bob", "cat", "dan"])
    [[('ann', 'dan'), ('bob', 'cat')], [('cat', 'ann'), ('dan', 'bob')], [('ann', 'bob'), ('cat', 'dan')]]
    """
    field_ = list(players)
    if len(field_) % 2:
        field_.append("")
    n = len(field_)
    rounds: list[list[tuple[str, str]]] = []
    order = field_[:]
    for r in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = order[i], order[n - 1 - i]
            if i == 0 and r % 2 == 1:
                a, b = b, a
            if a and b:
                pairs.append((a, b))
        rounds.append(pairs)
        order = [order[0], order[-1], *order[1:-1]]
    return rounds


@dataclass(frozen=True, slots=True)
class Result:
    """A finished game at a table."""

    table: str
    game: int
    players: tuple[str, str]
    score: tuple[int, int]
    winner: str
    at: float

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table, "game": self.game, "players": list(self.players),
                "score": PerSeat.of(self.score).to_json(), "winner": self.winner, "at": self.at}


@dataclass
class Session:
    """A session: ``players`` in a round-robin over ``cycles`` cycles of rounds (a double
    round-robin with 2), or a Swiss evening (``system="swiss"``, :mod:`venue.hub.pairing`) of
    ``planned`` rounds (0: :func:`venue.hub.pairing.default_rounds`), each paired from the results."""

    name: str = "session"
    players: tuple[str, ...] = ()
    cycles: int = 1
    system: str = "round-robin"
    planned: int = 0

    @property
    def rounds(self) -> list[list[tuple[str, str]]]:
        base = round_robin(self.players)
        out = []
        for c in range(self.cycles):
            out.extend([[(b, a) if c % 2 else (a, b) for a, b in rnd] for rnd in base])
        return out
