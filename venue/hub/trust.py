"""What the hub accepts from MQTT: every payload checked against its documented shape (docs/web.md).

A table's messages reach the hub from the network; the hub believes none it cannot check.
:func:`check` takes a topic's kind (``state``, ``record``, ``availability``) and its raw
payload and returns the payload as the hub may use it, or raises :class:`Untrusted` with
one line saying why (the hub logs it and drops the message). Only the fields the hub reads
are checked; others pass through untouched (a newer table may send more).

    >>> check("state", b'{"game": 1, "winner": "A", "players": ["Ann", "Bob", ""],'
    ...       b' "view": {"score": [5, 2]}}')["winner"]
    'A'
    >>> check("state", b'[1, 2]')
    Traceback (most recent call last):
    ...
    venue.hub.trust.Untrusted: state: expected a JSON object, not list
    >>> check("state", b'{"view": {"score": [NaN, 1]}}')
    Traceback (most recent call last):
    ...
    venue.hub.trust.Untrusted: state: not JSON (NaN is not a number)
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from engine.cards import RANKS, SUITS
from engine.seats import SEATS

MAX_STATE_BYTES = 64 * 1024
MAX_RECORD_BYTES = 512 * 1024
MAX_POINTS = 1_000
MAX_NAME = 64
MAX_GAME = 100_000
"""A table's game numbers: its journal counts them from 1, one a game. Forty games an evening, every
evening, is seven years to 100,000: a number past it (999,999,999) is no game a table played."""
TOPIC_LEVEL = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""A venue's or a table's name: one topic level, no ``/``, ``#``, ``+``, no spaces."""
CARD = re.compile(rf"^[{RANKS}][{SUITS}]$")
"""A card of the piquet pack as the tables write it (``KS``, ``TH``): what the page draws."""


class Untrusted(ValueError):
    """A payload the hub does not accept (the message says which field and why)."""


def _refuse_constant(name: str) -> Any:
    raise Untrusted(f"{name} is not a number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise Untrusted(f"{text} is out of range")
    return value


def parse_json(kind: str, payload: bytes, limit: int) -> Any:
    """The payload as JSON: UTF-8, at most ``limit`` bytes, finite numbers only."""
    if len(payload) > limit:
        raise Untrusted(f"{kind}: {len(payload)} bytes, more than {limit}")
    try:
        return json.loads(payload.decode("utf-8"), parse_constant=_refuse_constant, parse_float=_finite_float)
    except Untrusted as exc:
        raise Untrusted(f"{kind}: not JSON ({exc})") from None
    except (ValueError, RecursionError) as exc:
        raise Untrusted(f"{kind}: not JSON ({str(exc)[:80]})") from None


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _field(where: str, data: dict[str, Any], key: str, ok: Callable[[Any], bool], what: str,
           default: Any = None) -> Any:
    value = data.get(key, default)
    if not ok(value):
        raise Untrusted(f"{where}.{key}: expected {what}, not {_short(value)}")
    return value


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:40] + "…"


def _is_int(value: Any, low: int = 0, high: int = 10**9) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _is_game(value: Any) -> bool:
    return _is_int(value, 0, MAX_GAME)


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= MAX_NAME


def _is_card(value: Any) -> bool:
    return isinstance(value, str) and CARD.match(value) is not None


