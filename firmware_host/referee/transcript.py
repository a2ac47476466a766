"""Transcripts: the physical events of a table, one JSON object a line.

The format is the contract of ``docs/transcript.md``::

    {"setup": {"rules": "classic", "dealer": "A", "target": 5, "tags": {"04A2…": "KS"}}}
    {"zone": "hand.A", "card": "KS"}
    {"zone": "play.B", "card": "7S", "gone": true}
    {"seat": "A", "button": "yes"}

A table with a tag registry journals each tag as the pad's :class:`~drivers.device_events.Sighting`:
the card event carries the tag's UID, its card, the card's ``pack`` and, where the pads check
originality, the verdict (``origin``), so that the journal replays to the same decisions without asking the registry::

    {"zone": "hand.A", "card": "KS", "uid": "04A224B2C31D80", "pack": 1, "origin": "genuine"}

Reading lets the caller choose the error policy, like python-chess's PGN reader:
:func:`read_transcript` raises on the first bad line, or collects every bad line
(with its number) into ``errors``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO, Any

import engine
from catalogue import LANGUAGES
from catalogue.phrase import Count, Joined, Phrase, english
from drivers.device_events import CardSeen, Origin, Sighting
from engine import Event
from engine.cards import Card
from engine.ecarte_errors import EcarteError, NotationError
from engine.sight import SIGHTS
from firmware_host.referee.event_words import contract_json
from hardware.layout import BUTTONS, SEATS, ZONES, Zone
from hardware.layout import COMPACT_PADS as COMPACT_ZONES
from hardware.limits import name_words, nfc, quoted, twice_named
from hardware.tag_registry import PACKS

MAX_LINE_BYTES = 65_536
"""The longest transcript line read, and the longest line the journal takes (bytes, UTF-8,
newline excluded): a setup with two packs of tags takes about 3 KB. A longer line is an
error, reported with its number without echoing it, and never journaled."""

MAX_SKIP_LINES = 256
"""A line too long is skipped to its end, up to this many times :data:`MAX_LINE_BYTES` (16 MiB):
past that the stream has no line ends (``/dev/zero``) and reading stops."""

_SHOWN = 40  # characters of a bad zone compared with the zones (as many as quoted() shows)


class TranscriptError(NotationError):
    """A transcript line that cannot be read. Names the source, the line and what was expected."""

    def __init__(self, source: str, line_no: int, problem: str, words: Phrase | None = None) -> None:
        self.source = source
        self.line_no = line_no
        self.problem = problem
        self.why: Phrase | str = problem if words is None else words
        """The problem alone, in words where it is worded (the line not named)."""
        self.words = Joined((f"{source}:{line_no}", self.why), ": ")
        """The line named and its problem, said in a reader's language where the problem is worded (a card
        that is no card, a line that is no JSON...), else as the transcript's English says it."""
        super().__init__(f"{source}:{line_no}: {problem}")


@dataclass(frozen=True, slots=True)
class Setup:
    """The optional first line: rule set, first dealer, target, options and tag registry."""

    rules: str | None = None
    dealer: str | None = None
    target: int | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    players: tuple[str, ...] | None = None
    sight: str | None = None
    """``full`` or ``partial`` (docs/transcript.md, *Partial sight*); None: the table's own."""
    language: str | None = None
    """The OLED's language (``en``, ``fr``, ``it``, ``de``), chosen in the settings menu; None: the table's."""

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
        if self.language is not None:
            body["language"] = self.language
        return {"setup": body}

    def __hash__(self) -> int:
        return hash((self.rules, self.dealer, self.target, tuple(sorted(self.tags.items()))))


