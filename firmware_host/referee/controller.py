"""The referee: physical events in, table events out.

The controller is a facade over the parts that each keep one thing (mopidy's ``Core`` over its
controllers): the :class:`~firmware_host.referee.card_namer.CardNamer` says which card a tag is,
the :class:`~firmware_host.referee.pad_ledger.PadLedger` what lies on each pad, the
:class:`~firmware_host.referee.corrections.Corrections` which faults wait to be put right, the
:class:`~firmware_host.referee.setup_menu.SetupMenu` the game the table starts and its menu, and
the :class:`~firmware_host.referee.hand_log.HandLog` (a consumer of the engine's events) the last
trick and hand and each hand's record. The
:class:`~firmware_host.referee.game_under_way.GameUnderWay` owns the engine's state and carries
each input through them: a card goes to the namer, the ledger, the protocol and the engine, the
corrections and the hand log, once each, in that order (a badge to the menu instead), and no part
calls back. The controller hands it the event and then takes the snapshot from the parts: a
card's walk enters the controller twice (docs/architecture.md, *The referee's parts*).

The controller is not thread-safe by design: one thread (the service's event loop) calls
:meth:`Controller.handle` for each physical event, in order; readers and buttons only put events
on that thread's queue.

Each input gives an :class:`~firmware_host.referee.snapshot.Outcome`: the table events it
caused, a frozen :class:`~firmware_host.referee.snapshot.TableSnapshot` of what the table
shows after it and each seat's private view (:mod:`firmware_host.referee.private_view`, for that
seat's earpiece alone). Those are the only way out: nothing reads the controller's fields.

    >>> from firmware_host.referee.transcript import CardEvent, ButtonEvent, Setup
    >>> table = Controller()
    >>> _ = table.handle(Setup(rules="classic", dealer="B"))
    >>> cards = ["KH", "QH", "JH", "AH", "TH", "7S", "8S", "9S", "TS", "AS"]
    >>> for i, card in enumerate(cards):
    ...     _ = table.handle(CardEvent("hand.A" if i < 5 else "hand.B", card))
    >>> [e.to_json() for e in table.handle(CardEvent("turnup", "7D")).events]
    [{'event': 'trump', 'card': '7D'}]
    >>> outcome = table.handle(CardEvent("play.B", "7S"))
    >>> [e.to_json()["code"] for e in outcome.events], outcome.snapshot.faulty_seats
    (['out_of_turn'], frozenset({'B'}))
    >>> outcome.snapshot.expectation
    'play has not begun (A: propose or play?): take back the 7♠'
    >>> outcome = table.handle(CardEvent("play.B", "7S", gone=True))
    >>> [e.to_json()["event"] for e in outcome.events], outcome.snapshot.expectation
    (['corrected'], 'A: propose or play?')
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import engine
from engine import Event, Fault, GameState, RuleSet
from firmware_host.referee.card_namer import CardNamer, Registry
from firmware_host.referee.corrections import Corrections
from firmware_host.referee.elder_hint import ElderHint
from firmware_host.referee.game_under_way import GameUnderWay
from firmware_host.referee.hand_log import HandLog
from firmware_host.referee.pad_ledger import PadLedger
from firmware_host.referee.private_view import private_views
from firmware_host.referee.setup_menu import SetupMenu
from firmware_host.referee.snapshot import Outcome, Sight, TableSnapshot
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.referee.table_events import ReaderState, shown_notice
from firmware_host.referee.transcript import PhysicalEvent, Setup

logger = logging.getLogger(__name__)


class Controller:
    """Turns pad and button events into engine actions; says what the table shows.

    :param defaults: the table's configured game (rule set, target, options, and its tag policy:
        ``require_genuine``, ``ndef_pack``).
    :param registry: the tag registry (``TagRegistry``), asked only for a tag whose line does not
        carry its card's pack (a transcript's); each tag is judged before the rules see its card:
        one pack per game (``foreign_pack``), genuine tags (``counterfeit_card``). See
        :mod:`firmware_host.referee.card_namer` and :mod:`firmware_host.referee.pack_guard`.
    :param advisor: learners' hints (:class:`~firmware_host.referee.elder_hint.ElderHint`).
    """

    def __init__(self, defaults: TableDefaults | None = None, *,
                 registry: Registry | None = None,
                 advisor: Callable[[RuleSet, int, int, str], str] | None = None) -> None:
        self._setup = SetupMenu(defaults)
        d = self._setup.defaults
        self._namer = CardNamer(d.tags, registry=registry, badges=d.badges, require_genuine=d.require_genuine,
                                ndef_pack=d.ndef_pack)
        self._corrections = Corrections()
        self._log = HandLog()
        self._game = GameUnderWay(self._setup, self._namer, PadLedger(), self._corrections, self._log)
        self._hint = ElderHint(advisor)
        self._offline: set[str] = set()
        self._notice: Fault | None = None

    # -- what goes out ---------------------------------------------------------------------

    def snapshot(self) -> TableSnapshot:
        """What the table shows now (composed from the parts: nothing here calls back into the controller)."""
        game, log, language = self._game, self._log, self._setup.shown_language
        state = game.state
        return TableSnapshot(
            view=state.public(), prompt=engine.prompt(state), faults=self._corrections.faults,
            warning=self._corrections.warning, last_trick=log.last_trick, last_hand=log.last_hand,
            offline=frozenset(self._offline), game=log.game, hand_no=state.hand_no,
            between_hands=game.between_hands(),
            fresh_king=state.king is not None and state.phase in ("play", "propose")
            and not state.played and state.led < 0,
            winner=state.winner if state.phase == "over" else None, players=state.players,
            sight=Sight.of(state), choosing=engine.SEATS[1 - state.awaiting] if state.awaiting >= 0 else None,
            hint=self._hint(state, language or "en"), notice=self._notice, hand_notes=log.notes,
            setting_up=game.setting_up(), menu=self._setup.shown,
            language=language,
        )

    def current_setup(self) -> Setup:
        """The setup line that starts the current game (what the journal writes first)."""
        return self._setup.line(self._game.state, self._namer.tags)

    @property
    def engine_state(self) -> GameState:
        """The engine's state of the game, for white-box tests of the referee's bookkeeping
        only: every output takes the :class:`~firmware_host.referee.snapshot.Outcome` instead (a
        test checks that nothing else reads it)."""
        return self._game.state

    # -- events ----------------------------------------------------------------------------

    def handle(self, event: PhysicalEvent) -> Outcome:
        """Referee one physical event: the table events it causes (maybe none) and the snapshot after it.

        The event is handed to the parts once (:meth:`GameUnderWay.take
        <firmware_host.referee.game_under_way.GameUnderWay.take>`), then the snapshot is taken: a
        card's walk enters the controller twice (``tests/firmware_host/referee/test_card_walk.py``).

        :raises NotationError: for a setup line the engine cannot play (unknown rule set or option).
        """
        events = self._game.take(event)
        # a notice (a button or card that means nothing now) is shown until the next input
        self._notice = shown_notice(events)
        return Outcome(tuple(events), self.snapshot(), private_views(self._game.state))  # as outcome() does

    def outcome(self, events: Sequence[Event] = ()) -> Outcome:
        """``events`` with what follows them: the snapshot and each seat's private view (no
        events: the table as it stands, for an output that starts or must be shown it again)."""
        return Outcome(tuple(events), self.snapshot(), private_views(self._game.state))

    def renumber(self, game: int) -> None:
        """The number of the game under way is ``game`` (the journal's: the service says, so that
        snapshots and hand records carry the same number after a restart)."""
        self._log.game = game

    def reader(self, zone: str, online: bool, reason: str = "") -> Outcome:
        """A reader went offline or came back (from the pad driver). A reader coming up that was never
        offline (each one as the table starts) is no news: no event (the page said "back" for each)."""
        if online and zone not in self._offline:
            return self.outcome()  # (nor does it take down a notice shown)
        (self._offline.discard if online else self._offline.add)(zone)
        events = [ReaderState(zone, online, reason)]
        self._notice = shown_notice(events)
        return self.outcome(events)
