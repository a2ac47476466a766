"""Transcripts: the physical events of a table, one JSON object a line.

The format is the contract of ``shared/TRANSCRIPT.md``::

    {"setup": {"rules": "classic", "dealer": "A", "target": 5, "tags": {"04A2…": "KS"}}}
    {"zone": "hand.A", "card": "KS"}
    {"zone": "play.B", "card": "7S", "gone": true}
    {"seat": "A", "button": "yes"}

Reading lets the caller choose the error policy, like python-chess's PGN reader:
:func:`read_transcript` raises on the first bad line, or collects every bad line
(with its number) into ``errors``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.cards import Card
from engine.errors import NotationError
from hardware.layout import BUTTONS, SEATS, ZONES
from hardware.layout import COMPACT_PADS as COMPACT_ZONES


class TranscriptError(NotationError):
    """A transcript line that cannot be read. Names the source, the line and what was expected."""

    def __init__(self, source: str, line_no: int, problem: str) -> None:
        self.source = source
        self.line_no = line_no
        self.problem = problem
        super().__init__(f"{source}:{line_no}: {problem}")


@dataclass(frozen=True, slots=True)
class Setup:
    """The optional first line: rule set, first dealer, target, options and tag registry."""

    rules: str | None = None
    dealer: str | None = None
    target: int | None = None
    tags: dict[str, str] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    players: tuple[str, ...] | None = None
    sight: str | None = None
    """``full`` or ``partial`` (TRANSCRIPT.md, *Partial sight*); None: the table's own."""

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {}
        if self.rules is not None:
            body["rules"] = self.rules
        if self.dealer is not None:
            body["dealer"] = self.dealer
        if self.target is not None:
            body["target"] = self.target
        if self.tags:
            body["tags"] = dict(self.tags)
        if self.options:
            body["options"] = dict(self.options)
        if self.players:
            body["players"] = list(self.players)
        if self.sight is not None:
            body["sight"] = self.sight
        return {"setup": body}

    def __hash__(self) -> int:
        return hash((self.rules, self.dealer, self.target, tuple(sorted(self.tags.items()))))


@dataclass(frozen=True, slots=True)
class CardEvent:
    """A card arrived on a pad (or left it: ``gone``). ``card`` or ``uid`` names it."""

    zone: str
    card: str | None = None
    uid: str | None = None
    gone: bool = False
    t: float | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"zone": self.zone}
        if self.card is not None:
            out["card"] = self.card
        if self.uid is not None:
            out["uid"] = self.uid
        if self.gone:
            out["gone"] = True
        if self.t is not None:
            out["t"] = self.t
        return out


@dataclass(frozen=True, slots=True)
class ButtonEvent:
    """A seat pressed a button: ``yes``, ``no`` or ``king``."""

    seat: str
    button: str
    t: float | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": self.seat, "button": self.button}
        if self.t is not None:
            out["t"] = self.t
        return out


PhysicalEvent = Setup | CardEvent | ButtonEvent


def dumps(event: PhysicalEvent) -> str:
    """One transcript line (no newline)."""
    return json.dumps(event.to_json(), ensure_ascii=False, separators=(", ", ": "))


