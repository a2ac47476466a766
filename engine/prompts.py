"""What the table waits for: the one place that decides it, as data (no words).

A :class:`Prompt` is the prompt's ``key``, its ``seat`` and its ``count`` (cards to draw); its words
are the catalogue's, in every language alike, English among them (``prompt.<key>.short`` and
``prompt.<key>`` in ``catalogue/locale/*/LC_MESSAGES/ecarte.po``), put in at the edge
(:func:`catalogue.prompt_words`). :func:`expectation` says it as a message's id and values
(:class:`~engine.message.Phrase`), as a fault does::

    >>> from engine.game import new_game
    >>> prompt(new_game("classic", dealer="B"))
    Prompt(seat='B', key='deal', count=0)
    >>> expectation(new_game("german", dealer="A"))
    Phrase(msgid='prompt.deal', values=(('seat', 'A'), ('n', '0')))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from engine.message import Phrase
from engine.seats import OTHER
from engine.state import GameState, Phase

# The rules' questions are keys of their own: the elder proposes or plays (declares or passes under
# german rules), the dealer accepts or refuses (takes the game or exchanges); ``replay``: a fault
# proven late, the other seat chooses.
PROMPT_KEYS = ("retourne", "cut", "deal", "propose", "declare", "respond", "take", "draw", "discard_or_draw",
               "discard", "play", "offer_double", "offer_point", "replay", "over")
"""Every prompt the table can show (a test draws each in every language)."""


@dataclass(frozen=True, slots=True)
class Prompt:
    """Whose move it is (``""``: the table's, or nobody's), what the table waits for (``key``, one of
    :data:`PROMPT_KEYS`) and ``count`` (cards to draw)."""

    seat: str
    key: str = ""
    count: int = 0

    @property
    def says(self) -> Phrase:
        """The prompt as a message's id and values (``prompt.<key>`` with ``seat`` and ``n``)."""
        return Phrase(f"prompt.{self.key}", (("seat", self.seat), ("n", str(self.count))))


def prompt(state: GameState) -> Prompt:
    """What the table waits for in ``state``."""
    phase = state.phase
    rules = state.rules
    if phase == Phase.RETOURNE:
        return Prompt("", "retourne")
    if phase == Phase.CUT:
        return Prompt("", "cut")
    if phase == Phase.DEAL:
        return Prompt(state.dealer, "deal")
    if phase in (Phase.PROPOSE, Phase.FORCE):
        return Prompt(state.elder, "declare" if rules.declares_game else "propose")
    if phase == Phase.RESPOND:
        return Prompt(state.dealer, "take" if rules.declares_game else "respond")
    if phase == Phase.EXCHANGE:
        seat = state.exchanger or state.elder
        missing = state.ex_discarded - state.ex_drawn
        high = (rules.elder_discard if seat == state.elder else rules.dealer_discard)[1]
        if missing > 0 and state.ex_drawn == 0 and state.ex_discarded < min(high, state.stock_size):
            # nothing drawn yet: the seat may still be laying its discards one by one
            return Prompt(seat, "discard_or_draw", missing)
        if missing > 0:
            return Prompt(seat, "draw", missing)
        return Prompt(seat, "discard")
    if phase == Phase.PLAY:
        if state.awaiting >= 0:
            return Prompt("B" if state.awaiting == 0 else "A", "replay")
        if state.offer is not None:
            return Prompt(OTHER[state.offer_by or "A"], f"offer_{state.offer}")
        return Prompt(state.turn or "", "play")
    return Prompt("", "over")


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


def expectation(state: GameState) -> Phrase:
    """What the table waits for, as a message's id and values (``prompt.<key>``)."""
    return prompt(state).says
