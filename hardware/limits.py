"""The limits of what comes in at the table's doors: names, text fields, files.

Every text that reaches the OLED, the journal or MQTT is bounded where it enters
(docs/security.md, "The doors of the table"):

- a player's name: at most :data:`MAX_NAME` characters, no control or format
  characters (a newline, an escape, a right-to-left override), not blank;
- a file the table reads (tag registry, badges, table file): at most
  :data:`MAX_FILE_BYTES`, a regular file (``/dev/zero`` is refused before it is read),
  JSON that Python's parser can read (a file nested 200,000 deep is refused, not a crash).

    >>> name_problem("Anne"), name_problem("x" * 30_000)
    (None, 'a name is at most 24 characters, got 30,000')
    >>> name_problem("An\\x1bne")
    "a name holds no control characters, got 'An\\\\x1bne'"
"""

from __future__ import annotations

import json
import os
import stat
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from catalogue.phrase import Count, Phrase, english

MAX_NAME = 24
"""The longest player name (characters): two of them fit the OLED's score line once shortened,
and the journal, the page and MQTT carry them whole."""

MAX_TABLE_NAME = 64
"""The longest table name (``[table] name``: the page's title, the hub's table list)."""

MAX_FILE_BYTES = 1_048_576
"""The largest registry, badges or table file read (a registry of two packs is about 20 KB)."""

class FileProblem(ValueError):
    """A file the table cannot read: the message names the file (``path``) and the problem
    (``words``, said in the reader's language where it is printed)."""

    def __init__(self, path: str, words: Phrase) -> None:
        super().__init__(f"{path}: {english(words)}")
        self.path = path
        self.words = words


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot be a player's name, or None (in English: :func:`name_words` for the words)."""
    words = name_words(name)
    return None if words is None else english(words)


INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800\u2028\u2029")
"""Characters that draw nothing yet are no control or format character: the Hangul fillers (letters by
their category), the blank Braille pattern, the line and paragraph separators. A name made of them
looks empty; one padded with them looks like another."""

_SCRIPTS_TOGETHER = (frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}), frozenset({"LATIN", "HAN", "BOPOMOFO"}),
                     frozenset({"LATIN", "HAN", "HANGUL"}))
"""Scripts one name may mix (Unicode TR39, 5.2 "Highly Restrictive": Japanese, Chinese and Korean
writing with Latin letters); any other mix is one script's letter passed off as another's (a Cyrillic
"А" in "Аnn")."""


def nfc(name: str) -> str:
    """``name`` in one spelling (Unicode NFC): "José" typed on a phone or a Mac (NFD, an "e" and a
    combining accent) is the "José" of a venue file. Every door takes names through it."""
    return unicodedata.normalize("NFC", name)


def same_name(name: str) -> str:
    """What two names must share to be one player: compatibility forms folded ("Ａnn", fullwidth, is
    "Ann"), case folded, spaces collapsed (Unicode NFKC_Casefold, as UTS #39 compares identifiers)."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())


def _script(char: str) -> str | None:
    """A letter's script, from its Unicode name (``CYRILLIC CAPITAL LETTER A``: ``CYRILLIC``); None for
    what is in every script (digits, spaces, marks, punctuation)."""
    if not unicodedata.category(char).startswith("L"):
        return None
    word = unicodedata.name(char, "").split(" ", 1)[0]
    return "HAN" if word == "CJK" else word or None


def mixed_scripts(name: str) -> tuple[str, ...]:
    """The scripts of ``name``'s letters when they are not one script (nor a mix TR39 allows); else ()."""
    scripts = {s for s in map(_script, unicodedata.normalize("NFKC", name)) if s is not None}
    if len(scripts) <= 1 or any(scripts <= allowed for allowed in _SCRIPTS_TOGETHER):
        return ()
    return tuple(sorted(scripts))


def name_words(name: object) -> Phrase | None:
    """Why ``name`` cannot be a player's name (``limits.name.*``), or None. The name is read as
    :func:`nfc` spells it."""
    if not isinstance(name, str):
        return Phrase.of("limits.name.text", got=quoted(name))
    if len(name) > MAX_NAME and len(name := nfc(name)) > MAX_NAME:
        return Phrase.of("limits.name.long", most=MAX_NAME, got=Count(len(name)))
    if any(unicodedata.category(c)[0] == "C" for c in name):
        return Phrase.of("limits.name.control", got=quoted(name))
    if not name.strip():
        return Phrase.of("limits.name.blank")
    if any(c in INVISIBLE for c in name) or not any(unicodedata.category(c)[0] in "LN" for c in name):
        return Phrase.of("limits.name.invisible", got=quoted(name))
    scripts = mixed_scripts(name)
    if scripts:
        return Phrase.of("limits.name.scripts", got=quoted(name), scripts=", ".join(s.title() for s in scripts))
    return None


def twice_named(names: Iterable[str]) -> str | None:
    """The first of ``names`` that names a player already named, or None: "Ann", " ann ", "Ａnn"
    (fullwidth) are one player in the statistics (:func:`same_name`), so never two seats of one game."""
    seen: set[str] = set()
    for name in names:
        same = same_name(name)
        if same in seen:
            return name
        seen.add(same)
    return None


def quoted(value: object, limit: int = 40) -> str:
    """``repr(value)``, cut to about ``limit`` characters (a refusal never echoes a long value)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def read_bytes(path: str | os.PathLike[str], *, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit``. Opened without waiting
    (``O_NONBLOCK``: a FIFO is refused, never waited on) and its type checked before a byte is read.

    :raises FileNotFoundError: no such file.
    :raises PermissionError: not readable.
    :raises FileProblem: not a regular file, too large.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    with open(fd, "rb") as stream:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise FileProblem(os.fspath(path), Phrase.of("limits.file.not_regular"))
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise FileProblem(os.fspath(path), Phrase.of("limits.file.too_large", limit=Count(limit)))
    return data


def read_text(path: str | os.PathLike[str], *, limit: int = MAX_FILE_BYTES) -> str:
    """The text of the regular file at ``path``, at most ``limit`` bytes.

    :raises FileNotFoundError: no such file.
    :raises PermissionError: not readable.
    :raises FileProblem: not a regular file, too large, not UTF-8.
    """
    file = Path(path)
    data = read_bytes(file, limit=limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileProblem(str(file), Phrase.of("limits.file.not_utf8", byte=exc.start + 1)) from None


def load_json(text: str, source: str) -> Any:
    """``text`` as JSON.

    :raises FileProblem: not JSON, or nested too deep for Python (a file nested 200,000
        deep raises ``RecursionError`` inside the parser).
    """
    try:
        return json.loads(text)
    except RecursionError:
        raise FileProblem(source, Phrase.of("limits.file.json_too_deep")) from None
    except ValueError as exc:
        raise FileProblem(source, Phrase.of("limits.file.not_json", detail=quoted(str(exc), 80))) from None


def read_json(path: str | os.PathLike[str], *, limit: int = MAX_FILE_BYTES) -> Any:
    """:func:`read_text` then :func:`load_json`."""
    return load_json(read_text(path, limit=limit), os.fspath(path))
