"""Learners' hints: before the elder's first decision, his odds of standing (a table that turns hints on)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import engine
from engine import GameState, RuleSet
from engine.state import Phase


@dataclass(frozen=True, slots=True)
class ElderHint:
    """Learners' hints: ``advisor(rules, elder's hand, turn-up, language)`` (``coach.odds.hint_text``),
    asked once per hand, turn-up and language before the elder's first decision (when the table knows
    his five cards). A frozen value: :meth:`after` gives the hint for a state, asking the advisor
    only when its hand, turn-up or language changed (``asked`` and ``text``: the last answer).
    """

    advisor: Callable[[RuleSet, int, int, str], str] | None = None
    asked: tuple[int, int, str] | None = None
    text: str | None = None
    shown: str | None = None
    """The hint the table shows now (None: none)."""

    def after(self, state: GameState, lang: str = "en") -> ElderHint:
        """The hint for ``state`` in ``lang`` (the advisor asked again only for a new hand, turn-up
        or language)."""
        if self.advisor is None or state.phase != Phase.PROPOSE or state.proposals:
            return self if self.shown is None else dataclasses.replace(self, shown=None)
        elder = engine.SEATS.index(state.elder)
        if state.hands[elder].bit_count() != 5:
            return self if self.shown is None else dataclasses.replace(self, shown=None)
        key = (state.hands[elder], state.turn_up, lang)
        if self.asked != key:
            text = self.advisor(state.rules, state.hands[elder], state.turn_up, lang)
            return dataclasses.replace(self, asked=key, text=text, shown=text)
        return self if self.shown == self.text else dataclasses.replace(self, shown=self.text)
