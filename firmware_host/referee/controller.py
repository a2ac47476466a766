"""The referee: physical events in, table events out.

The controller owns the game and composes the parts that each keep one thing (mopidy's ``Core``
over its controllers): the :class:`~firmware_host.referee.card_namer.CardNamer` says which card a
tag is, the :class:`~firmware_host.referee.pad_ledger.PadLedger` what lies on each pad, the
:class:`~firmware_host.referee.corrections.Corrections` which faults wait to be put right, the
:class:`~firmware_host.referee.setup_menu.SetupMenu` the game the table starts and its menu, and
the :class:`~firmware_host.referee.hand_log.HandLog` (a consumer of the engine's events) the last
trick and hand and each hand's record. A card goes to the namer, the ledger, the protocol and the
engine, the corrections and the hand log, once each, in that order (a badge to the menu instead),
and no part calls back (docs/architecture.md, *The referee's parts*).

The controller is not thread-safe by design: one thread (the service's event loop) calls
:meth:`Controller.handle` for each physical event, in order; readers and buttons only put events
on that thread's queue.

Each input gives an :class:`~firmware_host.referee.snapshot.Outcome`: the table events it
caused and a frozen :class:`~firmware_host.referee.snapshot.TableSnapshot` of what the table
shows after it. Those are the only way out: nothing reads the controller's fields.

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
from collections.abc import Callable

import engine
from engine import Card, Event, Fault, GameState, RuleSet
from engine.actions import Action
from engine.faults import fault
from firmware_host.referee.card_namer import CardNamer, NamedCard
from firmware_host.referee.corrections import Corrections, refusal
from firmware_host.referee.hand_log import HandLog, new_deal
from firmware_host.referee.pack_guard import PackGuard
from firmware_host.referee.pad_ledger import PadLedger
from firmware_host.referee.protocol import button_action, card_action
from firmware_host.referee.setup_menu import SetupMenu, setting_up
from firmware_host.referee.snapshot import Outcome, Sight, TableSnapshot
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.referee.table_events import NewGame, Notice, ReaderState
from firmware_host.referee.transcript import ButtonEvent, CardEvent, PhysicalEvent, Setup

logger = logging.getLogger(__name__)


def _sight(state: GameState) -> Sight:
    """How much of each hand the table knows, out of the cards the hand holds (TRANSCRIPT.md,
    *Partial sight*: a seat's unseen cards are five minus those it is known to hold).

    A hand never holds more than five: during the exchange the engine cannot count the
    unseen discards and keeps five unseen, so the replacements seen are counted out of five.
    """
    known = (state.hands[0].bit_count(), state.hands[1].bit_count())
    held = tuple(min(5, known[i] + state.unseen[i]) for i in (0, 1))
    return Sight(state.sight, known, (held[0], held[1]))


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


class Controller:
    """Turns pad and button events into engine actions; says what the table shows.

    :param defaults: the table's configured game (rule set, target, options).
    :param card_for_uid: the tag registry's lookup (UID → card), or None.
    :param layout: ``full`` (six pads) or ``compact`` (pads ``A``, ``B``, ``centre``).
    :param pack_guard: checks each tag before the rules see its card: one pack per game
        (``foreign_pack``), genuine tags where required (``counterfeit_card``); it then
        identifies registered tags instead of ``card_for_uid``. See :mod:`firmware_host.referee.pack_guard`.
    :param advisor: learners' hints (:class:`ElderHint`).
    """

    def __init__(self, defaults: TableDefaults | None = None, *,
                 card_for_uid: Callable[[str], str | None] | None = None, layout: str = "full",
                 pack_guard: PackGuard | None = None,
                 advisor: Callable[[RuleSet, int, int, str], str] | None = None) -> None:
        self._setup = SetupMenu(defaults)
        d = self._setup.defaults
        self._namer = CardNamer(d.tags, card_for_uid=card_for_uid, pack_guard=pack_guard, badges=d.badges)
        self._pads = PadLedger()
        self._corrections = Corrections()
        self._log = HandLog()
        self._hint = ElderHint(advisor)
        self._layout = layout
        self._state: GameState = self._setup.new_state(d.dealer)
        self._started = False
        self._offline: set[str] = set()
        self._notice: Fault | None = None

    # -- what goes out ---------------------------------------------------------------------

    def snapshot(self) -> TableSnapshot:
        """What the table shows now."""
        state, log, language = self._state, self._log, self._setup.shown_language
        return TableSnapshot(
            view=state.public(), prompt=engine.prompt(state), faults=self._corrections.faults,
            warning=self._corrections.warning, last_trick=log.last_trick, last_hand=log.last_hand,
            offline=frozenset(self._offline), game=log.game, hand_no=state.hand_no,
            between_hands=self._between_hands(),
            fresh_king=state.king is not None and state.phase in ("play", "propose")
            and not state.played and state.led < 0,
            winner=state.winner if state.phase == "over" else None, players=state.players,
            sight=_sight(state), choosing=engine.SEATS[1 - state.awaiting] if state.awaiting >= 0 else None,
            hint=self._hint(state, language or "en"), notice=self._notice, hand_notes=log.notes,
            setting_up=self._setting_up(), menu=self._setup.shown,
            language=language,
        )

    def current_setup(self) -> Setup:
        """The setup line that starts the current game (what the journal writes first)."""
        return self._setup.line(self._state, self._namer.tags)

    @property
    def engine_state(self) -> GameState:
        """The engine's state of the game, for white-box tests of the referee's bookkeeping
        only: every output takes the :class:`~firmware_host.referee.snapshot.Outcome` instead (a
        test checks that nothing else reads it)."""
        return self._state

    def _out(self, events: list[Event]) -> Outcome:
        # a notice (a button or card that means nothing now) is shown until the next input
        notice = next((e for e in reversed(events) if isinstance(e, Notice)), None)
        self._notice = Fault(notice.code, notice.seat, "", notice.message) if notice is not None else None
        return Outcome(tuple(events), self.snapshot())

    # -- events ----------------------------------------------------------------------------

    def handle(self, event: PhysicalEvent) -> Outcome:
        """Referee one physical event: the table events it causes (maybe none) and the snapshot after it.

        :raises NotationError: for a setup line the engine cannot play (unknown rule set or option).
        """
        if isinstance(event, Setup):
            return self._out(self._setup_game(event))
        self._started = True
        if isinstance(event, ButtonEvent):
            return self._out(self._button(event))
        return self._out(self._card(event))

    def renumber(self, game: int) -> None:
        """The number of the game under way is ``game`` (the journal's: the service says, so that
        snapshots and hand records carry the same number after a restart)."""
        self._log.game = game

    def reader(self, zone: str, online: bool, reason: str = "") -> Outcome:
        """A reader went offline or came back (from the pad driver). A reader coming up that was never
        offline (each one as the table starts) is no news: no event (the page said "back" for each)."""
        if online and zone not in self._offline:
            return Outcome((), self.snapshot())  # (nor does it take down a notice shown)
        (self._offline.discard if online else self._offline.add)(zone)
        return self._out([ReaderState(zone, online, reason)])

    def _setup_game(self, setup: Setup) -> list[Event]:
        players_only = bool(setup.players) and setup == Setup(players=setup.players)
        if self._started and players_only and tuple(setup.players or ())[:2] == self._state.players[:2]:
            return []  # the names in force (`run --players` again on a game under way)
        if self._started and self._state.phase == "over" and players_only:
            # between games (a venue's rounds, `run --players` on a finished game): the next game's names
            names = tuple(setup.players or ())
            self._setup.name_next_game(names)
            return [Notice(f"the next game's players: {names[0]} (A) and {names[1]} (B)", None, "next_players")]
        if self._started:
            return [Notice("a setup line is only read before the game starts", None, "setup_ignored")]
        self._state = self._setup.read(setup)
        self._namer.use(setup.tags)
        return []

    def _card(self, event: CardEvent) -> list[Event]:
        named = self._namer.name(event)
        if named.badge is not None:
            return [] if event.gone else self._started_with(self._setup.laid(
                named.badge, event.zone, self._state, setting_up=self._setting_up()))
        self._setup.close()  # a card laid closes the settings menu, unchanged
        parsed = Card.parse(named.card) if named.card is not None else None
        zone, laid = self._pads.seen(event.zone, named.key, self._state, parsed, gone=event.gone)
        if event.gone:
            return self._corrections.taken_back(named.card, event.uid)
        if not laid:
            return []  # read again where it lies
        if parsed is None:
            return self._unnamed(named, zone)
        out: list[Event] = []
        if self._state.phase == "cut" and zone.startswith("hand.") and self._state.cuts == (-1, -1):
            # the players deal without cutting: the first card dealt goes to the elder
            # (rule 8, non-dealer first), so the other seat deals
            self._state = self._setup.new_state(engine.OTHER[zone[-1]])
            out.append(engine.DealerChosen(engine.OTHER[zone[-1]], None))
        action = card_action(self._state, zone, parsed)
        return out if action is None else out + self._apply(action, zone=zone, card=named.card)

    def _unnamed(self, named: NamedCard, zone: str) -> list[Event]:
        """A tag that names no card: refused until it is taken off (a play pad: that seat's; elsewhere the dealer's)."""
        seat = zone[-1] if zone.startswith("play.") else (self._state.dealer or None)
        code, message = named.fault or (
            "unknown_tag", f"tag {named.uid} is not in the registered pack: put that card aside")
        return self._corrections.refuse(fault(code, seat, message), zone, None, named.uid, on_pad=True,
                                        void_deal=self._between_hands())

    def _button(self, event: ButtonEvent) -> list[Event]:
        seat, button = event.seat, event.button
        if self._setup.wants(button, setting_up=self._setting_up()):
            return self._started_with(self._setup.press(button, self._state))
        if self._state.phase == "over":
            return self._next_game() if button == "yes" else []
        action = button_action(self._state, seat, button)
        if action is None:
            return [Notice(f"{seat}'s {button} means nothing now: {engine.expectation(self._state)}", seat)]
        return self._apply(action, button=button)

    def _apply(self, action: Action, *, zone: str | None = None, card: str | None = None,
               button: str | None = None) -> list[Event]:
        before = self._state
        self._state, events = engine.apply(before, action)
        if new_deal(before, self._state):
            self._pads.clear()  # the cards are gathered, refused ones with them
            self._corrections.clear()
        out = self._corrections.judge(action, events, zone=zone, card=card, button=button,
                                      void_deal=self._between_hands())
        return out + self._log.consume(before, self._state, action, events, refused=refusal(events))

    def _next_game(self) -> list[Event]:
        last_dealer = self._state.dealer or None
        dealer = engine.OTHER[last_dealer] if last_dealer else None
        self._state = self._setup.new_state(dealer)
        self._namer.new_game()  # the next game's first card chooses its pack
        self._log.new_game()
        self._corrections.clear()
        self._pads.clear()
        return [NewGame(self._state.rules.name, dealer, self._state.target)]

    def _started_with(self, step: tuple[list[Event], GameState | None]) -> list[Event]:
        events, started = step
        if started is not None:
            self._state = started
        return events

    def _setting_up(self) -> bool:
        return setting_up(self._state, pads_empty=self._pads.empty)

    def _between_hands(self) -> bool:
        """No card of the deal is down (a misdeal or a duplicate card now voids the deal)."""
        return self._state.phase == "deal" and self._state.hands == (0, 0)
