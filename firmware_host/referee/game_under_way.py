"""The referee as a function: :func:`referee` carries one input through the referee's parts to the engine.

``referee(state, event) -> (state, outcome)``: a :class:`~firmware_host.referee.referee_state.RefereeState`
and a physical event give the next state and the :class:`~firmware_host.referee.snapshot.Outcome`
(the table events and the snapshot after it); the state given is never changed. A card goes through
the :class:`~firmware_host.referee.card_namer.CardNamer` (which card the tag is), the
:class:`~firmware_host.referee.pad_ledger.PadLedger` (the zone the pad stands for now, and whether
the card is new there), the physical protocol (:func:`~firmware_host.referee.protocol.card_action`),
:func:`engine.apply`, the :class:`~firmware_host.referee.corrections.Corrections` and the
:class:`~firmware_host.referee.hand_log.HandLog`, once each and in that order; a badge goes to the
:class:`~firmware_host.referee.setup_menu.SetupMenu` instead. A button goes to the menu or through
the protocol to the engine, the corrections and the hand log; a setup line to the menu. Each part
is a frozen value and gives the next; the walk puts them in the next state.

    >>> from firmware_host.referee.referee_state import start
    >>> from firmware_host.referee.transcript import CardEvent, Setup
    >>> state, outcome = referee(start(), Setup(dealer="A"))
    >>> outcome.events, state.engine_state.phase
    ((), 'deal')
    >>> dealt, outcome = referee(state, CardEvent("hand.B", "KS"))
    >>> outcome.events, dealt.engine_state.hands[1] == 1 << engine.Card.parse("KS").index
    ((), True)
    >>> [e.to_json()["code"] for e in referee(dealt, CardEvent("hand.A", "KS"))[1].events]
    ['duplicate_card']
    >>> state.engine_state.hands  # the state given is unchanged
    (0, 0)
"""

from __future__ import annotations

import dataclasses

import engine
from engine import Card, Event
from engine.actions import Action
from engine.events import Fault
from engine.fault_code import NoticeCode
from engine.faults import FAULT_CODES, FaultCode
from engine.message import Phrase
from engine.prompts import expecting
from engine.state import Phase
from firmware_host.referee.card_namer import NamedCard
from firmware_host.referee.corrections import Corrections, refusal
from firmware_host.referee.hand_log import new_deal
from firmware_host.referee.pad_ledger import PadLedger
from firmware_host.referee.private_view import private_views
from firmware_host.referee.protocol import button_action, card_action
from firmware_host.referee.referee_state import RefereeState, between_hands, snapshot
from firmware_host.referee.setup_menu import Started
from firmware_host.referee.snapshot import Outcome
from firmware_host.referee.table_events import NewGame, ReaderState, notice, shown_notice
from firmware_host.referee.transcript import ButtonEvent, CardEvent, PhysicalEvent, Setup
from hardware.layout import Zone, ZoneKind

Step = tuple[RefereeState, list[Event]]
"""A step of the walk: the referee's state after it, and the table events."""


def referee(state: RefereeState, event: PhysicalEvent) -> tuple[RefereeState, Outcome]:
    """Referee one physical event: the state after it, and the table events it causes (maybe none)
    with the snapshot after it. ``state`` is not changed (a failure keeps it).

    :raises NotationError: for a setup line the engine cannot play (unknown rule set or option).
    """
    after, events = take(state, event)
    # a notice (a button or card that means nothing now) is shown until the next input
    return _settled(after, events)


def reader(state: RefereeState, zone: str, online: bool, reason: str = "") -> tuple[RefereeState, Outcome]:
    """A reader went offline or came back (from the pad driver). A reader coming up that was never
    offline (each one as the table starts) is no news: no event (the page said "back" for each)."""
    if online and zone not in state.offline:
        return state, outcome(state)  # (nor does it take down a notice shown)
    offline = state.offline - {zone} if online else state.offline | {zone}
    return _settled(state.evolve(offline=offline), [ReaderState(zone, online, reason)])


def _settled(state: RefereeState, events: list[Event]) -> tuple[RefereeState, Outcome]:
    """The state after an input's ``events``: its notice and hint; with the outcome."""
    notice, hint = shown_notice(events), state.hint.after(state.engine_state, state.setup.shown_language or "en")
    if notice != state.notice or hint is not state.hint:
        state = state.evolve(notice=notice, hint=hint)
    return state, outcome(state, events)


def outcome(state: RefereeState, events: list[Event] | tuple[Event, ...] = ()) -> Outcome:
    """``events`` with what follows them in ``state``: the snapshot and each seat's private view (no
    events: the table as it stands, for an output that starts or must be shown it again)."""
    return Outcome(tuple(events), snapshot(state), private_views(state.engine_state))


def take(state: RefereeState, event: PhysicalEvent) -> Step:
    """The walk of one physical event through the parts: the state after it and the table events.

    :raises NotationError: for a setup line the engine cannot play (unknown rule set or option).
    """
    if isinstance(event, Setup):
        return _setup_game(state, event)
    if not state.started:
        state = state.evolve(started=True)
    if isinstance(event, ButtonEvent):
        return _button(state, event)
    return _card(state, event)


