"""What a spectator may see: the table's outcomes made public, message by message.

The web page and the MQTT publisher both put out what :class:`PublicFeed` gives them,
so the rule lives once: **no card hidden in a hand, the stock or the discards leaves
the table before its hand is over** (and, if the table file says so, a delay after).

- The snapshot is public by construction (the engine's public view), except that a
  fault's card may lie face down: a replacement beyond the count on a hand pad, a card
  dealt twice, a discard the seat does not hold. Such a fault goes out without its card.
  A fault keeps its card only when the card lies face up on a play pad (a fault of play
  during the tricks) or on the cut. Faults and notices carry no words: what the page
  reads is worded from their public data, in the page's language.
- Events are whitelisted by kind; faults and corrections go out as above (the rule
  itself: :mod:`firmware_host.screens.public_faults`, which the table's voice obeys too).
- Hidden cards come only from the controller's ``hand_record`` event, which it sends
  once the hand is over; the feed holds each one for ``reveal_delay`` seconds and then
  puts out the whole hand as a :class:`venue.table.record.HandLog`.

Pure: no thread, no clock of its own (the caller passes ``now``, in seconds).

    >>> from firmware_host.referee.controller import Controller
    >>> from firmware_host.referee.transcript import CardEvent, Setup
    >>> table, feed = Controller(), PublicFeed(table="t1")
    >>> _ = table.handle(Setup(rules="classic", dealer="A"))
    >>> _ = [table.handle(CardEvent("hand.B" if i < 5 else "hand.A", c)) for i, c in
    ...      enumerate(["7S", "8S", "9S", "TS", "AS", "KH", "QH", "JH", "AH", "TH"])]
    >>> out = feed.take(table.handle(CardEvent("hand.A", "9S")), now=0.0)
    >>> [(m.kind, m.data.get("code")) for m in out][:1], "9S" in str([m.data for m in out])
    ([('event', 'duplicate_card')], False)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from catalogue import language as table_language
from catalogue import rule_set
from engine import Fault
from engine.cards import RANKS, SUIT_SYMBOLS, SUITS
from engine.seats import INDEX
from engine.state import Phase
from firmware_host.referee import HandRecord, Outcome, TableSnapshot
from firmware_host.screens.i18n import worded
from firmware_host.screens.public_faults import (
    PLAY_FAULTS,
    PUBLIC_EVENTS,
    fault_face_up,
    public_fault,
)
from venue.table.record import GameLogBuilder, HandLog, said_record


@dataclass(frozen=True, slots=True)
class Message:
    """One message to the spectators: ``state`` (the table now), ``event`` (one public
    table event) or ``hand`` (a whole hand, hidden cards included, once revealed)."""

    kind: str
    data: dict[str, Any]


@dataclass
class _Pending:
    due: float
    hand: HandLog


@dataclass
class PublicFeed:
    """Turns the referee's outcomes into what spectators may see.

    :param table: the table's name (in every state message).
    :param reveal_delay: seconds between a hand's end and its hidden cards going out.
    :param language: the table's language (``en``, ``fr``, ``it``, ``de``): faults and
        prompts are worded in it, as the table's screen words them.

    The state carries the story so far, so that a spectator who comes late sees it:
    ``story``, the public events of the hand under way (those of the hand just over
    until the next deal begins), and ``hands``, the results of the game's hands.
    """

    table: str = "table"
    reveal_delay: float = 0.0
    language: str = "en"
    seq: int = 0
    state: dict[str, Any] = field(default_factory=dict)
    revealed: list[HandLog] = field(default_factory=list)
    """The hands of the current game already put out, in order."""
    story: list[dict[str, Any]] = field(default_factory=list)
    """The public events of the hand under way, as sent."""
    results: list[dict[str, Any]] = field(default_factory=list)
    """The game's hands over: ``hand``, ``points``, ``score``, ``tricks``."""
    _story_hand: int = 1
    _face_up: dict[Fault, bool] = field(default_factory=dict)
    _pending: list[_Pending] = field(default_factory=list)
    _builder: GameLogBuilder = field(default_factory=GameLogBuilder)
    _game: int = 0
    on_hand: Callable[[HandLog, dict[str, Any]], None] | None = None
    """Called with each hand as it ends (before it is revealed) and the game's rules: the coach's
    review is made then (:mod:`venue.table.reviews`), and only read once the hand may be shown."""

    def __post_init__(self) -> None:
        self.language = table_language(self.language)

    def take(self, outcome: Outcome, now: float, wall: float | None = None) -> list[Message]:
        """The messages one outcome gives: its public events, the hands now due, then the state.

        :param now: the clock hands are held on (``time.monotonic()``: it never jumps).
        :param wall: the wall clock, only for the state's ``t`` (latency, as a person reads it).
        """
        snapshot = outcome.snapshot
        out: list[Message] = []
        if snapshot.language is not None:  # chosen at the table (its settings menu): the page follows
            self.language = table_language(snapshot.language)
        if snapshot.game != self._game:
            self._game = snapshot.game
            self.revealed = []
            self.results = []
            self._builder = GameLogBuilder()
            self._new_hand(snapshot.hand_no)
        elif snapshot.hand_no != self._story_hand and not snapshot.between_hands:
            self._new_hand(snapshot.hand_no)  # the next deal has begun: the hand over leaves the table
        for event in outcome.events:
            kind = event.event
            self._builder.event(event)
            if isinstance(event, HandRecord):
                hand = self._builder.hand_record(event)
                self._pending.append(_Pending(now + self.reveal_delay, hand))
                if self.on_hand is not None:
                    self.on_hand(hand, dict(self._builder.rules))
                continue
            if kind not in PUBLIC_EVENTS:
                continue
            if isinstance(event, Fault):
                face_up = self._classify(event, snapshot)
                self._tell(out, public_fault(event, face_up, snapshot, self.language))
                continue
            data = event.to_json()
            if kind == "corrected" and data.get("code") not in PLAY_FAULTS and snapshot.phase != Phase.PLAY:
                data["card"] = None  # a correction may name a card that lay face down (a replacement taken back)
            if kind == "hand_end":
                self.results.append({"hand": self._story_hand, **{k: data[k] for k in ("points", "score", "tricks")}})
            self._tell(out, data)
        out.extend(self.due(now))
        self.seq += 1
        self.state = self.public_state(snapshot, now if wall is None else wall)
        out.append(Message("state", self.state))
        return out

    def _new_hand(self, number: int) -> None:
        self._story_hand = number
        self.story = []

    def _tell(self, out: list[Message], data: dict[str, Any]) -> None:
        """One public event: to the stream and to the hand's story."""
        self.story.append(data)
        out.append(Message("event", data))

    def due(self, now: float) -> list[Message]:
        """The hands whose delay is over (in order)."""
        out: list[Message] = []
        while self._pending and self._pending[0].due <= now:
            hand = self._pending.pop(0).hand
            if hand.game == self._game:
                self.revealed.append(hand)
            out.append(Message("hand", self.hand_message(hand)))
        return out

    def hand_message(self, hand: HandLog) -> dict[str, Any]:
        """A hand as the page and the feed get it: its record in the notation (``text``) and in the page's
        language (``said``: the Hands tab shows it, as the Games tab shows a game's)."""
        data = hand.to_json()
        return {**data, "said": said_record(str(data["text"]), self.language)}

    def revealed_hand(self, game: int, number: int) -> tuple[HandLog, dict[str, Any]] | None:
        """A hand of the game under way already put out (its cards are public), with the game's
        rule set; None for one not over or still held back (``reveal_delay``)."""
        if game != self._game:
            return None
        for hand in self.revealed:
            if hand.number == number:
                return hand, dict(self._builder.rules)
        return None

    @property
    def game(self) -> int:
        """The number of the game under way (0 before any outcome)."""
        return self._game

    def next_due(self) -> float | None:
        """When the next held hand is due (seconds, the caller's clock), or None."""
        return self._pending[0].due if self._pending else None

    def _classify(self, fault: Fault, snapshot: TableSnapshot) -> bool:
        face_up = fault_face_up(fault, snapshot)
        if len(self._face_up) > 256:
            self._face_up.clear()
        self._face_up[fault] = face_up
        return face_up

    def public_state(self, snapshot: TableSnapshot, now: float) -> dict[str, Any]:
        """The snapshot as spectators see it (a fault's card only when it lies face up)."""
        data = snapshot.to_json()
        lang = self.language
        data["faults"] = [public_fault(f, self._face_up.get(f, False), snapshot, lang) for f in snapshot.faults]
        if snapshot.warning is not None:
            data["warning"] = public_fault(snapshot.warning, self._face_up.get(snapshot.warning, False),
                                           snapshot, lang)
        seat = snapshot.prompt.seat
        name = snapshot.players[INDEX[seat]] if seat in INDEX else ""
        prompt = worded(snapshot.prompt, lang, name or None)
        # what the table waits for, in the page's words: the last fault to put right, else the prompt
        data["expectation"] = data["faults"][-1]["said"]["what"] if snapshot.faults else prompt.text
        data["said"] = {"prompt": prompt.text, "rules": rule_set(lang, snapshot.view.rules)}
        data["lang"] = lang
        data["story"] = list(self.story)
        data["story_hand"] = self._story_hand
        data["hands"] = list(self.results)
        data["table"] = self.table
        data["seq"] = self.seq
        data["t"] = round(now, 3)
        return data


