"""The voice's words: cards said in full ("the king of spades", "le roi de pique") and the
announcements' sentences, in each language of the table, from the catalogue (``voice.*``).

What the OLED says (a fault and its remedy, the game's winner) is not worded again here:
the voice takes the OLED's words (:mod:`firmware_host.screens.i18n`,
:func:`firmware_host.screens.chooser.fault_screen`) and only says their printed cards
(``R♠``) in full::

    >>> spoken("fr").card("KS"), spoken("de").card("QH"), spoken("en").card("TD")
    ('le roi de pique', 'Herz Dame', 'the ten of diamonds')
    >>> spoken("fr").cards_said("reprenez le D♥")
    'reprenez la dame de cœur'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from catalogue import LANGUAGES, SUIT_SYMBOLS, card_words, language, say
from engine.cards import CARDS

__all__ = ["ESPEAK_VOICES", "SPOKEN_LANGUAGES", "Spoken", "spoken"]

ESPEAK_VOICES = {"en": "en-gb", "fr": "fr-fr", "it": "it", "de": "de", "es": "es"}
"""espeak-ng's voice for each language of the table (``espeak-ng --voices``)."""

SPOKEN_LANGUAGES = LANGUAGES
"""The languages the voice speaks: the table's (its words are the catalogue's ``voice.*``)."""

_SENTENCE = re.compile(r"^\w|(?<=[.!?] )\w")
_SUIT_SYMBOL = f"[{''.join(SUIT_SYMBOLS.values())}]"
_PRINTED = re.compile(r"(?:10|[2-9A-Z])" + _SUIT_SYMBOL)
_SYMBOLS = {symbol: suit for suit, symbol in SUIT_SYMBOLS.items()}
_LONE_SUIT = re.compile(_SUIT_SYMBOL)
_CODES = tuple(str(c) for c in CARDS)


@dataclass(frozen=True, slots=True)
class Spoken:
    """One language's spoken words."""

    lang: str

    def say(self, key: str, **values: Any) -> str:
        """The sentence for ``key`` with ``values`` put in."""
        return _SENTENCE.sub(lambda m: m.group(0).upper(), say(self.lang, "voice." + key, **values))

    def word(self, key: str, **values: Any) -> str:
        """The words for ``key`` as they are (a part of a sentence: not capitalised)."""
        return say(self.lang, "voice." + key, **values)

    def card(self, code: str) -> str:
        """``"KS"`` in full, with its article: "the king of spades"."""
        return say(self.lang, "voice.card", rank=say(self.lang, "voice.rank." + code[0]),
                   suit=say(self.lang, "voice.suit." + code[1]))

    def cards_in(self, text: str) -> set[str]:
        """Every card ``text`` says in full (``{"KS"}`` for "Bruno plays the king of spades"): what
        the tests that check what leaves the table look for."""
        text = text.lower()
        return {code for code in _CODES if self.card(code).lower() in text}

    def suit(self, suit: str) -> str:
        """A suit's name (``S`` → "spades")."""
        return say(self.lang, "voice.suit." + suit)

    def cards_said(self, text: str) -> str:
        """``text`` (the OLED's words) with each printed card (``R♠``) said in full, its
        article included (the OLED's "reprenez le D♥" → "reprenez la dame de cœur")."""
        printed = {card_words(self.lang, code): code for code in _CODES}

        def full(match: re.Match[str]) -> str:
            code = printed.get(match.group(0))
            return self.card(code) if code is not None else self.say("a_card")

        said = _PRINTED.sub(full, text)
        said = _LONE_SUIT.sub(lambda m: self.suit(_SYMBOLS[m.group(0)]), said)  # "must trump ♥"
        # the OLED's own article before a card ("the K♠", "le R♠") gives way to the card's
        # (an elided article touches its card: "l'A♣")
        return re.sub(r"(?:\b(?:the|le|il|la|el)\s+|\bl')(the |le |la |l'|il |el )", r"\1", said)


def spoken(lang: str = "en") -> Spoken:
    """The spoken words of ``lang`` (English for a language the table does not speak)."""
    return Spoken(language(lang))

