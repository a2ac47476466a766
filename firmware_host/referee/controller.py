"""The referee: physical events in, table events out.

The controller owns the game. It is not thread-safe by design: one thread (the
service's event loop) calls :meth:`Controller.handle` for each physical event,
in order; readers and buttons only put events on that thread's queue.

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

import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import engine
from engine import Event, Fault, GameState, RuleSet
from engine.actions import (
    Action,
    Discard,
    Draw,
    PlayCard,
)
from engine.cards import Card
from engine.faults import fault
from firmware_host.referee import table_setup
from firmware_host.referee.pack_guard import TAG_FAULTS, PackGuard
from firmware_host.referee.protocol import button_action, card_action, zone_of
from firmware_host.referee.snapshot import Outcome, Sight, TableSnapshot
from firmware_host.referee.transcript import ButtonEvent, CardEvent, PhysicalEvent, Setup, setup_problem

logger = logging.getLogger(__name__)

CONTRACT_EVENTS = frozenset({"trump", "king", "trick", "hand_end", "game_end", "fault", "replay_hand"})
"""The event kinds of TRANSCRIPT.md's contract; ``replay --json`` prints these."""


@dataclass(frozen=True, slots=True)
class Notice(Event):
    """Something the table tells the players that is not a fault of the rules: a
    button pressed when nothing asks for it, a card on a pad that means nothing now."""

    event: ClassVar[str] = "notice"
    message: str
    seat: str | None = None
    code: str = "wrong_time"


@dataclass(frozen=True, slots=True)
class Corrected(Event):
    """A refused card was taken back: the fault is put right."""

    event: ClassVar[str] = "corrected"
    code: str
    seat: str | None
    card: str | None = None


@dataclass(frozen=True, slots=True)
class NewGame(Event):
    """A new game starts (after ``yes`` at the end of a game)."""

    event: ClassVar[str] = "new_game"
    rules: str
    dealer: str | None
    target: int


@dataclass(frozen=True, slots=True)
class ReaderState(Event):
    """A pad's reader went offline or came back."""

    event: ClassVar[str] = "reader"
    zone: str
    online: bool
    reason: str = ""


@dataclass(frozen=True, slots=True)
class HandRecord(Event):
    """What the table saw of a hand, card by card, published once the hand is over (never
    earlier: it names the cards that were hidden in the hands and the discards).

    ``rules`` is the rule set as the engine writes it (``{"name": "italian", "forzare": true}``);
    ``actions`` are the engine actions the table accepted in the hand, in order, in their
    JSON form (deal cards, turn-up, bids, discards and draws, announcements, plays):
    replayed through :func:`engine.apply` from a new game with this dealer they give the hand.
    """

    event: ClassVar[str] = "hand_record"
    game: int
    hand: int
    dealer: str
    rules: dict[str, Any]
    actions: tuple[dict[str, Any], ...]


FACE_UP_ZONES = frozenset({"play.A", "play.B", "turnup"})
"""Where a card lies face up: a fault about a card anywhere else must not name it."""


def face_down(refused: Fault, zone: str | None) -> Fault:
    """``refused`` as the table may show it: a card laid on a hand pad or the discards lies face
    down (a dealt card, a replacement, a discard), so its fault names no card.

    >>> from engine.faults import fault
    >>> f = fault("duplicate_card", "A", "K♠ is already in B's hand: the deal is void", engine.Card.parse("KS"))
    >>> face_down(f, "hand.A").card, face_down(f, "hand.A").message
    (None, 'duplicate card: the deal is void: the same dealer deals again')
    >>> face_down(f, "turnup") is f
    True
    """
    if refused.card is None or zone is None or zone in FACE_UP_ZONES:
        return refused
    return dataclasses.replace(
        refused, card=None, detail=(), message=f"{refused.code.replace('_', ' ')}: {refused.remedy}",
    )


def _sight(state: GameState) -> Sight:
    """How much of each hand the table knows, out of the cards the hand holds (TRANSCRIPT.md,
    *Partial sight*: a seat's unseen cards are five minus those it is known to hold).

    A hand never holds more than five: during the exchange the engine cannot count the
    unseen discards and keeps five unseen, so the replacements seen are counted out of five.
    """
    known = (state.hands[0].bit_count(), state.hands[1].bit_count())
    held = tuple(min(5, known[i] + state.unseen[i]) for i in (0, 1))
    return Sight(state.sight, known, (held[0], held[1]))


