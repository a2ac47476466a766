"""A message kept as data until it is printed, worded in a language at the edge.

A check that finds a problem (the table file's, a tag registry's) does not know who will read it nor
in which language: it keeps a :class:`~engine.message.Phrase` (the one carrier of a message's id and
values, which the engine and the drivers make too), and whoever prints it says it in the reader's
language (``ecarte-table doctor --language es``, a refused ``run``) with :func:`said`. A value may be a
phrase itself (a type's name, a hint), said in the same language; a message with plural forms takes its
number from ``n``::

    >>> problem = Phrase.of("table_file.type", expected=Phrase.of("table_file.type.int"),
    ...                     got=Phrase.of("table_file.type.str"), value="'five'")
    >>> said(problem, "en"), said(problem, "es")
    ("must be an integer, not a string ('five')", "debe ser un número entero, no un texto ('five')")
    >>> english(problem) == said(problem, "en")
    True
"""

from __future__ import annotations

import contextlib
import errno
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine.message import Count, Phrase

__all__ = ["Count", "Joined", "Phrase", "SaidFormatter", "WordedError", "english", "joined", "log_said",
           "logged", "os_words", "said", "said_at_the_console"]


def said(words: Phrase | Joined | Count | Any, lang: str) -> str:
    """``words`` in ``lang``: a :class:`~engine.message.Phrase` (a message with plural forms in the form
    for its ``n``), each value that says itself (a phrase, a count, a refusal with its own words) said in
    ``lang`` too, a :class:`~engine.message.Count` in the language's digits (Babel, CLDR), an error by the
    words it carries (its ``words``), else an :class:`OSError` by why the system refused
    (:func:`catalogue.os_reason`) and any other by its message; a string as it is::

        >>> said(Phrase.of("error.cannot_open", path="/x", reason=FileNotFoundError(2, "x")), "it")
        'impossibile aprire /x: nessun file o cartella con questo nome'
        >>> said(Count(1_048_576), "en"), said(Count(1_048_576), "de")
        ('1,048,576', '1.048.576')

    :raises KeyError: an id the catalogue does not hold.
    """
    from catalogue import is_plural, say, say_n

    if not isinstance(words, Phrase):
        return str(_value_said(words, lang))
    values = {key: _value_said(value, lang) for key, value in words.values}
    if is_plural(words.msgid) and "n" in values:
        n = int(values.pop("n"))
        return say_n(lang, words.msgid, n, **values)
    return say(lang, words.msgid, **values)


def english(words: Phrase | Joined | Count | Any) -> str:
    """``words`` in English (:func:`said`): an error's message, a log's line."""
    return said(words, "en")


def _value_said(value: Any, lang: str) -> Any:
    """A message's value in ``lang``: one that says itself said, an :class:`OSError` by why the system
    refused, any other as it is."""
    from catalogue import has, os_reason

    if isinstance(value, Phrase):
        return said(value, lang)
    if isinstance(value, Count):
        from babel.numbers import format_decimal

        from catalogue import language

        return str(format_decimal(value.value, locale=language(lang)))
    if isinstance(value, BaseException):
        carried = getattr(value, "words", None)
        if carried is not None and not (isinstance(carried, Phrase) and not has(carried.msgid)):
            return said(carried, lang)
        return os_reason(lang, value) if isinstance(value, OSError) else str(value)
    method = getattr(value, "said", None)  # the few that word themselves (tests/test_words_at_the_edge.py)
    return method(lang) if callable(method) else value


def os_words(exc: OSError) -> Phrase | str:
    """Why the system refused, as a phrase (``os.ENOENT``...; one the catalogue does not word by its
    code's name, ``os.other``), else, for an ``OSError`` with no code, its library's own words; said as
    :func:`catalogue.os_reason` says it::

        >>> said(os_words(OSError(errno.ECONNRESET, "x")), "de")
        'das System hat abgelehnt (ECONNRESET)'
    """
    from catalogue import _REASONS

    name = _REASONS.get(exc.errno or 0)
    if name is not None:
        return Phrase.of("os." + name)
    if exc.errno is None:
        return str(exc) or type(exc).__name__
    return Phrase.of("os.other", name=errno.errorcode.get(exc.errno, str(exc.errno)))


