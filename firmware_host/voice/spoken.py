"""The voice's words: cards said in full ("the king of spades", "le roi de pique") and the
announcements' sentences, in each language of the table.

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

from firmware_host.screens.i18n import card, language

__all__ = ["ESPEAK_VOICES", "SPOKEN_LANGUAGES", "Spoken", "spoken"]

ESPEAK_VOICES = {"en": "en-gb", "fr": "fr-fr", "it": "it", "de": "de"}
"""espeak-ng's voice for each language of the table (``espeak-ng --voices``)."""

_RANK_NAMES: dict[str, dict[str, str]] = {  # with the article the rank takes
    "en": {"7": "the seven", "8": "the eight", "9": "the nine", "T": "the ten", "J": "the jack", "Q": "the queen",
           "K": "the king", "A": "the ace"},
    "fr": {"7": "le sept", "8": "le huit", "9": "le neuf", "T": "le dix", "J": "le valet", "Q": "la dame",
           "K": "le roi", "A": "l'as"},
    "it": {"7": "il sette", "8": "l'otto", "9": "il nove", "T": "il dieci", "J": "il fante", "Q": "la donna",
           "K": "il re", "A": "l'asso"},
    "de": {"7": "Sieben", "8": "Acht", "9": "Neun", "T": "Zehn", "J": "Bube", "Q": "Dame", "K": "König",
           "A": "Ass"},
}

