"""A message kept as data until it is printed: its id and its values, worded in a language at the edge.

A check that finds a problem (the table file's, a tag registry's) does not know who will read it nor
in which language: it keeps a :class:`Phrase`, and whoever prints it says it in the reader's language
(``ecarte-table doctor --language es``, a refused ``run``). A value may be a phrase itself (a type's
name, a hint), said in the same language; a message with plural forms takes its number from ``n``::

    >>> problem = Phrase.of("table_file.type", expected=Phrase.of("table_file.type.int"),
    ...                     got=Phrase.of("table_file.type.str"), value="'five'")
    >>> problem.said("en"), problem.said("es")
    ("must be an integer, not a string ('five')", "debe ser un número entero, no un texto ('five')")
    >>> str(problem) == problem.said("en")
    True
"""

from __future__ import annotations

import errno
from dataclasses import dataclass
from typing import Any

__all__ = ["Count", "Phrase", "os_reason", "os_words"]


@dataclass(frozen=True, slots=True)
class Count:
    """A whole number written as the reader's language groups its digits (Babel, CLDR)::

        >>> Count(1_048_576).said("en"), Count(1_048_576).said("de")
        ('1,048,576', '1.048.576')
    """

    value: int

    def said(self, lang: str) -> str:
        """The number in ``lang``'s digits."""
        from babel.numbers import format_decimal

        from catalogue import language

        return str(format_decimal(self.value, locale=language(lang)))

    def __str__(self) -> str:
        return self.said("en")


@dataclass(frozen=True, slots=True)
class Phrase:
    """The message ``msgid`` of the catalogue with its ``values`` (pairs, in order); its English is
    its ``str``."""

    msgid: str
    values: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, msgid: str, /, **values: Any) -> Phrase:
        """The phrase ``msgid`` with ``values`` (a :class:`Phrase` among them is said in turn)."""
        return cls(msgid, tuple(values.items()))

    def said(self, lang: str) -> str:
        """The words in ``lang`` (a message with plural forms in the form for its ``n``).

        :raises KeyError: an id the catalogue does not hold.
        """
        from catalogue import is_plural, say, say_n

        values = {key: value.said(lang) if isinstance(value, Phrase | Count) else value for key, value in self.values}
        if is_plural(self.msgid):
            n = int(values.pop("n"))
            return say_n(lang, self.msgid, n, **values)
        return say(lang, self.msgid, **values)

    def __str__(self) -> str:
        return self.said("en")


_REASONS = {errno.ENOENT: "ENOENT", errno.EACCES: "EACCES", errno.EPERM: "EACCES", errno.EISDIR: "EISDIR",
            errno.ENOTDIR: "ENOTDIR", errno.ENOSPC: "ENOSPC", errno.EROFS: "EROFS", errno.EBUSY: "EBUSY"}
"""The system's refusals the catalogue words (``os.<name>``)."""


def os_words(exc: OSError) -> Phrase | str:
    """Why the system refused, as a phrase (``os.ENOENT``...), else the system's own words."""
    name = _REASONS.get(exc.errno or 0)
    return Phrase.of("os." + name) if name is not None else exc.strerror or str(exc)


def os_reason(lang: str, exc: OSError) -> str:
    """Why the system refused, in ``lang``'s words (``os.ENOENT``: "no existe"), else the system's own::

        >>> os_reason("es", FileNotFoundError(errno.ENOENT, "No such file or directory"))
        'no existe tal archivo o carpeta'
    """
    words = os_words(exc)
    return words.said(lang) if isinstance(words, Phrase) else words
