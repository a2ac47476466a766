"""The checks every section of a table file shares: every problem collected with its
key, a type named as TOML writes it, a misspelt name answered with the one meant.

:class:`Problems` gathers each :class:`Problem` (its key and its words, a
:class:`~catalogue.phrase.Phrase`: ``table_file.*``) while a file is read, so the reader reports
every problem at once (:class:`hardware.table.TableFileError`), in the language of whoever reads it::

    >>> problem = Problem("table.target", type_message("5", int))
    >>> said(problem.line, "en")
    "table.target: must be an integer, not a string ('5'): write 5 without quotes"
    >>> said(problem.line, "fr")
    "table.target: doit être un nombre entier, pas un texte ('5') : écrivez 5 sans guillemets"
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from catalogue.phrase import Joined, Phrase, said


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


UNKNOWN = ("pad", "key", "seat", "zone", "shipped_table")
"""What :func:`unknown` names (``table_file.unknown.<what>``)."""


def unknown(what: str, name: str, candidates: Sequence[str]) -> Phrase:
    """``unknown pad `x`: did you mean `y`?``, or the names expected when none is close (``what``:
    one of :data:`UNKNOWN`)."""
    suggestion = suggest(name, candidates)
    thing = Phrase.of(f"table_file.unknown.{what}", name=f"`{name}`")
    hint = (Phrase.of("table_file.mean", name=f"`{suggestion}`") if suggestion is not None
            else Phrase.of("table_file.one_of", names=", ".join(candidates)))
    return Phrase.of("table_file.hinted", problem=thing, hint=hint)


TYPE_NAMES = {str: "str", int: "int", float: "float", dict: "dict", bool: "bool", list: "list"}
"""A TOML value's Python type → its name's message (``table_file.type.<name>``: "an integer")."""


def type_message(value: Any, expected: type) -> Phrase:
    """What a value of the wrong type is, and what was expected (quoted numbers: write them bare)."""
    name = TYPE_NAMES.get(type(value))
    got: Phrase | str = Phrase.of(f"table_file.type.{name}") if name else type(value).__name__
    message = Phrase.of("table_file.type", expected=Phrase.of(f"table_file.type.{TYPE_NAMES[expected]}"), got=got,
                        value=repr(value))
    if isinstance(value, str) and expected in (int, float):
        try:
            number = int(value, 0) if expected is int else float(value)
        except ValueError:
            return message
        written = hex(int(number)) if value.lower().startswith("0x") else value
        return Phrase.of("table_file.unquote", problem=message, written=written)
    return message


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem of a file: its ``key``, dotted from the top of the file (``pads.play.a``,
    ``displays[0].address``; empty for the whole file), and its ``words`` (a string: said as it is)."""

    key: str
    words: Phrase | Joined | str

    def message(self, lang: str = "en") -> str:
        """The problem in ``lang``, without its key."""
        return said(self.words, lang)

    @property
    def line(self) -> Phrase | Joined | str:
        """``key: message`` (the message alone for the whole file), to be said in a reader's language."""
        return Joined((self.key, self.words), ": ") if self.key else self.words


def listed(source: str, found: Sequence[Problem]) -> Joined:
    """The problems ``found`` of the file ``source`` on one line: ``source: key: problem; key: problem``."""
    return Joined((source, Joined(tuple(problem.line for problem in found), "; ")), ": ")


class Problems:
    """Collects every :class:`Problem` while a table file is checked."""

    def __init__(self) -> None:
        self.found: list[Problem] = []

    @property
    def items(self) -> list[tuple[str, str]]:
        """``(key, message)`` pairs, in English."""
        return [(problem.key, problem.message()) for problem in self.found]

    def __len__(self) -> int:
        return len(self.found)

    def add(self, key: str, words: Phrase | Joined | str) -> None:
        self.found.append(Problem(key, words))

    def section(
        self, data: Mapping[str, Any], name: str, *, required: bool
    ) -> Mapping[str, Any] | None:
        value = data.get(name)
        if value is None:
            if required:
                self.add(name, Phrase.of("table_file.missing_section", section=f"[{name}]"))
            return None
        if not isinstance(value, dict):
            self.add(name, Phrase.of("table_file.as_section", problem=type_message(value, dict), section=f"[{name}]"))
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
            hint = (Phrase.of("table_file.mean", name=repr(suggestion)) if suggestion
                    else Phrase.of("table_file.one_of", names=", ".join(repr(c) for c in choices)))
            self.add(key, Phrase.of("table_file.hinted", hint=hint,
                                    problem=Phrase.of("table_file.unknown.value", what=what, value=repr(value))))
        return str(value)
