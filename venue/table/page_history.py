"""The journal's games as the page shows them: results, hand records, players' statistics.

Each game of the journal is replayed through a fresh
:class:`~firmware_host.referee.controller.Controller` as every reader of the journal does
(:func:`firmware_host.journal.replay.replay_game`): its ``hand_record`` events give the hands. A
hand is shown only once it is over *and* ``reveal_delay`` seconds have passed since the journal line
that ended it, so the history never shows a hidden card earlier than the live feed. Those seconds
are counted on the monotonic clock (the row's ``m``; a row of an earlier boot is older than this
boot), in the journal's order, never on the wall clock: a Pi has no real-time clock and may write a
game with its clock hours off (:func:`firmware_host.journal.store.row_age`).

The journal is read through its API (:class:`~firmware_host.journal.store.Journal`, read-only: SQLite
in WAL mode lets the table's event loop write meanwhile), so every row is checked against its
checksums as every reader checks it; a game that fails them is left out (and logged).
Replays are cached by game and line count, and the journal's listing by the files' stamps
(:func:`journal_stamp`): a request while the journal is unchanged reads nothing but two ``stat``
calls, however many viewers loop over the history endpoints.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine
from engine import SEATS
from engine.seats import PerSeat
from firmware_host.journal.replay import replay_game, strict
from firmware_host.journal.store import GameRecord, Journal, JournalDamaged, JournalError, row_age
from firmware_host.journal.summaries import GameSummary, player_stats, summarize
from firmware_host.referee import Controller, HandRecord, TranscriptError
from venue.table.record import GameLog, GameLogBuilder, HandLog

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
    written: tuple[float | None, ...] = ()
    """Each hand's end row's monotonic time, for a row of this boot (else None):
    :func:`~firmware_host.journal.store.row_age`."""
    parts: tuple[dict[str, Any], ...] = ()
    """A rubber's games (winner, score, hands), the last maybe still played; empty for a single game."""
    rubber: tuple[int, int] | None = None
    """Games won by A and B once the rubber is over."""

    def shown(self, now: float, delay: float) -> list[HandLog]:
        """The hands shown at ``now`` (``time.monotonic()``): in the journal's order, each once its
        end row is at least ``delay`` seconds old by the monotonic clock (all of them when ``delay``
        is 0); never by the wall clock, which a Pi sets hours off until NTP answers."""
        shown = []
        for index, (hand, _) in enumerate(self.hands):
            written = self.written[index] if index < len(self.written) else None
            if delay > 0 and row_age(written, now) < delay:
                break  # the hands after it ended later
            shown.append(hand)
        return shown

    def due(self, delay: float) -> float:
        """When (``time.monotonic()``) every hand is shown."""
        written = self.written[-1] if self.written else None
        return delay if written is None else written + delay

    def age(self, now: float) -> float:
        """At least how long ago (seconds, monotonic) its last hand ended."""
        return row_age(self.written[-1] if self.written else None, now)

    def log(self, *, table: str, now: float, delay: float) -> GameLog:
        """The game's record, without the hands still held back at ``now`` (:meth:`shown`)."""
        builder = GameLogBuilder()
        builder.players = self.players
        builder.target = self.target
        builder.rules = {"name": self.rules}
        shown = self.shown(now, delay)
        builder.hands = shown
        if shown:
            builder.score = shown[-1].score or self.score
        everything = len(shown) == len(self.hands)
        builder.winner = self.winner if everything else None
        date = time.strftime("%Y.%m.%d", time.localtime(self.started))
        return builder.game_log(game=self.game, table=table, date=date, rubber=self.rubber if everything else None)

    def name(self, seat: str | None) -> str | None:
        """The player at ``seat`` (``A``/``B``), or None."""
        return self.players[SEATS.index(seat)] if seat in SEATS else None

    def summary(self) -> dict[str, Any]:
        """The game as the page's Games tab lists it (names beside seats; a rubber's games and result)."""
        data = {"game": self.game, "started": self.started, "players": list(self.players), "rules": self.rules,
                "target": self.target, "score": PerSeat.of(self.score).to_json(), "winner": self.winner,
                "winner_name": self.name(self.winner), "hands": len(self.hands), "lines": self.lines}
        if self.parts:
            data["games"] = [{**part, "winner_name": self.name(part["winner"])} for part in self.parts]
            data["rubber"] = None if self.rubber is None else PerSeat.of(self.rubber).to_json()
        return data


