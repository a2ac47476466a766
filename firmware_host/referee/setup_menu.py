"""The game a table starts with, and the settings menu, badges and rule cards that change it
before the first card: the part of the referee that owns the setup.

It holds the table's defaults (:class:`~firmware_host.referee.table_defaults.TableDefaults`), the
setup line in force (a transcript's or the journal's first line, or what the menu chose) and the
menu while it is open; it makes each new game's engine state from them. The menu's values and steps are pure
(:mod:`firmware_host.referee.table_setup`); this part keeps the open menu and turns a chosen
:class:`~firmware_host.referee.table_setup.Settings` into the setup the game starts again with.

A frozen value: each step gives the setup after it, the table's events and the new game's state.

    >>> from firmware_host.referee.table_defaults import TableDefaults
    >>> setup = SetupMenu(TableDefaults(dealer="B"))
    >>> state = setup.new_state("B")
    >>> setup, events, started = setup.press("king", state)
    >>> events, started, (setup.shown.item, setup.shown.value)
    ([], None, ('rules', 'classic'))
    >>> setup, events, started = setup.press("yes", state)
    >>> setup, events, started = setup.press("king", state)
    >>> [e.to_json() for e in events], started.rules.name
    ([{'event': 'new_game', 'rules': 'french', 'dealer': 'B', 'target': 5}], 'french')
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import engine
from engine import Event, GameState
from engine.fault_code import NoticeCode
from engine.state import Phase
from firmware_host.referee import table_setup
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.referee.table_events import NewGame, notice
from firmware_host.referee.transcript import Setup, setup_problem
from hardware.layout import Zone


def setting_up(state: GameState, *, pads_empty: bool) -> bool:
    """No card of this game is down: names, rules and options may still change."""
    return (state.phase in (Phase.RETOURNE, Phase.CUT, Phase.DEAL) and state.hand_no == 1 and state.hands == (0, 0)
            and state.cuts == (-1, -1) and state.score == (0, 0) and pads_empty)


Started = tuple["SetupMenu", list[Event], GameState | None]
"""What a step of the setup gave: the setup after it, the table's events, and the new game's state
(None: unchanged)."""


@dataclass(frozen=True, slots=True)
class SetupMenu:
    """The setup in force and the settings menu (see the module's docstring).

    :param defaults: the table's configured game.
    :param setup: the setup line in force (a transcript's, the journal's, the menu's).
    :param menu: the settings menu while it is open.
    """

    defaults: TableDefaults = field(default_factory=TableDefaults)
    setup: Setup = field(default_factory=Setup)
    menu: table_setup.Menu | None = None

    # -- the game it starts -------------------------------------------------------------------

    def new_state(self, dealer: str | None) -> GameState:
        """A new game with the setup in force, dealt by ``dealer`` (None: cut for it)."""
        d, setup = self.defaults, self.setup
        options = {**d.options, **setup.options}
        target = setup.target or d.target
        if target is not None:
            options["target"] = target
        names = tuple(setup.players or d.players or ())[:3]
        if names:
            names += ("A", "B", "C" if options.get("pool") else "")[len(names):]
        return engine.new_game(
            setup.rules or d.rules, dealer=dealer, players=names or None,  # type: ignore[arg-type]
            sight=setup.sight or d.sight, **options,
        )

    def name_next_game(self, players: tuple[str, ...]) -> SetupMenu:
        """The players of the next game (a players-only setup line between games: a venue's next round)."""
        return dataclasses.replace(self, setup=dataclasses.replace(self.setup, players=players))

    def read(self, setup: Setup) -> tuple[SetupMenu, GameState]:
        """A setup line (before the first event): the setup after it, and the new game's state.

        :raises NotationError: the engine cannot play it (unknown rule set or option).
        """
        try:
            after = dataclasses.replace(self, setup=setup)
            return after, after.new_state(setup.dealer or self.defaults.dealer)
        except (engine.UnknownRulesError, ValueError) as exc:  # NotationError is a ValueError
            raise engine.NotationError(f"setup: {exc}") from exc

    def line(self, state: GameState, tags: dict[str, str]) -> Setup:
        """The setup line that starts the game of ``state`` (what the journal writes first)."""
        return Setup(
            rules=state.rules.name, dealer=state.dealer or None, target=state.target, tags=tags,
            options=state.rules.options(), sight=state.sight,
            players=self.setup.players or self.defaults.players, language=self.language(),
        )

    def language(self) -> str | None:
        """The OLED's language: chosen at the table (a setup line), else the table's."""
        return self.setup.language or self.defaults.language

    @property
    def shown_language(self) -> str | None:
        """The language of the screens now: the menu's as soon as it changes it."""
        now = self.language()
        if self.menu is not None and self.menu.settings.language != (now or "en"):
            return self.menu.settings.language
        return now

    # -- the menu, badges and rule cards --------------------------------------------------------

    @property
    def shown(self) -> table_setup.MenuLine | None:
        """The menu's line while it is open."""
        return self.menu.line if self.menu is not None else None

    def close(self) -> SetupMenu:
        """A card laid closes the menu, unchanged."""
        return self if self.menu is None else dataclasses.replace(self, menu=None)

    def wants(self, button: str, *, setting_up: bool) -> bool:
        """Whether ``button`` is the menu's (``king`` opens it before the first card; then every button)."""
        return setting_up and (button == "king" or self.menu is not None)

    def press(self, button: str, state: GameState) -> Started:
        """A seat pressed ``button`` for the menu."""
        menu = self.menu or table_setup.Menu.open(self._settings(state), locked=self.defaults.locked)
        step = menu.press(button) if self.menu is not None else table_setup.Step(menu)
        after = dataclasses.replace(self, menu=step.menu)
        if step.notice:
            return after, [notice("house_rules", None, step.notice)], None
        return after._start_with(step.settings, state) if step.settings is not None else (after, [], None)

    def laid(self, tag: str, pad: Zone, state: GameState, *, setting_up: bool) -> Started:
        """A badge or rule card ``tag`` laid on ``pad``."""
        if not setting_up:
            return self, [notice("only_before", None, NoticeCode.SETUP_IGNORED, tag=tag)], None
        seat = pad.seat
        step = table_setup.laid(self._settings(state), tag, seat, locked=self.defaults.locked and tag[:7] != "player:")
        if step.notice:
            return self, [notice("means_nothing", seat, step.notice, tag=tag, why=step.notice)], None
        return self._start_with(step.settings, state) if step.settings is not None else (self, [], None)

    def _settings(self, state: GameState) -> table_setup.Settings:
        names = state.players
        return table_setup.Settings(state.rules.name, tuple(sorted(state.rules.options().items())),
                                    None, (names[0], names[1]), self.language() or "en")

    def _start_with(self, settings: table_setup.Settings, state: GameState) -> Started:
        """The game starts again with ``settings`` (nothing is down yet): a NewGame, so the
        journal begins the game with them."""
        base = engine.rules(settings.rules)
        # an option of the table file that the menu turned off is set back to the rule set's value
        options = {k: getattr(base, k) for k in self.defaults.options if hasattr(base, k)} | dict(settings.options)
        if settings.target is not None:
            options["target"] = settings.target
        language = settings.language if settings.language != (self.language() or "en") else self.setup.language
        candidate = dataclasses.replace(self.setup, rules=settings.rules, options=options,
                                        target=settings.target, players=settings.players, language=language)
        problem = setup_problem(candidate, self.defaults.rules)  # the one check of every setup
        if problem is not None:
            return self, [notice("not_started", None, NoticeCode.RULE_CARD, problem=problem)], None
        after = dataclasses.replace(self, setup=candidate)
        started = after.new_state(state.dealer or None)
        return after, [NewGame(started.rules.name, started.dealer or None, started.target)], started
