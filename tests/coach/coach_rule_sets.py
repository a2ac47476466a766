"""Shared values for the coach's tests: every rule set and option that changes the duties of play."""

from __future__ import annotations

from engine.rules import RuleSet, rules

RULE_SETS: tuple[RuleSet, ...] = (
    rules("classic"), rules("french"), rules("italian"), rules("italian", forzare=True), rules("german"),
    rules("classic", ace_high=True),
)
RULE_IDS = [r.describe() for r in RULE_SETS]
