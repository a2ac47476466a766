"""The journal's games as the page shows them: results, hand records, players' statistics.

Each game over is made once: replayed through a fresh
:class:`~firmware_host.referee.controller.Controller` as every reader of the journal does
(:func:`firmware_host.journal.replay.replay_game`; its ``hand_record`` events give the hands) and
summed up (:func:`firmware_host.journal.summaries.summarize`), then kept, in memory and beside the
journal (:mod:`venue.table.kept_games`: a file is read again only when it is believed). That happens as the
game ends and when the page starts, on a thread of its own (:meth:`JournalHistory.prepare`); a request
reads what was kept. The game under way is never replayed here: the page serves it from its live feed
(:func:`live_game`), the hands it revealed and nothing else.

A hand of a game over is shown only once it is over *and* ``reveal_delay`` seconds have passed since
the journal line that ended it, so the history never shows a hidden card earlier than the live feed.
Those seconds are counted on the monotonic clock (the row's ``m``; a row of an earlier boot is older
than this boot), in the journal's order, never on the wall clock: a Pi has no real-time clock and may
write a game with its clock hours off (:func:`firmware_host.journal.store.row_age`).

The journal is read through its API (:class:`~firmware_host.journal.store.Journal`, read-only: SQLite
in WAL mode lets the table's event loop write meanwhile), so every row is checked against its
checksums as every reader checks it; a game that fails them is left out (and logged). The journal's
listing is kept by the files' stamps (:func:`journal_stamp`): a request while the journal is unchanged
reads nothing but two ``stat`` calls, however many viewers loop over the history endpoints.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import engine
from engine import SEATS
from engine.seats import PerSeat
from firmware_host.journal.replay import replay_game, strict
from firmware_host.journal.store import KEEP_GAMES, GameRecord, Journal, JournalDamaged, JournalError, row_age
from firmware_host.journal.summaries import GameSummary, player_stats, summarize
from firmware_host.referee import Controller, HandRecord, TranscriptError
from venue.table.kept_games import (
    NotBelieved,
    as_int,
    as_list,
    as_pair,
    as_seat,
    as_str,
    games_folder,
    journal_digest,
    prune_kept,
    read_kept,
    summary_json,
    summary_of,
    write_kept,
)
from venue.table.public import PublicFeed
from venue.table.record import GameLog, GameLogBuilder, HandLog, RecordError, parse_record, write_record
from venue.table.reviews import lower_thread_priority

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
    ends: tuple[int, ...] = ()
    """The journal line each hand ended at (its index in the game's lines)."""

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

    def to_json(self) -> dict[str, Any]:
        """The game as kept (:mod:`venue.table.kept_games`): its hands as their record."""
        return {"game": self.game, "started": self.started, "lines": self.lines, "players": list(self.players),
                "rules": self.rules, "target": self.target, "score": list(self.score), "winner": self.winner,
                "hands": write_record(GameLog((("Game", str(self.game)),), tuple(h for h, _ in self.hands))),
                "ends": list(self.ends), "parts": list(self.parts),
                "rubber": None if self.rubber is None else list(self.rubber)}

    @staticmethod
    def from_json(data: Any, record: GameRecord) -> PlayedGame:
        """A kept game read back, the time each hand ended taken from the journal's ``record``.

        :raises NotBelieved: a field that is not its type, a line the record does not have."""
        if not isinstance(data, dict):
            raise NotBelieved("the game is no object")
        try:
            hands = parse_record(as_str(data["hands"]), source=f"kept game {record.game}").hands
            ends = tuple(as_int(i) for i in as_list(data["ends"]))
            if len(ends) != len(hands) or any(not 0 <= i < len(record.lines) for i in ends):
                raise NotBelieved("its hands do not end at lines of the journal's game")
            if any(hand.game != record.game for hand in hands):
                raise NotBelieved("a hand of another game")
            parts = tuple({"winner": as_seat(p["winner"]), "score": PerSeat.of(as_pair(
                [p["score"]["A"], p["score"]["B"]])).to_json(), "hands": as_int(p["hands"])}
                for p in as_list(data["parts"]))
            players = as_list(data["players"])
            if len(players) != 2 or as_int(data["game"]) != record.game or data["started"] != record.started:
                raise NotBelieved("not this game")
            return PlayedGame(
                record.game, record.started, len(record.lines), (as_str(players[0]), as_str(players[1])),
                as_str(data["rules"]), as_int(data["target"]), as_pair(data["score"]), as_seat(data["winner"]),
                tuple((hand, record.times[i]) for hand, i in zip(hands, ends, strict=True)),
                written=tuple(record.written[i] if i < len(record.written) else None for i in ends),
                parts=parts, rubber=None if data["rubber"] is None else as_pair(data["rubber"]), ends=ends)
        except (KeyError, TypeError, ValueError, RecordError) as exc:
            if isinstance(exc, NotBelieved):
                raise
            raise NotBelieved(f"the game does not read: {exc}") from None


def live_game(feed: PublicFeed) -> PlayedGame | None:
    """The game under way as the page's live feed shows it (None once it is over, or before any):
    the public state's names, rules, target and score, and the hands the feed has revealed, nothing
    else. It is never replayed from the journal: a hand shows here when it shows on the stream."""
    state = feed.state
    if not feed.game or not state or state.get("winner"):
        return None
    view = state.get("view", {})
    names = state.get("players", list(SEATS))
    hands = tuple(feed.revealed)
    parts: list[dict[str, Any]] = []
    if any(hand.part for hand in hands):  # a rubber: its games so far, the last one still played
        for number in sorted({hand.part for hand in hands}):
            own = [hand for hand in hands if hand.part == number]
            score = own[-1].score or (0, 0)
            winner = None if number == hands[-1].part else SEATS[0 if score[0] > score[1] else 1]
            parts.append({"winner": winner, "score": PerSeat.of(score).to_json(), "hands": len(own)})
    score = view.get("score", [0, 0])
    return PlayedGame(feed.game, 0.0, 0, (str(names[0]), str(names[1])), str(view.get("rules", "")),
                      int(view.get("target", 0)), (int(score[0]), int(score[1])), None,
                      tuple((hand, 0.0) for hand in hands), parts=tuple(parts))


@dataclass(frozen=True, slots=True)
class KeptGame:
    """A game over, made once from the journal's lines whose digest is ``digest``: as the Games tab
    lists it and its record shows it (``played``), and as the statistics count it (``summary``)."""

    played: PlayedGame
    summary: GameSummary | None
    digest: str
    last_written: float | None
    """The game's last line's monotonic time (this boot's, else None): when it is wholly shown."""


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
    """The games of the journal at ``path``.

    A game over is made once (replayed: :func:`played_game`, :func:`~firmware_host.journal.summaries.summarize`)
    and kept, in memory and in ``<journal>-games/`` (:mod:`venue.table.kept_games`; ``keep=False``: in memory
    only); a request reads what was kept. The game under way is the page's live feed's
    (:func:`live_game`, passed as ``live``), never replayed here.
    """

    path: Path
    table: str = "table"
    reveal_delay: float = 0.0
    keep: bool = True
    """Keep the games made in files beside the journal (:func:`~venue.table.kept_games.games_folder`)."""
    made: int = 0
    """Games made from the journal (replayed) by this history."""
    _kept: dict[int, KeptGame] = field(default_factory=dict)
    _logs: dict[int, tuple[str, int, GameLog]] = field(default_factory=dict)
    _listed: tuple[Stamp, list[tuple[int, float, int]]] | None = None
    _reading: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    """One request reads the journal or makes a game at a time (the page's requests run on threads):
    twelve viewers asking at once after a line was journaled make one read of it, not twelve."""
    _oldest: int = 0
    """The journal's oldest game when the folder was last pruned."""
    _newest: int = 0
    """The journal's newest game, as last listed."""

    @property
    def folder(self) -> Path | None:
        """Where the games are kept (None: in memory only)."""
        return games_folder(self.path) if self.keep else None

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
        self._newest = rows[-1][0] if rows else 0
        return rows

    def games(self, live: PlayedGame | None = None) -> list[PlayedGame]:
        """Every game that reads whole, oldest first; ``live``: the game under way, as the live feed
        shows it (:func:`live_game`), in its place."""
        out = []
        for game, started, count in self.rows():
            if live is not None and game == live.game:
                out.append(replace(live, started=started, lines=count))
                continue
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
        """One game of :meth:`rows`, as made once (made again only when its lines changed); None
        when the journal no longer holds it or it fails its checksums."""
        kept = self.kept(game, count)
        return None if kept is None else kept.played

    def kept(self, game: int, count: int, *, refresh: bool = False) -> KeptGame | None:
        """Game ``game`` of ``count`` lines as made once: in memory, else from its file if the file is
        believed (:mod:`venue.table.kept_games`), else made from the journal now (and kept).

        A game over that is still the journal's newest is not made again for the lines after its end
        (the cards taken up, a card laid on a pad: nothing a hand or the result shows), unless
        ``refresh``: it is made again once, as the next game begins (:meth:`prepare`, or the first
        request then). A viewer looping meanwhile replays nothing."""
        with self._reading:
            cached = self._kept.get(game)
            if cached is not None and (cached.played.lines == count or (
                    not refresh and game == self._newest and cached.played.winner is not None)):
                return cached
            return self._keep(game)

    def _keep(self, game: int) -> KeptGame | None:
        record = self._record(game)
        if record is None:
            self._kept.pop(game, None)
            return None
        digest = journal_digest(record)
        cached = self._kept.get(game)
        kept = cached if cached is not None and cached.digest == digest else self._read_kept(record, digest)
        if kept is None:
            kept = self._make(record, digest)
        self._kept[game] = kept
        return kept

    def _read_kept(self, record: GameRecord, digest: str) -> KeptGame | None:
        """The game's file, if it is believed: made from these very lines, whole, every field its type."""
        folder = self.folder
        content = None if folder is None else read_kept(folder, record.game, digest)
        if content is None:
            return None
        try:
            played = PlayedGame.from_json(content.get("played"), record)
            summary = summary_of(content.get("summary"))
        except NotBelieved as exc:
            logger.info("the page makes game %d again from the journal: its kept file %s", record.game, exc)
            return None
        return KeptGame(played, summary, digest, record.written[-1] if record.written else None)

    def _make(self, record: GameRecord, digest: str) -> KeptGame:
        """Game ``record`` replayed (once), its summary too, and kept."""
        self.made += 1
        played = played_game(record)
        summary = summarize(record, record.started)
        kept = KeptGame(played, summary, digest, record.written[-1] if record.written else None)
        folder = self.folder
        if folder is not None:
            write_kept(folder, record.game, digest, {"played": played.to_json(), "summary": summary_json(summary)})
            listed = self._listed[1] if self._listed is not None else self._rows()
            oldest = listed[0][0] if listed else 0
            if oldest > self._oldest:  # looked at once a game the journal let go
                self._oldest = oldest
                prune_kept(folder, oldest)
        for number in [n for n in self._kept if n < record.game - KEEP_GAMES]:
            del self._kept[number]  # the journal no longer holds it
        return kept

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

    def prepare(self, games: Iterable[int] | None = None) -> threading.Thread:
        """Make (or read from their files) ``games`` now, on a thread of its own at a lower priority,
        so that no request waits for them: every game of the journal (None) when the page starts, a
        game as it ends. Returns the thread (started)."""

        def run() -> None:
            lower_thread_priority()
            wanted = None if games is None else set(games)
            try:
                for game, _, count in self.rows():
                    if wanted is None or game in wanted:
                        self.kept(game, count, refresh=True)
            except Exception:  # a journal being replaced under the page: the first request tries again
                logger.exception("the page could not prepare the journal's games")

        thread = threading.Thread(target=run, name="history", daemon=True)
        thread.start()
        return thread

    def log(self, number: int, now: float | None = None, live: PlayedGame | None = None) -> GameLog | None:
        """Game ``number``'s record without the hands still held back at ``now``; ``live``: the game
        under way, as the live feed shows it (its hands are the ones it revealed)."""
        if live is not None and number == live.game:
            started = next((started for game, started, _ in self.rows() if game == number), time.time())
            return replace(live, started=started).log(table=self.table, now=0.0, delay=0.0)  # its hands: revealed
        kept = next((self.kept(game, count) for game, _, count in self.rows() if game == number), None)
        if kept is None:
            return None
        now = time.monotonic() if now is None else now
        shown = len(kept.played.shown(now, self.reveal_delay))
        made = self._logs.get(number)
        if made is not None and made[0] == kept.digest and made[1] == shown:
            return made[2]  # the same log while the game and what is shown of it stay: the page renders it once
        log = kept.played.log(table=self.table, now=now, delay=self.reveal_delay)
        if len(self._logs) >= KEEP_GAMES:
            self._logs.clear()
        self._logs[number] = (kept.digest, shown, log)
        return log

    def stats(self, now: float | None = None, live: PlayedGame | None = None) -> list[dict[str, Any]]:
        """Per player (by name): games, wins, hands, points, tricks, kings announced, voles, faults,
        of the games over and wholly shown at ``now`` (their last line journaled ``reveal_delay``
        seconds before, on the monotonic clock: ``time.monotonic()``); ``live``, the game under way,
        is not counted before it is over.

        The statistics are the journal's own (:func:`firmware_host.journal.summaries.player_stats`,
        as ``ecarte-table history --players`` prints them), made once a game (:meth:`kept`)."""
        now = time.monotonic() if now is None else now
        summaries = []
        for game, _, count in self.rows():
            if live is not None and game == live.game:
                continue
            kept = self.kept(game, count)
            if kept is None or kept.summary is None or not kept.summary.hands:
                continue
            if self.reveal_delay > 0 and row_age(kept.last_written, now) < self.reveal_delay:
                continue  # a hand of it is still held back
            summaries.append(kept.summary)
        table = [{"player": p.name, "games": p.games, "wins": p.wins, "hands": p.hands, "points": p.points,
                  "tricks": p.tricks, "kings": p.kings, "voles": p.voles, "faults": sum(p.faults.values())}
                 for p in player_stats(summaries)]
        return sorted(table, key=lambda r: (-r["wins"], -r["points"], r["player"]))


def played_game(record: GameRecord) -> PlayedGame:
    """A journal game through a fresh controller, as every reader of the journal reads a game
    (:func:`firmware_host.journal.replay.replay_game`)."""
    game = record.game
    controller = Controller()
    builder = GameLogBuilder()
    hands: list[tuple[HandLog, float]] = []
    written: list[float | None] = []
    ends: list[int] = []
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
                    ends.append(line.index)
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
                      written=tuple(written), ends=tuple(ends))
