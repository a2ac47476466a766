"""The table's words in English, French, Italian and German: one catalogue.

Everything the OLED says is worded here from data — a fault's code, seat, card and
:attr:`~engine.events.Fault.detail`, a prompt's key, a hand's points — never by reading
the engine's English sentences. Prompts are worded by :func:`engine.prompts.worded`
(the one place for "what the table waits for"); card ranks follow each language's
pack (a French king is an R, a German jack a B)::

    >>> card("KS", "fr"), card("JH", "de"), card("TD", "it")
    ('R♠', 'B♥', '10♦')
    >>> words("fr").say("game_over", who="Anne")
    'Anne gagne'
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from engine.prompts import LANGUAGES
from firmware_host.screens.drawing import SUITS, fitting, text_width

logger = logging.getLogger(__name__)

__all__ = ["LANGUAGES", "NAME_WIDTH", "Words", "card", "language", "screen_name", "words"]

NAME_WIDTH = 64
"""Pixels a player's name may take on the OLED (longer names are cut, with a dot)."""

_RANKS: dict[str, dict[str, str]] = {
    "en": {"K": "K", "Q": "Q", "J": "J", "A": "A", "T": "10"},
    "fr": {"K": "R", "Q": "D", "J": "V", "A": "A", "T": "10"},
    "it": {"K": "R", "Q": "D", "J": "F", "A": "A", "T": "10"},
    "de": {"K": "K", "Q": "D", "J": "B", "A": "A", "T": "10"},
}

