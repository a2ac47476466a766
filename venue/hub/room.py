"""The venue's tables, their finished games and the session, from the tables' MQTT messages.

:class:`Room` (pure: feed it messages) holds what the hub knows of every table
(:class:`TableSeen`), the finished games (:class:`Result`, each counted once) and the
:class:`Session` (a round-robin of several rounds, or a Swiss evening, :mod:`venue.hub.pairing`):
its pairings and the ranking (:mod:`venue.hub.ledger`). It believes no payload it has not checked
(:mod:`venue.hub.trust`). The hub (:mod:`venue.hub.scoreboard`) serves it to the browsers.
"""

from __future__ import annotations

import json
import logging
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from engine.seats import SEATS, PerSeat
from hardware.limits import nfc
from venue.hub.ledger import Ledger
from venue.hub.session import Result, Session
from venue.hub.trust import TOPIC_LEVEL, Untrusted, check

logger = logging.getLogger(__name__)

_KINDS = frozenset({"state", "availability", "record", "games"})

KEPT_GAMES = 40
"""A table's finished games the hub keeps for ``/api/tables/<t>/games``, the latest by number (an
evening's games at one table; the results counted stay in the ledger whatever this keeps)."""

KEPT_GAMES_BYTES = 4 * 1024 * 1024
"""Bytes of a table's finished games the hub keeps, at most (the latest game always): a game's payload
may be 512 kB (:data:`venue.hub.trust.MAX_RECORD_BYTES`); an evening's real games are some 10 kB each.
A table publishing the largest games, however many, costs the hub this much at most."""

CLOCK_SAMPLES = 16
"""A table's last live states whose time tells its clock (:attr:`TableSeen.clock_offset`)."""

GAME_FIELDS = ("game", "players", "score", "winner", "ended", "hands")
"""What ``/api/tables/<t>/games`` serves of each game."""

DROP_SAID_EVERY_S = 60.0
"""A table's dropped messages are said at most once a minute, the next line saying how many were
dropped meanwhile: a table flooding bad payloads (a thousand a second) cannot fill the hub's log."""


# -- the room ------------------------------------------------------------------------------------


@dataclass
class TableSeen:
    """What the hub knows of one table."""

    table: str
    availability: str = "unknown"
    state: dict[str, Any] = field(default_factory=dict)
    record: dict[str, Any] = field(default_factory=dict)
    games: dict[int, bytes] = field(default_factory=dict)
    """The table's latest finished games (``games/<n>``), by number: each as ``/api/tables/<t>/games``
    serves it (:data:`GAME_FIELDS`, JSON made once as it came), at most :data:`KEPT_GAMES` and
    :data:`KEPT_GAMES_BYTES` (the lowest numbers forgotten first)."""
    games_bytes: int = 0

    def keep_game(self, number: int, data: dict[str, Any]) -> None:
        """Game ``number`` (checked, :func:`venue.hub.trust.check_game`) kept; the oldest forgotten past the bounds."""
        served = json.dumps({k: data.get(k) for k in GAME_FIELDS}, ensure_ascii=False,
                            separators=(",", ":")).encode()
        self.games_bytes += len(served) - len(self.games.pop(number, b""))
        self.games[number] = served
        while len(self.games) > 1 and (len(self.games) > KEPT_GAMES or self.games_bytes > KEPT_GAMES_BYTES):
            self.games_bytes -= len(self.games.pop(min(self.games)))

    def games_json(self) -> bytes:
        """The games kept, lowest number first, as one JSON list (nothing parsed again)."""
        return b"[" + b",".join(self.games[n] for n in sorted(self.games)) + b"]"
    seen: float = 0.0
    announced: dict[int, tuple[str, ...]] = field(default_factory=dict)
    """The players its state named for each of its last games (free play's check of a result)."""
    _clock: deque[float] = field(default_factory=lambda: deque(maxlen=CLOCK_SAMPLES))
    """Its last live states' ``t`` (its wall clock as it sent them) less the hub's clock as each came."""

    def saw_clock(self, t: float, now: float) -> None:
        """A live state (published now, not a retained one) made at ``t`` by the table's clock came at
        ``now`` by the hub's."""
        self._clock.append(t - now)

    @property
    def clock_offset(self) -> float | None:
        """How far the table's clock is ahead of the hub's (s; negative: behind), or None: no live state
        seen. Each sample is the offset less the message's way to the hub (never negative), so the
        largest of the last :data:`CLOCK_SAMPLES` is the nearest (and follows a clock set forward at once)."""
        return max(self._clock) if self._clock else None

    def summary(self) -> dict[str, Any]:
        view = self.state.get("view") or {}
        score = view.get("score") or [0, 0]
        return {
            "table": self.table, "availability": self.availability,
            "players": (self.state.get("players") or list(SEATS))[:2],
            "score": PerSeat.of(score).to_json(), "target": view.get("target"),
            "phase": view.get("phase") or "unknown", "trump": view.get("trump"), "game": self.state.get("game"),
            "hand": self.state.get("hand"), "turn": (self.state.get("prompt") or {}).get("seat"),
            "expectation": self.state.get("expectation") or "", "winner": self.state.get("winner"),
            "trick": view.get("trick") or [], "faults": len(self.state.get("faults") or []),
            "tricks": view.get("tricks") or [0, 0], "last_trick": self.state.get("last_trick"),
            "t": self.state.get("t"), "seen": self.seen,
        }


