"""The journal's games as the page shows them: results, hand records, players' statistics.

Each game of the journal is replayed through a fresh
:class:`~firmware_host.referee.controller.Controller` as every reader of the journal does
(:func:`firmware_host.journal.replay.replay_game`): its ``hand_record`` events give the hands. A
hand is shown only once it is over *and* ``reveal_delay`` seconds have passed since the journal line
that ended it, so the history never shows a hidden card earlier than the live feed.

The journal is opened read-only on its own connection (SQLite in WAL mode lets the table's event
loop write meanwhile); replays are cached by game and line count.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine
from firmware_host.journal.replay import replay_game, strict
from firmware_host.journal.store import GameRecord
from firmware_host.referee.controller import Controller
from firmware_host.referee.table_events import HandRecord
from firmware_host.referee.transcript import TranscriptError
from venue.record import GameLog, GameLogBuilder, HandLog

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """One game of the journal, replayed: its hands with the time each ended (seconds since the epoch)."""

    game: int
    started: float
    lines: int
    players: tuple[str, str]
    rules: str
    target: int
    score: tuple[int, int]
    winner: str | None
    hands: tuple[tuple[HandLog, float], ...]
    hands_in_play: int = 0
    parts: tuple[dict[str, Any], ...] = ()
    """A rubber's games (winner, score, hands), the last maybe still played; empty for a single game."""
    rubber: tuple[int, int] | None = None
    """Games won by A and B once the rubber is over."""

    def log(self, *, table: str, now: float, delay: float) -> GameLog:
        """The game's record, without the hands still held back at ``now``."""
        builder = GameLogBuilder()
        builder.players = self.players
        builder.target = self.target
        builder.rules = {"name": self.rules}
        shown = [hand for hand, ended in self.hands if ended + delay <= now]
        builder.hands = shown
        if shown:
            builder.score = shown[-1].score or self.score
        everything = len(shown) == len(self.hands)
        builder.winner = self.winner if everything else None
        date = time.strftime("%Y.%m.%d", time.localtime(self.started))
        return builder.game_log(game=self.game, table=table, date=date, rubber=self.rubber if everything else None)

    def name(self, seat: str | None) -> str | None:
        """The player at ``seat`` (``A``/``B``), or None."""
        return self.players["AB".index(seat)] if seat in ("A", "B") else None

    def summary(self) -> dict[str, Any]:
        """The game as the page's Games tab lists it (names beside seats; a rubber's games and result)."""
        data = {"game": self.game, "started": self.started, "players": list(self.players), "rules": self.rules,
                "target": self.target, "score": {"A": self.score[0], "B": self.score[1]}, "winner": self.winner,
                "winner_name": self.name(self.winner), "hands": len(self.hands), "lines": self.lines}
        if self.parts:
            data["games"] = [{**part, "winner_name": self.name(part["winner"])} for part in self.parts]
            data["rubber"] = None if self.rubber is None else {"A": self.rubber[0], "B": self.rubber[1]}
        return data