# key -> wording; {who} a player (name or seat), {card} a card, {suit} a suit symbol,
# {beat} the card to beat, {n} a number, {turn} whose turn it is.
_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "table": "table",
        "status_deal": "{dealer} deals · elder {elder}",
        "status_deal_short": "{dealer} deals",
        "status_tricks": "tricks {a} {ta} · {b} {tb}",
        "status_target": "game to {n}",
        "status_seen": "seen {a} {sa}/{ha} · {b} {sb}/{hb}",
        "take_back": "take back the {card}",
        "take_back_penalty": "take back the {card}; {who} −{n} point",
        "misdeal": "misdeal",
        "deal_void": "deal void: {who} deals again",
        "duplicate_card": "{card} seen twice",
        "cut_again": "cut another card",
        "unknown_tag": "unknown card",
        "unknown_tag_do": "put that card aside",
        "exchange_count": "{who}: wrong exchange",
        "exchange_do": "draw as many as discarded",
        "false_king": "{who} has no king",
        "false_king_do": "no point for the king",
        "late_play": "{who}: {what}, trick {trick}",
        "late_king": "{who}: false king",
        "late_choose": "{turn}: yes replay, no play on",
        "late_king_back": "point taken back",
        "out_of_turn": "{who}: not your turn",
        "out_of_turn_do": "wait for {turn}",
        "revoke": "{who} must follow {suit}",
        "revoke_win": "{who} must follow {suit} and win",
        "not_overtaking": "{who} must beat the {beat}",
        "not_trumping": "{who} must trump {suit}",
        "card_not_in_hand": "{who} does not hold the {card}",
        "not_highest": "{who} must play the highest",
        "king_not_led": "{who} must lead the king",
        "wrong_time": "{who}: not now",
        "setup_ignored": "setup ignored",
        "setup_ignored_do": "the game has begun",
        "locked": "house rules",
        "locked_do": "this table's rules are fixed",
        "badge_seat": "lay a badge on a play pad",
        "deck_title": "Deck check",
        "deck_title_pack": "Pack {n} check",
        "deck_pass": "pass the cards over the pad",
        "deck_seen": "{n}/32 cards seen",
        "deck_missing": "missing {cards}",
        "deck_ok": "Pack {n}: 32 OK",
        "deck_bad": "Pack {n}: not ready",
        "deck_none": "No pack seen",
        "deck_lift": "lift the pack",
        "deck_twice": "twice {cards}",
        "deck_foreign": "{n} foreign",
        "deck_fake": "{n} not genuine",
        "deck_again": "pass the pack again",
        "offline": "reader {zones} offline",
        "offline_do": "check its cable; the game waits",
        "paused": "table paused",
        "paused_do": "the game resumes where it stopped",
        "king": "{who} +1 king",
        "hand_won": "{who} wins {hi}-{lo}",
        "deals_next": "{who} deals next",
        "score_line": "score {a} {sa} · {b} {sb}",
        "point": "point",
        "vole": "vole",
        "punished_stand": "stand lost",
        "punished_refusal": "refusal lost",
        "failed": "lost",
        "king_points": "king",
        "pen_revoke": "revoke",
        "pen_not_trumping": "no trump",
        "pen_not_overtaking": "not beaten",
        "pen_king_not_declared": "king kept",
        "game_over": "{who} wins",
        "game_over_do": "the game, {a}:{b}\nyes: new game",
        "settings_hint": "king: settings",
    },
    "fr": {
        "table": "table",
        "status_deal": "{dealer} donne · main {elder}",
        "status_deal_short": "{dealer} donne",
        "status_tricks": "levées {a} {ta} · {b} {tb}",
        "status_target": "partie en {n}",
        "status_seen": "vues {a} {sa}/{ha} · {b} {sb}/{hb}",
        "take_back": "reprenez le {card}",
        "take_back_penalty": "reprenez le {card} ; {who} −{n} point",
        "misdeal": "maldonne",
        "deal_void": "donne nulle : {who} redonne",
        "duplicate_card": "{card} vu deux fois",
        "cut_again": "coupez une autre carte",
        "unknown_tag": "carte inconnue",
        "unknown_tag_do": "écartez cette carte",
        "exchange_count": "{who} : mauvais échange",
        "exchange_do": "prenez autant qu'écarté",
        "false_king": "{who} n'a pas le roi",
        "false_king_do": "pas de point pour le roi",
        "late_play": "{who}: {what}, pli {trick}",
        "late_king": "{who}: faux roi",
        "late_choose": "{turn}: oui rejouer, non continuer",
        "late_king_back": "point retiré",
        "out_of_turn": "{who} : pas votre tour",
        "out_of_turn_do": "attendez {turn}",
        "revoke": "{who} doit fournir {suit}",
        "revoke_win": "{who} doit fournir {suit} et monter",
        "not_overtaking": "{who} doit battre le {beat}",
        "not_trumping": "{who} doit couper {suit}",
        "card_not_in_hand": "{who} n'a pas le {card}",
        "not_highest": "{who} doit jouer la plus haute",
        "king_not_led": "{who} doit jouer le roi",
        "wrong_time": "{who} : pas maintenant",
        "setup_ignored": "réglage ignoré",
        "setup_ignored_do": "la partie a commencé",
        "locked": "règles de la maison",
        "locked_do": "les règles de cette table sont fixes",
        "badge_seat": "posez le badge sur un tapis de jeu",
        "deck_title": "Contrôle du jeu",
        "deck_title_pack": "Contrôle jeu {n}",
        "deck_pass": "passez les cartes sur le tapis",
        "deck_seen": "{n}/32 cartes vues",
        "deck_missing": "manque {cards}",
        "deck_ok": "Jeu {n} : 32 OK",
        "deck_bad": "Jeu {n} : incomplet",
        "deck_none": "Aucun jeu vu",
        "deck_lift": "retirez le jeu",
        "deck_twice": "en double {cards}",
        "deck_foreign": "{n} étrangère(s)",
        "deck_fake": "{n} non authentique(s)",
        "deck_again": "repassez le jeu",
        "offline": "lecteur {zones} hors ligne",
        "offline_do": "vérifiez son câble ; la partie attend",
        "paused": "table en pause",
        "paused_do": "la partie reprendra où elle en était",
        "king": "{who} +1 roi",
        "hand_won": "{who} gagne {hi}-{lo}",
        "deals_next": "{who} donne ensuite",
        "score_line": "score {a} {sa} · {b} {sb}",
        "point": "point",
        "vole": "vole",
        "punished_stand": "jeu d'autorité",
        "punished_refusal": "refus puni",
        "failed": "perdu",
        "king_points": "roi",
        "pen_revoke": "renonce",
        "pen_not_trumping": "pas coupé",
        "pen_not_overtaking": "pas monté",
        "pen_king_not_declared": "roi tu",
        "game_over": "{who} gagne",
        "game_over_do": "la partie, {a}:{b}\noui : nouvelle partie",
        "settings_hint": "roi : réglages",
    },
    "it": {
        "table": "tavolo",
        "status_deal": "dà {dealer} · mano {elder}",
        "status_deal_short": "dà {dealer}",
        "status_tricks": "prese {a} {ta} · {b} {tb}",
        "status_target": "si gioca a {n}",
        "status_seen": "viste {a} {sa}/{ha} · {b} {sb}/{hb}",
        "take_back": "riprendi il {card}",
        "take_back_penalty": "riprendi il {card}; {who} −{n} punto",
        "misdeal": "smazzata errata",
        "deal_void": "mano nulla: {who} ridà",
        "duplicate_card": "{card} visto due volte",
        "cut_again": "alza un'altra carta",
        "unknown_tag": "carta sconosciuta",
        "unknown_tag_do": "metti da parte la carta",
        "exchange_count": "{who}: cambio errato",
        "exchange_do": "pesca quante ne hai scartate",
        "false_king": "{who} non ha il re",
        "false_king_do": "nessun punto per il re",
        "late_play": "{who}: {what}, presa {trick}",
        "late_king": "{who}: re falso",
        "late_choose": "{turn}: sì rigioca, no continua",
        "late_king_back": "punto tolto",
        "out_of_turn": "{who}: non è il tuo turno",
        "out_of_turn_do": "aspetta {turn}",
        "revoke": "{who} deve rispondere a {suit}",
        "revoke_win": "{who} deve rispondere a {suit} e superare",
        "not_overtaking": "{who} deve superare il {beat}",
        "not_trumping": "{who} deve tagliare a {suit}",
        "card_not_in_hand": "{who} non ha il {card}",
        "not_highest": "{who} deve giocare la più alta",
        "king_not_led": "{who} deve giocare il re",
        "wrong_time": "{who}: non ora",
        "setup_ignored": "impostazione ignorata",
        "setup_ignored_do": "la partita è iniziata",
        "locked": "regole della casa",
        "locked_do": "le regole del tavolo sono fisse",
        "badge_seat": "posa il badge su un tappeto di gioco",
        "deck_title": "Controllo mazzo",
        "deck_title_pack": "Mazzo {n}",
        "deck_pass": "passa le carte sul tappeto",
        "deck_seen": "{n}/32 carte viste",
        "deck_missing": "mancano {cards}",
        "deck_ok": "Mazzo {n}: 32 OK",
        "deck_bad": "Mazzo {n}: non pronto",
        "deck_none": "Nessun mazzo",
        "deck_lift": "togli il mazzo",
        "deck_twice": "doppie {cards}",
        "deck_foreign": "{n} estranee",
        "deck_fake": "{n} non originali",
        "deck_again": "ripassa il mazzo",
        "offline": "lettore {zones} spento",
        "offline_do": "controlla il cavo; la partita aspetta",
        "paused": "tavolo in pausa",
        "paused_do": "la partita riprende da dove era",
        "king": "{who} +1 re",
        "hand_won": "{who} vince {hi}-{lo}",
        "deals_next": "poi dà {who}",
        "score_line": "punti {a} {sa} · {b} {sb}",
        "point": "punto",
        "vole": "cappotto",
        "punished_stand": "prepotenza",
        "punished_refusal": "rifiuto punito",
        "failed": "perso",
        "king_points": "re",
        "pen_revoke": "risposta errata",
        "pen_not_trumping": "taglio mancato",
        "pen_not_overtaking": "non superato",
        "pen_king_not_declared": "re taciuto",
        "game_over": "{who} vince",
        "game_over_do": "la partita, {a}:{b}\nsì: nuova partita",
        "settings_hint": "re: impostazioni",
    },
    "de": {
        "table": "Tisch",
        "status_deal": "{dealer} gibt · Vorhand {elder}",
        "status_deal_short": "{dealer} gibt",
        "status_tricks": "Stiche {a} {ta} · {b} {tb}",
        "status_target": "Spiel bis {n}",
        "status_seen": "gesehen {a} {sa}/{ha} · {b} {sb}/{hb}",
        "take_back": "{card} zurücknehmen",
        "take_back_penalty": "{card} zurücknehmen; {who} −{n} Punkt",
        "misdeal": "vergeben",
        "deal_void": "ungültig: {who} gibt neu",
        "duplicate_card": "{card} doppelt gesehen",
        "cut_again": "eine andere Karte abheben",
        "unknown_tag": "unbekannte Karte",
        "unknown_tag_do": "die Karte beiseitelegen",
        "exchange_count": "{who}: falsch getauscht",
        "exchange_do": "so viele ziehen wie abgelegt",
        "false_king": "{who} hat den König nicht",
        "false_king_do": "kein Punkt für den König",
        "late_play": "{who}: {what}, Stich {trick}",
        "late_king": "{who}: falscher König",
        "late_choose": "{turn}: ja neu, nein weiter",
        "late_king_back": "Punkt zurück",
        "out_of_turn": "{who}: nicht am Zug",
        "out_of_turn_do": "warten auf {turn}",
        "revoke": "{who} muss {suit} bedienen",
        "revoke_win": "{who} muss {suit} bedienen und stechen",
        "not_overtaking": "{who} muss {beat} überstechen",
        "not_trumping": "{who} muss mit {suit} trumpfen",
        "card_not_in_hand": "{who} hat {card} nicht",
        "not_highest": "{who} muss die höchste spielen",
        "king_not_led": "{who} muss den König ausspielen",
        "wrong_time": "{who}: nicht jetzt",
        "setup_ignored": "Einstellung ignoriert",
        "setup_ignored_do": "das Spiel hat begonnen",
        "locked": "Hausregeln",
        "locked_do": "die Regeln dieses Tisches stehen fest",
        "badge_seat": "Ausweis auf ein Spielfeld legen",
        "deck_title": "Kartenprüfung",
        "deck_title_pack": "Spiel {n} prüfen",
        "deck_pass": "Karten über das Feld ziehen",
        "deck_seen": "{n}/32 Karten gesehen",
        "deck_missing": "fehlt {cards}",
        "deck_ok": "Spiel {n}: 32 OK",
        "deck_bad": "Spiel {n}: nicht bereit",
        "deck_none": "Kein Spiel erkannt",
        "deck_lift": "Karten abnehmen",
        "deck_twice": "doppelt {cards}",
        "deck_foreign": "{n} fremd",
        "deck_fake": "{n} nicht echt",
        "deck_again": "Spiel noch einmal ziehen",
        "offline": "Leser {zones} aus",
        "offline_do": "Kabel prüfen; das Spiel wartet",
        "paused": "Tisch pausiert",
        "paused_do": "das Spiel geht dort weiter",
        "king": "{who} +1 König",
        "hand_won": "{who} gewinnt {hi}-{lo}",
        "deals_next": "dann gibt {who}",
        "score_line": "Stand {a} {sa} · {b} {sb}",
        "point": "Punkt",
        "vole": "Vole",
        "punished_stand": "ohne Tausch",
        "punished_refusal": "Ablehnung",
        "failed": "verloren",
        "king_points": "König",
        "pen_revoke": "Farbe",
        "pen_not_trumping": "Trumpf",
        "pen_not_overtaking": "nicht gestochen",
        "pen_king_not_declared": "König still",
        "game_over": "{who} gewinnt",
        "game_over_do": "das Spiel, {a}:{b}\nja: neues Spiel",
        "settings_hint": "König: Einstellungen",
    },
}

