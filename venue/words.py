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


_VIEWER: dict[str, dict[str, str]] = {
    "en": {
        "reader_offline": "the {zone} reader is offline",
        "reader_back": "the {zone} reader is back",
        "viewer": "Replay",
        "step_first": "first",
        "step_prev": "back",
        "step_next": "next",
        "step_last": "last",
        "step_of": "step {n} of {m}",
        "deal": "the deal",
        "turn_up": "turned up",
        "discards": "{who} discards",
        "draws": "{who} draws",
        "bid_stand": "{who} plays",
        "bid_propose": "{who} proposes",
        "bid_accept": "{who} accepts",
        "bid_refuse": "{who} refuses",
        "bid_declare": "{who} declares the game",
        "bid_pass": "{who} passes",
        "plays": "{who} plays",
        "announces": "{who} announces the king",
        "hand_over": "hand over: {a} {pa} – {b} {pb}",
        "coach_agrees": "coach: right",
        "coach_would": "coach: better to {what}",
        "coach_better": "coach: the {card} was better",
        "coach_costs": "(cost {n} point(s))",
        "coach_luck": "(no way to know)",
        "unseen_card": "not seen by the pads",
        "never_seen": "{n} card(s) the pads never saw",
        "unseen_note": "Cards with a dashed frame were not seen by the pads: the hand shows where they went.",
        "record_text": "the record",
        "coach_none": "The coach cannot replay this hand: the pads did not see all of the deal.",
        "do_stand": "play",
        "do_propose": "propose",
        "do_accept": "accept",
        "do_refuse": "refuse",
        "do_declare": "declare",
        "do_pass": "pass",
    },
    "fr": {
        "reader_offline": "le lecteur {zone} ne répond plus",
        "reader_back": "le lecteur {zone} répond de nouveau",
        "viewer": "Rejouer",
        "step_first": "début",
        "step_prev": "retour",
        "step_next": "suite",
        "step_last": "fin",
        "step_of": "étape {n} sur {m}",
        "deal": "la donne",
        "turn_up": "retourne",
        "discards": "{who} écarte",
        "draws": "{who} prend",
        "bid_stand": "{who} joue",
        "bid_propose": "{who} propose",
        "bid_accept": "{who} accepte",
        "bid_refuse": "{who} refuse",
        "bid_declare": "{who} déclare le jeu",
        "bid_pass": "{who} passe",
        "plays": "{who} joue",
        "announces": "{who} annonce le roi",
        "hand_over": "fin de la donne : {a} {pa} – {b} {pb}",
        "coach_agrees": "coach : bien joué",
        "coach_would": "coach : mieux valait {what}",
        "coach_better": "coach : le {card} était meilleur",
        "coach_costs": "(coût {n} point(s))",
        "coach_luck": "(impossible à savoir)",
        "unseen_card": "pas vue par les lecteurs",
        "never_seen": "{n} carte(s) jamais vue(s) par les lecteurs",
        "unseen_note": ("Les cartes au cadre pointillé n'ont pas été vues par les lecteurs : la donne "
                        "montre où elles sont allées."),
        "record_text": "le relevé",
        "coach_none": "Le coach ne peut pas rejouer cette donne : les lecteurs n'ont pas vu toute la donne.",
        "do_stand": "jouer",
        "do_propose": "proposer",
        "do_accept": "accepter",
        "do_refuse": "refuser",
        "do_declare": "déclarer",
        "do_pass": "passer",
    },
    "it": {
        "reader_offline": "il lettore {zone} non risponde",
        "reader_back": "il lettore {zone} risponde di nuovo",
        "viewer": "Rivedi",
        "step_first": "inizio",
        "step_prev": "indietro",
        "step_next": "avanti",
        "step_last": "fine",
        "step_of": "passo {n} di {m}",
        "deal": "la distribuzione",
        "turn_up": "girata",
        "discards": "{who} scarta",
        "draws": "{who} pesca",
        "bid_stand": "{who} gioca",
        "bid_propose": "{who} propone",
        "bid_accept": "{who} accetta",
        "bid_refuse": "{who} rifiuta",
        "bid_declare": "{who} dichiara",
        "bid_pass": "{who} passa",
        "plays": "{who} gioca",
        "announces": "{who} dichiara il re",
        "hand_over": "fine della mano: {a} {pa} – {b} {pb}",
        "coach_agrees": "coach: giusto",
        "coach_would": "coach: meglio {what}",
        "coach_better": "coach: il {card} era meglio",
        "coach_costs": "(costo {n} punto/i)",
        "coach_luck": "(impossibile saperlo)",
        "unseen_card": "non vista dai lettori",
        "never_seen": "{n} carta/e mai vista/e dai lettori",
        "unseen_note": ("Le carte col bordo tratteggiato non sono state viste dai lettori: la mano mostra"
                        " dove sono andate."),
        "record_text": "il verbale",
        "coach_none": "Il coach non può rivedere questa mano: i lettori non hanno visto tutta la distribuzione.",
        "do_stand": "giocare",
        "do_propose": "proporre",
        "do_accept": "accettare",
        "do_refuse": "rifiutare",
        "do_declare": "dichiarare",
        "do_pass": "passare",
    },
    "de": {
        "reader_offline": "der Leser {zone} antwortet nicht",
        "reader_back": "der Leser {zone} antwortet wieder",
        "viewer": "Nachspielen",
        "step_first": "Anfang",
        "step_prev": "zurück",
        "step_next": "weiter",
        "step_last": "Ende",
        "step_of": "Schritt {n} von {m}",
        "deal": "das Geben",
        "turn_up": "aufgedeckt",
        "discards": "{who} legt ab",
        "draws": "{who} kauft",
        "bid_stand": "{who} spielt",
        "bid_propose": "{who} schlägt Tausch vor",
        "bid_accept": "{who} nimmt an",
        "bid_refuse": "{who} lehnt ab",
        "bid_declare": "{who} erklärt das Spiel",
        "bid_pass": "{who} passt",
        "plays": "{who} spielt",
        "announces": "{who} meldet den König",
        "hand_over": "Spiel vorbei: {a} {pa} – {b} {pb}",
        "coach_agrees": "Coach: richtig",
        "coach_would": "Coach: besser {what}",
        "coach_better": "Coach: {card} war besser",
        "coach_costs": "(kostete {n} Punkt(e))",
        "coach_luck": "(nicht zu wissen)",
        "unseen_card": "von den Lesern nicht gesehen",
        "never_seen": "{n} Karte(n), die die Leser nie sahen",
        "unseen_note": "Karten mit gestricheltem Rahmen sahen die Leser nicht: das Spiel zeigt, wohin sie gingen.",
        "record_text": "das Protokoll",
        "coach_none": "Der Coach kann dieses Spiel nicht nachspielen: die Leser sahen nicht das ganze Geben.",
        "do_stand": "spielen",
        "do_propose": "tauschen",
        "do_accept": "annehmen",
        "do_refuse": "ablehnen",
        "do_declare": "erklären",
        "do_pass": "passen",
    },
}
"""The hand viewer's words (the Hands tab): its steps, its step control and the coach's verdicts."""


def page_words(lang: str = "en") -> dict[str, Any]:
    """The page's words in ``lang`` (English for a language the table does not speak):
    ``lang``, ``ranks`` (rank letter → as that language prints it) and ``words``."""
    lang = language(lang)
    said = words(lang)
    table_words = {key: said.say(key, who="{who}") for key in SHARED}
    return {
        "lang": lang,
        "ranks": {rank: said.card(rank + "S")[:-1] for rank in RANKS},
        "words": {**table_words, **_PAGE[lang], **_VIEWER[lang]},
    }


__all__ = ["LANGUAGES", "page_words"]
