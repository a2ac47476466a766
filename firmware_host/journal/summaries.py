"""The journal's games and each player's statistics (``ecarte-table history``).

Each game of the journal is replayed through the referee (:class:`~firmware_host.referee.controller.Controller`)
and read from the table events it gives — ``hand_end``, ``game_end``, ``fault``, ``bid`` — never
from the controller's fields. A record where no hand was played (the table set up with the menu
or badges, then started again with those settings) is left out.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import engine
from catalogue import has, moment, percent, rule_set, say, say_n
from engine import SEATS, Fault
from engine.seats import PerSeat
from firmware_host.journal.store import GameRecord, Journal
from firmware_host.referee import CardEvent, Controller, HandRecord, TranscriptError

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """What one seat did in one game."""

    name: str
    points: int = 0
    voles: int = 0
    vulnerable: int = 0
    """Hands the seat played *d'autorité* (stood without proposing, refused the first proposal)."""
    punished: int = 0
    """Of those, hands it failed to win the point."""
    faults: tuple[tuple[str, int], ...] = ()
    tricks: int = 0
    kings: int = 0
    """Kings of trumps it announced."""


@dataclass(frozen=True, slots=True)
class GamePlayed:
    """One game of a rubber (or the one game of a journal record): who won, its score, its hands."""

    winner: str | None
    score: tuple[int, int]
    hands: int

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner, "score": PerSeat.of(self.score).to_json(), "hands": self.hands}


@dataclass(frozen=True, slots=True)
class GameSummary:
    """One game of the journal: when, which rules, who, who won, the score, hands and faults.

    A rubber (``rubber=3``: best of three games) is one game of the journal: :attr:`parts` holds
    each of its games, :attr:`rubber` the games each seat won and :attr:`winner` the rubber's winner.
    """

    game: int
    started: float
    rules: str
    seats: tuple[SeatRecord, SeatRecord]
    winner: str | None
    score: tuple[int, int]
    hands: int
    faults: int
    problem: str = ""
    parts: tuple[GamePlayed, ...] = ()
    rubber: tuple[int, int] | None = None
    """Games won by A and B once the rubber is over (None: not a rubber, or not over)."""

    @property
    def players(self) -> tuple[str, str]:
        return (self.seats[0].name, self.seats[1].name)

    @property
    def is_rubber(self) -> bool:
        return self.rubber is not None or len(self.parts) > 1

    def name_of(self, seat: str | None) -> str | None:
        return self.seats[SEATS.index(seat)].name if seat in SEATS else None

    @property
    def winner_name(self) -> str | None:
        return self.name_of(self.winner)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "game": self.game, "started": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(self.started)),
            "rules": self.rules, "players": PerSeat.of(self.players[:2]).to_json(),
            "winner": self.winner_name, "score": PerSeat.of(self.score).to_json(),
            "hands": self.hands, "faults": self.faults,
            "faults_by_code": {s: dict(r.faults) for s, r in zip(SEATS, self.seats, strict=True)},
            **({"problem": self.problem} if self.problem else {}),
        }
        if self.is_rubber:
            data["games"] = [{**part.to_json(), "winner": self.name_of(part.winner)} for part in self.parts]
            data["rubber"] = None if self.rubber is None else PerSeat.of(self.rubber).to_json()
        return data


