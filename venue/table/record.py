"""Hand records: a whole game of Écarté as text, in the manner of PGN (chess) and PBN (bridge).

A record is tag pairs for the game, then one block a hand: its own tag pairs, its moves
one a line in the engine's notation, its irregularities, its result. The writer and the
parser are exact inverses (``parse_record(write_record(g)) == g``), and the moves replay
through :func:`engine.apply` to the same points and score (:func:`check_game`). The
format is documented in ``docs/web.md``::

    [Event "Écarté"]
    [Site "Simulated table"]
    [Date "2026.11.01"]
    [Table "Simulated table"]
    [Game "1"]
    [A "Alice"]
    [B "Bob"]
    [Rules "classic"]
    [Target "5"]
    [Result "A 5 B 2"]
    [Winner "A"]

    [Hand "1"]
    [Dealer "A"]
    B gets 7S 8S 9S
    A gets KH QH JH
    ...
    turn 7D
    B proposes
    A accepts
    B discards 7S 8S
    ...
    B plays KH
    A plays 7H
    ; trick 1
    ! 2 B revoke 7S
    [Tricks "A 3 B 2"]
    [Points "A 1 B 0"]
    [Score "A 1 B 0"]

Moves are the actions the table accepted, card by card (``A gets`` lines group the
cards dealt to one seat in a row). ``! TRICK SEAT CODE [CARD]`` marks a refused action
(a fault) during trick TRICK (0: before the first card); ``;`` starts a comment.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import engine
from engine.actions import Action, DealCard, ReplayHand, Stand, action_from_json, parse_action
from engine.cards import RANKS, SUITS, Card
from engine.ecarte_errors import NotationError
from engine.seats import SEATS, PerSeat

GAME_TAGS = ("Event", "Site", "Date", "Table", "Game", "A", "B", "Rules", "Options", "Target", "Result", "Winner")
"""The game's tag pairs, in the order they are written (the first seven PGN-style, then ours)."""