_SUIT_NAMES: dict[str, dict[str, str]] = {
    "en": {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"},
    "fr": {"S": "pique", "H": "cœur", "D": "carreau", "C": "trèfle"},
    "it": {"S": "picche", "H": "cuori", "D": "quadri", "C": "fiori"},
    "de": {"S": "Pik", "H": "Herz", "D": "Karo", "C": "Kreuz"},
}

# A card in full: {rank} with its article, {suit}.
_CARD: dict[str, str] = {
    "en": "{rank} of {suit}",
    "fr": "{rank} de {suit}",
    "it": "{rank} di {suit}",
    "de": "{suit} {rank}",
}

# key -> sentence; {who} a player, {card} a card in full, {suit} a suit, {n} a number.
_SAID: dict[str, dict[str, str]] = {
    "en": {
        "dealer": "{who} deals.",
        "target": "The game is played to {n} points.",
        "trump": "Hand {hand}. {dealer} deals. {card} is turned up: {suit} are trumps.",
        "propose": "{who} proposes.",
        "stand": "{who} plays as dealt.",
        "accept": "{who} accepts.",
        "refuse": "{who} refuses.",
        "declare": "{who} declares.",
        "pass": "{who} passes.",
        "vulnerable": "{who} must win three tricks.",
        "exchange": "{who} exchanges {n}.",
        "exchange_none": "{who} keeps the cards.",
        "play_begins": "{who} leads.",
        "play": "{who} plays {card}.",
        "trick": "{who} wins the trick. Tricks: {a} {ta}, {b} {tb}.",
        "king": "{who} has the king of trumps: one point. Score: {a} {sa}, {b} {sb}.",
        "offer_double": "{who} doubles.",
        "offer_point": "{who} offers the point.",
        "offer_yes": "{who}'s offer is accepted.",
        "offer_no": "{who}'s offer is declined.",
        "penalty": "{who} loses {n}: {why}.",
        "hand_end": "{who} wins the hand, {hi} tricks to {lo}, and scores {n}. Score: {a} {sa}, {b} {sb}.",
        "game_end": "{who} wins the game, {hi} to {lo}.",
        "match_end": "{who} wins the match.",
        "new_game": "A new game.",
        "replay_hand": "The hand is played again from the first trick.",
        "corrected": "Put right.",
        "a_card": "a card",
        "your_hand": "Your cards: {cards}.",
        "your_hand_none": "The table has seen none of your cards.",
        "unseen": "and {n} the table has not seen",
        "and": "and",
    },
    "fr": {
        "dealer": "{who} donne.",
        "target": "La partie se joue en {n} points.",
        "trump": "Main {hand}. {dealer} donne. Retourne : {card}. Atout {suit}.",
        "propose": "{who} propose.",
        "stand": "{who} joue d'autorité.",
        "accept": "{who} accepte.",
        "refuse": "{who} refuse.",
        "declare": "{who} annonce.",
        "pass": "{who} passe.",
        "vulnerable": "{who} doit faire trois levées.",
        "exchange": "{who} échange {n}.",
        "exchange_none": "{who} garde ses cartes.",
        "play_begins": "{who} entame.",
        "play": "{who} joue {card}.",
        "trick": "{who} fait la levée. Levées : {a} {ta}, {b} {tb}.",
        "king": "{who} a le roi d'atout : un point. Score : {a} {sa}, {b} {sb}.",
        "offer_double": "{who} double.",
        "offer_point": "{who} offre le point.",
        "offer_yes": "L'offre de {who} est acceptée.",
        "offer_no": "L'offre de {who} est refusée.",
        "penalty": "{who} perd {n} : {why}.",
        "hand_end": "{who} gagne la main, {hi} levées à {lo}, et marque {n}. Score : {a} {sa}, {b} {sb}.",
        "game_end": "{who} gagne la partie, {hi} à {lo}.",
        "match_end": "{who} gagne la manche.",
        "new_game": "Nouvelle partie.",
        "replay_hand": "La main se rejoue depuis la première levée.",
        "corrected": "C'est réparé.",
        "a_card": "une carte",
        "your_hand": "Vos cartes : {cards}.",
        "your_hand_none": "La table n'a vu aucune de vos cartes.",
        "unseen": "et {n} que la table n'a pas vues",
        "and": "et",
    },
    "it": {
        "dealer": "Dà {who}.",
        "target": "Si gioca a {n} punti.",
        "trump": "Mano {hand}. Dà {dealer}. Girata: {card}. Briscola {suit}.",
        "propose": "{who} propone.",
        "stand": "{who} gioca di prepotenza.",
        "accept": "{who} accetta.",
        "refuse": "{who} rifiuta.",
        "declare": "{who} dichiara.",
        "pass": "{who} passa.",
        "vulnerable": "{who} deve fare tre prese.",
        "exchange": "{who} cambia {n}.",
        "exchange_none": "{who} tiene le carte.",
        "play_begins": "Apre {who}.",
        "play": "{who} gioca {card}.",
        "trick": "{who} prende. Prese: {a} {ta}, {b} {tb}.",
        "king": "{who} ha il re di briscola: un punto. Punti: {a} {sa}, {b} {sb}.",
        "offer_double": "{who} raddoppia.",
        "offer_point": "{who} offre il punto.",
        "offer_yes": "L'offerta di {who} è accettata.",
        "offer_no": "L'offerta di {who} è rifiutata.",
        "penalty": "{who} perde {n}: {why}.",
        "hand_end": "{who} vince la mano, {hi} prese a {lo}, e segna {n}. Punti: {a} {sa}, {b} {sb}.",
        "game_end": "{who} vince la partita, {hi} a {lo}.",
        "match_end": "{who} vince la rivincita.",
        "new_game": "Nuova partita.",
        "replay_hand": "La mano si rigioca dalla prima presa.",
        "corrected": "Corretto.",
        "a_card": "una carta",
        "your_hand": "Le tue carte: {cards}.",
        "your_hand_none": "Il tavolo non ha visto nessuna delle tue carte.",
        "unseen": "e {n} che il tavolo non ha visto",
        "and": "e",
    },
    "de": {
        "dealer": "{who} gibt.",
        "target": "Gespielt wird bis {n} Punkte.",
        "trump": "Spiel {hand}. {dealer} gibt. Aufgedeckt: {card}. Trumpf ist {suit}.",
        "propose": "{who} schlägt Tausch vor.",
        "stand": "{who} spielt ohne Tausch.",
        "accept": "{who} nimmt an.",
        "refuse": "{who} lehnt ab.",
        "declare": "{who} sagt an.",
        "pass": "{who} passt.",
        "vulnerable": "{who} muss drei Stiche machen.",
        "exchange": "{who} tauscht {n}.",
        "exchange_none": "{who} behält die Karten.",
        "play_begins": "{who} spielt aus.",
        "play": "{who} spielt {card}.",
        "trick": "{who} macht den Stich. Stiche: {a} {ta}, {b} {tb}.",
        "king": "{who} hat den Trumpfkönig: ein Punkt. Stand: {a} {sa}, {b} {sb}.",
        "offer_double": "{who} verdoppelt.",
        "offer_point": "{who} bietet den Punkt an.",
        "offer_yes": "Das Angebot von {who} ist angenommen.",
        "offer_no": "Das Angebot von {who} ist abgelehnt.",
        "penalty": "{who} verliert {n}: {why}.",
        "hand_end": "{who} gewinnt das Spiel mit {hi} zu {lo} Stichen und schreibt {n}. Stand: {a} {sa}, {b} {sb}.",
        "game_end": "{who} gewinnt die Partie, {hi} zu {lo}.",
        "match_end": "{who} gewinnt die Runde.",
        "new_game": "Neue Partie.",
        "replay_hand": "Das Spiel wird ab dem ersten Stich neu gespielt.",
        "corrected": "Berichtigt.",
        "a_card": "eine Karte",
        "your_hand": "Deine Karten: {cards}.",
        "your_hand_none": "Der Tisch hat keine deiner Karten gesehen.",
        "unseen": "und {n}, die der Tisch nicht gesehen hat",
        "and": "und",
    },
}

SPOKEN_LANGUAGES = tuple(_SAID)
"""The languages the voice speaks."""

_SENTENCE = re.compile(r"^\w|(?<=[.!?] )\w")
_PRINTED = re.compile(r"(?:10|[2-9A-Z])[♠♥♦♣]")
_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
_LONE_SUIT = re.compile(r"[♠♥♦♣]")
_CODES = tuple(r + s for s in "SHDC" for r in "789TJQKA")


@dataclass(frozen=True, slots=True)
class Spoken:
    """One language's spoken words."""

    lang: str

    def say(self, key: str, **values: Any) -> str:
        """The sentence for ``key`` with ``values`` put in."""
        template = _SAID[self.lang].get(key) or _SAID["en"][key]
        return _SENTENCE.sub(lambda m: m.group(0).upper(), template.format(**values))

    def word(self, key: str, **values: Any) -> str:
        """The words for ``key`` as they are (a part of a sentence: not capitalised)."""
        return (_SAID[self.lang].get(key) or _SAID["en"][key]).format(**values)

    def card(self, code: str) -> str:
        """``"KS"`` in full, with its article: "the king of spades"."""
        return _CARD[self.lang].format(rank=_RANK_NAMES[self.lang][code[0]], suit=_SUIT_NAMES[self.lang][code[1]])

    def cards_in(self, text: str) -> set[str]:
        """Every card ``text`` says in full (``{"KS"}`` for "Bruno plays the king of spades"): what
        the tests that check what leaves the table look for."""
        text = text.lower()
        return {code for code in _CODES if self.card(code).lower() in text}

    def suit(self, suit: str) -> str:
        """A suit's name (``S`` → "spades")."""
        return _SUIT_NAMES[self.lang][suit]

    def cards_said(self, text: str) -> str:
        """``text`` (the OLED's words) with each printed card (``R♠``) said in full, its
        article included (the OLED's "reprenez le D♥" → "reprenez la dame de cœur")."""
        printed = {card(code, self.lang): code for code in _CODES}

        def full(match: re.Match[str]) -> str:
            code = printed.get(match.group(0))
            return self.card(code) if code is not None else self.say("a_card")

        said = _PRINTED.sub(full, text)
        said = _LONE_SUIT.sub(lambda m: self.suit(_SYMBOLS[m.group(0)]), said)  # "must trump ♥"
        # the OLED's own article before a card ("the K♠", "le R♠") gives way to the card's
        return re.sub(r"\b(?:the|le|il|la|l'|el)\s+(the |le |la |l'|il |el )", r"\1", said)


def spoken(lang: str = "en") -> Spoken:
    """The spoken words of ``lang`` (English for a language the table does not speak)."""
    lang = language(lang)
    return Spoken(lang if lang in _SAID else "en")

