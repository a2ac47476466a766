"""The session's results, counted one at a time: each belongs to a table and a pairing.

:class:`Ledger` takes the finished games the tables publish (:class:`venue.hub.session.Result`) and
decides, for each, whether it counts:

- **once**: a table's game counts once, however often it comes; the same game under another number
  (the same table and end time), or game ``n`` again with another result and the same end, is
  disputed. A result is judged before it takes any key: a disputed one holds no number, so a forged
  ``games/<n>`` never blocks the honest one;
- **at the table it was paired at**: in a session (``[session] players``) the pairs of each round
  are seated at the venue file's tables in order (pair 1 at the first table named in
  ``[tables] names``, and so on, round after round); a result counts only for an open pair of its
  round with the same two players, from that pair's table (any table when the venue file names
  none);
- **free play** (no session): a table's game counts when its players are the ones its ``state``
  announced for that game (when the hub saw that state; a game the hub saw no state of counts as
  its table says);
- **after its round was paired**: a result counts for a round only if it ended (``ended``, the
  table's clock) after the round was paired (the hub's clock), give or take :data:`CLOCK_SLACK_S`:
  a game of the afternoon that a table republishes when it reconnects (an honest table sends its
  last 12 hours, :data:`venue.table.mqtt.RESEND_S`), a retained result of yesterday, a result posted for a
  pair before the round that pairs them: none fills a pairing of this evening. A round's pairing
  time outlives a restart of the hub (:class:`PairedTimes`, in the hub's folder), so that the
  evening's results, coming back retained, still count;
- anything else (a pair paired elsewhere, a pair that already has its result, players not paired,
  the same game again with another result, a game that ended before its round was paired) is
  **disputed**: listed for the director with why, never counted in silence.

Clocks: a table's ``ended`` is its own wall clock's, the pairing time the hub's. A Pi has no
real-time clock: one that booted without a network keeps its last saved time until NTP answers,
hours or days behind. So the hub reads each table's clock from its live states (each carries
``t``, the table's clock as it sent it: :attr:`venue.hub.room.TableSeen.clock_offset`) and reads its
results' ``ended`` on its own clock by that offset. What is assumed: a table's clock was as far
off when a game ended as when its last states came (a clock stepped by NTP in between misplaces
that game by the step), and where no live state of the table was seen yet (the hub restarted, its
results given back retained before the table speaks) its clock is taken as right, within
:data:`CLOCK_SLACK_S`. A result that does not count for that reason is disputed with both times
and the table's clock error, for the director to decide. Free play (no session) has no rounds: its
results count if they ended this evening (:attr:`Ledger.evening`, :class:`venue.hub.evening.Evening`).

Each result costs the same at the 10,000th as at the first: the ranking's rows are updated in
place, the ranking is sorted only when asked for (and cached), and a Swiss round is paired
(:mod:`venue.hub.pairing`) only once the round before it is over.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.seats import SEATS
from venue.hub.evening import EVENING_S as EVENING_S  # re-exported: what an evening is
from venue.hub.evening import Evening
from venue.hub.session import Result, Session

if TYPE_CHECKING:  # the pairing (and networkx) is imported only where a Swiss round is paired
    from venue.hub.pairing import Played, Round

logger = logging.getLogger(__name__)

MAX_DISPUTED = 200
"""Disputed results kept for the director (the oldest forgotten first)."""

CLOCK_SLACK_S = 120.0
"""Seconds a table's clock may be behind the hub's: a result that ended (by its table's clock) up to
this long before its round was paired (by the hub's) still counts. No game of écarté is over within
two minutes of its start, so a game that ends this close to the pairing was not played before it;
NTP keeps two machines of one network within a second of each other (an assumption: the tables and
the hub reach the same NTP server, or the hub's)."""



@dataclass
class Pairing:
    """A game of a round: its two players (A first), its table (None: any), its result and its round's number."""

    a: str
    b: str
    table: str | None
    result: Result | None = None
    round: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"A": self.a, "B": self.b, "table": self.table,
                "result": self.result.to_json() if self.result else None}


@dataclass
class LedgerRound:
    number: int
    pairs: list[Pairing]
    bye: str | None = None
    bye_again: bool = False
    """The bye goes to a player who has had one: no pairing without a repeat was left otherwise."""
    open: int = 0
    paired: float = 0.0
    """When the round was paired, by the hub's wall clock (seconds since the epoch)."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"round": self.number, "games": [p.to_json() for p in self.pairs], "bye": self.bye,
                                "paired": self.paired}
        if self.bye_again:
            data["bye_again"] = True
        return data


@dataclass
class Ledger:
    """The counted results, the disputed ones, the rounds and the ranking of a session."""

    session: Session
    tables: tuple[str, ...] = ()
    """The venue file's tables, in order: where each round's pairs are seated."""
    results: list[Result] = field(default_factory=list)
    disputed: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=MAX_DISPUTED))
    rounds: list[LedgerRound] = field(default_factory=list)
    _rows: dict[str, dict[str, Any]] = field(default_factory=dict)
    _games: dict[tuple[str, int], dict[float, tuple[Any, ...]]] = field(default_factory=dict)
    """The counted results by table and game, then end: the same result again is nothing new, another
    result with the same table, game and end is disputed (only a counted result holds a key)."""
    _ended: dict[tuple[str, float], int] = field(default_factory=dict)
    """The counted results' game numbers by table and end: the same game under another number."""
    _open: dict[frozenset[str], list[Pairing]] = field(default_factory=dict)
    _done: dict[frozenset[str], Pairing] = field(default_factory=dict)
    _ranking: list[dict[str, Any]] | None = None
    defer: bool = False
    """Pair a Swiss round on the caller's word (:meth:`take_due`, :meth:`next_round`, :meth:`apply_round`:
    the hub pairs it on a worker thread, off its web loop) rather than as the last result comes."""
    _due: tuple[list[Played], int] | None = None
    _waiting: deque[tuple[Result, dict[str, Any], float | None]] = field(
        default_factory=lambda: deque(maxlen=MAX_DISPUTED))
    """Results of players not paired together yet, with their disputed entry: a Swiss round not paired
    yet (the retained games come back in any order when the hub restarts) counts them when it is. As
    many as the disputed list keeps (the oldest forgotten first): a table publishing games of players
    who are never paired cannot grow the hub."""
    clock: Callable[[], float] = time.time
    """The hub's wall clock (seconds since the epoch): when a round is paired."""
    times: PairedTimes | None = None
    """The rounds' pairing times of an earlier run of the hub this evening, kept up to date (None: none kept)."""
    evening: float | None = None
    """When this evening began, by the hub's wall clock (:class:`venue.hub.evening.Evening`): a result that ended
    before it (a retained result of last week) counts neither in free play nor in a session (None: no
    bound, every result judged as it comes)."""

    def __post_init__(self) -> None:
        for player in self.session.players:
            self._row(player)
        if not self.session.players:
            return
        if self.session.system == "swiss":
            self._pair_next_swiss()
        else:
            for pairs in self.session.rounds:
                self._add_round(pairs, None)

    # -- results ---------------------------------------------------------------------------------

    def add(self, result: Result, announced: tuple[str, ...] | None = None, offset: float | None = None) -> str:
        """One finished game of a table: ``counted``, ``again`` (the same game again: nothing to do),
        ``disputed`` or ``earlier`` (it ended before this evening began: disputed, and its retained
        message may be cleared). ``announced``: the players the table's state named for that game (free
        play); ``offset``: how far the table's clock is ahead of the hub's (s, from its live states;
        None: not known, taken as none): its ``ended`` is read on the hub's clock by it.

        A result is judged before it takes any key: only a counted result holds its table, game and end
        (a forged or stale ``games/<n>`` that is disputed leaves the number to the honest result)."""
        same = (frozenset(result.players), result.score, result.winner)
        counted = self._games.get((result.table, result.game), {})
        if same in counted.values():
            return "again"
        if result.at in counted:
            return self._dispute(result, f"game {result.game} of {result.table} came again with another result")
        if self._disputed_again(result):
            return "again"
        other = self._ended.get((result.table, result.at))
        if other is not None:
            return self._dispute(result, f"the same game as game {other} of {result.table} (it ended at the same "
                                         f"time) under another number")
        players = frozenset(result.players)
        if len(players) != 2:
            return self._dispute(result, "one player on both seats")
        ended = result.at - (offset or 0.0)  # on the hub's clock
        if not self.session.players:
            if self.evening is not None and ended < self.evening - CLOCK_SLACK_S:
                self._dispute(result, f"it ended on {_day(ended)} by the hub's clock, before this evening began "
                                      f"({_day(self.evening)})")
                return "earlier"
            if announced is not None and frozenset(announced[:2]) != players:
                return self._dispute(result, f"{result.table} announced {' vs '.join(announced[:2])} for this game")
            self._count(result)
            return "counted"
        open_pairs = self._open.get(players, [])
        pairing = next((p for p in open_pairs if p.table in (None, result.table)), None)
        if pairing is None:
            if open_pairs:
                return self._dispute(result, f"{' and '.join(sorted(players))} are paired at {open_pairs[0].table}, "
                                             f"not at {result.table}")
            if players in self._done:
                done = self._done[players]
                where = f" ({done.result.table}, game {done.result.game})" if done.result else ""
                return self._dispute(result, f"{' and '.join(sorted(players))} already have their result{where}")
            self._dispute(result, f"{' and '.join(sorted(players))} are not paired together (in any round so far)")
            self._waiting.append((result, self.disputed[-1], offset))
            return "disputed"
        rnd = self.rounds[pairing.round - 1]
        if ended < rnd.paired - CLOCK_SLACK_S:
            off = ""
            if offset is not None and abs(offset) > CLOCK_SLACK_S:
                off = (f" ({_clock(ended)} by the hub's: {result.table}'s clock is {_span(abs(offset))} "
                       f"{'ahead' if offset > 0 else 'behind'})")
            return self._dispute(result, f"it ended at {_clock(result.at)} by {result.table}'s clock{off}, before "
                                         f"round {rnd.number} paired {' and '.join(sorted(players))} at "
                                         f"{_clock(rnd.paired)} by the hub's")
        open_pairs.remove(pairing)
        if not open_pairs:
            del self._open[players]
        pairing.result = result
        self._done[players] = pairing
        self._count(result)
        rnd.open -= 1
        if rnd.open == 0 and rnd is self.rounds[-1] and self.session.system == "swiss":
            if self.defer:
                self._due = (self._played(), len(self.rounds))
            else:
                self._pair_next_swiss()
        return "counted"

    def _disputed_again(self, result: Result) -> bool:
        """The same result as one the director's list holds already (a retained message given again)."""
        data = result.to_json()
        return any(all(entry.get(k) == v for k, v in data.items()) for entry in self.disputed)

    def _count(self, result: Result) -> None:
        """A result that counts: it holds its table, game and end from now on."""
        self._games.setdefault((result.table, result.game), {})[result.at] = (
            frozenset(result.players), result.score, result.winner)
        self._ended[(result.table, result.at)] = result.game
        self.results.append(result)
        for i, player in enumerate(result.players):
            row = self._row(player)
            won = result.winner == SEATS[i]
            row["played"] += 1
            row["wins"] += won
            row["losses"] += not won
            row["for"] += result.score[i]
            row["against"] += result.score[1 - i]
        self._ranking = None

    def _dispute(self, result: Result, why: str) -> str:
        logger.warning("hub: a disputed result from %s (game %d, %s): %s", result.table, result.game,
                       " vs ".join(result.players), why)
        self.disputed.append({**result.to_json(), "why": why})
        return "disputed"

    def _row(self, player: str) -> dict[str, Any]:
        row = self._rows.get(player)
        if row is None:
            row = self._rows[player] = {"player": player, "played": 0, "wins": 0, "losses": 0, "for": 0,
                                        "against": 0, "byes": 0}
            self._ranking = None
        return row

    # -- rounds ----------------------------------------------------------------------------------

    def _add_round(self, pairs: list[tuple[str, str]], bye: str | None, bye_again: bool = False) -> None:
        seats, number = self.tables, len(self.rounds) + 1
        pairings = [Pairing(a, b, seats[i % len(seats)] if seats else None, round=number)
                    for i, (a, b) in enumerate(pairs)]
        paired = self.times.paired(number, pairs, bye) if self.times is not None else None
        if paired is None:
            paired = self.clock()
            if self.times is not None:
                self.times.add(number, pairs, bye, paired)
        rnd = LedgerRound(number, pairings, bye, bye_again, len(pairings), paired)
        self.rounds.append(rnd)
        for p in pairings:
            self._open.setdefault(frozenset((p.a, p.b)), []).append(p)
        if bye is not None:  # a bye is a win
            row = self._row(bye)
            row["byes"] += 1
            row["wins"] += 1
            self._ranking = None

    def _played(self) -> list[Played]:
        from venue.hub.pairing import Played

        return [Played(r.players, r.winner, abs(r.score[0] - r.score[1])) for rnd in self.rounds
                for r in (p.result for p in rnd.pairs) if r is not None]

    def _pair_next_swiss(self) -> None:
        """The next Swiss round, from the rounds played (called when the last one is over)."""
        count = len(self.rounds)
        self.apply_round(self.next_round(self._played(), count), count)

    def take_due(self) -> tuple[list[Played], int] | None:
        """The games to pair the next Swiss round from, and the rounds so far, once (deferred pairing)."""
        due, self._due = self._due, None
        return due

    def next_round(self, games: list[Played], count: int) -> Round | None:
        """Round ``count + 1`` from ``games`` (pure: any thread), or None when the evening is over."""
        from venue.hub.pairing import swiss_evening

        evening = swiss_evening(self.session.players, self.planned, games)
        return evening[count] if len(evening) > count else None

    def apply_round(self, nxt: Round | None, count: int) -> None:
        """Add the round :meth:`next_round` made, if the rounds are still ``count``; results waiting for
        it are taken again."""
        if nxt is None or len(self.rounds) != count:
            return
        self._add_round(list(nxt.pairs), nxt.bye, nxt.bye_again)
        waiting, self._waiting = self._waiting, deque(maxlen=MAX_DISPUTED)
        for result, entry, offset in waiting:  # taken again now that a round is paired
            if entry in self.disputed:
                self.disputed.remove(entry)
            self.add(result, offset=offset)

    @property
    def planned(self) -> int:
        if self.session.system == "swiss":
            from venue.hub.pairing import default_rounds

            return self.session.planned or default_rounds(len(self.session.players))
        return len(self.session.rounds)

    # -- what the page shows ---------------------------------------------------------------------

    def ranking(self) -> list[dict[str, Any]]:
        """Wins, then point difference, then points won (sorted when a result changed it)."""
        if self._ranking is None:
            ordered = sorted(self._rows.values(), key=lambda row: (-row["wins"], -(row["for"] - row["against"]),
                                                                   -row["for"], row["player"]))
            self._ranking = [{**row, "rank": rank} for rank, row in enumerate(ordered, start=1)]
        return self._ranking

    def to_json(self) -> dict[str, Any]:
        return {"session": self.session.name, "system": self.session.system, "planned": self.planned,
                "rounds": [rnd.to_json() for rnd in self.rounds], "ranking": self.ranking(),
                "games": len(self.results), "disputed": list(self.disputed)}


def standings(session: Session, results: Iterable[Result], tables: tuple[str, ...] = (),
              paired: float = 0.0) -> dict[str, Any]:
    """Rounds with their pairings and results, the ranking (wins, then point difference, then points
    won) and the disputed results, from ``results`` in order (:class:`Ledger`), every round paired at
    ``paired`` (seconds since the epoch: the results that ended before are disputed)."""
    ledger = Ledger(session, tables, clock=lambda: paired)
    for r in results:
        ledger.add(r)
    return ledger.to_json()


def _span(seconds: float) -> str:
    """A clock's error for the director: ``3 h 05 min``, ``7 min``."""
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def _day(t: float) -> str:
    """A day and time for the director (the hub's local time), to the minute."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def _clock(t: float) -> str:
    """A time of day for the director (the hub's local time), to the second."""
    return time.strftime("%H:%M:%S", time.localtime(t))


class PairedTimes:
    """When each round of a session was paired, in a JSON file of the hub's folder: a hub that takes up
    its evening (:class:`venue.hub.evening.Evening`: away for a short while, its clock trusted to say so)
    pairs its rounds again from the retained results and takes each round's time back, if the round is
    the same (its pairs and bye), so that the evening's results still count. A new evening (the next
    morning, a reboot before NTP answered), a file that cannot be read, another session's: the rounds
    are paired anew, said in the log, and the file written anew.

    :param path: the file (written whole at each round: a temporary file renamed over it).
    :param session: its name, players and system: a file of another session is not taken.
    :param evening: the hub's evening.
    """

    def __init__(self, path: Path, session: Session, evening: Evening) -> None:
        self.path = path
        self.key = {"session": session.name, "players": list(session.players), "system": session.system}
        self.rounds: dict[int, dict[str, Any]] = {}
        if not evening.continued:
            return
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            rounds = {int(k): v for k, v in data["rounds"].items()} if data.get("key") == self.key else {}
        except FileNotFoundError:
            return
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            logger.warning("hub: %s cannot be read (%s): the session's rounds are paired anew", path, exc)
            return
        if rounds:
            self.rounds = rounds
            logger.info("hub: the session's rounds paired earlier this evening (%s) taken up again", path)

    def paired(self, number: int, pairs: list[tuple[str, str]], bye: str | None) -> float | None:
        """When round ``number`` was paired, if it was paired earlier this evening as it is now (None: not)."""
        known = self.rounds.get(number)
        if known is None or known.get("pairs") != [list(p) for p in pairs] or known.get("bye") != bye:
            return None
        try:
            return float(known["paired"])
        except (KeyError, TypeError, ValueError):
            return None

    def add(self, number: int, pairs: list[tuple[str, str]], bye: str | None, paired: float) -> None:
        """Round ``number`` paired at ``paired``: written to the file (a round paired again differently
        forgets the later ones). A file that cannot be written is said in the log; the evening goes on."""
        self.rounds = {n: r for n, r in self.rounds.items() if n < number}
        self.rounds[number] = {"pairs": [list(p) for p in pairs], "bye": bye, "paired": paired}
        data = {"key": self.key, "rounds": {str(n): r for n, r in sorted(self.rounds.items())}}
        part = self.path.with_name(self.path.name + ".part")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            part.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
            os.replace(part, self.path)
        except OSError as exc:
            logger.warning("hub: cannot keep the rounds' pairing times in %s (%s): a restart of the hub would "
                           "dispute this evening's results", self.path, exc)
