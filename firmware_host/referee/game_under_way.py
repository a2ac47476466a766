"""The game under way: its engine state, and each input carried through the referee's parts to the engine.

The controller hands every physical event here once (:meth:`GameUnderWay.take`) and reads the
snapshot's parts after; nothing here calls back into it. A card goes through the
:class:`~firmware_host.referee.card_namer.CardNamer` (which card the tag is), the
:class:`~firmware_host.referee.pad_ledger.PadLedger` (the zone the pad stands for now, and whether
the card is new there), the physical protocol (:func:`~firmware_host.referee.protocol.card_action`),
:func:`engine.apply`, the :class:`~firmware_host.referee.corrections.Corrections` and the
:class:`~firmware_host.referee.hand_log.HandLog`, once each and in that order; a badge goes to the
:class:`~firmware_host.referee.setup_menu.SetupMenu` instead. A button goes to the menu or through
the protocol to the engine, the corrections and the hand log; a setup line to the menu.

    >>> from firmware_host.referee.card_namer import CardNamer
    >>> from firmware_host.referee.corrections import Corrections
    >>> from firmware_host.referee.hand_log import HandLog
    >>> from firmware_host.referee.pad_ledger import PadLedger
    >>> from firmware_host.referee.setup_menu import SetupMenu
    >>> from firmware_host.referee.transcript import CardEvent, Setup
    >>> game = GameUnderWay(SetupMenu(), CardNamer(), PadLedger(), Corrections(), HandLog())
    >>> game.take(Setup(dealer="A")), game.state.phase
    ([], 'deal')
    >>> game.take(CardEvent("hand.B", "KS")), game.state.hands[1] == 1 << engine.Card.parse("KS").index
    ([], True)
    >>> [e.to_json()["code"] for e in game.take(CardEvent("hand.A", "KS"))]
    ['duplicate_card']
"""

from __future__ import annotations

import engine
from engine import Card, Event, GameState
from engine.actions import Action
from engine.events import Fault, Says
from engine.faults import FAULT_CODES
from engine.prompts import expecting
from firmware_host.referee.card_namer import CardNamer, NamedCard
from firmware_host.referee.corrections import Corrections, refusal
from firmware_host.referee.hand_log import HandLog, new_deal
from firmware_host.referee.pad_ledger import PadLedger
from firmware_host.referee.protocol import button_action, card_action
from firmware_host.referee.setup_menu import SetupMenu, Started, setting_up
from firmware_host.referee.table_events import NewGame, notice
from firmware_host.referee.transcript import ButtonEvent, CardEvent, PhysicalEvent, Setup


class GameUnderWay:
    """The engine's state of the game under way, and the walk of each input through the parts
    (see the module's docstring). The parts are the controller's: it reads them for the snapshot.

    :param setup: the setup in force and the menu (the first game starts from its defaults).
    :param namer: which card a tag is.
    :param pads: what lies on each pad.
    :param corrections: the faults to put right.
    :param log: the last trick and hand, each hand's record.
    """

    def __init__(self, setup: SetupMenu, namer: CardNamer, pads: PadLedger, corrections: Corrections,
                 log: HandLog) -> None:
        self._setup = setup
        self._namer = namer
        self._pads = pads
        self._corrections = corrections
        self._log = log
        self._state: GameState = setup.new_state(setup.defaults.dealer)
        self._started = False

    @property
    def state(self) -> GameState:
        """The engine's state of the game (the snapshot's view, prompt and sight)."""
        return self._state

    def take(self, event: PhysicalEvent) -> list[Event]:
        """Referee one physical event: the table events it causes (maybe none).

        :raises NotationError: for a setup line the engine cannot play (unknown rule set or option).
        """
        if isinstance(event, Setup):
            return self._setup_game(event)
        self._started = True
        if isinstance(event, ButtonEvent):
            return self._button(event)
        return self._card(event)

    def setting_up(self) -> bool:
        """No card of this game is down: names, rules and options may still change."""
        return setting_up(self._state, pads_empty=self._pads.empty)

    def between_hands(self) -> bool:
        """No card of the deal is down (a misdeal or a duplicate card now voids the deal)."""
        return self._state.phase == "deal" and self._state.hands == (0, 0)

    def _setup_game(self, setup: Setup) -> list[Event]:
        players_only = bool(setup.players) and setup == Setup(players=setup.players)
        if self._started and players_only and tuple(setup.players or ())[:2] == self._state.players[:2]:
            return []  # the names in force (`run --players` again on a game under way)
        if self._started and self._state.phase == "over" and players_only:
            # between games (a venue's rounds, `run --players` on a finished game): the next game's names
            names = tuple(setup.players or ())
            self._setup.name_next_game(names)
            return [notice("next_players", None, "next_players", a=names[0], b=names[1])]
        if self._started:
            return [notice("setup_ignored", None, "setup_ignored")]
        self._state = self._setup.read(setup)
        self._namer.use(setup.tags)
        return []

    def _card(self, event: CardEvent) -> list[Event]:
        named = self._namer.name(event)
        if named.badge is not None:
            return [] if event.gone else self._started_with(self._setup.laid(
                named.badge, event.zone, self._state, setting_up=self.setting_up()))
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
        code, says = named.fault or ("unknown_tag", Says("says.unknown_tag", (("uid", str(named.uid)),)))
        refused = Fault(code, seat, FAULT_CODES[code], says=says)
        return self._corrections.refuse(refused, zone, None, named.uid, on_pad=True,
                                        void_deal=self.between_hands())

    def _button(self, event: ButtonEvent) -> list[Event]:
        seat, button = event.seat, event.button
        if self._setup.wants(button, setting_up=self.setting_up()):
            return self._started_with(self._setup.press(button, self._state))
        if self._state.phase == "over":
            return self._next_game() if button == "yes" else []
        action = button_action(self._state, seat, button)
        if action is None:
            return [notice("button", seat, button=button, **expecting(self._state))]
        return self._apply(action, button=button)

    def _apply(self, action: Action, *, zone: str | None = None, card: str | None = None,
               button: str | None = None) -> list[Event]:
        before = self._state
        self._state, events = engine.apply(before, action)
        if new_deal(before, self._state):
            self._pads.clear()  # the cards are gathered, refused ones with them
            self._corrections.clear()
        out = self._corrections.judge(action, events, zone=zone, card=card, button=button,
                                      void_deal=self.between_hands())
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

    def _started_with(self, step: Started) -> list[Event]:
        events, started = step
        if started is not None:
            self._state = started
        return events
