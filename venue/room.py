"""The venue's tables, their finished games and the session, from the tables' MQTT messages.

:class:`Room` (pure: feed it messages) holds what the hub knows of every table
(:class:`TableSeen`), the finished games (:class:`Result`, each counted once) and the
:class:`Session` (a round-robin of several rounds, or a Swiss evening, :mod:`venue.pairing`):
its pairings and the ranking (:func:`standings`). It believes no payload it has not checked
(:mod:`venue.trust`). The hub (:mod:`venue.hub`) serves it to the browsers.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from venue.trust import TOPIC_LEVEL, Untrusted, check

logger = logging.getLogger(__name__)

_KINDS = frozenset({"state", "availability", "record", "games"})


# -- the session ---------------------------------------------------------------------------------


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
                "score": {"A": self.score[0], "B": self.score[1]}, "winner": self.winner, "at": self.at}


@dataclass
class Session:
    """A session: ``players`` in a round-robin over ``cycles`` cycles of rounds (a double
    round-robin with 2), or a Swiss evening (``system="swiss"``, :mod:`venue.pairing`) of
    ``planned`` rounds (0: :func:`venue.pairing.default_rounds`), each paired from the results."""

    name: str = "session"
    players: tuple[str, ...] = ()
    cycles: int = 1
    system: str = "round-robin"
    planned: int = 0

    def pairings(self, results: Iterable[Result]) -> list[tuple[list[tuple[str, str]], str | None]]:
        """Each round's pairs and bye so far (a Swiss round appears once the last one is over)."""
        if self.system != "swiss":
            return [(pairs, None) for pairs in self.rounds]
        from venue.pairing import Played, swiss_evening

        games = [Played(r.players, r.winner, abs(r.score[0] - r.score[1])) for r in results if r.winner in ("A", "B")]
        evening = swiss_evening(self.players, _planned(self), games)
        return [(list(rnd.pairs), rnd.bye) for rnd in evening]

    @property
    def rounds(self) -> list[list[tuple[str, str]]]:
        base = round_robin(self.players)
        out = []
        for c in range(self.cycles):
            out.extend([[(b, a) if c % 2 else (a, b) for a, b in rnd] for rnd in base])
        return out


def standings(session: Session, results: Iterable[Result]) -> dict[str, Any]:
    """Rounds with their pairings and results, and the ranking (wins, then point difference,
    then points won; players not in the session are ranked too, from their games)."""
    results = list(results)
    names: list[str] = list(session.players)
    for r in results:
        for p in r.players:
            if p not in names:
                names.append(p)
    table: dict[str, dict[str, Any]] = {
        p: {"player": p, "played": 0, "wins": 0, "losses": 0, "for": 0, "against": 0, "byes": 0} for p in names}
    paired = session.pairings(results)
    for _pairs, bye in paired:
        if bye is not None:  # a bye is a win
            table[bye]["byes"] += 1
            table[bye]["wins"] += 1
    for r in results:
        for i, p in enumerate(r.players):
            row = table[p]
            row["played"] += 1
            won = r.winner == "AB"[i]
            row["wins"] += won
            row["losses"] += not won
            row["for"] += r.score[i]
            row["against"] += r.score[1 - i]
    ranking = sorted(table.values(), key=lambda row: (-row["wins"], -(row["for"] - row["against"]),
                                                      -row["for"], row["player"]))
    for rank, row in enumerate(ranking, start=1):
        row["rank"] = rank
    used: set[int] = set()
    rounds = []
    for number, (pairs, bye) in enumerate(paired, start=1):
        games = []
        for a, b in pairs:
            found = None
            for i, r in enumerate(results):
                if i not in used and set(r.players) == {a, b}:
                    found = r
                    used.add(i)
                    break
            games.append({"A": a, "B": b, "result": found.to_json() if found else None})
        rounds.append({"round": number, "games": games, "bye": bye})
    return {"session": session.name, "system": session.system, "planned": _planned(session), "rounds": rounds,
            "ranking": ranking, "games": len(results)}


def _planned(session: Session) -> int:
    if session.system == "swiss":
        from venue.pairing import default_rounds

        return session.planned or default_rounds(len(session.players))
    return len(session.rounds)


# -- the room ------------------------------------------------------------------------------------