@dataclass
class JournalHistory:
    """The games of the journal at ``path``."""

    path: Path
    table: str = "table"
    reveal_delay: float = 0.0
    _cache: dict[int, PlayedGame] = field(default_factory=dict)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=2.0)

    def rows(self) -> list[tuple[int, float, int]]:
        """Every game's number, start time and line count, oldest first (nothing replayed)."""
        if not self.path.exists():
            return []
        with self._connect() as db:
            rows = db.execute(
                "SELECT g.id, g.started, COUNT(e.id) FROM games g LEFT JOIN events e ON e.game = g.id "
                "GROUP BY g.id ORDER BY g.id"
            ).fetchall()
        return [(int(game), float(started), int(count)) for game, started, count in rows]

    def games(self) -> list[PlayedGame]:
        """Every game, oldest first."""
        return [self.played(game, started, count) for game, started, count in self.rows()]

    def game(self, number: int) -> PlayedGame | None:
        for game, started, count in self.rows():
            if game == number:
                return self.played(game, started, count)
        return None

    def played(self, game: int, started: float, count: int) -> PlayedGame:
        """One game of :meth:`rows`, replayed (cached while its line count stays)."""
        cached = self._cache.get(game)
        if cached is not None and cached.lines == count:
            return cached
        with self._connect() as db:
            rows = db.execute("SELECT line, t, done FROM events WHERE game = ? ORDER BY id", (game,)).fetchall()
        played = played_game(game, started, [(str(line), float(t), int(done)) for line, t, done in rows])
        self._cache[game] = played
        return played

    def log(self, number: int, now: float | None = None) -> GameLog | None:
        played = self.game(number)
        if played is None:
            return None
        return played.log(table=self.table, now=time.time() if now is None else now, delay=self.reveal_delay)

    def stats(self, now: float | None = None) -> list[dict[str, Any]]:
        """Per player (by name): games, wins, hands, points, tricks, kings, voles, faults (shown hands only)."""
        now = time.time() if now is None else now
        table: dict[str, dict[str, Any]] = {}

        def row(name: str) -> dict[str, Any]:
            return table.setdefault(name, {"player": name, "games": 0, "wins": 0, "hands": 0, "points": 0,
                                           "tricks": 0, "kings": 0, "voles": 0, "faults": 0})

        for played in self.games():
            shown = [hand for hand, ended in played.hands if ended + self.reveal_delay <= now]
            if not shown:
                continue
            everything = len(shown) == len(played.hands)
            for i, name in enumerate(played.players):
                r = row(name)
                if played.parts:  # a rubber: each of its games counts (the one being played once over)
                    r["games"] += sum(1 for p in played.parts if p["winner"] is not None) if everything else 1
                    r["wins"] += sum(1 for p in played.parts if p["winner"] == "AB"[i]) if everything else 0
                else:
                    r["games"] += 1
                    r["wins"] += played.winner == "AB"[i] and everything
                for hand in shown:
                    r["hands"] += 1
                    if hand.points is not None:
                        r["points"] += hand.points[i]
                    if hand.tricks is not None:
                        r["tricks"] += hand.tricks[i]
                        r["voles"] += hand.tricks[i] == 5
                    r["kings"] += sum(1 for m in hand.moves if m.to_json()["action"] == "announce"
                                      and getattr(m, "seat", "") == "AB"[i])
                    r["faults"] += sum(1 for f in hand.faults if f.seat == "AB"[i])
        return sorted(table.values(), key=lambda r: (-r["wins"], -r["points"], r["player"]))


def played_game(game: int, started: float, rows: list[tuple[str, float, int]]) -> PlayedGame:
    """A journal game's rows (line, time, status) through a fresh controller, as every reader of
    the journal reads a game (:func:`firmware_host.journal.replay.replay_game`)."""
    record = GameRecord(game, tuple(r[0] for r in rows), tuple(range(len(rows))), tuple(r[2] for r in rows))
    controller = Controller()
    builder = GameLogBuilder()
    hands: list[tuple[HandLog, float]] = []
    parts: list[dict[str, Any]] = []
    part_hands = 0
    rubber: tuple[int, int] | None = None
    snapshot = controller.snapshot()
    try:
        for line in replay_game(record, strict(controller), source=f"journal#game{game}"):
            if line.outcome is None:
                continue
            if line.new_game and snapshot.winner is not None:
                break  # the line that starts the next game (journaled with this one): this game is as it ended
            snapshot = line.outcome.snapshot
            builder.target = snapshot.view.target
            ended: engine.GameEnd | None = None
            for ev in line.outcome.events:
                builder.event(ev)
                if isinstance(ev, HandRecord):
                    hands.append((builder.hand_record(ev, part=len(parts) + 1), rows[line.index][1]))
                    part_hands += 1
                elif isinstance(ev, engine.GameEnd):
                    ended = ev
                elif isinstance(ev, engine.MatchEnd):
                    rubber = ev.games
            if ended is not None:
                parts.append({"winner": ended.winner, "score": {"A": ended.score[0], "B": ended.score[1]},
                              "hands": part_hands})
                part_hands = 0
            if line.new_game:
                break
    except TranscriptError as exc:
        logger.warning("%s", exc)  # the journal's own checks say more (ecarte-table journal check)
    view = snapshot.view
    players = (snapshot.players[0], snapshot.players[1])
    best_of = int(builder.rules.get("rubber", 1))
    if best_of > 1 and rubber is None:
        parts.append({"winner": None, "score": {"A": view.score[0], "B": view.score[1]}, "hands": part_hands})
    return PlayedGame(game, started, len(rows), players, str(view.rules), view.target, view.score, snapshot.winner,
                      tuple(hands), parts=tuple(parts) if best_of > 1 else (), rubber=rubber)
