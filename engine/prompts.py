"""What the table waits for, in words: the one place where that wording lives.

The OLED shows :attr:`Prompt.short` beside the seat; faults, ``sim`` and logs use
:attr:`Prompt.text`::

    >>> from engine.game import new_game
    >>> prompt(new_game("classic", dealer="B"))
    Prompt(seat='B', short='deal, turn up', text='B deals five cards each and turns up the eleventh')
    >>> expectation(new_game("german", dealer="A"))
    'A deals five cards each and turns up the eleventh'
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.state import OTHER, GameState


@dataclass(frozen=True, slots=True)
class Prompt:
    """Whose move it is (``""``: the table's, or nobody's), in a few words and in a sentence."""

    seat: str
    short: str
    text: str


def prompt(state: GameState) -> Prompt:
    """What the table waits for in ``state``."""
    phase = state.phase
    rules = state.rules
    if phase == "retourne":
        return Prompt("", "turn a card: target", "turn a card to set the target")
    if phase == "cut":
        return Prompt("", "cut for the deal", "each seat cuts a card for the deal")
    if phase == "deal":
        dealer = state.dealer
        return Prompt(dealer, "deal, turn up", f"{dealer} deals five cards each and turns up the eleventh")
    if phase in ("propose", "force"):
        elder = state.elder
        return Prompt(elder, rules.elder_question, f"{elder}: {rules.elder_question}")
    if phase == "respond":
        dealer = state.dealer
        return Prompt(dealer, rules.dealer_question_short, f"{dealer}: {rules.dealer_question}")
    if phase == "exchange":
        seat = state.exchanger or state.elder
        missing = state.ex_discarded - state.ex_drawn
        if missing > 0:
            return Prompt(seat, f"draw {missing}", f"{seat} draws {missing} from the stock")
        return Prompt(seat, "discard", f"{seat} discards")
    if phase == "play":
        if state.awaiting >= 0:
            other = "B" if state.awaiting == 0 else "A"
            return Prompt(other, "yes replay, no play on", f"{other}: yes to play the hand again, no to play on?")
        if state.offer is not None:
            other = OTHER[state.offer_by or "A"]
            return Prompt(other, f"{state.offer}: yes or no?", f"{other}: accept or refuse the {state.offer}?")
        turn = state.turn or ""
        return Prompt(turn, "play", f"{turn} plays")
    return Prompt("", "game over", "the game is over")


def expectation(state: GameState) -> str:
    """What the table waits for, as a sentence: ``'A: propose or play?'``."""
    return prompt(state).text