@dataclass(frozen=True, slots=True)
class CardEvent:
    """A card arrived on a pad (or left it: ``gone``): named by its card alone (``named``: a line
    ``{"zone": …, "card": "KS"}``), or by its tag, the pad's :class:`~drivers.device_events.Sighting`
    carried as the pad made it (``sighting``: its UID, and the card, pack and verdict it knows). Its
    ``zone`` is read once, as a :class:`~hardware.layout.Zone` (text given is read here: a test's, or
    code's written before).

    :raises ValueError: both or neither of ``named`` and ``sighting``.
    """

    zone: Zone
    named: str | None = None
    gone: bool = False
    t: float | None = None
    sighting: Sighting | None = None

    def __post_init__(self) -> None:
        if (self.named is None) == (self.sighting is None):
            raise ValueError(f"a card event names its card, or carries its tag's sighting (one): {self.named!r}, "
                             f"{self.sighting!r}")
        if type(self.zone) is not Zone:
            object.__setattr__(self, "zone", Zone(self.zone))

    @property
    def card(self) -> str | None:
        """The card the event names: its own, else its tag's (``None``: a tag nothing names)."""
        return self.named if self.sighting is None else self.sighting.card

    @property
    def uid(self) -> str | None:
        """The tag's UID (``None``: a card named without its tag)."""
        return None if self.sighting is None else self.sighting.uid

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"zone": str(self.zone)}
        seen = self.sighting
        if self.card is not None:
            out["card"] = self.card
        if seen is not None:
            out["uid"] = seen.uid
            if seen.pack is not None:
                out["pack"] = seen.pack
            if seen.origin is not None:
                out["origin"] = str(seen.origin)
        if self.gone:
            out["gone"] = True
        if self.t is not None:
            out["t"] = self.t
        return out


def sighting_event(seen: CardSeen, *, by_tag: bool) -> CardEvent:
    """The transcript event for a pad's sighting: the one door a pad's ``CardSeen`` becomes a ``CardEvent``
    by (:meth:`firmware_host.service.TableService.handle`).

    ``by_tag``: the table names its cards by their tags (a registry): the event carries the pad's
    :class:`~drivers.device_events.Sighting` itself, unchanged (its UID with its card, pack and
    originality verdict). Otherwise the card the pad read names it, or the tag's sighting when the
    pad read none.

    >>> from drivers.device_events import CardSeen, Origin
    >>> seen = CardSeen("play.A", Sighting("04AB", "KS", Origin.NO_SIGNATURE, 1))
    >>> sighting_event(seen, by_tag=False)
    CardEvent(zone=<Zone.PLAY_A: 'play.A'>, named='KS', gone=False, t=None, sighting=None)
    >>> sighting_event(seen, by_tag=True).to_json()
    {'zone': 'play.A', 'card': 'KS', 'uid': '04AB', 'pack': 1, 'origin': 'no_signature'}
    >>> sighting_event(seen, by_tag=True).sighting is seen.sighting
    True
    """
    if by_tag or seen.sighting.card is None:
        return CardEvent(Zone(seen.zone), gone=seen.gone, sighting=seen.sighting)
    return CardEvent(Zone(seen.zone), seen.sighting.card, gone=seen.gone)


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
    if len(stripped) > MAX_LINE_BYTES // 4 and len(stripped.encode("utf-8", "surrogatepass")) > MAX_LINE_BYTES:
        size = len(stripped.encode("utf-8", "surrogatepass"))
        raise TranscriptError(source, line_no, f"line too long ({size:,} bytes; at most {MAX_LINE_BYTES:,})")
    try:
        data = json.loads(stripped)
        # a lone surrogate ("\ud800") is JSON but no text a file or the journal can hold
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except json.JSONDecodeError as exc:
        raise TranscriptError(source, line_no, f"not JSON ({exc.msg} at column {exc.colno})",
                              Phrase.of("transcript.not_json", column=exc.colno)) from None
    except RecursionError:
        raise TranscriptError(source, line_no, "not a transcript line (JSON nested too deep)") from None
    except UnicodeEncodeError:
        raise TranscriptError(source, line_no, "not valid Unicode text (a lone surrogate)") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise TranscriptError(source, line_no, f"not a transcript line ({_cut(str(exc), 60)})") from None
    if not isinstance(data, dict):
        raise TranscriptError(source, line_no, "expected a JSON object", Phrase.of("transcript.not_an_object"))
    t = data.get("t")
    if t is not None and (not isinstance(t, int | float) or isinstance(t, bool) or not math.isfinite(t)
                          or abs(t) > 1e12):
        raise TranscriptError(source, line_no, f"'t' must be seconds (a number), got {quoted(t)}")
    if "setup" in data:
        return _setup(data["setup"], source, line_no)
    if "zone" in data:
        return _card_event(data, source, line_no, tuple(zones), t)
    if "seat" in data or "button" in data:
        seat, button = data.get("seat"), data.get("button")
        if not isinstance(seat, str) or seat not in SEATS:
            raise TranscriptError(source, line_no, f"seat must be 'A' or 'B', got {quoted(seat)}")
        if not isinstance(button, str) or button not in BUTTONS:
            raise TranscriptError(source, line_no, f"button must be yes, no or king, got {quoted(button)}")
        return ButtonEvent(seat, button, t)
    raise TranscriptError(
        source, line_no, "expected a setup, a card event ('zone') or a button event ('seat', 'button')",
    )


