"""The command line in the language asked: argparse's own words and every help text from the catalogue.

argparse words its usage, headings and errors through the names ``_`` and ``ngettext`` it imports
from :mod:`gettext` (``Lib/argparse.py``: ``from gettext import gettext as _, ngettext``; the Python
HOWTO "How to translate the argparse output" takes them from a catalogue). The catalogue holds those
texts with argparse's exact English as their message ids (``usage: ``, ``positional arguments``,
``the following arguments are required: %s``...), and our own help texts and descriptions the same
way, so ``--help`` and a refused command line are said in the language asked::

    >>> with argparse_speaking("fr"):
    ...     print(argparse._("show this help message and exit"))  # type: ignore[attr-defined]
    afficher cette aide et quitter

The catalogue is not the process's gettext text domain: the language is the one asked on the line,
not only the environment's, and a ``.po`` edited since its ``.mo`` is read in memory
(:func:`catalogue.translations`), so argparse's two names point at it while the line is read.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

__all__ = ["argparse_speaking", "asked", "help_texts", "language_asked", "language_of", "said", "worded"]

_reading: list[str] = ["en"]
"""The language the command line is read in (the innermost :func:`argparse_speaking`)."""


def language_of(env: Mapping[str, str] | None = None) -> str | None:
    """The environment's language if the table speaks it, else None (English), read as gettext reads it
    (:func:`gettext.find`): the first of ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set
    decides (``es_ES.UTF-8`` is Spanish), its languages in order (``LANGUAGE=it:fr``), none after ``C``::

        >>> language_of({"LANG": "es_ES.UTF-8"}), language_of({"LANGUAGE": "pt:fr"}), language_of({"LC_ALL": "C"})
        ('es', 'fr', None)
    """
    from catalogue import LANGUAGES

    env = os.environ if env is None else env
    found = next((env[key] for key in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG") if env.get(key)), "")
    for part in found.split(":"):
        if part in ("C", "POSIX") or part.startswith("C."):
            return None
        if part[:2].lower() in LANGUAGES:
            return part[:2].lower()
    return None


def asked(args: argparse.Namespace, env: Mapping[str, str] | None = None, *, table: str | None = None) -> str:
    """The language a command speaks when it has no table to ask: ``--language`` (the command's, else
    the one before it), else the ``table``'s (a table file refused names its own), else the environment's
    (:func:`language_of`), else English."""
    from catalogue import LANGUAGES

    for given in (getattr(args, "language", None), getattr(args, "line_language", None), table):
        if given in LANGUAGES:
            return str(given)
    return language_of(env) or "en"


def language_asked(argv: Sequence[str], env: Mapping[str, str] | None = None) -> str:
    """The language a command line is read in: its ``--language`` (before the command or after it),
    else the environment's (:func:`language_of`), else English."""
    from catalogue import LANGUAGES

    for i, word in enumerate(argv):
        if word == "--":
            break
        value = argv[i + 1] if word == "--language" and i + 1 < len(argv) else word.partition("=")[2] \
            if word.startswith("--language=") else None
        if value in LANGUAGES:
            return str(value)
    return language_of(env) or "en"


@contextmanager
def argparse_speaking(lang: str) -> Iterator[None]:
    """argparse's own words in ``lang`` from the catalogue while the block runs (then gettext's again)."""
    from catalogue import translations

    words = translations(lang)
    before = argparse._, argparse.ngettext  # type: ignore[attr-defined]
    argparse._, argparse.ngettext = words.gettext, words.ngettext  # type: ignore[attr-defined]
    _reading.append(lang)
    try:
        yield
    finally:
        _reading.pop()
        argparse._, argparse.ngettext = before  # type: ignore[attr-defined]


def said(msgid: str, **values: object) -> str:
    """A message of the catalogue in the language the command line is read in (an argument's type
    refusing its value, which argparse prints after ``argument --delay:``)::

        >>> with argparse_speaking("es"):
        ...     said("error.seconds_range", text="-1")
        'se esperaban de 0 a 3600 segundos, no -1'
    """
    from catalogue import say

    return say(_reading[-1], msgid, **values)


def _parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """``parser`` and every parser below it (commands, and a command's actions)."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for below in dict.fromkeys(action.choices.values()):
                yield from _parsers(below)


def _texted(parser: argparse.ArgumentParser) -> Iterator[tuple[object, str]]:
    """(holder, attribute) of every text a person reads in ``parser``'s help: its description and
    epilog, each argument's help, each command's line in its parent's list."""
    for each in _parsers(parser):
        yield each, "description"
        yield each, "epilog"
        for action in each._actions:
            yield action, "help"
            if isinstance(action, argparse._SubParsersAction):
                for listed in action._choices_actions:
                    yield listed, "help"


def help_texts(parser: argparse.ArgumentParser) -> list[str]:
    """Every help text and description of ``parser`` and the parsers below it, as written."""
    return [text for holder, name in _texted(parser)
            if isinstance(text := getattr(holder, name), str) and text != argparse.SUPPRESS]


def _placeholder(action: argparse.Action) -> str | None:
    """The name argparse shows for ``action``'s value (``GAME`` for ``--game``, ``table`` for a
    positional, its ``metavar`` where given); None for a flag, a set of choices or a tuple."""
    if action.nargs == 0 or isinstance(action, argparse._HelpAction):
        return None
    if action.metavar is None:
        if action.choices is not None:
            return None
        return action.dest.upper() if action.option_strings else action.dest
    return action.metavar if isinstance(action.metavar, str) else None


def worded(parser: argparse.ArgumentParser, lang: str) -> argparse.ArgumentParser:
    """``parser`` with every help text and description in ``lang``: each is a message of the catalogue,
    its English the id (a text the catalogue lacks stays as written; a test forbids one); a value's
    placeholder in ``lang``'s word where the catalogue has one (``metavar.GAME``: ``PARTIDA``; ``DIR``,
    ``FILE``, ``N``, which the help texts name, stay)."""
    from catalogue import has, say, translations

    words = translations(lang)
    for holder, name in _texted(parser):
        text = getattr(holder, name)
        if isinstance(text, str) and text != argparse.SUPPRESS:
            setattr(holder, name, words.gettext(text))
    for each in _parsers(parser):
        for action in each._actions:
            shown = _placeholder(action)
            if shown is not None and has("metavar." + shown):
                action.metavar = say(lang, "metavar." + shown)
    return parser
