"""Setting the table up at the table: names, rule set and options, before the first deal.

Pure: a :class:`Menu` and the :class:`Settings` it edits are frozen values, and each button
or tag gives a :class:`Step` (the menu after it, the settings to play with, or a notice).
The controller calls it only before a game's first card (:mod:`firmware_host.referee.controller`).

- **The menu**, on the OLED, driven by any seat's buttons: ``king`` opens it; ``no`` goes
  to the next line, ``yes`` changes the value on it, ``king`` closes it and the game
  starts with what it shows. Its last line is the OLED's language, each named in its own
  words (the screens change at once). A table file may lock the rules (a club's house
  rules): the menu then shows them and changes nothing but the language.
- **Badges and rule cards**: enrolled tags that are not cards (:mod:`hardware.badges`).
  A player's badge laid on a seat's pad names that seat (``player:Anne``); a rule card on
  the turn-up pad sets the rule set (``rules:italian``), an option (``option:forzare``) or
  the target (``target:7``).

    >>> menu = Menu.open(Settings("classic"))
    >>> menu.line.item, menu.line.value
    ('rules', 'classic')
    >>> step = menu.press("yes")
    >>> step.menu.line.value
    'french'
    >>> step.menu.press("king").settings.rules
    'french'
    >>> laid(Settings("classic"), "player:Anne", "A").settings.players
    ('Anne', 'B')
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from typing import Any

from catalogue import LANGUAGES
from engine.ecarte_errors import UnknownRulesError
from engine.fault_code import NoticeCode
from engine.rules import RULE_SETS, rules
from engine.seats import SEATS

logger = logging.getLogger(__name__)

TARGETS = (5, 3, 7, 10)
"""The targets the menu offers, the usual first."""

OPTIONS = ("ace_high", "doubling", "offer_point", "game_value", "forzare", "a_la_retourne")
"""The options the menu offers (each where its rule set accepts it)."""

RUBBERS = (1, 3, 5)


@dataclass(frozen=True, slots=True)
class Settings:
    """The game a table starts: rule set, options, target (None: the rule set's), names and
    the OLED's language."""

    rules: str = "classic"
    options: tuple[tuple[str, Any], ...] = ()
    target: int | None = None
    players: tuple[str, str] = SEATS
    language: str = "en"

    def option(self, name: str) -> Any:
        """The value of option ``name`` (its rule set's default when not set)."""
        for key, value in self.options:
            if key == name:
                return value
        return getattr(rules(self.rules), name)

    def with_option(self, name: str, value: Any) -> Settings:
        """These settings with ``name`` set to ``value`` (the default drops out)."""
        kept = tuple((k, v) for k, v in self.options if k != name)
        if value != getattr(rules(self.rules), name):
            kept += ((name, value),)
        return dataclasses.replace(self, options=tuple(sorted(kept)))

    def playable(self) -> bool:
        """Whether the engine plays these rules with these options."""
        try:
            rules(self.rules, **dict(self.options))
        except (UnknownRulesError, ValueError, TypeError):
            return False
        return True


UNLOCKED = ("language",)
"""The menu lines house rules leave free."""


@dataclass(frozen=True, slots=True)
class MenuLine:
    """What the menu shows: the line ``item`` (``rules``, ``target``, ``rubber``, an option or
    ``language``) with its ``value`` (``"classic"``, ``"7"``, ``"on"``, ``"fr"``), line
    ``position`` of ``count``; ``locked``: the table's house rules, shown but not changed;
    ``changeable``: whether ``yes`` changes this line (under house rules only the language does)."""

    item: str
    value: str
    position: int
    count: int
    locked: bool = False
    changeable: bool = True


@dataclass(frozen=True, slots=True)
class Menu:
    """The settings menu, open on the OLED."""

    settings: Settings
    position: int = 0
    locked: bool = False

    @classmethod
    def open(cls, settings: Settings, *, locked: bool = False) -> Menu:
        return cls(settings, 0, locked)

    @property
    def items(self) -> tuple[str, ...]:
        """The lines of the menu for the current rule set."""
        return ("rules", "target", "rubber", *(name for name in OPTIONS if _accepts(self.settings, name)),
                "language")

    @property
    def line(self) -> MenuLine:
        item = self.items[self.position % len(self.items)]
        return MenuLine(item, _shown(self.settings, item), self.position % len(self.items) + 1,
                        len(self.items), self.locked, self._changeable(item))

    def _changeable(self, item: str) -> bool:
        """House rules lock every line but the language (the players' words, not the game's rules)."""
        return not self.locked or item in UNLOCKED

    def press(self, button: str) -> Step:
        """A seat pressed ``button``: ``no`` the next line, ``yes`` the next value, ``king`` done."""
        if button == "king":
            return Step(None, self.settings)
        if button == "no":
            return Step(dataclasses.replace(self, position=(self.position + 1) % len(self.items)))
        item = self.items[self.position % len(self.items)]
        if not self._changeable(item):
            return Step(self, notice=NoticeCode.LOCKED)
        return Step(dataclasses.replace(self, settings=_next_value(self.settings, item)))


@dataclass(frozen=True, slots=True)
class Step:
    """What a button or a tag did: the menu after it (None: closed), the settings to start
    the game with (None: unchanged) and a notice for the players (its code; None: nothing to tell)."""

    menu: Menu | None
    settings: Settings | None = None
    notice: NoticeCode | None = None


def laid(settings: Settings, tag: str, seat: str | None, *, locked: bool = False) -> Step:
    """A badge or a rule card (``tag``: ``player:NAME``, ``rules:NAME``, ``option:NAME``,
    ``target:N``) laid on a pad: ``seat``'s pad (None: a pad of no seat: the turn-up's, the discards')."""
    kind, _, value = tag.partition(":")
    if kind == "player":
        if seat is None:
            return Step(None, notice=NoticeCode.BADGE_SEAT)
        names = (value, settings.players[1]) if seat == "A" else (settings.players[0], value)
        return Step(None, dataclasses.replace(settings, players=names))
    if locked:
        return Step(None, notice=NoticeCode.LOCKED)
    changed: Settings | None = None
    if kind == "rules" and value in RULE_SETS:
        changed = dataclasses.replace(settings, rules=value, options=())
    elif kind == "option" and value in OPTIONS:
        changed = settings.with_option(value, not settings.option(value))
    elif kind == "target" and value.isdigit() and 1 <= int(value) <= 99:
        changed = dataclasses.replace(settings, target=int(value))
    if changed is None or not changed.playable():
        logger.info("rule card %r means nothing for %s", tag, settings.rules)
        return Step(None, notice=NoticeCode.RULE_CARD)
    return Step(None, changed)


_ONLY = {"forzare": "italian", "a_la_retourne": "french"}
"""Options of one rule set's source (000's forzare, 001's à la retourne)."""


def _accepts(settings: Settings, name: str) -> bool:
    if _ONLY.get(name, settings.rules) != settings.rules:
        return False
    return dataclasses.replace(settings, options=((name, True),)).playable()


def _shown(settings: Settings, item: str) -> str:
    if item == "rules":
        return settings.rules
    if item == "target":
        return str(settings.target or rules(settings.rules).target)
    if item == "rubber":
        return str(settings.option("rubber"))
    if item == "language":
        return settings.language
    return "on" if settings.option(item) else "off"


def _next_value(settings: Settings, item: str) -> Settings:
    if item == "rules":
        names = list(RULE_SETS)
        following = names[(names.index(settings.rules) + 1) % len(names)] if settings.rules in names else names[0]
        return dataclasses.replace(settings, rules=following, options=())
    if item == "target":
        now = settings.target or rules(settings.rules).target
        following_target = TARGETS[(TARGETS.index(now) + 1) % len(TARGETS)] if now in TARGETS else TARGETS[0]
        return dataclasses.replace(settings, target=following_target)
    if item == "language":
        now = LANGUAGES.index(settings.language) if settings.language in LANGUAGES else -1
        return dataclasses.replace(settings, language=LANGUAGES[(now + 1) % len(LANGUAGES)])
    if item == "rubber":
        now = settings.option("rubber")
        return settings.with_option("rubber", RUBBERS[(RUBBERS.index(now) + 1) % len(RUBBERS)]
                                    if now in RUBBERS else 1)
    changed = settings.with_option(item, not settings.option(item))
    return changed if changed.playable() else settings