@dataclass(frozen=True, slots=True)
class Joined:
    """Phrases said one after the other, ``sep`` between them (``"; "``: a line of several parts; a string
    among them, a name or a path, as it is)::

        >>> said(Joined(("/x/tags.json", Phrase.of("os.ENOENT")), ": "), "es")
        '/x/tags.json: no existe tal archivo o carpeta'
    """

    parts: tuple[Phrase | Joined | str, ...]
    sep: str = "; "

    def said(self, lang: str) -> str:
        """The parts in ``lang``."""
        return self.sep.join(said(part, lang) for part in self.parts)


def joined(words: Phrase | Joined | tuple[Phrase, ...] | list[Phrase]) -> Phrase | Joined:
    """Words as a layer below the catalogue gives them (the drivers: a phrase, or several said one after
    the other, in a tuple)::

        >>> said(joined((Phrase.of("log.pad_frames", pad="turnup", frames=Phrase.of(
        ...     "log.frames", n=2, retried=2, sent=Count(4210))),)), "fr")
        'tapis turnup : 2 trames renvoyées sur 4\u202f210'
    """
    return Joined(tuple(words)) if isinstance(words, tuple | list) else words


def logged(words: Phrase | Joined) -> dict[str, Any]:
    """The ``extra`` of a log line a person may read at a console (``logger.info(..., extra=logged(...))``):
    its words, said in the console's language by :class:`SaidFormatter`; the log keeps its English."""
    return {"said": words}


def log_said(logger: logging.Logger, level: int, words: Phrase | Joined) -> None:
    """Log ``words`` once: the log's line is their English, the catalogue's (formatted only if the line is
    kept), and a console in a language says them in its own (:class:`SaidFormatter`)::

        >>> import io
        >>> handler = logging.StreamHandler(stream := io.StringIO())
        >>> handler.setFormatter(SaidFormatter("de"))
        >>> logger = logging.getLogger("doctest.log_said")
        >>> logger.addHandler(handler)
        >>> logger.propagate = False
        >>> log_said(logger, logging.WARNING, Phrase.of("log.reader_back", pad="turnup"))
        >>> stream.getvalue().splitlines()
        ['WARNING doctest.log_said: der Leser turnup ist zurück']
    """
    logger.log(level, "%s", _InEnglish(words), extra=logged(words))


@dataclass(frozen=True, slots=True)
class _InEnglish:
    """A log line's argument: ``words`` in English, worded only if the line is kept."""

    words: Phrase | Joined

    def __str__(self) -> str:
        return english(self.words)


class SaidFormatter(logging.Formatter):
    """A console's formatter in a language: a line logged with words (:func:`logged`) is those words in
    ``lang`` (a warning or worse keeps its level and logger before them); any other as ``fallback`` formats
    it::

        >>> record = logging.LogRecord("venue.table.page", logging.INFO, "", 0, "the table's page: %s", ("http://x",),
        ...                            None)
        >>> record.said = Phrase.of("log.page", url="http://x")
        >>> SaidFormatter("es").format(record)
        'la página de la mesa: http://x'
    """

    def __init__(self, lang: str, fallback: logging.Formatter | None = None) -> None:
        super().__init__("%(levelname)s %(name)s: %(message)s")
        self.lang = lang
        self.fallback = fallback or logging.Formatter("%(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        words = getattr(record, "said", None)
        if isinstance(words, tuple | list):  # a driver's phrases, said one after the other
            words = joined(words)
        if not isinstance(words, Phrase | Joined):
            return self.fallback.format(record)
        text = said(words, self.lang)
        return text if record.levelno <= logging.INFO else f"{record.levelname} {record.name}: {text}"


@contextlib.contextmanager
def said_at_the_console(lang: str) -> Iterator[None]:
    """The console's log lines a person reads (the page's address, the pads' frames...) in ``lang``
    while the demo plays (:class:`catalogue.phrase.SaidFormatter`); the others as they were."""
    handlers = [(handler, handler.formatter) for handler in logging.getLogger().handlers]
    for handler, formatter in handlers:
        handler.setFormatter(SaidFormatter(lang, formatter))
    try:
        yield
    finally:
        for handler, formatter in handlers:
            handler.setFormatter(formatter)


class WordedError(ValueError):
    """A refusal whose ``words`` are said in the reader's language where it is printed (:func:`said`); its
    English is its message."""

    def __init__(self, words: Phrase | str) -> None:
        super().__init__(english(words))
        self.words = words
