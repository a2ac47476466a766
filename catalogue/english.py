"""The game's English words: what must not be left in what a player reads under another language.

Words English shares with a language the table speaks (``table``, ``point``, ``points``, ``score``,
``vole``, ``pass``, ``live``, ``no``, ``match``, ``coach``, French ``propose`` and ``refuse``) are not in the
list; a German noun is capitalised, so the check is on lowercase words and English's capitalised
headings alike::

    >>> sorted(english_words("Anne gagne 5:2 · the hand is over"))
    ['hand', 'is', 'over', 'the']
    >>> english_words("Bruno debe seguir el palo ♦ · retirar el 10♥")
    set()

A file's path (``docs/players.md``, ``/dev/no-such-reader``) is the file system's, in every language;
what is typed as it is (a value in backquotes, a pad's name in the table file, a badge's form) is
the command line's::

    >>> english_words("corregir el archivo (docs/players.md) · /dev/no-such-reader no existe")
    set()
    >>> english_words("el acta (--format `record`), hand.A, player:NAME"), sorted(english_words("the record"))
    (set(), ['record', 'the'])
"""

from __future__ import annotations

import re

ENGLISH = frozenset(
    """
the and of at with without is are was be been has have not your yes must should could would trick tricks trump
trumps hand hands deal deals dealt dealer plays played play player players playing game games wins won winner
refuses refused proposes proposed proposal accept accepts accepted declare declares stock discard discards
discarded draw draws king kings revoke fault faults over takes take back again chooses announces holding
purpose journaled frames drawn review seed sight pads read deep enough prove proves proven late follow
beat highest lead led turn wait misdeal wrong exchange stand rubber record offline reconnecting connecting
happened shown once cards card settings rules language nothing say well finding findings unfinished none hints
hint penalty begins seats taken chosen notice corrected reader target set new
""".split()  # noqa: SIM905
)
"""Lowercase English words of the game and of the sentences around it."""

_PLACEHOLDER = re.compile(
    r"\{[a-z_]+\}|(?<![\w-])--[a-z][a-z-]*"  # a placeholder, or an option to type (--seed)
    r"|(?<![\w/])/[\w./*~-]+|\b[\w.-]+/[\w./*-]*\.[a-z]+\b"  # a path: absolute, or a file's (docs/nfc.md)
    r"|`[^`]*`"  # a command or a value to type, in backquotes (`record`)
    r"|\b(?:hand|play)\.[AB]\b"  # a pad's name in the table file (hand.A)
    r"|\b[a-z]+:[A-Z]+\b"  # a badge as typed, its part to fill in capitals (player:NAME)
)
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def english_words(text: str) -> set[str]:
    """The words of ``text`` in :data:`ENGLISH` (a German capitalised noun such as ``Hand`` is
    German, so a word counts lowercase, or capitalised only where German does not capitalise it)."""
    found = set()
    for word in _WORD.findall(_PLACEHOLDER.sub(" ", text)):
        if word.lower() in ENGLISH and (word.islower() or word.lower() not in _GERMAN_NOUNS):
            found.add(word.lower())
    return found


_GERMAN_NOUNS = frozenset({"hand", "set", "stand", "was"})
"""English words that are German words too, capitalised (``Hand``, ``Stand``, ``Was geschah``)."""