def _setup_game(s: RefereeState, setup: Setup) -> Step:
    players_only = bool(setup.players) and setup == Setup(players=setup.players)
    if s.started and players_only and tuple(setup.players or ())[:2] == s.engine_state.players[:2]:
        return s, []  # the names in force (`run --players` again on a game under way)
    if s.started and s.engine_state.phase == Phase.OVER and players_only:
        # between games (a venue's rounds, `run --players` on a finished game): the next game's names
        names = tuple(setup.players or ())
        return s.evolve(setup=s.setup.name_next_game(names)), [
            notice("next_players", None, NoticeCode.NEXT_PLAYERS, a=names[0], b=names[1])]
    if s.started:
        return s, [notice("setup_ignored", None, NoticeCode.SETUP_IGNORED)]
    menu, state = s.setup.read(setup)
    return s.evolve(setup=menu, engine_state=state, namer=s.namer.use(setup.tags)), []


def _card(s: RefereeState, event: CardEvent) -> Step:
    namer, named = s.namer.name(event)
    if named.badge is not None:
        s = s if namer is s.namer else s.evolve(namer=namer)
        if event.gone:
            return s, []
        return _started_with(s, s.setup.laid(named.badge, event.zone, s.engine_state, setting_up=s.setting_up()))
    parsed = Card.parse(named.card) if named.card is not None else None
    pads, zone, laid = s.pads.seen(event.zone, named.key, s.engine_state, parsed, gone=event.gone)
    setup = s.setup.close()  # a card laid closes the settings menu, unchanged
    if namer is not s.namer or pads is not s.pads or setup is not s.setup:
        s = s.evolve(namer=namer, setup=setup, pads=pads)
    if event.gone:
        corrections, corrected = s.corrections.taken_back(named.card, event.uid)
        return s.evolve(corrections=corrections), corrected
    if not laid:
        return s, []  # read again where it lies
    if parsed is None:
        return _unnamed(s, named, zone)
    out: list[Event] = []
    if (s.engine_state.phase == Phase.CUT and zone.kind == ZoneKind.HAND and zone.seat is not None
            and s.engine_state.cuts == (-1, -1)):
        # the players deal without cutting: the first card dealt goes to the elder
        # (rule 8, non-dealer first), so the other seat deals
        s = s.evolve(engine_state=s.setup.new_state(engine.OTHER[zone.seat]))
        out.append(engine.DealerChosen(engine.OTHER[zone.seat], None))
    action = card_action(s.engine_state, zone, parsed)
    if action is None:
        return s, out
    s, applied = _apply(s, action, zone=zone, card=named.card)
    return s, out + applied


def _unnamed(s: RefereeState, named: NamedCard, zone: Zone) -> Step:
    """A tag that names no card: refused until it is taken off (a play pad: that seat's; elsewhere the dealer's)."""
    seat = zone.seat if zone.kind == ZoneKind.PLAY else (s.engine_state.dealer or None)
    code, says = named.fault or (FaultCode.UNKNOWN_TAG, Phrase("says.unknown_tag", (("uid", str(named.uid)),)))
    refused = Fault(code, seat, FAULT_CODES[code], says=says)
    corrections, out = s.corrections.refuse(refused, zone, None, named.uid, on_pad=True,
                                            void_deal=s.between_hands())
    return s.evolve(corrections=corrections), out


def _button(s: RefereeState, event: ButtonEvent) -> Step:
    seat, button, state = event.seat, event.button, s.engine_state
    if s.setup.wants(button, setting_up=s.setting_up()):
        return _started_with(s, s.setup.press(button, state))
    if state.phase == Phase.OVER:
        return _next_game(s) if button == "yes" else (s, [])
    action = button_action(state, seat, button)
    if action is None:
        return s, [notice("button", seat, button=button, **expecting(state))]
    return _apply(s, action, button=button)


def _apply(s: RefereeState, action: Action, *, zone: Zone | None = None, card: str | None = None,
           button: str | None = None) -> Step:
    before = s.engine_state
    after, events = engine.apply(before, action)
    pads, corrections = s.pads, s.corrections
    if new_deal(before, after):
        pads, corrections = PadLedger(), Corrections()  # the cards are gathered, refused ones with them
    corrections, out = corrections.judge(action, events, zone=zone, card=card, button=button,
                                         void_deal=between_hands(after))
    log, records = s.log.consume(before, after, action, events, refused=refusal(events))
    return s.evolve(engine_state=after, pads=pads, corrections=corrections, log=log), out + records


def _next_game(s: RefereeState) -> Step:
    last_dealer = s.engine_state.dealer or None
    dealer = engine.OTHER[last_dealer] if last_dealer else None
    state = s.setup.new_state(dealer)
    # the next game's number; its first card chooses its pack
    return s.evolve(engine_state=state, namer=s.namer.new_game(), log=s.log.new_game(),
                               corrections=Corrections(), pads=PadLedger()), [
        NewGame(state.rules.name, dealer, state.target)]


def _started_with(s: RefereeState, step: Started) -> Step:
    """A step of the setup: a new game started by the menu, a badge or a rule card is the next game
    (the journal begins a new game with its setup), so it takes the next number."""
    setup, events, started = step
    if started is None:
        return s.evolve(setup=setup), events
    return s.evolve(setup=setup, engine_state=started, log=dataclasses.replace(
        s.log, game=s.log.game + 1)), events
