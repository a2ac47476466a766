"""The checks every section of a table file shares: every problem collected with its
key, a type named as TOML writes it, a misspelt name answered with the one meant.

:class:`Problems` gathers ``(key, message)`` pairs while a file is read, so the
reader reports every problem at once (:class:`hardware.table.TableFileError`).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any


def suggest(name: str, candidates: Sequence[str]) -> str | None:
    """The candidate ``name`` was probably meant to be, or ``None``.

    >>> suggest("play.a", ["play.A", "play.B"])
    'play.A'
    """
    for candidate in candidates:
        if candidate.lower() == name.lower():
            return candidate
    lowered = {candidate.lower(): candidate for candidate in candidates}
    close = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
    return lowered[close[0]] if close else None


def unknown(what: str, name: str, candidates: Sequence[str]) -> str:
    """``unknown pad `x`: did you mean `y`?``, or the names expected when none is close."""
    suggestion = suggest(name, candidates)
    if suggestion is not None:
        return f"unknown {what} `{name}`: did you mean `{suggestion}`?"
    return f"unknown {what} `{name}`: expected one of {', '.join(candidates)}"


TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", dict: "a table",
               bool: "true or false", list: "a list"}


def type_message(value: Any, expected: type) -> str:
    """What a value of the wrong type is, and what was expected (quoted numbers: write them bare)."""
    got = TYPE_NAMES.get(type(value), type(value).__name__)
    message = f"must be {TYPE_NAMES[expected]}, not {got} ({value!r})"
    if isinstance(value, str) and expected in (int, float):
        try:
            number = int(value, 0) if expected is int else float(value)
        except ValueError:
            return message
        written = hex(int(number)) if value.lower().startswith("0x") else value
        return f"{message}: write {written} without quotes"
    return message


class Problems:
    """Collects ``(key, message)`` pairs while a table file is checked."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []

    def __len__(self) -> int:
        return len(self.items)

    def add(self, key: str, message: str) -> None:
        self.items.append((key, message))

    def section(
        self, data: Mapping[str, Any], name: str, *, required: bool
    ) -> Mapping[str, Any] | None:
        value = data.get(name)
        if value is None:
            if required:
                self.add(name, f"missing: the table needs a [{name}] section")
            return None
        if not isinstance(value, dict):
            self.add(name, f"{type_message(value, dict)}: write it as a [{name}] section")
            return None
        return value

    def unknown_keys(
        self, prefix: str, section: Mapping[str, Any] | None, known: Sequence[str]
    ) -> None:
        for key in section or ():
            if key not in known:
                where = f"{prefix}.{key}" if prefix else key
                self.add(where, unknown("key", key, known))

    def value(
        self, section: Mapping[str, Any] | None, key: str, kind: type, *, default: Any
    ) -> Any:
        name = key.rsplit(".", 1)[-1]
        if section is None or name not in section:
            return default
        value = section[name]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            self.add(key, type_message(value, kind))
            return default if default is not None else None
        return value

    def choice(
        self, section: Mapping[str, Any] | None, key: str, choices: Sequence[str], *,
        default: str,
    ) -> str:
        value = self.value(section, key, str, default=default)
        if value not in choices:
            what = key.rsplit(".", 1)[-1]
            suggestion = suggest(value, choices)
            hint = (f"did you mean {suggestion!r}?" if suggestion
                    else f"expected one of {', '.join(repr(c) for c in choices)}")
            self.add(key, f"unknown {what} {value!r}: {hint}")
        return str(value)