def _card_event(data: dict[str, Any], source: str, line_no: int, zones: tuple[str, ...],
                t: float | None) -> CardEvent:
    zone = data["zone"]
    if not isinstance(zone, str) or zone not in zones:
        import difflib

        hint = difflib.get_close_matches(str(zone)[:_SHOWN], [str(z) for z in zones], n=1)
        extra = f" (did you mean {hint[0]!r}?)" if hint else f" (zones: {', '.join(ZONES)})"
        raise TranscriptError(source, line_no, f"unknown zone {quoted(zone)}{extra}")
    card, uid = data.get("card"), data.get("uid")
    if card is None and uid is None:
        raise TranscriptError(source, line_no, "a card event needs 'card' or 'uid'")
    if card is not None and not isinstance(card, str):
        raise TranscriptError(source, line_no, f"a card is written like 'KS' or 'TH', got {quoted(card)}")
    if card is not None:
        try:
            card = str(Card.parse(card))
        except NotationError as exc:
            raise TranscriptError(source, line_no, str(exc), Phrase.of("error.not_a_card", text=quoted(card))) from None
    if uid is not None:
        uid = _uid(uid, source, line_no)
    gone = data.get("gone", False)
    if not isinstance(gone, bool):
        raise TranscriptError(source, line_no, f"'gone' must be true or false, got {quoted(gone)}")
    origin, pack = data.get("origin"), data.get("pack")
    if origin is not None and (not isinstance(origin, str) or origin not in set(Origin)):
        raise TranscriptError(source, line_no, f"'origin' is one of {', '.join(Origin)}, got {quoted(origin)}")
    if pack is not None and (not isinstance(pack, int) or isinstance(pack, bool) or pack not in PACKS):
        raise TranscriptError(source, line_no, f"'pack' is {' or '.join(map(str, PACKS))}, got {quoted(pack)}")
    if (origin is not None or pack is not None) and uid is None:
        raise TranscriptError(source, line_no, "'origin' and 'pack' are a tag's: the line needs its 'uid'")
    if uid is None:
        return CardEvent(Zone(zone), card, gone, t)
    seen = Sighting(uid, card, None if origin is None else Origin(origin), pack)
    return CardEvent(Zone(zone), gone=gone, t=t, sighting=seen)


