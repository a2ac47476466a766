"""The page's words in the table's language, from the one catalogue (:mod:`catalogue`).

The card ranks of each language's pack, the words the OLED says too ("vole", "king", the
seat's "table"...) and the page's own (``page.*``: tabs, headings, the connection, events,
bids), whole (never cut to the OLED's pixels), handed to the browser as one JSON object
(``GET /api/words``)::

    >>> w = page_words("fr")
    >>> w["ranks"]["K"], w["ranks"]["J"], w["words"]["trump"], w["words"]["king_points"]
    ('R', 'V', 'atout', 'roi')
"""

from __future__ import annotations

from typing import Any

from catalogue import (
    AGREEING,
    LANGUAGES,
    card_words,
    ids,
    is_plural,
    language,
    messages,
    plural_forms,
    say,
    template,
    zones,
)
from engine.cards import RANKS, SUITS
from hardware.layout import COMPACT_PADS, FULL_PADS

SHIPPED_TITLES = {"simulated": "Simulated table", "reference": "Reference table", "compact": "Compact table"}
"""The ``name`` of each table file shipped in ``hardware/tables`` (a test checks them)."""

SHARED = ("table", "vole", "king_points", "point", "game_over", "failed", "deals_next")
"""Keys the OLED says too, taken as they are."""


def page_words(lang: str = "en") -> dict[str, Any]:
    """The page's words in ``lang`` (English for a language the table does not speak):
    ``lang``, ``ranks`` (rank letter → as that language prints it), ``zones`` (each pad as players
    call it), ``words`` and ``plurals`` (a message with plural forms: its form for each CLDR category,
    which the page picks with ``Intl.PluralRules(lang)``)."""
    lang = language(lang)
    table_words = {key: say(lang, key, who="{who}") for key in SHARED}
    return {
        "lang": lang,
        # a rank as the language prints it: the printed card's words without its suit's symbol
        "ranks": {rank: card_words(lang, rank + "S")[:-1] for rank in RANKS},
        "zones": {name: zones(lang, [name]) for name in (*FULL_PADS, *COMPACT_PADS)},
        # a card as a screen reader says it ("la reina de picas"), the voice's words: by rank and suit, so
        # that no card's code is in what every page loads (tests/venue/test_venue_hidden.py)
        # a sentence with a card drawn in it ("el {card} era mejor"), by its template and the card's rank: the
        # words before and after the card as the catalogue agrees them with it (la Q♠, l'A♣, la D♠ était meilleure)
        "agreed": {template(lang, msgid): {rank: _around(lang, msgid, rank) for rank in RANKS}
                   for msgid in ids() if msgid.startswith("page.") and "{card}" in template(lang, msgid)}
        if lang in AGREEING else {},
        "card_words": {"card": template(lang, "voice.card"),
                       "ranks": {rank: say(lang, "voice.rank." + rank) for rank in RANKS},
                       "suits": {suit: say(lang, "voice.suit." + suit) for suit in SUITS}},
        "words": {**table_words, **messages(lang, "page.")},
        # a shipped table file's title (its `name`) is the table's in every language: the page shows it translated
        "shipped": {SHIPPED_TITLES[key]: say(lang, f"page.shipped.{key}") for key in SHIPPED_TITLES},
        "plurals": {msgid.removeprefix("page."): plural_forms(lang, msgid)
                    for msgid in ids() if msgid.startswith("page.") and is_plural(msgid)},
    }


def _around(lang: str, msgid: str, rank: str) -> list[str]:
    """The words of ``msgid`` before and after its card, agreed with a card of ``rank`` (:func:`catalogue.agree`)."""
    printed = card_words(lang, rank + "S")
    before, _, after = say(lang, msgid, card=printed).partition(printed)
    return [before, after]


__all__ = ["LANGUAGES", "page_words"]