def parse_line(text: str, *, source: str = "<input>", line_no: int = 1,
               zones: Iterable[str] = ZONES + COMPACT_ZONES) -> PhysicalEvent | None:
    """Read one transcript line; None for a blank line or a ``#`` comment.

    :raises TranscriptError: naming ``source:line_no`` and what was expected.
    """
    stripped = text.strip()
    if not stripped or stripped.startswith("#"):
        return None
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError as exc:
        raise TranscriptError(source, line_no, f"not JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(data, dict):
        raise TranscriptError(source, line_no, "expected a JSON object")
    t = data.get("t")
    if t is not None and (not isinstance(t, int | float) or isinstance(t, bool)):
        raise TranscriptError(source, line_no, f"'t' must be seconds (a number), got {t!r}")
    if "setup" in data:
        return _setup(data["setup"], source, line_no)
    if "zone" in data:
        return _card_event(data, source, line_no, tuple(zones), t)
    if "seat" in data or "button" in data:
        seat, button = data.get("seat"), data.get("button")
        if seat not in SEATS:
            raise TranscriptError(source, line_no, f"seat must be 'A' or 'B', got {seat!r}")
        if button not in BUTTONS:
            raise TranscriptError(source, line_no, f"button must be yes, no or king, got {button!r}")
        return ButtonEvent(seat, button, t)
    raise TranscriptError(
        source, line_no, "expected a setup, a card event ('zone') or a button event ('seat', 'button')",
    )


def _card_event(data: dict[str, Any], source: str, line_no: int, zones: tuple[str, ...],
                t: float | None) -> CardEvent:
    zone = data["zone"]
    if zone not in zones:
        import difflib

        hint = difflib.get_close_matches(str(zone), zones, n=1)
        extra = f" (did you mean {hint[0]!r}?)" if hint else f" (zones: {', '.join(ZONES)})"
        raise TranscriptError(source, line_no, f"unknown zone {zone!r}{extra}")
    card, uid = data.get("card"), data.get("uid")
    if card is None and uid is None:
        raise TranscriptError(source, line_no, "a card event needs 'card' or 'uid'")
    if card is not None:
        try:
            card = str(Card.parse(card))
        except NotationError as exc:
            raise TranscriptError(source, line_no, str(exc)) from None
    if uid is not None:
        uid = _uid(uid, source, line_no)
    gone = data.get("gone", False)
    if not isinstance(gone, bool):
        raise TranscriptError(source, line_no, f"'gone' must be true or false, got {gone!r}")
    return CardEvent(zone, card, uid, gone, t)


def _uid(uid: Any, source: str, line_no: int) -> str:
    text = str(uid).replace(":", "").strip().upper()
    if not text or len(text) % 2 or any(c not in "0123456789ABCDEF" for c in text):
        raise TranscriptError(source, line_no, f"a tag UID is hexadecimal, got {uid!r}")
    return text


def _setup(body: Any, source: str, line_no: int) -> Setup:
    if not isinstance(body, dict):
        raise TranscriptError(source, line_no, "setup must be an object")
    known = {"rules", "dealer", "target", "tags", "options", "players", "sight"}
    unknown = set(body) - known
    if unknown:
        raise TranscriptError(source, line_no, f"unknown setup key(s): {', '.join(sorted(unknown))}")
    dealer = body.get("dealer")
    if dealer is not None and dealer not in SEATS:
        raise TranscriptError(source, line_no, f"dealer must be 'A' or 'B', got {dealer!r}")
    target = body.get("target")
    if target is not None and (not isinstance(target, int) or isinstance(target, bool) or target < 1):
        raise TranscriptError(source, line_no, f"target must be a positive whole number, got {target!r}")
    rules = body.get("rules")
    if rules is not None and not isinstance(rules, str):
        raise TranscriptError(source, line_no, f"rules must be a rule set name, got {rules!r}")
    tags: dict[str, str] = {}
    raw_tags = body.get("tags", {})
    if not isinstance(raw_tags, dict):
        raise TranscriptError(source, line_no, "tags must map tag UIDs to cards")
    for uid, card in raw_tags.items():
        try:
            tags[_uid(uid, source, line_no)] = str(Card.parse(card))
        except NotationError as exc:
            raise TranscriptError(source, line_no, f"tag {uid}: {exc}") from None
    options = body.get("options", {})
    if not isinstance(options, dict):
        raise TranscriptError(source, line_no, "options must be an object")
    players = body.get("players")
    if players is not None:
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise TranscriptError(source, line_no, "players must be a list of names")
        players = tuple(players)
    sight = body.get("sight")
    if sight is not None and sight not in ("full", "partial"):
        raise TranscriptError(source, line_no, f"sight must be 'full' or 'partial', got {sight!r}")
    return Setup(rules, dealer, target, tags, dict(options), players, sight)


def read_transcript(lines: Iterable[str], *, source: str = "<input>",
                    errors: list[TranscriptError] | None = None) -> Iterator[tuple[int, PhysicalEvent]]:
    """Yield ``(line number, event)`` for each event line.

    With ``errors`` None the first bad line raises :class:`TranscriptError`;
    otherwise every bad line is appended to ``errors`` and skipped.
    A ``setup`` line after the first event is an error.
    """
    seen_event = False
    for line_no, text in enumerate(lines, start=1):
        try:
            event = parse_line(text, source=source, line_no=line_no)
            if isinstance(event, Setup) and seen_event:
                raise TranscriptError(source, line_no, "setup must be the first line")
        except TranscriptError as exc:
            if errors is None:
                raise
            errors.append(exc)
            continue
        if event is None:
            continue
        seen_event = True
        yield line_no, event