RACY_S = 2.0
"""A listing is trusted while its journal's files keep their stamps, once their last change is this
much older than the listing: a file's time has a filesystem's resolution (a kernel tick on ext4, 2 s
on FAT), so two writes within it may leave the same stamp (git's "racy clean" files, and its answer)."""

Stamp = tuple[tuple[int, int, int] | None, ...]


def journal_stamp(path: Path) -> tuple[Stamp, float]:
    """The journal's files as ``stat`` sees them (inode, size, modification time, for the file and
    its write-ahead log, which SQLite in WAL mode writes first), and their latest change (seconds
    since the epoch)."""
    stamps: list[tuple[int, int, int] | None] = []
    latest = 0.0
    for file in (path, path.with_name(path.name + "-wal")):
        try:
            st = os.stat(file)
        except OSError:
            stamps.append(None)
            continue
        stamps.append((st.st_ino, st.st_size, st.st_mtime_ns))
        latest = max(latest, st.st_mtime_ns / 1e9)
    return tuple(stamps), latest


@dataclass
class JournalHistory:
    """The games of the journal at ``path``."""

    path: Path
    table: str = "table"
    reveal_delay: float = 0.0
    _cache: dict[int, PlayedGame] = field(default_factory=dict)
    _summaries: dict[int, tuple[int, GameSummary | None]] = field(default_factory=dict)
    _listed: tuple[Stamp, list[tuple[int, float, int]]] | None = None
    _reading: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    """One request reads the journal or replays a game at a time (the page's requests run on threads):
    twelve viewers asking at once after a line was journaled make one replay of it, not twelve."""

    def rows(self) -> list[tuple[int, float, int]]:
        """Every game's number, start time and line count, oldest first (nothing replayed); read
        again only when the journal's files changed (:func:`journal_stamp`, :data:`RACY_S`)."""
        with self._reading:
            return self._rows()

    def _rows(self) -> list[tuple[int, float, int]]:
        if not self.path.exists():
            return []
        stamp, latest = journal_stamp(self.path)
        listed = self._listed
        if listed is not None and listed[0] == stamp:
            return listed[1]
        try:
            with Journal(self.path, readonly=True) as journal:
                rows = [(entry.game, entry.started, entry.lines) for entry in journal.listing()]
        except JournalError as exc:
            logger.warning("%s", exc)
            return []
        # kept only once the files' last change is older than their stamps' resolution
        self._listed = (stamp, rows) if time.time() - latest > RACY_S else None
        return rows

    def games(self) -> list[PlayedGame]:
        """Every game that reads whole, oldest first."""
        out = []
        for game, started, count in self.rows():
            played = self.played(game, started, count)
            if played is not None:
                out.append(played)
        return out

    def game(self, number: int) -> PlayedGame | None:
        for game, started, count in self.rows():
            if game == number:
                return self.played(game, started, count)
        return None

    def played(self, game: int, started: float, count: int) -> PlayedGame | None:
        """One game of :meth:`rows`, replayed (cached while its line count stays); None when the
        journal no longer holds it or it fails its checksums."""
        with self._reading:
            return self._played(game, count)

    def _played(self, game: int, count: int) -> PlayedGame | None:
        cached = self._cache.get(game)
        if cached is not None and cached.lines == count:
            return cached
        record = self._record(game)
        if record is None:
            return None
        played = played_game(record)
        self._cache[game] = played
        return played

    def _record(self, game: int) -> GameRecord | None:
        """Game ``game`` as the journal keeps it; None when it no longer holds it or the game fails
        its checksums (said in the log)."""
        try:
            with Journal(self.path, readonly=True) as journal:
                return journal.game(game)
        except KeyError:
            return None
        except (JournalDamaged, JournalError) as exc:
            logger.warning("the page leaves game %d out: %s", game, exc)
            return None

    def log(self, number: int, now: float | None = None) -> GameLog | None:
        played = self.game(number)
        if played is None:
            return None
        return played.log(table=self.table, now=time.monotonic() if now is None else now, delay=self.reveal_delay)

    def stats(self, now: float | None = None) -> list[dict[str, Any]]:
        """Per player (by name): games, wins, hands, points, tricks, kings announced, voles, faults,
        of the lines whose hands are shown (journaled ``reveal_delay`` seconds before ``now``, on the
        monotonic clock: ``time.monotonic()``).

        The statistics are the journal's own (:func:`firmware_host.journal.summaries.player_stats`,
        as ``ecarte-table history --players`` prints them), of the games cut at that instant."""
        now = time.monotonic() if now is None else now
        summaries = []
        for game, started, count in self.rows():
            summary = self._summary(game, started, count, now)
            if summary is not None and summary.hands:
                summaries.append(summary)
        table = [{"player": p.name, "games": p.games, "wins": p.wins, "hands": p.hands, "points": p.points,
                  "tricks": p.tricks, "kings": p.kings, "voles": p.voles, "faults": sum(p.faults.values())}
                 for p in player_stats(summaries)]
        return sorted(table, key=lambda r: (-r["wins"], -r["points"], r["player"]))

    def _summary(self, game: int, started: float, count: int, now: float) -> GameSummary | None:
        """Game ``game`` summed up with the lines journaled ``reveal_delay`` seconds before ``now``
        (monotonic; in the journal's order), cached once every line is."""
        with self._reading:
            return self._summed(game, started, count, now)

    def _summed(self, game: int, started: float, count: int, now: float) -> GameSummary | None:
        cached = self._summaries.get(game)
        if cached is not None and cached[0] == count:
            return cached[1]
        record = self._record(game)
        if record is None:
            return None
        kept = len(record.lines)
        if self.reveal_delay > 0:
            written = record.written or (None,) * len(record.lines)
            kept = next((i for i, m in enumerate(written) if row_age(m, now) < self.reveal_delay), kept)
        whole = kept == len(record.lines)
        if not whole:
            if not kept:
                return None
            record = record.first(kept)
        summary = summarize(record, started)
        if whole:
            self._summaries[game] = (count, summary)
        return summary


def played_game(record: GameRecord) -> PlayedGame:
    """A journal game through a fresh controller, as every reader of the journal reads a game
    (:func:`firmware_host.journal.replay.replay_game`)."""
    game = record.game
    controller = Controller()
    builder = GameLogBuilder()
    hands: list[tuple[HandLog, float]] = []
    written: list[float | None] = []
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
                    hands.append((builder.hand_record(ev, part=len(parts) + 1), record.times[line.index]))
                    written.append(record.written[line.index] if line.index < len(record.written) else None)
                    part_hands += 1
                elif isinstance(ev, engine.GameEnd):
                    ended = ev
                elif isinstance(ev, engine.MatchEnd):
                    rubber = ev.games
            if ended is not None:
                parts.append({"winner": ended.winner, "score": PerSeat.of(ended.score).to_json(),
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
        parts.append({"winner": None, "score": PerSeat.of(view.score).to_json(), "hands": part_hands})
    return PlayedGame(game, record.started, len(record.lines), players, str(view.rules), view.target, view.score,
                      snapshot.winner, tuple(hands), parts=tuple(parts) if best_of > 1 else (), rubber=rubber,
                      written=tuple(written))