class Room:
    """Every table of the venue, the finished games and the session. Pure: feed it messages.

    :param venue: the venue's name (the second level of its topics).
    :param session: the session played (none: free play).
    :param declared: the venue file's tables in order (where a session's pairs are seated).
    :param ledger: what counts the results (:mod:`venue.hub.ledger`); none: one of ``session`` at
        ``declared``, pairing on the hub's wall clock.
    """

    def __init__(self, venue: str = "venue", session: Session | None = None, declared: tuple[str, ...] = (),
                 ledger: Ledger | None = None) -> None:
        self.venue = venue
        self.session = session if session is not None else Session()
        self.declared = declared
        self.ledger = ledger if ledger is not None else Ledger(self.session, declared)
        self.tables: dict[str, TableSeen] = {}
        self.dropped = 0
        self.earlier = 0
        """Results refused for having ended before this evening began (:meth:`Ledger.add`)."""
        """Messages refused (not of their documented shape)."""
        self._summaries: dict[str, dict[str, Any]] = {}
        self._order: list[str] = []
        self._drops_said: dict[str, tuple[float, int]] = {}
        """A table's last line about a dropped message: when, and how many were dropped since unsaid."""

    @property
    def results(self) -> list[Result]:
        """The results counted, in the order they came."""
        return self.ledger.results

    def take(self, topic: str, payload: bytes, now: float, live: bool = False) -> list[tuple[str, Any]]:
        """One MQTT message; what to push to the browsers: ``("table", summary)``, or ``("standings",
        None)`` when the standings changed (the caller asks for them when it sends them).

        ``now``: the hub's wall clock. ``live``: the message was passed on as it was published, not
        given as a retained one on subscribing (the broker's RETAIN flag: MQTT 3.1.1, 3.3.1-8 and -9):
        a live state's ``t`` tells how far the table's clock is off (:attr:`TableSeen.clock_offset`),
        by which its results' ``ended`` is read (:mod:`venue.hub.ledger`).

        A payload that is not of its documented shape (:mod:`venue.hub.trust`) is dropped, counted in
        :attr:`dropped` and said in the log (once a minute a table at most); an empty payload (a
        retained topic cleared) is ignored."""
        parts = topic.split("/")
        if len(parts) not in (4, 5) or parts[0] != "ecarte" or parts[1] != self.venue or parts[3] not in _KINDS:
            return []
        name, kind = parts[2], parts[3]
        if not payload or (len(parts) == 5) != (kind == "games"):
            return []
        if not TOPIC_LEVEL.match(name):
            return self._drop(topic, "the table's name is not one topic level of letters, digits, - or _", now)
        try:
            data = check(kind, payload)
            if kind == "games" and str(data["game"]) != parts[4]:
                raise Untrusted(f"games: game {data['game']} on the topic of game {parts[4][:12]}")
        except Untrusted as exc:
            return self._drop(topic, str(exc), now)
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
            t = data.get("t")
            if live and isinstance(t, int | float) and not isinstance(t, bool):
                seen.saw_clock(float(t), now)
            players, game = data.get("players"), data.get("game")
            if players and isinstance(game, int):
                seen.announced[game] = tuple(nfc(p) for p in players[:2])  # one spelling of each name
                if len(seen.announced) > 64:
                    del seen.announced[min(seen.announced)]
        elif kind == "games":
            seen.keep_game(int(data["game"]), data)
            return self._result(seen, data)
        else:
            seen.record = data
            return []
        summary = self._summaries[name] = seen.summary()
        return [("table", summary)]

    def _drop(self, topic: str, why: str, now: float) -> list[tuple[str, Any]]:
        """Count a refused message, and say it unless its table was told of within :data:`DROP_SAID_EVERY_S`."""
        self.dropped += 1
        table = topic.split("/")[2][:40]
        said, unsaid = self._drops_said.get(table, (now - DROP_SAID_EVERY_S, 0))
        if now - said < DROP_SAID_EVERY_S:
            self._drops_said[table] = (said, unsaid + 1)
            return []
        if len(self._drops_said) >= 4096:  # names a broker without the venue's ACL let through
            self._drops_said.clear()
        self._drops_said[table] = (now, 0)
        since = f" ({unsaid} more from {table} dropped since the last line)" if unsaid else ""
        logger.warning("hub: dropped a message on %s: %s%s", topic[:120], why, since)
        return []

    def _result(self, seen: TableSeen, game: dict[str, Any]) -> list[tuple[str, Any]]:
        """A finished game of a table's journal (``…/games/<n>``): to the ledger, which counts it once
        at most (:mod:`venue.hub.ledger`)."""
        players, score = game["players"], game["score"]
        number = int(game["game"])
        result = Result(seen.table, number, (nfc(players[0]), nfc(players[1])), (score["A"], score["B"]),
                        str(game["winner"]), float(game["ended"]))
        verdict = self.ledger.add(result, seen.announced.get(number), seen.clock_offset)
        if verdict == "earlier":  # a result of an earlier evening: its retained message may go
            self.earlier += 1
        return [] if verdict == "again" else [("standings", None)]

    def standings(self) -> dict[str, Any]:
        return self.ledger.to_json()

    def snapshot(self) -> list[dict[str, Any]]:
        """Every table's summary, by name (kept as each message comes: nothing recomputed here)."""
        if len(self._order) != len(self.tables):  # a table came since: sorted again, once
            self._order = sorted(self.tables)
        out = []
        for name in self._order:
            summary = self._summaries.get(name)
            if summary is None:
                summary = self._summaries[name] = self.tables[name].summary()
            out.append(summary)
        return out