def _uid(uid: Any, source: str, line_no: int) -> str:
    text = uid.replace(":", "").strip().upper() if isinstance(uid, str) else ""
    if not text or len(text) % 2 or len(text) > 64 or any(c not in "0123456789ABCDEF" for c in text):
        raise TranscriptError(source, line_no, f"a tag UID is hexadecimal, got {quoted(uid)}")
    return text


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _setup(body: Any, source: str, line_no: int) -> Setup:
    if not isinstance(body, dict):
        raise TranscriptError(source, line_no, "setup must be an object")
    known = {"rules", "dealer", "target", "tags", "options", "players", "sight", "language"}
    unknown = set(body) - known
    if unknown:
        raise TranscriptError(source, line_no, f"unknown setup key(s): {', '.join(sorted(unknown))}")
    dealer = body.get("dealer")
    if dealer is not None and (not isinstance(dealer, str) or dealer not in SEATS):
        raise TranscriptError(source, line_no, f"dealer must be 'A' or 'B', got {quoted(dealer)}")
    target = body.get("target")
    if target is not None and (not isinstance(target, int) or isinstance(target, bool) or target < 1):
        raise TranscriptError(source, line_no, f"target must be a positive whole number, got {quoted(target)}")
    rules = body.get("rules")
    if rules is not None and not isinstance(rules, str):
        raise TranscriptError(source, line_no, f"rules must be a rule set name, got {quoted(rules)}")
    tags: dict[str, str] = {}
    raw_tags = body.get("tags", {})
    if not isinstance(raw_tags, dict):
        raise TranscriptError(source, line_no, "tags must map tag UIDs to cards")
    for uid, card in raw_tags.items():
        if not isinstance(card, str):
            raise TranscriptError(source, line_no,
                                  f"tag {quoted(uid)}: a card is written like 'KS', got {quoted(card)}")
        try:
            tags[_uid(uid, source, line_no)] = str(Card.parse(card))
        except NotationError as exc:
            raise TranscriptError(source, line_no, f"tag {quoted(uid)}: {exc}") from None
    options = body.get("options", {})
    if not isinstance(options, dict):
        raise TranscriptError(source, line_no, "options must be an object")
    players = body.get("players")
    if players is not None:
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise TranscriptError(source, line_no, "players must be a list of names")
        players = tuple(nfc(p) for p in players) or None  # one spelling of a name (a phone's NFD "José")
    sight = body.get("sight")
    if sight is not None and sight not in SIGHTS:
        raise TranscriptError(source, line_no, f"sight must be 'full' or 'partial', got {sight!r}")
    language = body.get("language")
    if language is not None and language not in LANGUAGES:
        raise TranscriptError(source, line_no,
                              f"language must be one of {', '.join(LANGUAGES)}, got {quoted(language)}")
    setup = Setup(rules, dealer, target, tags, dict(options), players, sight, language)
    problem = setup_problem(setup)
    if problem is not None:
        raise TranscriptError(source, line_no, f"setup: {english(problem)}",
                              Phrase.of("setup.refused", problem=problem))
    return setup


def setup_from_json(body: Any, *, source: str = "<input>", line_no: int = 1) -> Setup:
    """The setup of a ``{"setup": body}`` line, checked as :func:`parse_line` checks it (the page's
    ``POST /api/setup`` and the journal's resume read setups through this one door).

    :raises TranscriptError: naming what is wrong.
    """
    return _setup(body, source, line_no)


def setup_problem(setup: Setup, default_rules: str = "classic") -> Phrase | str | None:
    """Why a game cannot start with ``setup`` (its names, its rule set, or ``default_rules``, and
    its options, the length of its line), or None: the one check of every setup, whichever door
    it comes by (a transcript, the page, the menu, a badge or rule card) and on resume. The
    controller may still refuse a setup that takes the table's own defaults; the service
    journals such a line as rejected. In words (``setup.*``, said in a reader's language where it is
    printed), or the rule set's own refusal as it is (its English)::

        >>> from catalogue.phrase import said
        >>> said(setup_problem(Setup(players=("Ana", "Ana"))), "de")
        "`players`: jeder Name nur einmal, 'Ana' steht zweimal da"
    """
    if setup.players:
        if len(setup.players) not in (2, 3):
            return Phrase.of("setup.players_count", got=Count(len(setup.players)))
        for index, name in enumerate(setup.players):
            problem = None if index == 2 and name == "" else name_words(name)
            if problem is not None:
                return Phrase.of("setup.players", problem=problem)
        twice = twice_named(filter(None, setup.players))  # a pool's third name may be "" (none)
        if twice is not None:
            return Phrase.of("setup.players_twice", name=quoted(twice.strip()))
    size = len(dumps(setup).encode("utf-8", "surrogatepass"))
    if size > MAX_LINE_BYTES:
        return Phrase.of("setup.line_size", size=Count(size), most=Count(MAX_LINE_BYTES))
    options = dict(setup.options)
    if setup.target is not None:
        options["target"] = setup.target
    players = setup.players if setup.players and len(setup.players) == 3 else None
    try:
        engine.new_game(setup.rules or default_rules, dealer=setup.dealer, players=players, **options)
    except TypeError:
        given = ", ".join(f"{key}={quoted(value)}" for key, value in options.items())
        return Phrase.of("setup.options_type", given=_cut(given, 173))  # 200 in all, as it was
    except (EcarteError, ValueError, KeyError) as exc:
        return _cut(str(exc), 200)
    return None


