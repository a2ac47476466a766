"""The table's words from the one catalogue (:mod:`catalogue`), as the screens use them.

Everything the OLED says is worded from data — a fault's code, seat, card and
:attr:`~engine.events.Fault.detail`, a prompt's key, a hand's points — never by reading
the engine's English sentences. A prompt is worded by :func:`worded` from its key; card ranks
follow each language's pack (a French king is an R, a German jack a B)::

    >>> words("fr").card("KS"), words("de").card("JH"), words("it").card("TD"), words("es").card("QC")
    ('R♠', 'B♥', '10♦', 'Q♣')
    >>> words("fr").say("game_over", who="Anne")
    'Anne gagne'

The words are whole here; cutting a name to the OLED's pixels is :func:`screen_name`'s job
(the screens' own, never the catalogue's: the page shows names and words whole).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from catalogue import LANGUAGES, card_words, language, prompt_words, say, say_n
from engine.prompts import Prompt
from firmware_host.screens.drawing import fitting, text_width

__all__ = ["LANGUAGES", "NAME_WIDTH", "PromptWords", "Words", "language", "screen_name", "worded", "words"]

NAME_WIDTH = 64
"""Pixels a player's name may take on the OLED (longer names are cut, with a dot)."""

def screen_name(name: str, width: int = NAME_WIDTH) -> str:
    """``name`` cut to ``width`` pixels on the OLED (a dot marks the cut)."""
    name = " ".join(name.split())
    if text_width(name) <= width:
        return name
    return name[:fitting(name, width, tail=".")].rstrip() + "."


@dataclass(frozen=True, slots=True)
class PromptWords:
    """What the table waits for, in words: whose move (``seat``), in a few words (``short``: the OLED's
    line) and in a sentence (``text``)."""

    seat: str
    short: str
    text: str


def worded(prompt: Prompt, lang: str = "en", name: str | None = None) -> PromptWords:
    """``prompt`` in ``lang`` from its key (``prompt.<key>.short`` and ``prompt.<key>``), with
    ``name`` (a player's name) for its seat; a prompt without a key has no words::

        >>> worded(Prompt("A", "draw", 2), "de", "Anne").text
        'Anne zieht 2 vom Talon'
    """
    if not prompt.key:
        return PromptWords(prompt.seat, "", "")
    short, text = prompt_words(language(lang), prompt.key, name if name is not None else prompt.seat, prompt.count)
    return PromptWords(prompt.seat, short, text)


@dataclass(frozen=True, slots=True)
class Words:
    """One language's words for the table."""

    lang: str

    def say(self, key: str, **values: Any) -> str:
        """The words for ``key`` with ``values`` put in (``{who}``, ``{card}``...)."""
        return say(self.lang, key, **values)

    def say_n(self, key: str, n: int, **values: Any) -> str:
        """The words for ``key`` in the plural form for ``n`` (put in as ``{n}``)."""
        return say_n(self.lang, key, n, **values)

    def card(self, code: str) -> str:
        """A card as this language prints it (:func:`catalogue.card_words`)."""
        return card_words(self.lang, code)


def words(lang: str = "en") -> Words:
    """The words of ``lang`` (English for a language the table does not speak)."""
    return Words(language(lang))
