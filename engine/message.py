"""The one carrier of words: a message's id and its values, in no language.

Whatever tells a person something, from the engine up (a fault, what the table waits for, a pad's retried
frames, a table file's problem, a refusal), keeps it as a :class:`Phrase` and the edge words it in the
reader's language (:func:`catalogue.phrase.said`): the engine and the drivers know no catalogue, so this
leaf is what they, the catalogue and every layer above share (tests/test_layering.py's ``THE_WORDS``)::

    >>> Phrase.of("prompt.draw", seat="B", n="2")
    Phrase(msgid='prompt.draw', values=(('seat', 'B'), ('n', '2')))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Count", "Phrase"]


@dataclass(frozen=True, slots=True)
class Phrase:
    """The message ``msgid`` of the catalogue with its ``values`` (pairs, in order): a value may be a
    phrase itself (a type's name, a hint), worded in the same language; a message with plural forms takes
    its number from ``n``."""

    msgid: str
    values: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, msgid: str, /, **values: Any) -> Phrase:
        """The phrase ``msgid`` with ``values``."""
        return cls(msgid, tuple(values.items()))


@dataclass(frozen=True, slots=True)
class Count:
    """A whole number that a language writes with its digits grouped (``1,048,576``, ``1.048.576`` in
    German): a phrase's value, worded by the catalogue (Babel, CLDR)."""

    value: int