def _optional(test: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: value is None or test(value)


def check_state(data: Any) -> dict[str, Any]:
    """A table's ``state``: an object whose fields the hub reads have their documented types."""
    if not isinstance(data, dict):
        raise Untrusted(f"state: expected a JSON object, not {_type_name(data)}")
    _field("state", data, "game", _optional(_is_game), f"a game number up to {MAX_GAME:,}")
    _field("state", data, "hand", _optional(_is_int), "a hand number")
    _field("state", data, "winner", lambda v: v in (None, "", "A", "B"), '"A", "B" or null')
    _field("state", data, "players", _optional(
        lambda v: isinstance(v, list) and 2 <= len(v) <= 3 and all(_is_name(p) for p in v)),
        "a list of two or three names")
    _field("state", data, "expectation", _optional(lambda v: isinstance(v, str) and len(v) <= 500), "a text")
    _field("state", data, "t", _optional(lambda v: isinstance(v, int | float) and not isinstance(v, bool)),
           "a time in seconds")
    _field("state", data, "faults", _optional(lambda v: isinstance(v, list) and len(v) <= 1000), "a list")
    _field("state", data, "prompt", _optional(lambda v: isinstance(v, dict)), "an object")
    prompt = data.get("prompt") or {}
    _field("state.prompt", prompt, "seat", _optional(lambda v: v in ("A", "B", "")), '"A", "B" or null')
    view = _field("state", data, "view", _optional(lambda v: isinstance(v, dict)), "an object") or {}
    _field("state.view", view, "score", _optional(
        lambda v: isinstance(v, list) and len(v) == 2 and all(_is_int(p, 0, MAX_POINTS) for p in v)),
        "two points from 0 to 1000")
    _field("state.view", view, "tricks", _optional(
        lambda v: isinstance(v, list) and len(v) == 2 and all(_is_int(p, 0, 5) for p in v)), "two tricks from 0 to 5")
    _field("state", data, "last_trick", _optional(
        lambda v: isinstance(v, dict) and isinstance(v.get("cards"), dict)
        and all(_is_card(v["cards"].get(seat)) for seat in SEATS)),
        'a trick whose cards are {"A": card, "B": card}')
    _field("state.view", view, "target", _optional(lambda v: _is_int(v, 1, MAX_POINTS)), "a number of points")
    _field("state.view", view, "phase", _optional(lambda v: isinstance(v, str) and len(v) <= 40), "a phase")
    _field("state.view", view, "trump", _optional(_is_card), "a card")
    _field("state.view", view, "trick", _optional(
        lambda v: isinstance(v, list) and len(v) <= 2 and all(
            isinstance(p, list) and len(p) == 2 and p[0] in SEATS and _is_card(p[1]) for p in v)),
        "a list of [seat, card]")
    if data.get("winner") and (data.get("players") is None or view.get("score") is None):
        raise Untrusted("state: a winner without players and a score")
    return data


def check_record(data: Any) -> dict[str, Any]:
    """A table's ``record``: ``{"table", "game", "tags", "hands", "text"}``."""
    if not isinstance(data, dict):
        raise Untrusted(f"record: expected a JSON object, not {_type_name(data)}")
    _field("record", data, "text", lambda v: isinstance(v, str), "a text", "")
    _field("record", data, "game", _optional(_is_game), f"a game number up to {MAX_GAME:,}")
    _field("record", data, "hands", _optional(lambda v: isinstance(v, list)), "a list")
    _field("record", data, "tags", _optional(lambda v: isinstance(v, dict)), "an object")
    return data


def check_game(data: Any) -> dict[str, Any]:
    """A finished game of a table's journal (``games/<n>``): its number, players, score, winner, end time."""
    if not isinstance(data, dict):
        raise Untrusted(f"games: expected a JSON object, not {_type_name(data)}")
    _field("games", data, "game", lambda v: _is_int(v, 1, MAX_GAME), f"a game number from 1 to {MAX_GAME:,}")
    _field("games", data, "players", lambda v: isinstance(v, list) and len(v) == 2 and all(_is_name(p) for p in v),
           "a list of two names")
    _field("games", data, "score", lambda v: isinstance(v, dict) and set(v) == set(SEATS) and all(
        _is_int(p, 0, MAX_POINTS) for p in v.values()), '{"A": points, "B": points}')
    _field("games", data, "winner", lambda v: v in SEATS, '"A" or "B"')
    _field("games", data, "ended", lambda v: isinstance(v, int | float) and not isinstance(v, bool) and v >= 0,
           "a time in seconds")
    _field("games", data, "text", lambda v: isinstance(v, str), "a text", "")
    return data


def check(kind: str, payload: bytes) -> Any:
    """The payload of one of a table's topics as the hub may use it.

    :raises Untrusted: for a payload that is not of the documented shape.
    """
    if kind == "availability":
        if payload not in (b"online", b"offline"):
            raise Untrusted(f"availability: expected online or offline, not {payload[:40]!r}")
        return payload.decode()
    if kind == "state":
        return check_state(parse_json(kind, payload, MAX_STATE_BYTES))
    if kind == "record":
        return check_record(parse_json(kind, payload, MAX_RECORD_BYTES))
    if kind == "games":
        return check_game(parse_json(kind, payload, MAX_RECORD_BYTES))
    raise Untrusted(f"{kind}: not a topic the hub reads")