def read_lines(stream: IO[bytes], source: str, *,
               limit: int = MAX_LINE_BYTES) -> Iterator[tuple[int, str | TranscriptError]]:
    """The lines of a byte stream, numbered from 1, as text or as the reason they cannot be read.

    Streams: at most ``limit`` bytes of a line are held (a longer line is skipped to its end and
    reported without being echoed); a line that is not UTF-8 is reported, and reading goes on. A
    line still without its end after :data:`MAX_SKIP_LINES` times ``limit`` bytes (``/dev/zero``)
    is reported and ends the reading: nothing after it is read.
    """
    line_no = 0
    while True:
        chunk = stream.readline(limit + 1)
        if not chunk:
            return
        line_no += 1
        if len(chunk) > limit and not chunk.endswith(b"\n"):
            size = len(chunk)
            while chunk and not chunk.endswith(b"\n"):
                if size > MAX_SKIP_LINES * limit:
                    yield line_no, TranscriptError(
                        source, line_no, f"line too long (more than {size:,} bytes and no end; at most "
                        f"{limit:,}): nothing after it is read")
                    return
                chunk = stream.readline(limit)
                size += len(chunk)
            yield line_no, TranscriptError(source, line_no, f"line too long ({size:,} bytes; at most {limit:,})")
            continue
        try:
            yield line_no, chunk.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield line_no, TranscriptError(
                source, line_no, f"not UTF-8 text (byte 0x{chunk[exc.start]:02x} at column {exc.start + 1})",
            )


def read_transcript(lines: Iterable[str], *, source: str = "<input>",
                    errors: list[TranscriptError] | None = None) -> Iterator[tuple[int, PhysicalEvent]]:
    """Yield ``(line number, event)`` for each event line.

    With ``errors`` None the first bad line raises :class:`TranscriptError`;
    otherwise every bad line is appended to ``errors`` and skipped.
    A ``setup`` line after the first event is an error.
    """
    return read_numbered(enumerate(lines, start=1), source=source, errors=errors)


def read_numbered(lines: Iterable[tuple[int, str | TranscriptError]], *, source: str = "<input>",
                  errors: list[TranscriptError] | None = None) -> Iterator[tuple[int, PhysicalEvent]]:
    """:func:`read_transcript` of numbered lines (:func:`read_lines`)."""
    seen_event = False
    for line_no, text in lines:
        try:
            if isinstance(text, TranscriptError):
                raise text
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


def event_line(event: Event, seq: int | None = None, extra: dict[str, Any] | None = None) -> str:
    """One line of ``--json`` output: the event (a fault and a notice with their words in English:
    :func:`~firmware_host.referee.event_words.contract_json`), ``extra`` fields (the players' names on
    ``game_end`` and ``new_game``: who sat where), then its ``seq`` (when it has one)."""
    data = contract_json(event)
    if extra:
        data.update(extra)
    if seq is not None:
        data["seq"] = seq
    return json.dumps(data, ensure_ascii=False)
