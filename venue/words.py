"""The page's words in the table's language (``en``, ``fr``, ``it``, ``de``).

The table's own catalogue (:mod:`firmware_host.screens.i18n`) is the source: the card ranks
of each language's pack, and every word the OLED already says (faults, prompts, "vole",
"king", the seat's "table"...). This module adds only what a page has and a screen has
not (tabs, headings, the connection), in the same four languages, and hands the whole
to the browser as one JSON object (``GET /api/words``)::

    >>> w = page_words("fr")
    >>> w["ranks"]["K"], w["ranks"]["J"], w["words"]["trump"], w["words"]["king_points"]
    ('R', 'V', 'atout', 'roi')
"""

from __future__ import annotations

from typing import Any

from firmware_host.screens.i18n import LANGUAGES, language, words

RANKS = ("7", "8", "9", "T", "J", "Q", "K", "A")

SHARED = ("table", "vole", "king_points", "point", "game_over", "failed", "deals_next")
"""Keys taken from the table's catalogue as they are."""

_PAGE: dict[str, dict[str, str]] = {
    "en": {
        "live": "live", "reconnecting": "reconnecting…", "connecting": "connecting…",
        "tab_live": "Table", "tab_hands": "Hands", "tab_games": "Games", "tab_stats": "Players",
        "trump": "trump", "tricks": "tricks", "trick": "trick", "hand": "hand", "game": "game",
        "stock": "stock", "dealer": "deals", "target": "game to {n}", "score": "score",
        "no_card": "no card on the table", "hands_of_game": "Hands of this game",
        "chart": "Score over the hands", "happened": "What happened", "replayed": "the hand is played again",
        "fault": "fault", "before_play": "before the tricks", "won_by": "won by {who}",
        "hands_note": "A hand's cards are shown once it is over.", "record": "record", "players": "players",
        "winner": "winner", "games": "games", "hands": "hands", "wins": "wins", "points": "points", "kings": "kings",
        "voles": "voles", "faults": "faults", "player": "player", "pool": "pool",
    },
    "fr": {
        "live": "en direct", "reconnecting": "reconnexion…", "connecting": "connexion…",
        "tab_live": "Table", "tab_hands": "Donnes", "tab_games": "Parties", "tab_stats": "Joueurs",
        "trump": "atout", "tricks": "levées", "trick": "pli", "hand": "donne", "game": "partie",
        "stock": "talon", "dealer": "donne", "target": "partie en {n}", "score": "score",
        "no_card": "aucune carte sur la table", "hands_of_game": "Donnes de la partie",
        "chart": "Le score donne après donne", "happened": "Ce qui s'est passé",
        "replayed": "la donne est rejouée", "fault": "faute", "before_play": "avant les levées",
        "won_by": "pour {who}", "hands_note": "Les cartes d'une donne sont montrées une fois jouée.",
        "record": "relevé", "players": "joueurs", "winner": "gagnant", "games": "parties", "hands": "donnes",
        "wins": "gagnées", "points": "points", "kings": "rois", "voles": "voles", "faults": "fautes",
        "player": "joueur", "pool": "poule",
    },
    "it": {
        "live": "in diretta", "reconnecting": "riconnessione…", "connecting": "connessione…",
        "tab_live": "Tavolo", "tab_hands": "Mani", "tab_games": "Partite", "tab_stats": "Giocatori",
        "trump": "briscola", "tricks": "prese", "trick": "presa", "hand": "mano", "game": "partita",
        "stock": "tallone", "dealer": "dà", "target": "si gioca a {n}", "score": "punti",
        "no_card": "nessuna carta sul tavolo", "hands_of_game": "Mani della partita",
        "chart": "I punti mano per mano", "happened": "Cosa è successo", "replayed": "la mano si rigioca",
        "fault": "errore", "before_play": "prima delle prese", "won_by": "a {who}",
        "hands_note": "Le carte di una mano si vedono quando è finita.", "record": "verbale",
        "players": "giocatori", "winner": "vincitore", "games": "partite", "hands": "mani", "wins": "vinte",
        "points": "punti", "kings": "re", "voles": "cappotti", "faults": "errori", "player": "giocatore",
        "pool": "poule",
    },
    "de": {
        "live": "live", "reconnecting": "verbinde neu…", "connecting": "verbinde…",
        "tab_live": "Tisch", "tab_hands": "Spiele", "tab_games": "Partien", "tab_stats": "Spieler",
        "trump": "Trumpf", "tricks": "Stiche", "trick": "Stich", "hand": "Spiel", "game": "Partie",
        "stock": "Talon", "dealer": "gibt", "target": "Spiel bis {n}", "score": "Stand",
        "no_card": "keine Karte auf dem Tisch", "hands_of_game": "Spiele dieser Partie",
        "chart": "Der Stand Spiel für Spiel", "happened": "Was geschah", "replayed": "das Spiel wird wiederholt",
        "fault": "Fehler", "before_play": "vor den Stichen", "won_by": "an {who}",
        "hands_note": "Die Karten eines Spiels zeigt die Seite, wenn es vorbei ist.", "record": "Protokoll",
        "players": "Spieler", "winner": "Sieger", "games": "Partien", "hands": "Spiele", "wins": "Siege",
        "points": "Punkte", "kings": "Könige", "voles": "Voles", "faults": "Fehler", "player": "Spieler",
        "pool": "Pool",
    },
}


def page_words(lang: str = "en") -> dict[str, Any]:
    """The page's words in ``lang`` (English for a language the table does not speak):
    ``lang``, ``ranks`` (rank letter → as that language prints it) and ``words``."""
    lang = language(lang)
    said = words(lang)
    table_words = {key: said.say(key, who="{who}") for key in SHARED}
    return {
        "lang": lang,
        "ranks": {rank: said.card(rank + "S")[:-1] for rank in RANKS},
        "words": {**table_words, **_PAGE[lang]},
    }


__all__ = ["LANGUAGES", "page_words"]