def summarize(record: GameRecord, started: float = 0.0) -> GameSummary | None:
    """Replay ``record`` through the referee (:func:`~firmware_host.journal.replay.replay_game`)
    and sum it up (None: no hand was played). The page sums up a game cut at its reveal delay:
    :meth:`GameRecord.first` of it."""
    from firmware_host.journal.replay import replay_game, strict

    controller = Controller()
    rules = "classic"
    best_of = 1
    score = (0, 0)
    """The score of the game being played (of the rubber's current game)."""
    parts: list[GamePlayed] = []
    rubber: tuple[int, int] | None = None
    rubber_winner: str | None = None
    hands = part_hands = 0
    voles = [0, 0]
    tricks = [0, 0]
    kings = [0, 0]
    vulnerable = [0, 0]
    punished = [0, 0]
    faults: list[Counter[str]] = [Counter(), Counter()]
    table_faults = 0
    bids: dict[str, bool] = {}
    cards = 0
    problem = ""
    try:
        for line in replay_game(record, strict(controller), source=f"game {record.game}"):
            if isinstance(line.event, CardEvent) and not line.event.gone:
                cards += 1
            ended: engine.GameEnd | None = None
            for ev in line.outcome.events if line.outcome is not None else ():
                if isinstance(ev, Fault):
                    if ev.seat in SEATS:
                        faults[SEATS.index(ev.seat)][ev.code] += 1
                    else:
                        table_faults += 1
                elif isinstance(ev, engine.Bid) and ev.vulnerable:
                    bids[ev.seat] = True
                elif isinstance(ev, engine.HandEnd):
                    score = ev.score
                    for i, seat in enumerate(SEATS):
                        voles[i] += ev.tricks[i] == 5
                        tricks[i] += ev.tricks[i]
                        if bids.get(seat):
                            vulnerable[i] += 1
                            punished[i] += ev.tricks[i] < 3
                    bids = {}
                elif isinstance(ev, HandRecord):
                    hands += 1  # a hand that ended: played out, or a game won by the king turned up
                    part_hands += 1
                    best_of = int(ev.rules.get("rubber", 1))
                    for action in ev.actions:
                        if action.get("action") == "announce" and action.get("seat") in SEATS:
                            kings[SEATS.index(action["seat"])] += 1
                elif isinstance(ev, engine.GameEnd):
                    ended = ev
                elif isinstance(ev, engine.MatchEnd):
                    rubber, rubber_winner = ev.games, ev.winner
            if ended is not None:  # its hand_record came after it, in the same outcome
                parts.append(GamePlayed(ended.winner, ended.score, part_hands))
                score, part_hands = (0, 0), 0
            rules = controller.snapshot().view.rules
            if line.new_game:
                break
    except TranscriptError as exc:
        problem = str(exc).removeprefix(f"game {record.game}:").strip()
        logger.warning("game %d of the journal: %s", record.game, problem)
    if cards == 0 and hands == 0 and not parts and not problem:
        return None  # nothing was laid: a record left by the set-up (menu, badges)
    snapshot = controller.snapshot()
    names = (snapshot.players[0], snapshot.players[1])
    if best_of > 1:
        if rubber is None:
            parts.append(GamePlayed(None, score, part_hands))  # the game being played
        winner, score = rubber_winner, parts[-1].score
        points = [sum(p.score[i] for p in parts) for i in range(2)]
        shown = tuple(parts)
    else:
        winner, score = (parts[0].winner, parts[0].score) if parts else (None, score)
        points = list(score)
        shown = ()
    seats = tuple(
        SeatRecord(names[i], points[i], voles[i], vulnerable[i], punished[i], tuple(sorted(faults[i].items())),
                   tricks[i], kings[i])
        for i in range(2)
    )
    total = sum(sum(c.values()) for c in faults) + table_faults
    return GameSummary(record.game, started, rules, seats, winner, score, hands, total, problem,  # type: ignore[arg-type]
                       shown, rubber)


def games(journal: Journal) -> list[GameSummary]:
    """Every game of ``journal`` in which a hand was played, oldest first."""
    out = []
    for entry in journal.listing():
        record = journal.game(entry.game)
        summary = summarize(record, record.started)
        if summary is not None:
            out.append(summary)
    return out


def format_game(summary: GameSummary, lang: str = "en") -> str:
    """One line in ``lang``: ``game 3  2024-05-01 20:14  classic  Anne – Bruno  Anne wins 5:2  7 hands  2 faults``."""
    when = moment(lang, summary.started)
    a, b = summary.players
    if summary.is_rubber:
        games = ", ".join(
            f"{summary.name_of(p.winner) or say(lang, 'history.playing')} {p.score[0]}:{p.score[1]}"
            for p in summary.parts)
        result = (say(lang, "history.rubber_won", who=summary.winner_name, a=summary.rubber[0], b=summary.rubber[1],
                      games=games)
                  if summary.rubber is not None and summary.winner else
                  say(lang, "history.rubber_unfinished", games=games))
    else:
        result = say(lang, "history.wins" if summary.winner else "history.unfinished", who=summary.winner_name,
                     a=summary.score[0], b=summary.score[1])
    codes = Counter[str]()
    for seat in summary.seats:
        codes.update(dict(seat.faults))
    fault_text = _fault_list(codes, lang)
    faults = _counted(lang, "history.faults", summary.faults) + (f" ({fault_text})" if codes else "")
    line = say(lang, "history.game", game=summary.game, when=when, rules=rule_set(lang, summary.rules), a=a, b=b,
               result=result, hands=_counted(lang, "history.hands", summary.hands), faults=faults)
    return line + (f"  [{summary.problem}]" if summary.problem else "")


def _counted(lang: str, msgid: str, n: int, **values: Any) -> str:
    """``1 hand``, ``3 hands``, ``0 coup``: the message's plural form for ``n`` in ``lang`` (gettext's
    plural forms, Babel's rules: French takes the singular for 0)."""
    return say_n(lang, msgid, n, **values)


def _fault_name(code: str, lang: str) -> str:
    """A fault's name in ``lang`` (a code the catalogue does not name stays a code)."""
    return say(lang, "fault." + code) if has("fault." + code) else code