@dataclass
class _Rejected:
    zone: str
    card: str | None
    uid: str | None
    fault: Fault


@dataclass
class TableDefaults:
    """The game a table starts with when a transcript's setup does not say."""

    rules: str = "classic"
    dealer: str | None = None
    target: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    players: tuple[str, ...] | None = None
    sight: str = "full"
    """``partial`` on a table whose pads read stacks only in part (the table file says)."""
    badges: dict[str, str] = field(default_factory=dict)
    """Tag UID → ``player:NAME``, ``rules:NAME``, ``option:NAME`` or ``target:N``."""
    locked: bool = False
    """The rules are the table's (house rules): the menu and rule cards change nothing."""
    language: str | None = None
    """The OLED's language (the table file's); the settings menu may change it. None: the display's own."""


class Controller:
    """Turns pad and button events into engine actions; says what the table shows.

    :param defaults: the table's configured game (rule set, target, options).
    :param card_for_uid: the tag registry's lookup (UID → card), or None.
    :param layout: ``full`` (six pads) or ``compact`` (pads ``A``, ``B``, ``centre``).
    :param pack_guard: checks each tag before the rules see its card: one pack per game
        (``foreign_pack``), genuine tags where required (``counterfeit_card``); it then
        identifies registered tags instead of ``card_for_uid``. See :mod:`firmware_host.referee.pack_guard`.
    """

    def __init__(
        self,
        defaults: TableDefaults | None = None,
        *,
        card_for_uid: Callable[[str], str | None] | None = None,
        layout: str = "full",
        pack_guard: PackGuard | None = None,
        advisor: Callable[[RuleSet, int, int, str], str] | None = None,
    ) -> None:
        self._defaults = defaults or TableDefaults()
        self._card_for_uid = card_for_uid
        self._guard = pack_guard
        self._advisor = advisor
        """Learners' hints: ``advisor(rules, elder's hand, turn-up, language)`` (``coach.odds.hint_text``)."""
        self._notice: Fault | None = None
        self._hint_for: tuple[int, int, str] | None = None
        self._hint_text: str | None = None
        self._layout = layout
        self._setup: Setup = Setup()
        self._tags: dict[str, str] = dict(self._defaults.tags)
        self._state: GameState = self._new_state(self._defaults.dealer)
        self._started = False
        self._on_pad: dict[str, set[str]] = {}
        self._rejected: list[_Rejected] = []
        self._warning: Fault | None = None
        self._last_hand: engine.HandEnd | None = None
        self._last_trick: engine.Trick | None = None
        self._offline: set[str] = set()
        self._game = 1
        self._hand_actions: list[Action] = []
        self._notes: list[Event] = []
        self._menu: table_setup.Menu | None = None

    # -- what goes out ---------------------------------------------------------------------

    def snapshot(self) -> TableSnapshot:
        """What the table shows now."""
        state = self._state
        return TableSnapshot(
            view=state.public(),
            prompt=engine.prompt(state),
            faults=tuple(r.fault for r in self._rejected),
            warning=self._warning,
            last_trick=self._last_trick,
            last_hand=self._last_hand,
            offline=frozenset(self._offline),
            game=self._game,
            hand_no=state.hand_no,
            between_hands=state.phase == "deal" and state.hands == (0, 0),
            fresh_king=state.king is not None and state.phase in ("play", "propose")
            and not state.played and state.led < 0,
            winner=state.winner if state.phase == "over" else None,
            players=state.players,
            sight=_sight(state),
            choosing=engine.SEATS[1 - state.awaiting] if state.awaiting >= 0 else None,
            hint=self._hint(state),
            notice=self._notice,
            hand_notes=tuple(self._notes),
            setting_up=self._setting_up(),
            menu=self._menu.line if self._menu is not None else None,
            language=self._shown_language(),
        )

    def current_setup(self) -> Setup:
        """The setup line that starts the current game (what the journal writes first)."""
        state = self._state
        return Setup(
            rules=state.rules.name,
            dealer=state.dealer or None,
            target=state.target,
            tags=dict(self._tags),
            options=state.rules.options(),
            sight=state.sight,
            players=self._setup.players or self._defaults.players,
            language=self._language(),
        )

    def _language(self) -> str | None:
        """The OLED's language: chosen at the table (a setup line), else the table's."""
        return self._setup.language or self._defaults.language

    def _shown_language(self) -> str | None:
        """The language of the screens now: the menu's as soon as it changes it."""
        now = self._language()
        if self._menu is not None and self._menu.settings.language != (now or "en"):
            return self._menu.settings.language
        return now

    def _hint(self, state: GameState) -> str | None:
        """The learner's odds before the elder's first decision (when the table knows his five cards)."""
        if self._advisor is None or state.phase != "propose" or state.proposals:
            return None
        elder = engine.SEATS.index(state.elder)
        if state.hands[elder].bit_count() != 5:
            return None
        lang = self._shown_language() or "en"
        if self._hint_for != (state.hands[elder], state.turn_up, lang):
            self._hint_for = (state.hands[elder], state.turn_up, lang)
            self._hint_text = self._advisor(state.rules, state.hands[elder], state.turn_up, lang)
        return self._hint_text

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

    # -- the game --------------------------------------------------------------------------

    def _new_state(self, dealer: str | None) -> GameState:
        d = self._defaults
        rules = self._setup.rules or d.rules
        options = {**d.options, **self._setup.options}
        target = self._setup.target or d.target
        if target is not None:
            options["target"] = target
        players = self._setup.players or d.players
        names = tuple(players or ())[:3]
        if names:
            names += ("A", "B", "C" if options.get("pool") else "")[len(names):]
        return engine.new_game(
            rules, dealer=dealer, players=names or None,  # type: ignore[arg-type]
            sight=self._setup.sight or d.sight, **options,
        )

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
        self._game = game

    def reader(self, zone: str, online: bool, reason: str = "") -> Outcome:
        """A reader went offline or came back (from the pad driver)."""
        if online:
            self._offline.discard(zone)
        else:
            self._offline.add(zone)
        return self._out([ReaderState(zone, online, reason)])

    def _setup_game(self, setup: Setup) -> list[Event]:
        if self._started:
            return [Notice("a setup line is only read before the game starts", None, "setup_ignored")]
        try:
            self._setup = setup
            self._state = self._new_state(setup.dealer or self._defaults.dealer)
        except (engine.UnknownRulesError, ValueError) as exc:  # NotationError is a ValueError
            raise engine.NotationError(f"setup: {exc}") from exc
        self._tags = {**self._defaults.tags, **setup.tags}
        return []

    def _identify(self, event: CardEvent) -> str | None:
        if event.card is not None:
            return event.card
        uid = event.uid or ""
        card = self._tags.get(uid)
        if card is None and self._card_for_uid is not None:
            card = self._card_for_uid(uid)
        return card

    def _card(self, event: CardEvent) -> list[Event]:
        card = self._identify(event)
        badge = self._defaults.badges.get(event.uid or "") if card is None else None
        if badge is not None:
            return [] if event.gone else self._badge(badge, event.zone)
        self._menu = None  # a card laid closes the settings menu, unchanged
        tag_fault: tuple[str, str] | None = None
        if self._guard is not None and event.uid is not None and event.uid not in self._tags:
            judged = self._guard.judge(event.uid, event.card, arriving=not event.gone)
            card = judged.card
            if judged.code is not None:
                tag_fault = (judged.code, judged.message)
        parsed = Card.parse(card) if card is not None else None
        zone = zone_of(event.zone, self._state, parsed)
        key = card or f"uid:{event.uid}"
        # remembered by the zone the pad stands for now: in the compact layout a card dealt
        # across pad A is a new card when it comes back to pad A as a play
        lying = self._on_pad.setdefault(zone, set())
        if event.gone:
            lying.discard(key)
            return self._taken_back(card, event.uid)
        if key in lying:
            return []  # read again where it lies
        for pad, cards in self._on_pad.items():
            if pad != zone:
                # a card lies on one pad at a time: a discard drawn again is no re-read
                cards.discard(key)
        lying.add(key)
        if parsed is None:
            # a play pad: that seat's card; elsewhere the dealer handles the cards
            seat = zone[-1] if zone.startswith("play.") else (self._state.dealer or None)
            code, message = tag_fault or (
                "unknown_tag", f"tag {event.uid} is not in the registered pack: put that card aside",
            )
            refused = fault(code, seat, message)
            return self._refused(refused, zone, None, event.uid, card_event=True)
        out: list[Event] = []
        if self._state.phase == "cut" and zone.startswith("hand.") and self._state.cuts == (-1, -1):
            out.extend(self._dealer_agreed(engine.OTHER[zone[-1]]))
        action = card_action(self._state, zone, parsed)
        if action is None:
            return out
        return out + self._apply(action, zone=zone, card=card)

    def _dealer_agreed(self, dealer: str) -> list[Event]:
        """The players deal without cutting: the first card dealt goes to the elder
        (rule 8, non-dealer first), so the other seat deals."""
        self._state = self._new_state(dealer)
        return [engine.DealerChosen(dealer, None)]

    def _button(self, event: ButtonEvent) -> list[Event]:
        seat, button = event.seat, event.button
        if self._setting_up() and (button == "king" or self._menu is not None):
            return self._menu_press(button)
        state = self._state
        if state.phase == "over":
            if button == "yes":
                return self._next_game()
            return []
        action = button_action(state, seat, button)
        if action is None:
            return [Notice(f"{seat}'s {button} means nothing now: {engine.expectation(state)}", seat)]
        return self._apply(action, button=button)

    def _apply(self, action: Action, *, zone: str | None = None, card: str | None = None,
               button: str | None = None) -> list[Event]:
        before = self._state
        self._state, events = engine.apply(before, action)
        after = self._state
        # a fault proven late is no refusal: the card that proved it was accepted
        refused = any(isinstance(e, Fault) and not e.late for e in events)
        if not refused:
            self._hand_actions.append(action)
        if after is not before and after.phase == "deal" and after.hands == (0, 0) and (
            after.hand_no != before.hand_no or after.game_no != before.game_no or before.hands != (0, 0)
        ):
            # a new deal (next hand, next game, or a void deal): the cards are gathered,
            # refused ones with them
            self._on_pad.clear()
            self._rejected.clear()
            self._warning = None
            if after.hand_no == before.hand_no and after.game_no == before.game_no:
                self._hand_actions.clear()  # a void deal: dealt again, nothing to record
        out: list[Event] = []
        for ev in events:
            if isinstance(ev, Fault) and ev.late:
                # nothing to take back: shown until the other seat has chosen (or play goes on)
                self._warning = ev
                out.append(ev)
                continue
            if isinstance(ev, Fault):
                if ev.code == "wrong_time" or (button in ("yes", "no") and ev.code == "out_of_turn"):
                    out.append(Notice(ev.message, ev.seat, ev.code))
                    continue
                out.extend(self._refused(ev, zone, card, None, card_event=card is not None))
                continue
            out.append(ev)
            self._remember(ev)
        if not refused:
            if not self._rejected and not any(isinstance(e, Fault) for e in events):
                self._warning = None  # a void deal's or a false king's warning has been seen
            out.extend(self._accepted(action))
        if any(isinstance(e, engine.HandEnd | engine.GameEnd) for e in events):
            out.append(HandRecord(
                self._game, before.hand_no, before.dealer, {"name": before.rules.name, **before.rules.options()},
                tuple(a.to_json() for a in self._hand_actions),
            ))
            self._hand_actions = []
        return out

    def _remember(self, ev: Event) -> None:
        if isinstance(ev, engine.King | engine.Penalty) or (isinstance(ev, engine.Bid) and ev.vulnerable):
            self._notes.append(ev)  # where the hand's points came from (the hand screen says)
        if isinstance(ev, engine.Trick):
            self._last_trick = ev
        elif isinstance(ev, engine.HandEnd):
            self._last_hand = ev
        elif isinstance(ev, engine.Trump):
            self._last_hand = None
            self._last_trick = None
            self._notes = []

    def _refused(self, refused: Fault, zone: str | None, card: str | None, uid: str | None,
                 *, card_event: bool) -> list[Event]:
        refused = face_down(refused, zone)
        if refused.code in ("misdeal", "duplicate_card") and (
            self._state.phase == "deal" and self._state.hands == (0, 0)
        ):
            # the deal is void: nothing to take back, the dealer deals again
            self._rejected.clear()
            self._warning = refused
            return [refused]
        if card_event and zone is not None:
            self._rejected.append(_Rejected(zone, card, uid, refused))
        else:
            self._warning = refused
        return [refused]

    def _accepted(self, action: Action) -> list[Event]:
        """A legal action by a seat puts right that seat's refused plays (rule 39)."""
        seat = getattr(action, "seat", None)
        if not self._rejected or seat is None or not isinstance(action, PlayCard | Discard | Draw):
            return []
        out: list[Event] = []
        keep = []
        for r in self._rejected:
            if r.fault.seat == seat and r.fault.code not in TAG_FAULTS and r.zone.startswith("play."):
                out.append(Corrected(r.fault.code, r.fault.seat, r.card))
            else:
                keep.append(r)
        self._rejected = keep
        return out

    def _taken_back(self, card: str | None, uid: str | None) -> list[Event]:
        for i, r in enumerate(self._rejected):
            if (card is not None and r.card == card) or (card is None and uid and r.uid == uid):
                del self._rejected[i]
                return [Corrected(r.fault.code, r.fault.seat, r.card)]
        return []

    def _next_game(self) -> list[Event]:
        last_dealer = self._state.dealer or None
        dealer = engine.OTHER[last_dealer] if last_dealer else None
        self._state = self._new_state(dealer)
        self._game += 1
        if self._guard is not None:
            self._guard.new_game()  # the next game's first card chooses its pack
        self._hand_actions = []
        self._rejected.clear()
        self._on_pad.clear()
        self._warning = None
        self._last_hand = None
        self._last_trick = None
        return [NewGame(self._state.rules.name, dealer, self._state.target)]

    # -- the table's set-up before the first card (firmware_host.referee.table_setup) ------------------

    def _setting_up(self) -> bool:
        """No card of this game is down: names, rules and options may still change."""
        state = self._state
        return (state.phase in ("retourne", "cut", "deal") and state.hand_no == 1 and state.hands == (0, 0)
                and state.cuts == (-1, -1) and state.score == (0, 0) and not any(self._on_pad.values()))

    def _settings(self) -> table_setup.Settings:
        state = self._state
        names = state.players
        return table_setup.Settings(state.rules.name, tuple(sorted(state.rules.options().items())),
                                    None, (names[0], names[1]), self._language() or "en")

    def _menu_press(self, button: str) -> list[Event]:
        menu = self._menu or table_setup.Menu.open(self._settings(), locked=self._defaults.locked)
        step = menu.press(button) if self._menu is not None else table_setup.Step(menu)
        self._menu = step.menu
        if step.notice:
            return [Notice("the rules are the table's own (house rules)", None, step.notice)]
        return self._start_with(step.settings) if step.settings is not None else []

    def _badge(self, tag: str, pad: str) -> list[Event]:
        if not self._setting_up():
            return [Notice(f"{tag}: only before the first card", None, "setup_ignored")]
        seat = pad[-1] if pad[-1] in engine.SEATS and pad != "turnup" else None
        step = table_setup.laid(self._settings(), tag, seat, locked=self._defaults.locked and tag[:7] != "player:")
        if step.notice:
            return [Notice(f"{tag} means nothing here ({step.notice.replace('_', ' ')})", seat, step.notice)]
        return self._start_with(step.settings) if step.settings is not None else []

    def _start_with(self, settings: table_setup.Settings) -> list[Event]:
        """The game starts again with ``settings`` (nothing is down yet): a NewGame, so the
        journal begins the game with them."""
        base = engine.rules(settings.rules)
        # an option of the table file that the menu turned off is set back to the rule set's value
        options = {k: getattr(base, k) for k in self._defaults.options if hasattr(base, k)} | dict(settings.options)
        if settings.target is not None:
            options["target"] = settings.target
        language = settings.language if settings.language != (self._language() or "en") else self._setup.language
        candidate = dataclasses.replace(self._setup, rules=settings.rules, options=options,
                                        target=settings.target, players=settings.players, language=language)
        problem = setup_problem(candidate, self._defaults.rules)  # the one check of every setup
        if problem is not None:
            return [Notice(f"not started: {problem}", None, "rule_card")]
        self._setup = candidate
        self._state = self._new_state(self._state.dealer or None)
        return [NewGame(self._state.rules.name, self._state.dealer or None, self._state.target)]
