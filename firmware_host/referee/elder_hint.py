"""Learners' hints: before the elder's first decision, his odds of standing (a table that turns hints on)."""

from __future__ import annotations

from collections.abc import Callable

import engine
from engine import GameState, RuleSet


class ElderHint:
    """Learners' hints: ``advisor(rules, elder's hand, turn-up, language)`` (``coach.odds.hint_text``),
    asked once per hand, turn-up and language before the elder's first decision (when the table knows
    his five cards)."""

    def __init__(self, advisor: Callable[[RuleSet, int, int, str], str] | None) -> None:
        self._advisor = advisor
        self._for: tuple[int, int, str] | None = None
        self._text: str | None = None

    def __call__(self, state: GameState, lang: str = "en") -> str | None:
        if self._advisor is None or state.phase != "propose" or state.proposals:
            return None
        elder = engine.SEATS.index(state.elder)
        if state.hands[elder].bit_count() != 5:
            return None
        if self._for != (state.hands[elder], state.turn_up, lang):
            self._for = (state.hands[elder], state.turn_up, lang)
            self._text = self._advisor(state.rules, state.hands[elder], state.turn_up, lang)
        return self._text
