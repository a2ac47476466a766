"""What the table waits for: the one place that decides it, as data and in the engine's English.

:attr:`Prompt.key` and :attr:`Prompt.count` say it as data: the players read it in the table's
language from the catalogue, by key (:func:`firmware_host.screens.i18n.worded`). :attr:`Prompt.short`
and :attr:`Prompt.text` are the engine's English, for its logs (a fault names what the table waits
for by key: :func:`expecting`)::

    >>> from engine.game import new_game
    >>> prompt(new_game("classic", dealer="B")).text
    'B deals five cards each and turns up the eleventh'
    >>> prompt(new_game("classic", dealer="B")).short, prompt(new_game("german", dealer="B")).key
    ('deal, turn up', 'deal')
    >>> expectation(new_game("german", dealer="A"))
    'A deals five cards each and turns up the eleventh'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from engine.seats import OTHER
from engine.state import GameState, Phase

# key -> (short, sentence) in English, the engine's own words (its logs): the players read a prompt
# in the table's language from the catalogue, by ``key``
# (``catalogue/locale/*/LC_MESSAGES/ecarte.po``: ``prompt.<key>.short`` and ``prompt.<key>``).
# ``{seat}`` is the seat, ``{n}`` a count. The rules' questions are keys of their own: the elder
# proposes or plays (declares or passes under german rules), the dealer accepts or refuses
# (takes the game or exchanges); ``replay``: a fault proven late, the other seat chooses.
_ENGLISH: dict[str, tuple[str, str]] = {
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
    "replay": ("yes replay, no play on", "{seat}: yes to play the hand again, no to play on?"),
    "over": ("game over", "the game is over"),
}

PROMPT_KEYS = tuple(_ENGLISH)
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


def _prompt(key: str, seat: str, count: int = 0) -> Prompt:
    short, text = _ENGLISH[key]
    return Prompt(seat, short.format(seat=seat, n=count), text.format(seat=seat, n=count), key, count)


def prompt(state: GameState) -> Prompt:
    """What the table waits for in ``state``."""
    phase = state.phase
    rules = state.rules
    if phase == Phase.RETOURNE:
        return _prompt("retourne", "")
    if phase == Phase.CUT:
        return _prompt("cut", "")
    if phase == Phase.DEAL:
        return _prompt("deal", state.dealer)
    if phase in (Phase.PROPOSE, Phase.FORCE):
        return _prompt("declare" if rules.declares_game else "propose", state.elder)
    if phase == Phase.RESPOND:
        return _prompt("take" if rules.declares_game else "respond", state.dealer)
    if phase == Phase.EXCHANGE:
        seat = state.exchanger or state.elder
        missing = state.ex_discarded - state.ex_drawn
        high = (rules.elder_discard if seat == state.elder else rules.dealer_discard)[1]
        if missing > 0 and state.ex_drawn == 0 and state.ex_discarded < min(high, state.stock_size):
            # nothing drawn yet: the seat may still be laying its discards one by one
            return _prompt("discard_or_draw", seat, missing)
        if missing > 0:
            return _prompt("draw", seat, missing)
        return _prompt("discard", seat)
    if phase == Phase.PLAY:
        if state.awaiting >= 0:
            return _prompt("replay", "B" if state.awaiting == 0 else "A")
        if state.offer is not None:
            return _prompt(f"offer_{state.offer}", OTHER[state.offer_by or "A"])
        return _prompt("play", state.turn or "")
    return _prompt("over", "")


class Expecting(TypedDict):
    """What the table waits for, as a message's values (``expects``: the prompt's key, worded as the
    catalogue's ``prompt.<key>`` with ``expects_seat`` and ``expects_n``)."""

    expects: str
    expects_seat: str
    expects_n: int


def expecting(state: GameState) -> Expecting:
    """What the table waits for in ``state``, as a message's values."""
    waits = prompt(state)
    return {"expects": waits.key, "expects_seat": waits.seat, "expects_n": waits.count}


def expectation(state: GameState) -> str:
    """What the table waits for, as a sentence: ``'A: propose or play?'``."""
    return prompt(state).text