_TAG = re.compile(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$')


class RecordError(NotationError):
    """A hand record that cannot be read: the message names the line and what was expected."""


@dataclass(frozen=True, slots=True)
class FaultMark:
    """A refused action in a hand: during ``trick`` (0: before the first card), by ``seat``."""

    trick: int
    seat: str
    code: str
    card: str | None = None

    def __str__(self) -> str:
        return f"! {self.trick} {self.seat or '-'} {self.code}" + (f" {self.card}" if self.card else "")


@dataclass(frozen=True, slots=True)
class HandLog:
    """One hand, whole: every action the table accepted, its faults and its result."""

    game: int
    number: int
    dealer: str
    moves: tuple[Action, ...]
    faults: tuple[FaultMark, ...] = ()
    tricks: tuple[int, int] | None = None
    points: tuple[int, int] | None = None
    score: tuple[int, int] | None = None
    part: int = 0
    """In a rubber, which of its games the hand belongs to (1, 2, ...; written ``[Round "N"]``); 0 otherwise."""

    def to_json(self) -> dict[str, Any]:
        """The hand as JSON data (the ``hand`` message of the page and of MQTT)."""
        return {
            "game": self.game, "hand": self.number, "dealer": self.dealer,
            **({"round": self.part} if self.part else {}),
            "moves": [move_text(m) for m in self.moves],
            "faults": [{"trick": f.trick, "seat": f.seat, "code": f.code, "card": f.card} for f in self.faults],
            "tricks": _pair_json(self.tricks), "points": _pair_json(self.points), "score": _pair_json(self.score),
            "text": "\n".join(_hand_lines(self)),
        }


@dataclass(frozen=True, slots=True)
class GameLog:
    """A whole game: its tag pairs (:data:`GAME_TAGS` first) and its hands."""

    tags: tuple[tuple[str, str], ...]
    hands: tuple[HandLog, ...] = ()

    def tag(self, name: str, default: str = "") -> str:
        for key, value in self.tags:
            if key == name:
                return value
        return default


def _pair_json(pair: tuple[int, int] | None) -> dict[str, int] | None:
    return None if pair is None else PerSeat.of(pair).to_json()


def move_text(action: Action) -> str:
    """One move in the record's notation (the engine's, with ``A stands`` for standing)."""
    if isinstance(action, Stand):
        return f"{action.seat} stands"
    return str(action)


def _hand_lines(hand: HandLog) -> Iterator[str]:
    yield f'[Hand "{hand.number}"]'
    if hand.part:
        yield f'[Round "{hand.part}"]'
    yield f'[Dealer "{hand.dealer}"]'
    moves = list(hand.moves)
    i = 0
    plays = 0
    while i < len(moves):
        move = moves[i]
        if isinstance(move, DealCard):
            cards = [move.card]
            while i + 1 < len(moves) and isinstance(moves[i + 1], DealCard) and moves[i + 1].seat == move.seat:  # type: ignore[attr-defined]
                i += 1
                cards.append(moves[i].card)  # type: ignore[attr-defined]
            yield f"{move.seat} gets " + " ".join(map(str, cards))
        else:
            yield move_text(move)
            if isinstance(move, ReplayHand):
                plays = 0  # the hand played again: its tricks are 1 to 5 again (they read 6-10)
            if isinstance(move, engine.PlayCard):
                plays += 1
                if plays % 2 == 0:
                    yield f"; trick {plays // 2}"
        i += 1
    for mark in hand.faults:
        yield str(mark)
    for name, pair in (("Tricks", hand.tricks), ("Points", hand.points), ("Score", hand.score)):
        if pair is not None:
            yield f'[{name} "A {pair[0]} B {pair[1]}"]'


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def write_record(game: GameLog) -> str:
    """The record's text (UTF-8, LF line ends, a blank line between blocks)."""
    lines = [f'[{name} "{_quote(value)}"]' for name, value in game.tags]
    for hand in game.hands:
        lines.append("")
        lines.extend(_hand_lines(hand))
    return "\n".join(lines) + "\n"


def _pair(text: str, where: str) -> tuple[int, int]:
    m = re.fullmatch(r"A (-?\d+) B (-?\d+)", text)
    if not m:
        raise RecordError(f"{where}: expected 'A <number> B <number>', not {text!r}")
    return int(m.group(1)), int(m.group(2))


def parse_record(text: str, *, source: str = "<record>") -> GameLog:
    """Read a record that :func:`write_record` wrote (or a person, following docs/web.md).

    :raises RecordError: naming the line and what was expected.
    """
    tags: list[tuple[str, str]] = []
    hands: list[HandLog] = []
    current: dict[str, Any] | None = None
    game_no = 0

    def close() -> None:
        nonlocal current
        if current is not None:
            hands.append(HandLog(
                game_no, current["number"], current["dealer"], tuple(current["moves"]), tuple(current["faults"]),
                current.get("Tricks"), current.get("Points"), current.get("Score"), current.get("Round", 0),
            ))
        current = None

    for line_no, raw in enumerate(text.splitlines(), start=1):
        where = f"{source}:{line_no}"
        line = raw.strip()
        if not line or line.startswith(";"):
            continue
        tag = _TAG.match(line)
        if tag:
            name, value = tag.group(1), re.sub(r"\\(.)", r"\1", tag.group(2))
            if name == "Hand":
                close()
                if not value.isdigit():
                    raise RecordError(f"{where}: [Hand] must be a number, not {value!r}")
                current = {"number": int(value), "dealer": "", "moves": [], "faults": []}
            elif current is None:
                tags.append((name, value))
                if name == "Game" and value.isdigit():
                    game_no = int(value)
            elif name == "Dealer":
                if value not in ("A", "B", ""):
                    raise RecordError(f"{where}: [Dealer] must be A or B, not {value!r}")
                current["dealer"] = value
            elif name in ("Tricks", "Points", "Score"):
                current[name] = _pair(value, where)
            elif name == "Round":
                if not value.isdigit():
                    raise RecordError(f"{where}: [Round] (the rubber's game) must be a number, not {value!r}")
                current["Round"] = int(value)
            else:
                raise RecordError(f"{where}: unknown tag [{name}] in a hand (Dealer, Round, Tricks, Points, Score)")
            continue
        if line.startswith("["):
            raise RecordError(f'{where}: a tag pair is written [Name "value"], not {line!r}')
        if current is None:
            raise RecordError(f"{where}: a move before the first [Hand] tag: {line!r}")
        if line.startswith("!"):
            words = line[1:].split()
            if len(words) not in (3, 4) or not words[0].isdigit():
                raise RecordError(f"{where}: a fault is written '! TRICK SEAT CODE [CARD]', not {line!r}")
            card = words[3] if len(words) == 4 else None
            if card is not None:
                Card.parse(card)
            current["faults"].append(FaultMark(int(words[0]), "" if words[1] == "-" else words[1], words[2], card))
            continue
        words = line.split()
        try:
            if len(words) > 3 and words[1] == "gets":
                current["moves"].extend(DealCard(words[0], Card.parse(c)) for c in words[2:])
            elif len(words) == 2 and words[1] == "stands":
                current["moves"].append(Stand(words[0]))
            else:
                current["moves"].append(parse_action(line))
        except NotationError as exc:
            raise RecordError(f"{where}: {exc}") from None
    close()
    return GameLog(tuple(tags), tuple(hands))


def check_game(game: GameLog) -> list[str]:
    """Replay every hand's moves through the engine; the differences from the record's results.

    Each hand starts from a new game with its dealer and the score before it (as the
    controller's ``hand_record`` does); an empty list means the record holds together.
    """
    problems: list[str] = []
    rules = game.tag("Rules", "classic")
    options = json.loads(game.tag("Options", "{}") or "{}")
    target = game.tag("Target")
    if target.isdigit():
        options["target"] = int(target)
    for hand in game.hands:
        state = engine.new_game(rules, dealer=hand.dealer or None, **options)
        points = [0, 0]
        tricks: tuple[int, int] | None = None
        for move in hand.moves:
            state, events = engine.apply(state, move)
            for ev in events:
                if isinstance(ev, engine.Fault):
                    problems.append(f"hand {hand.number}: {move_text(move)} refused ({ev.code})")
                elif isinstance(ev, engine.HandEnd):
                    tricks = ev.tricks
                    points = list(ev.points)
        if hand.points is not None and tricks is not None and not hand.faults and tuple(points) != hand.points:
            problems.append(f"hand {hand.number}: the moves give points {points}, the record {hand.points}")
        if hand.tricks is not None and tricks is not None and tricks != hand.tricks:
            problems.append(f"hand {hand.number}: the moves give tricks {tricks}, the record {hand.tricks}")
    return problems


class GameLogBuilder:
    """Builds hands from the table's events in order (faults, results, then ``hand_record``)."""

    def __init__(self) -> None:
        self._faults: list[FaultMark] = []
        self._tricks_done = 0
        self._playing = False
        self._result: dict[str, tuple[int, int]] = {}
        self.hands: list[HandLog] = []
        self.players: tuple[str, str] = SEATS
        self.rules: dict[str, Any] = {}
        self.winner: str | None = None
        self.score: tuple[int, int] = (0, 0)
        self.target: int | None = None

    def event(self, event: Any) -> None:
        """Take one table event (any kind)."""
        if isinstance(event, engine.Fault):
            card = str(event.card) if event.card is not None else None
            trick = min(self._tricks_done + 1, 5) if self._playing else 0
            self._faults.append(FaultMark(trick, event.seat or "", event.code, card))
        elif isinstance(event, engine.Trick):
            self._tricks_done += 1
        elif isinstance(event, engine.HandEnd):
            self._result = {"tricks": event.tricks, "points": event.points, "score": event.score}
            self.score = event.score
        elif isinstance(event, engine.GameEnd):
            self._result.setdefault("score", event.score)
            self.score = event.score
            self.winner = event.winner
        elif isinstance(event, engine.Trump):
            self._tricks_done = 0
            self._playing = False
        elif isinstance(event, engine.PlayBegins):
            self._tricks_done = 0
            self._playing = True

    def hand_record(self, record: Any, *, part: int = 0) -> HandLog:
        """The hand a ``hand_record`` event closes (with the faults and result seen since the last);
        ``part``: the rubber's game it belongs to (0 when the game is no rubber)."""
        moves = tuple(action_from_json(a) for a in record.actions)
        rubber = int(dict(record.rules).get("rubber", 1))
        hand = HandLog(
            int(record.game), int(record.hand), str(record.dealer), moves,
            tuple(self._faults),
            self._result.get("tricks"), self._result.get("points"), self._result.get("score"),
            part if rubber > 1 else 0,
        )
        self.rules = dict(record.rules)
        self.hands.append(hand)
        self._faults = []
        self._result = {}
        self._tricks_done = 0
        self._playing = False
        return hand

    def game_log(self, *, game: int, table: str = "", site: str = "", date: str = "",
                 event: str = "Écarté", players: Iterable[str] | None = None,
                 rubber: tuple[int, int] | None = None) -> GameLog:
        """The game so far as a :class:`GameLog` (``rubber``: the games each seat won, once a rubber is over)."""
        names = tuple(players) if players is not None else self.players
        rules = dict(self.rules)
        name = str(rules.pop("name", "classic"))
        target = rules.pop("target", self.target)
        result = f"A {self.score[0]} B {self.score[1]}" if self.hands else "*"
        tags: list[tuple[str, str]] = [
            ("Event", event), ("Site", site or table), ("Date", date or "????.??.??"), ("Table", table),
            ("Game", str(game)), ("A", names[0] if names else "A"), ("B", names[1] if len(names) > 1 else "B"),
            ("Rules", name), ("Options", json.dumps(rules, sort_keys=True) if rules else "{}"),
            ("Target", str(target) if target is not None else ""), ("Result", result),
            ("Winner", self.winner or ""),
        ]
        if rubber is not None:
            tags.append(("Rubber", f"A {rubber[0]} B {rubber[1]}"))
        return GameLog(tuple(tags), tuple(self.hands))


def game_log_of(outcomes: Iterable[Any], **tags: Any) -> GameLog:
    """The game a sequence of outcomes (from a replay) shows, hidden cards included."""
    from firmware_host.referee import HandRecord

    builder = GameLogBuilder()
    players: tuple[str, ...] | None = None
    for outcome in outcomes:
        players = tuple(outcome.snapshot.players[:2])
        builder.target = outcome.snapshot.view.target
        for ev in outcome.events:
            builder.event(ev)
            if isinstance(ev, HandRecord):
                builder.hand_record(ev)
    return builder.game_log(players=players, **tags)



_VERB_WORDS = (
    ("announces the king", "page.announces"), ("has the hands played again", "record.replay"),
    ("offers the point", "record.offers_point"), ("plays on", "record.plays_on"), ("proposes", "page.bid_propose"),
    ("stands", "page.bid_stand"), ("accepts", "page.bid_accept"), ("refuses", "page.bid_refuse"),
    ("declares", "page.bid_declare"), ("passes", "page.bid_pass"), ("discards", "page.discards"),
    ("draws", "page.draws"), ("plays", "page.plays"), ("gets", "record.gets"), ("doubles", "record.doubles"),
    ("cuts", "record.cuts"),
)
"""The record's verbs (the engine's notation) and the message that words each, longest first."""
_TAG_LINE = re.compile(r'^\[(\w+) "(.*)"\]$')
_MOVE_LINE = re.compile(rf"^([AB]) (.+?)((?: [2-6{RANKS}][{SUITS}])*)$")
_CARD_CODE = re.compile(rf"\b[2-6{RANKS}][{SUITS}]\b")


def _tag_said(lang: str, name: str, value: str) -> str:
    """A tag's value as a reader of ``lang`` reads it: a shipped table's title translated (``Table``,
    ``Site``), the rule set and its options in the menu's words; any other as written."""
    from catalogue import rule_set, say, say_or
    from venue.table.words import SHIPPED_TITLES

    if name in ("Table", "Site"):
        shipped = next((key for key, title in SHIPPED_TITLES.items() if title == value), None)
        return say(lang, f"page.shipped.{shipped}") if shipped is not None else value
    if name == "Rules":
        return rule_set(lang, value)
    if name == "Options":
        try:
            options = json.loads(value or "{}")
        except ValueError:
            return value
        if not isinstance(options, dict):
            return value
        if not options:
            return say(lang, "record.no_options")
        return ", ".join(say_or(lang, f"menu.{key}", key) if given is True else
                         f"{say_or(lang, f'menu.{key}', key)} {say_or(lang, f'menu.{given}', str(given))}"
                         for key, given in sorted(options.items()))
    return value


def said_record(text: str, lang: str) -> str:
    """A written record (:func:`write_record`) as a reader of ``lang`` reads it: its tags, verbs,
    tricks and faults in the language's words, its cards as the language prints them (``D♠``); what
    it does not know stays as written. The record itself (``export``, ``/api/games/N/record``) stays
    in the engine's notation, which :func:`parse_record` reads::

        >>> for line in said_record('[Hand "1"]\\nB gets 8S 7S\\nturn QD\\nB proposes\\nA announces the king\\n'
        ...                         '; trick 1\\n! 2 B revoke 7S', "es").splitlines():
        ...     print(line)
        [Mano "1"]
        B recibe 8♠ 7♠
        carta de triunfo Q♦
        B propone
        A anuncia el rey
        ; baza 1
        ! baza 2: B renuncio 7♠
    """
    from catalogue import card_words, say, say_or

    def cards(codes: str) -> str:
        return _CARD_CODE.sub(lambda m: card_words(lang, m.group(0)), codes)

    out = []
    for line in text.splitlines():
        tag = _TAG_LINE.match(line)
        move = _MOVE_LINE.match(line)
        if tag is not None:
            name, value = tag.groups()
            out.append(f'[{say_or(lang, "record.tag." + name, name)} "{_tag_said(lang, name, value)}"]')
        elif line.startswith("turn ") or line.startswith("target "):
            word = say(lang, "page.turn_up") if line.startswith("turn ") else say(lang, "record.target")
            out.append(f"{word} {cards(line.split(' ', 1)[1])}")
        elif line.startswith("; trick "):
            out.append(f"; {say(lang, 'page.trick')} {line.removeprefix('; trick ')}")
        elif line.startswith("! "):
            parts = line.split()
            if len(parts) >= 4:
                what = say_or(lang, "fault." + parts[3], parts[3])
                tail = f" {cards(parts[4])}" if len(parts) > 4 else ""
                out.append(f"! {say(lang, 'page.trick')} {parts[1]}: {parts[2]} {what}{tail}")
            else:
                out.append(line)
        elif move is not None:
            seat, verb, codes = move.groups()
            msgid = next((m for v, m in _VERB_WORDS if v == verb), None)
            out.append(f"{say(lang, msgid, who=seat)}{cards(codes)}" if msgid is not None else line)
        else:
            out.append(line)
    return "\n".join(out)
