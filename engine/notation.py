"""JSON codec shared by actions and events: plain fields, cards as ``"TH"``."""

from __future__ import annotations

import dataclasses
import typing
from enum import StrEnum
from typing import Any

from engine.cards import Card
from engine.ecarte_errors import NotationError


def encode_value(value: Any) -> Any:
    """A field value as JSON data: cards and a :class:`~enum.StrEnum`'s members (a phase, a fault's code) as
    text, tuples as lists."""
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, StrEnum):
        return str(value)
    if isinstance(value, tuple):
        return [encode_value(v) for v in value]
    if isinstance(value, dict):
        return {k: encode_value(v) for k, v in value.items()}
    return value


def encode_fields(obj: Any) -> dict[str, Any]:
    """Every init field of a dataclass instance, encoded."""
    return {
        f.name: encode_value(getattr(obj, f.name))
        for f in dataclasses.fields(obj)
        if f.init
    }


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = typing.get_type_hints(cls)
        _HINTS[cls] = hints
    return hints


def _decode(hint: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    if hint is Card:
        return Card.parse(value)
    if isinstance(hint, type) and issubclass(hint, StrEnum):
        try:
            return hint(value)
        except ValueError:
            raise NotationError(f"{where}: {value!r} is not one of {', '.join(hint)}") from None
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise NotationError(f"{where}: expected a list, got {value!r}")
        args = typing.get_args(hint)
        inner = args[0] if args else Any
        if (len(args) == 2 and args[1] is Ellipsis) or len(args) == 1:
            return tuple(_decode(inner, v, where) for v in value)
        return tuple(_decode(a, v, where) for a, v in zip(args, value, strict=True))
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        if value is None:
            return None
        problem: NotationError | None = None
        for arg in typing.get_args(hint):
            if arg is type(None):
                continue
            try:
                return _decode(arg, value, where)
            except NotationError as exc:  # the next of the union's types may take it
                problem = exc
        if problem is not None:
            raise problem
    if origin is dict:
        if not isinstance(value, dict):
            raise NotationError(f"{where}: expected an object, got {value!r}")
        _, vt = typing.get_args(hint)
        return {k: _decode(vt, v, where) for k, v in value.items()}
    return value


def decode_fields(cls: type, data: dict[str, Any], where: str) -> Any:
    """Build ``cls`` from encoded fields.

    :raises NotationError: naming ``where`` and the field that does not fit.
    """
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        if f.name not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise NotationError(f"{where}: missing field {f.name!r}")
            continue
        kwargs[f.name] = _decode(hints[f.name], data[f.name], f"{where}.{f.name}")
    unknown = set(data) - set(kwargs) - {"action", "event"} - {
        f.name for f in dataclasses.fields(cls)
    }
    if unknown:
        raise NotationError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise NotationError(f"{where}: {exc}") from exc