FAULT_WORDS = ("misdeal", "duplicate_card", "unknown_tag", "exchange_count", "false_king", "out_of_turn",
               "revoke", "not_overtaking", "not_trumping", "card_not_in_hand", "not_highest",
               "king_not_led", "wrong_time")
"""The fault and notice codes the catalogue words (every code of :data:`engine.faults.FAULT_CODES`)."""


def language(name: str | None) -> str:
    """``name`` if the table speaks it, else English (with a warning)."""
    if name is None or name in LANGUAGES:
        return name or "en"
    logger.warning("the table does not speak %r: English instead (one of %s)", name, ", ".join(LANGUAGES))
    return "en"


def card(code: str, lang: str = "en") -> str:
    """``"KS"`` → ``"K♠"`` (``"R♠"`` in French): the rank as that language prints it, the suit symbol.

    :raises ValueError: not a card.
    """
    if len(code) != 2 or code[1] not in SUITS:
        raise ValueError(f"not a card: {code!r} (rank then suit, like 'TH')")
    return _RANKS[lang].get(code[0], code[0]) + SUITS[code[1]]


def screen_name(name: str, width: int = NAME_WIDTH) -> str:
    """``name`` cut to ``width`` pixels on the OLED (a dot marks the cut)."""
    name = " ".join(name.split())
    if text_width(name) <= width:
        return name
    return name[:fitting(name, width, tail=".")].rstrip() + "."


@dataclass(frozen=True, slots=True)
class Words:
    """One language's words for the table."""

    lang: str

    def say(self, key: str, **values: Any) -> str:
        """The words for ``key`` with ``values`` put in (``{who}``, ``{card}``...)."""
        template = _WORDS[self.lang].get(key) or _WORDS["en"][key]
        return template.format(**values)

    def card(self, code: str) -> str:
        """A card as this language prints it."""
        return card(code, self.lang)


def words(lang: str = "en") -> Words:
    """The words of ``lang`` (English for a language the table does not speak)."""
    return Words(language(lang))