# a wide net, any pack's card (2 to ace), in the engine's letters and symbols
CARD_SYMBOL = re.compile(rf"(?:10|[2-9{RANKS}])[{''.join(SUIT_SYMBOLS.values())}]")
CARD_NOTATION = re.compile(rf"(?<![A-Za-z0-9])[2-6{RANKS}][{SUITS}](?![A-Za-z0-9])")


def card_tokens(text: str) -> set[str]:
    """Every card named in ``text``, in the two-character notation (``TH``), from either
    notation (``TH`` or ``10♥``). Used by the tests that check what leaves the table.

    >>> sorted(card_tokens('{"card": "TH", "message": "take back the 10♠ and the K♦"}'))
    ['KD', 'TH', 'TS']
    """
    found = {m.group(0) for m in CARD_NOTATION.finditer(text)}
    suits = {symbol: suit for suit, symbol in SUIT_SYMBOLS.items()}
    for m in CARD_SYMBOL.finditer(text):
        rank = m.group(0)[:-1]
        found.add(("T" if rank == "10" else rank) + suits[m.group(0)[-1]])
    return found


def hidden_cards(actions: Iterable[dict[str, Any]]) -> set[str]:
    """The cards of a hand record that lay face down at some time (dealt, discarded, drawn)."""
    out: set[str] = set()
    for action in actions:
        kind = action.get("action")
        if kind in ("deal_card",) and "card" in action:
            out.add(str(action["card"]))
        elif kind in ("discard", "draw"):
            out.update(str(c) for c in action.get("cards", ()))
        elif kind == "deal":
            out.update(str(c) for c in (*action.get("a", ()), *action.get("b", ())))
    return out
