"""The service's errors."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from typing import TYPE_CHECKING, Any

from catalogue import os_reason

if TYPE_CHECKING:  # the phrases' module is imported when words are made (the engine's carrier with it)
    from catalogue.phrase import Joined, Phrase

    Words = Phrase | Joined | Exception
    """Words kept as data until printed, in the reader's language (:func:`catalogue.phrase.said`): a
    phrase, phrases said one after the other, or an error that carries its own (its ``words``)."""

__all__ = ["BadInput", "invoked_as", "os_reason", "run_said", "words_of"]


class BadInput(Exception):
    """Input the table cannot use: the message names the file, the line and what was expected.

    The command line prints it and exits with status 2, in the language asked (``--language``, else
    the environment's ``LANG``), from its ``words`` (:func:`catalogue.phrase.said`): the catalogue's
    ``msgid`` and its ``values`` (a :class:`~engine.message.Phrase`, the one carrier of a message's id and
    values; its English, ``str()``, the catalogue's too, unless ``message`` is given), an :class:`OSError`
    among the values said in words with :func:`os_reason`, an error among them by its own words; or
    ``words`` given whole (a table file's problems). ``language``:
    the language of the input itself, where it names one (a table file's ``[table] language``), said in
    when no ``--language`` is given::

        >>> from catalogue.phrase import said
        >>> said(BadInput(msgid="error.no_journal", path="/x/j.sqlite"), "es")
        'no hay ningún diario en /x/j.sqlite'
        >>> str(BadInput(msgid="error.no_journal", path="/x/j.sqlite"))
        'no journal at /x/j.sqlite'
    """

    def __init__(self, message: str | None = None, *, msgid: str | None = None,
                 words: Words | None = None, language: str | None = None, **values: Any) -> None:
        from catalogue.phrase import Phrase, english

        if msgid is not None:
            words = Phrase.of(msgid, **values)
        if message is None:
            if words is None:
                raise TypeError("BadInput needs its message, its message id or its words")
            message = english(words)
        super().__init__(message)
        self.words = words
        self.language = language

    @classmethod
    def of(cls, exc: BaseException) -> BadInput:
        """``exc`` refused as input: in words where it carries them (its ``words``, as a table file's
        problems, a :class:`~catalogue.phrase.WordedError`'s or a journal's error do), else its English as it
        is; the language of the input it names kept."""
        language = getattr(exc, "language", None)
        language = language if isinstance(language, str) else None
        words = words_of(exc)
        return cls(str(exc), words=None if isinstance(words, str) else words, language=language)


def words_of(exc: BaseException) -> Words | str:
    """``exc``'s words where it carries them (its ``words``), else its English as it is::

        >>> from catalogue.phrase import said
        >>> said(words_of(BadInput(msgid="error.no_folder", folder="/x")), "fr")
        "le dossier /x n'existe pas"
    """
    from catalogue.phrase import Joined, Phrase

    words = getattr(exc, "words", None)
    return words if isinstance(words, Phrase | Joined | Exception) else str(exc)


def invoked_as(argv0: str | None = None, path: str | None = None) -> str:
    """The command that starts this ``ecarte-table`` again from where it was started, for a hint a
    person copies: ``ecarte-table`` when that name on ``PATH`` is this program, else the path it was
    started by (``.venv/bin/ecarte-table`` after the README's ``bash scripts/demo.sh``, which puts
    nothing on ``PATH``), else this Python running the command's module::

        >>> invoked_as(".venv/bin/ecarte-table", path="/usr/bin")
        '.venv/bin/ecarte-table'

    :param argv0: how the program was started (``sys.argv[0]``); ``path``: the ``PATH`` searched
        (``None``: the environment's).
    """
    argv0 = sys.argv[0] if argv0 is None else argv0
    name = "ecarte-table"
    if os.path.basename(argv0) != name:  # python -m cli.main, or a test's own runner
        return f"{shlex.quote(sys.executable)} -m cli.main"
    found = shutil.which(name, path=path)
    if found is not None and os.path.realpath(found) == os.path.realpath(argv0):
        return name
    return shlex.quote(argv0)


def run_said(lang: str, why: str) -> str:
    """A line ``ecarte-table run`` says at its console, headed by the command's name as every refusal is
    (``cli.refused``), in ``lang``::

        >>> run_said("en", "the end of x.jsonl")
        'ecarte-table run: the end of x.jsonl'
    """
    from catalogue import say

    return say(lang, "cli.refused", program="ecarte-table run", why=why)