def _fault_list(codes: Counter[str], lang: str) -> str:
    """``revoke 2, out of turn 1`` in ``lang``."""
    return ", ".join(f"{_fault_name(code, lang)} {n}" for code, n in sorted(codes.items()))


@dataclass
class PlayerStats:
    """One player's record across games."""

    name: str
    games: int = 0
    wins: int = 0
    rubbers: int = 0
    rubbers_won: int = 0
    points: int = 0
    hands: int = 0
    voles: int = 0
    vulnerable: int = 0
    punished: int = 0
    faults: Counter[str] = field(default_factory=Counter)
    tricks: int = 0
    kings: int = 0

    @property
    def vole_rate(self) -> float:
        """Voles per hand played (0 without hands)."""
        return self.voles / self.hands if self.hands else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"player": self.name, "games": self.games, "wins": self.wins, "rubbers": self.rubbers,
                "rubbers_won": self.rubbers_won, "points": self.points,
                "hands": self.hands, "voles": self.voles, "vole_rate": round(self.vole_rate, 3),
                "played_d_autorite": self.vulnerable, "punished": self.punished, "faults": dict(self.faults),
                "tricks": self.tricks, "kings": self.kings}


def player_stats(summaries: Iterable[GameSummary]) -> list[PlayerStats]:
    """Each player's statistics across ``summaries``, by name (a seat letter when unnamed)."""
    players: dict[str, PlayerStats] = {}
    for summary in summaries:
        for seat, record in zip(SEATS, summary.seats, strict=True):
            stats = players.setdefault(record.name, PlayerStats(record.name))
            if summary.is_rubber:  # each game of the rubber counts; the rubber too
                stats.games += sum(1 for p in summary.parts if p.winner is not None)
                stats.wins += sum(1 for p in summary.parts if p.winner == seat)
                stats.rubbers += summary.rubber is not None
                stats.rubbers_won += summary.rubber is not None and summary.winner == seat
            else:
                stats.games += 1
                stats.wins += summary.winner == seat
            stats.points += record.points
            stats.hands += summary.hands
            stats.voles += record.voles
            stats.tricks += record.tricks
            stats.kings += record.kings
            stats.vulnerable += record.vulnerable
            stats.punished += record.punished
            stats.faults.update(dict(record.faults))
    return sorted(players.values(), key=lambda p: (-p.wins, p.name))


def format_player(stats: PlayerStats, lang: str = "en", *, detail: bool = False) -> str:
    """One line of statistics for a player in ``lang``: in words for a club player, or (``detail``) the figures.

    >>> p = PlayerStats("Anne", games=2, wins=1, points=7, hands=9, voles=1, vulnerable=3, punished=1)
    >>> for part in format_player(p).split("; "):
    ...     print(part)
    Anne: 2 games, 1 won, 7 points in 9 hands, all five tricks (the vole) in 1 hand
    played without exchanging (d'autorité: stood without proposing, or refused the first proposal) 3 times and \
lost the point 1 time of them (such a loss costs more than an ordinary one)
    no fault
    >>> print(format_player(p, detail=True))
    Anne: 2 games, 1 won, 7 points, 9 hands, vole 11%, d'autorité 3 (1 punished), faults: none
    """
    rubbers = _counted(lang, "history.rubbers", stats.rubbers,
                       won=_counted(lang, "count.won", stats.rubbers_won)) if stats.rubbers else ""
    # each number with its noun, and "won" agreeing with the number won ("2 partidas, 1 ganada")
    games, wins = _counted(lang, "count.games", stats.games), _counted(lang, "count.won", stats.wins)
    points = _counted(lang, "count.points", stats.points)
    if detail:
        faults = _fault_list(stats.faults, lang) or say(lang, "history.none")
        return say(lang, "history.player", name=stats.name, games=games, wins=wins, rubbers=rubbers,
                   points=points, hands=_counted(lang, "history.hands", stats.hands),
                   rate=percent(lang, stats.vole_rate),
                   vulnerable=stats.vulnerable, punished=stats.punished, faults=faults)
    autorite = say(lang, "history.never_autorite") if not stats.vulnerable else say(
        lang, "history.autorite", times=_counted(lang, "count.times", stats.vulnerable),
        lost=_counted(lang, "count.times", stats.punished))
    listed = ", ".join(f"{_fault_name(code, lang)} {_counted(lang, 'count.times', n)}"
                       for code, n in sorted(stats.faults.items()))
    said_faults = say(lang, "history.said_faults", faults=listed) if stats.faults else say(lang, "history.no_fault")
    return say(lang, "history.said_player", name=stats.name, games=games,
               wins=wins, rubbers=rubbers, points=points, hands=_counted(lang, "count.hands", stats.hands),
               voles=_counted(lang, "count.hands", stats.voles), autorite=autorite, faults=said_faults)