@dataclass
class TableSeen:
    """What the hub knows of one table."""

    table: str
    availability: str = "unknown"
    state: dict[str, Any] = field(default_factory=dict)
    record: dict[str, Any] = field(default_factory=dict)
    games: dict[int, dict[str, Any]] = field(default_factory=dict)
    """The table's finished games (``games/<n>``), by number."""
    seen: float = 0.0

    def summary(self) -> dict[str, Any]:
        view = self.state.get("view") or {}
        score = view.get("score") or [0, 0]
        return {
            "table": self.table, "availability": self.availability,
            "players": (self.state.get("players") or ["A", "B"])[:2],
            "score": {"A": score[0], "B": score[1]}, "target": view.get("target"),
            "phase": view.get("phase") or "unknown", "trump": view.get("trump"), "game": self.state.get("game"),
            "hand": self.state.get("hand"), "turn": (self.state.get("prompt") or {}).get("seat"),
            "expectation": self.state.get("expectation") or "", "winner": self.state.get("winner"),
            "trick": view.get("trick") or [], "faults": len(self.state.get("faults") or []),
            "tricks": view.get("tricks") or [0, 0], "last_trick": self.state.get("last_trick"),
            "t": self.state.get("t"), "seen": self.seen,
        }


@dataclass
class Room:
    """Every table of the venue, the finished games and the session. Pure: feed it messages."""

    venue: str = "venue"
    session: Session = field(default_factory=Session)
    tables: dict[str, TableSeen] = field(default_factory=dict)
    results: list[Result] = field(default_factory=list)
    dropped: int = 0
    """Messages refused (not of their documented shape)."""
    _finished: set[tuple[str, int, float]] = field(default_factory=set)

    def take(self, topic: str, payload: bytes, now: float) -> list[tuple[str, Any]]:
        """One MQTT message; what to push to the browsers (``table``, ``standings``).

        A payload that is not of its documented shape (:mod:`venue.trust`) is dropped with one
        log line and counted in :attr:`dropped`; an empty payload (a retained topic cleared) is
        ignored."""
        parts = topic.split("/")
        if len(parts) not in (4, 5) or parts[0] != "ecarte" or parts[1] != self.venue or parts[3] not in _KINDS:
            return []
        name, kind = parts[2], parts[3]
        if not payload or (len(parts) == 5) != (kind == "games"):
            return []
        if not TOPIC_LEVEL.match(name):
            return self._drop(topic, "the table's name is not one topic level of letters, digits, - or _")
        try:
            data = check(kind, payload)
            if kind == "games" and str(data["game"]) != parts[4]:
                raise Untrusted(f"games: game {data['game']} on the topic of game {parts[4][:12]}")
        except Untrusted as exc:
            return self._drop(topic, str(exc))
        seen = self.tables.get(name)
        if seen is None:
            seen = self.tables[name] = TableSeen(name)
        seen.seen = now
        if kind == "availability":
            seen.availability = data
        elif kind == "state":
            seen.state = data
            if seen.availability == "unknown":
                seen.availability = "online"
        elif kind == "games":
            seen.games[int(data["game"])] = data
            return self._result(name, data, now)
        else:
            seen.record = data
            return []
        return [("table", seen.summary())]

    def _drop(self, topic: str, why: str) -> list[tuple[str, Any]]:
        self.dropped += 1
        logger.warning("hub: dropped a message on %s: %s", topic[:120], why)
        return []

    def _result(self, table: str, game: dict[str, Any], now: float) -> list[tuple[str, Any]]:
        """A finished game of a table's journal (``…/games/<n>``): a result, counted once however
        often the table publishes it (on each connection) or the broker keeps it."""
        key = (table, int(game["game"]), float(game["ended"]))
        if key in self._finished:
            return []
        self._finished.add(key)
        players, score = game["players"], game["score"]
        self.results.append(Result(table, int(game["game"]), (players[0], players[1]), (score["A"], score["B"]),
                                   str(game["winner"]), float(game["ended"])))
        return [("standings", self.standings())]

    def standings(self) -> dict[str, Any]:
        return standings(self.session, self.results)

    def snapshot(self) -> list[dict[str, Any]]:
        return [self.tables[name].summary() for name in sorted(self.tables)]
