"""The referee's state: one frozen value holding everything the referee keeps between two inputs.

The engine is a function of its state (``engine.apply(state, action) -> (state, events)``); so is
the referee: :func:`~firmware_host.referee.game_under_way.referee` takes a :class:`RefereeState`
and a physical event and gives the next state and the :class:`~firmware_host.referee.snapshot.Outcome`,
and never changes the state it was given: a holder of this state that wants the previous one
simply keeps it (a persistent value, as the engine's is, unlike python-chess's mutable ``Board``,
whose ``push``/``pop`` change the one board and keep a stack to undo). The
state holds the referee's parts, each a frozen value with functions that give the next value:

- ``engine_state``: the engine's :class:`~engine.GameState` of the game under way;
- ``setup``: the setup in force and the open menu (:class:`~firmware_host.referee.setup_menu.SetupMenu`);
- ``namer``: which card a tag is, and the game's pack (:class:`~firmware_host.referee.card_namer.CardNamer`);
- ``pads``: what lies on each pad (:class:`~firmware_host.referee.pad_ledger.PadLedger`);
- ``corrections``: the faults to put right (:class:`~firmware_host.referee.corrections.Corrections`);
- ``log``: the last trick and hand, each hand's record and the game's number
  (:class:`~firmware_host.referee.hand_log.HandLog`);
- ``hint``: the learners' hint (:class:`~firmware_host.referee.elder_hint.ElderHint`);
- ``offline``, ``notice``: the readers offline, the notice shown until the next input.

    >>> state = start(game=4)
    >>> state.game, state.engine_state.phase, snapshot(state).game
    (4, 'cut', 4)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import engine
from engine import Fault, GameState, RuleSet
from engine.state import Phase
from firmware_host.referee.card_namer import CardNamer, Registry
from firmware_host.referee.corrections import Corrections
from firmware_host.referee.elder_hint import ElderHint
from firmware_host.referee.hand_log import HandLog
from firmware_host.referee.pad_ledger import PadLedger
from firmware_host.referee.setup_menu import SetupMenu, setting_up
from firmware_host.referee.snapshot import Sight, TableSnapshot
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.referee.transcript import Setup

_new = object.__new__
_set = object.__setattr__


@dataclass(frozen=True)
class RefereeState:
    """Everything the referee keeps between two inputs (see the module's docstring).

    Frozen without slots, as :class:`engine.GameState` is, for :meth:`evolve`'s fast copy (each
    input makes one or two).
    """

    engine_state: GameState
    setup: SetupMenu
    namer: CardNamer
    pads: PadLedger
    corrections: Corrections
    log: HandLog
    hint: ElderHint
    started: bool = False
    """An input other than a setup line has come (a setup line is then no longer read)."""
    offline: frozenset[str] = frozenset()
    notice: Fault | None = None
    """The last input meant nothing now: what it was, until the next input."""

    def evolve(self, **changes: Any) -> RefereeState:
        """A copy with some parts changed (``dataclasses.replace``'s fast path, as
        :meth:`engine.GameState.evolve`; no checks)."""
        fields = self.__dict__.copy()
        fields.update(changes)
        state: RefereeState = _new(RefereeState)
        _set(state, "__dict__", fields)
        return state

    @property
    def game(self) -> int:
        """The number of the game under way (the journal's: each new game the referee starts is the next)."""
        return self.log.game

    def setting_up(self) -> bool:
        """No card of this game is down: names, rules and options may still change."""
        return setting_up(self.engine_state, pads_empty=self.pads.empty)

    def between_hands(self) -> bool:
        """No card of the deal is down (a misdeal or a duplicate card now voids the deal)."""
        return between_hands(self.engine_state)


def between_hands(state: GameState) -> bool:
    """No card of the deal is down in ``state`` (a misdeal or a duplicate card now voids the deal)."""
    return state.phase == Phase.DEAL and state.hands == (0, 0)


def start(defaults: TableDefaults | None = None, *, registry: Registry | None = None,
          advisor: Callable[[RuleSet, int, int, str], str] | None = None, game: int = 1) -> RefereeState:
    """A table's referee before its first input: game number ``game`` (the journal's), started from
    ``defaults``.

    :param defaults: the table's configured game (rule set, target, options, and its tag policy:
        ``require_genuine``, ``ndef_pack``).
    :param registry: the tag registry, asked only for a tag whose line does not carry its card's
        pack (:class:`~firmware_host.referee.card_namer.CardNamer`); each tag is judged by the pack
        guard before the rules see its card (:mod:`firmware_host.referee.pack_guard`).
    :param advisor: learners' hints (:class:`~firmware_host.referee.elder_hint.ElderHint`).
    """
    setup = SetupMenu(defaults or TableDefaults())
    d = setup.defaults
    state = setup.new_state(d.dealer)
    namer = CardNamer(d.tags, registry=registry, badges=d.badges, require_genuine=d.require_genuine,
                      ndef_pack=d.ndef_pack)
    return RefereeState(
        state, setup, namer, PadLedger(), Corrections(),
        HandLog(game), ElderHint(advisor).after(state, setup.shown_language or "en"),
    )


def snapshot(referee: RefereeState) -> TableSnapshot:
    """What the table shows in ``referee``'s state (composed from its parts)."""
    log, state, menu = referee.log, referee.engine_state, referee.setup
    fixes = referee.corrections
    return TableSnapshot(
        view=state.public(), prompt=engine.prompt(state), faults=fixes.faults,
        warning=fixes.warning, last_trick=log.last_trick, last_hand=log.last_hand,
        offline=referee.offline, game=log.game, hand_no=state.hand_no,
        between_hands=referee.between_hands(),
        fresh_king=state.king is not None and state.phase in (Phase.PLAY, Phase.PROPOSE)
        and not state.played and state.led < 0,
        winner=state.winner if state.phase == Phase.OVER else None, players=state.players,
        sight=Sight.of(state), choosing=engine.SEATS[1 - state.awaiting] if state.awaiting >= 0 else None,
        hint=referee.hint.shown, notice=referee.notice, hand_notes=log.notes,
        setting_up=referee.setting_up(), menu=menu.shown,
        language=menu.shown_language,
    )


def setup_line(referee: RefereeState) -> Setup:
    """The setup line that starts the game of ``referee``'s state (what the journal writes first)."""
    return referee.setup.line(referee.engine_state, referee.namer.tags)
