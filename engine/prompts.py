"""What the table waits for, in words: the one place where that wording lives, in every
language the table speaks.

The OLED shows :attr:`Prompt.short` beside the seat; faults, ``sim`` and logs use
:attr:`Prompt.text`. :attr:`Prompt.key` and :attr:`Prompt.count` say the same as data,
and :func:`worded` words a prompt in another language (``en``, ``fr``, ``it``, ``de``)::

    >>> from engine.game import new_game
    >>> prompt(new_game("classic", dealer="B")).text
    'B deals five cards each and turns up the eleventh'
    >>> prompt(new_game("classic", dealer="B")).short, prompt(new_game("german", dealer="B")).key
    ('deal, turn up', 'deal')
    >>> expectation(new_game("german", dealer="A"))
    'A deals five cards each and turns up the eleventh'
    >>> worded(prompt(new_game("classic", dealer="B")), "fr", "Anne").text
    'Anne donne cinq cartes à chacun et retourne la onzième'
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.seats import OTHER
from engine.state import GameState

LANGUAGES = ("en", "fr", "it", "de")
"""The languages the table speaks (the table file picks one; English by default)."""

# key -> (short, sentence); ``{seat}`` is the seat (or its player's name), ``{n}`` a count.
# The rules' questions are keys of their own: the elder proposes or plays (declares or
# passes under german rules), the dealer accepts or refuses (takes the game or exchanges).
_WORDS: dict[str, dict[str, tuple[str, str]]] = {
    "en": {
        "retourne": ("turn a card: target", "turn a card to set the target"),
        "cut": ("cut for the deal", "each seat cuts a card for the deal"),
        "deal": ("deal, turn up", "{seat} deals five cards each and turns up the eleventh"),
        "propose": ("propose or play?", "{seat}: propose or play?"),
        "declare": ("declare or pass?", "{seat}: declare or pass?"),
        "respond": ("accept or refuse?", "{seat}: accept or refuse?"),
        "take": ("take or exchange?", "{seat}: take the game or exchange?"),
        "draw": ("draw {n}", "{seat} draws {n} from the stock"),
        "discard_or_draw": ("discard or draw {n}", "{seat} discards more or draws {n} from the stock"),
        "discard": ("discard", "{seat} discards"),
        "play": ("play", "{seat} plays"),
        "offer_double": ("double: yes or no?", "{seat}: accept or refuse the double?"),
        "offer_point": ("point: yes or no?", "{seat}: accept or refuse the point?"),
        "over": ("game over", "the game is over"),
    },
    "fr": {
        "retourne": ("retournez: le but", "retournez une carte pour fixer le but"),
        "cut": ("coupez pour donner", "chacun coupe une carte pour la donne"),
        "deal": ("donnez, retournez", "{seat} donne cinq cartes à chacun et retourne la onzième"),
        "propose": ("proposer ou jouer ?", "{seat} : proposer ou jouer ?"),
        "declare": ("jouer ou passer ?", "{seat} : jouer ou passer ?"),
        "respond": ("accepter ou refuser ?", "{seat} : accepter ou refuser ?"),
        "take": ("jouer ou échanger ?", "{seat} : prendre le jeu ou échanger ?"),
        "draw": ("prenez {n}", "{seat} prend {n} au talon"),
        "discard_or_draw": ("écartez ou prenez {n}", "{seat} écarte encore ou prend {n} au talon"),
        "discard": ("écartez", "{seat} écarte"),
        "play": ("jouez", "{seat} joue"),
        "offer_double": ("double : oui ou non ?", "{seat} : accepter ou refuser le double ?"),
        "offer_point": ("point : oui ou non ?", "{seat} : accepter ou refuser le point ?"),
        "over": ("partie finie", "la partie est finie"),
    },
    "it": {
        "retourne": ("gira: i punti", "gira una carta per fissare i punti"),
        "cut": ("alzate per chi dà", "ognuno alza una carta per scegliere chi dà"),
        "deal": ("distribuisci, scopri", "{seat} dà cinque carte a testa e scopre l'undicesima"),
        "propose": ("proponi o giochi?", "{seat}: proponi o giochi?"),
        "declare": ("dichiari o passi?", "{seat}: dichiari o passi?"),
        "respond": ("accetti o rifiuti?", "{seat}: accetti o rifiuti?"),
        "take": ("prendi o cambi?", "{seat}: prendi il gioco o cambi?"),
        "draw": ("pesca {n}", "{seat} pesca {n} dal tallone"),
        "discard_or_draw": ("scarta o pesca {n}", "{seat} scarta ancora o pesca {n} dal tallone"),
        "discard": ("scarta", "{seat} scarta"),
        "play": ("gioca", "{seat} gioca"),
        "offer_double": ("raddoppio: sì o no?", "{seat}: accetti o rifiuti il raddoppio?"),
        "offer_point": ("punto: sì o no?", "{seat}: accetti o rifiuti il punto?"),
        "over": ("partita finita", "la partita è finita"),
    },
    "de": {
        "retourne": ("aufdecken: Ziel", "eine Karte aufdecken, sie setzt das Ziel"),
        "cut": ("abheben zum Geben", "jeder hebt eine Karte ab, wer gibt"),
        "deal": ("geben, aufdecken", "{seat} gibt je fünf Karten und deckt die elfte auf"),
        "propose": ("tauschen o. spielen?", "{seat}: tauschen oder spielen?"),
        "declare": ("ansagen o. passen?", "{seat}: ansagen oder passen?"),
        "respond": ("Tausch annehmen?", "{seat}: den Tausch annehmen oder ablehnen?"),
        "take": ("spielen o. tauschen?", "{seat}: das Spiel nehmen oder tauschen?"),
        "draw": ("{n} ziehen", "{seat} zieht {n} vom Talon"),
        "discard_or_draw": ("ablegen o. {n} ziehen", "{seat} legt weiter ab oder zieht {n} vom Talon"),
        "discard": ("ablegen", "{seat} legt ab"),
        "play": ("ausspielen", "{seat} spielt"),
        "offer_double": ("doppeln: ja/nein?", "{seat}: Verdopplung annehmen oder ablehnen?"),
        "offer_point": ("Punkt: ja/nein?", "{seat}: den Punkt annehmen oder ablehnen?"),
        "over": ("Spiel vorbei", "das Spiel ist vorbei"),
    },
}

PROMPT_KEYS = tuple(_WORDS["en"])
"""Every prompt the table can show (a test draws each in every language)."""


@dataclass(frozen=True, slots=True)
class Prompt:
    """Whose move it is (``""``: the table's, or nobody's), in a few words and in a sentence;
    ``key`` and ``count`` (cards to draw) say it as data."""

    seat: str
    short: str
    text: str
    key: str = ""
    count: int = 0


def worded(prompt: Prompt, language: str = "en", name: str | None = None) -> Prompt:
    """``prompt`` in ``language``, with ``name`` (a player's name) for its seat.

    :raises KeyError: an unknown language.
    """
    if not prompt.key or (language == "en" and name is None):
        return prompt
    short, text = _WORDS[language][prompt.key]
    who = name if name is not None else prompt.seat
    return Prompt(prompt.seat, short.format(seat=who, n=prompt.count), text.format(seat=who, n=prompt.count),
                  prompt.key, prompt.count)


def _prompt(key: str, seat: str, count: int = 0) -> Prompt:
    short, text = _WORDS["en"][key]
    return Prompt(seat, short.format(seat=seat, n=count), text.format(seat=seat, n=count), key, count)


def prompt(state: GameState) -> Prompt:
    """What the table waits for in ``state``."""
    phase = state.phase
    rules = state.rules
    if phase == "retourne":
        return _prompt("retourne", "")
    if phase == "cut":
        return _prompt("cut", "")
    if phase == "deal":
        return _prompt("deal", state.dealer)
    if phase in ("propose", "force"):
        return _prompt("declare" if rules.declares_game else "propose", state.elder)
    if phase == "respond":
        return _prompt("take" if rules.declares_game else "respond", state.dealer)
    if phase == "exchange":
        seat = state.exchanger or state.elder
        missing = state.ex_discarded - state.ex_drawn
        high = (rules.elder_discard if seat == state.elder else rules.dealer_discard)[1]
        if missing > 0 and state.ex_drawn == 0 and state.ex_discarded < min(high, state.stock_size):
            # nothing drawn yet: the seat may still be laying its discards one by one
            return _prompt("discard_or_draw", seat, missing)
        if missing > 0:
            return _prompt("draw", seat, missing)
        return _prompt("discard", seat)
    if phase == "play":
        if state.awaiting >= 0:
            other = "B" if state.awaiting == 0 else "A"
            return Prompt(other, "yes replay, no play on", f"{other}: yes to play the hand again, no to play on?")
        if state.offer is not None:
            return _prompt(f"offer_{state.offer}", OTHER[state.offer_by or "A"])
        return _prompt("play", state.turn or "")
    return _prompt("over", "")


def expectation(state: GameState) -> str:
    """What the table waits for, as a sentence: ``'A: propose or play?'``."""
    return prompt(state).text
