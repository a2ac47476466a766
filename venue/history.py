"""The journal's games as the page shows them: results, hand records, players' statistics.

Each game of the journal is replayed through a fresh :class:`~firmware_host.referee.controller.Controller`
(as ``replay`` and ``review`` do): its ``hand_record`` events give the hands. A hand is
shown only once it is over *and* ``reveal_delay`` seconds have passed since the journal
line that ended it, so the history never shows a hidden card earlier than the live feed.

The journal is opened read-only on its own connection (SQLite in WAL mode lets the
table's event loop write meanwhile); replays are cached by game and line count.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_host.journal.store import REJECTED
from firmware_host.referee.controller import Controller, HandRecord, NewGame
from firmware_host.referee.transcript import TranscriptError, parse_line
from venue.record import GameLog, GameLogBuilder, HandLog


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
        builder.winner = self.winner if len(shown) == len(self.hands) else None
        date = time.strftime("%Y.%m.%d", time.localtime(self.started))
        return builder.game_log(game=self.game, table=table, date=date)

    def summary(self) -> dict[str, Any]:
        return {"game": self.game, "started": self.started, "players": list(self.players), "rules": self.rules,
                "target": self.target, "score": {"A": self.score[0], "B": self.score[1]}, "winner": self.winner,
                "hands": len(self.hands), "lines": self.lines}


@dataclass
class JournalHistory:
    """The games of the journal at ``path``."""

    path: Path
    table: str = "table"
    reveal_delay: float = 0.0
    _cache: dict[int, PlayedGame] = field(default_factory=dict)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=2.0)

    def _rows(self) -> Iterator[tuple[int, float, int]]:
        if not self.path.exists():
            return
        with self._connect() as db:
            rows = db.execute(
                "SELECT g.id, g.started, COUNT(e.id) FROM games g LEFT JOIN events e ON e.game = g.id "
                "GROUP BY g.id ORDER BY g.id"
            ).fetchall()
        for game, started, count in rows:
            yield int(game), float(started), int(count)

    def rows(self) -> list[tuple[int, float, int]]:
        """Every game's number, start time and line count, oldest first (nothing replayed)."""
        return list(self._rows())

    def played(self, game: int, started: float, lines: int) -> PlayedGame:
        """One game of :meth:`rows`, replayed (cached while its line count stays)."""
        return self._played(game, started, lines)

    def games(self) -> list[PlayedGame]:
        """Every game, oldest first."""
        return [self._played(game, started, count) for game, started, count in self._rows()]

    def game(self, number: int) -> PlayedGame | None:
        for game, started, count in self._rows():
            if game == number:
                return self._played(game, started, count)
        return None

    def _played(self, game: int, started: float, count: int) -> PlayedGame:
        cached = self._cache.get(game)
        if cached is not None and cached.lines == count:
            return cached
        with self._connect() as db:
            rows = db.execute("SELECT line, t, done FROM events WHERE game = ? ORDER BY id", (game,)).fetchall()
        # a line the referee refused is as if it had not come (as the service's resume skips it)
        played = replay_game(game, started, [(str(line), float(t)) for line, t, done in rows if done != REJECTED])
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
            for i, name in enumerate(played.players):
                r = row(name)
                r["games"] += 1
                if played.winner == "AB"[i] and len(shown) == len(played.hands):
                    r["wins"] += 1
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


def replay_game(game: int, started: float, lines: list[tuple[str, float]]) -> PlayedGame:
    """A journal game's lines (with their times) through a fresh controller."""
    controller = Controller()
    builder = GameLogBuilder()
    hands: list[tuple[HandLog, float]] = []
    snapshot = controller.snapshot()
    for line, t in lines:
        try:
            event = parse_line(line, source=f"journal#game{game}")
        except TranscriptError:
            continue
        if event is None:
            continue
        try:
            outcome = controller.handle(event)
        except Exception:
            continue  # refused (the service marks such a line rejected and goes on)
        if snapshot.winner is not None and any(isinstance(ev, NewGame) for ev in outcome.events):
            break  # the line that starts the next game (journaled with this one): this game is over
        snapshot = outcome.snapshot
        builder.target = snapshot.view.target
        for ev in outcome.events:
            builder.event(ev)
            if isinstance(ev, HandRecord):
                hands.append((builder.hand_record(ev), t))
    view = snapshot.view
    players = (snapshot.players[0], snapshot.players[1])
    return PlayedGame(game, started, len(lines), players, str(view.rules), view.target, view.score, snapshot.winner,
                      tuple(hands))
