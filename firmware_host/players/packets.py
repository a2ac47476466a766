"""Built-in players who deal and play as people do, at any table that shows its outcomes.

The dealer lays packets of three then two on the hand pads (rule 8, non-dealer first)
and turns up the eleventh card; the players pick their hands up, put their discards
down as a packet and receive their replacements as a packet; a trick stays on the
play pads until it is complete, then its cards are gathered. The players know their
cards as people do: they keep their own game (``world``, moved by what they do, a card
laid on the table being on the table even when the rules forbid it) and see the table
only through what it publishes (the events and snapshots of its outcomes).

Two tables take them: :class:`ModelTable` feeds the real controller what pads of a
given *readable depth* would report of each stack (fast: the property tests play
thousands of hands with it), and the simulated table of the demo lays the same
packets on simulated PN532s read by the real nfcpy driver.

When the table prints a fault proven late the other seat presses ``yes``: the hand is
played again, and then the players play it legally (what the table refused to let
them do at full sight).

    >>> from firmware_host.referee.controller import Controller
    >>> from firmware_host.referee.table_defaults import TableDefaults
    >>> table = ModelTable(Controller(TableDefaults(dealer="A", sight="partial")), depth=2)
    >>> players = PacketPlayers(table, engine.new_game("classic", dealer="A"), seed=4)
    >>> final = players.play_game()
    >>> final.phase, table.snapshot.view.score == final.score
    ('over', True)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import engine
from engine import Event, Fault, GameState
from engine.actions import Action, Announce, Cut, Deal, Discard, Draw, PlayCard
from engine.faults import FaultCode
from engine.phases.tricks import accept_play
from engine.random_play import random_action, random_deal
from engine.state import Phase
from firmware_host.players.builtin import wrong_card
from firmware_host.referee import (
    ButtonEvent,
    CardEvent,
    Controller,
    Outcome,
    PhysicalEvent,
    Setup,
    TableSnapshot,
    event_line,
    physical_events,
)
from hardware.layout import Zone, ZoneKind


class PlayersError(RuntimeError):
    """The table did something the players cannot go on from (a card of theirs refused
    although legal, or no outcome at all)."""


class PhysicalTable(Protocol):
    """What the players do at a table, and what they see of it."""

    @property
    def snapshot(self) -> TableSnapshot:
        """What the table shows after everything done so far."""

    def lay(self, zone: Zone, cards: Sequence[str]) -> list[Event]:
        """Lay a packet (bottom card first) on top of what lies on ``zone``; the table's events."""

    def lift(self, zone: Zone, cards: Sequence[str]) -> list[Event]:
        """Take cards off ``zone``; the table's events."""

    def press(self, seat: str, button: str) -> list[Event]:
        """Press a seat's button; the table's events."""


# -- a table on a model of the pads --------------------------------------------------------------


class ModelTable:
    """The real controller behind pads modelled by their *readable depth*: of a stack, a pad
    reports the cards at the bottom (the cloth side) up to its depth, never those above.

    The play pads and the turn-up pad receive one card at a time and always read it.
    Every physical event fed to the controller is kept in :attr:`lines` (a transcript).

    :param depth: how many stacked cards the hand pads and the discard pad read.
    """

    def __init__(self, controller: Controller, *, depth: int = 2, setup: Setup | None = None) -> None:
        self.controller = controller
        self.depth = depth
        self.stacks: dict[str, list[str]] = {}
        self.read: dict[str, set[str]] = {}
        self.lines: list[PhysicalEvent] = []
        self.events: list[Event] = []
        self._snapshot = controller.snapshot()
        if setup is not None:
            self._feed(setup)

    @property
    def snapshot(self) -> TableSnapshot:
        return self._snapshot

    def _depth(self, zone: Zone) -> int:
        return self.depth if zone.kind in (ZoneKind.HAND, ZoneKind.DISCARD) else max(self.depth, 2)

    def _feed(self, event: PhysicalEvent) -> list[Event]:
        self.lines.append(event)
        outcome: Outcome = self.controller.handle(event)
        self._snapshot = outcome.snapshot
        self.events.extend(outcome.events)
        return list(outcome.events)

    def _reveal(self, zone: Zone) -> list[Event]:
        out: list[Event] = []
        stack = self.stacks.setdefault(zone, [])
        read = self.read.setdefault(zone, set())
        for card in stack[: self._depth(zone)]:
            if card not in read:
                read.add(card)
                out.extend(self._feed(CardEvent(zone, card)))
        return out

    def lay(self, zone: Zone, cards: Sequence[str]) -> list[Event]:
        self.stacks.setdefault(zone, []).extend(cards)
        return self._reveal(zone)

    def lift(self, zone: Zone, cards: Sequence[str]) -> list[Event]:
        out: list[Event] = []
        stack = self.stacks.setdefault(zone, [])
        read = self.read.setdefault(zone, set())
        for card in cards:
            if card in stack:
                stack.remove(card)
            if card in read:
                read.discard(card)
                out.extend(self._feed(CardEvent(zone, card, gone=True)))
        return out + self._reveal(zone)  # a card lifted from below lets the next one couple

    def press(self, seat: str, button: str) -> list[Event]:
        return self._feed(ButtonEvent(seat, button))


# -- the players -------------------------------------------------------------------------------------


@dataclass
class Conduct:
    """What the players did wrong on purpose, and what the table said of it."""

    planted: list[tuple[int, int, str, str]] = field(default_factory=list)
    """Wrong cards the table accepted: (hand, trick, seat, card)."""
    refused_at_once: int = 0
    """Wrong cards the table refused as they were laid."""
    late: list[tuple[int, int, str, str]] = field(default_factory=list)
    """Faults the table proved late: (hand, trick, seat, code)."""
    unfounded: list[str] = field(default_factory=list)
    """Faults printed against a seat that did nothing wrong (must stay empty)."""
    voided: list[tuple[int, int, str, str]] = field(default_factory=list)
    """Planted wrong cards whose tricks a replay voided before they were proven."""
    false_kings: list[tuple[int, str]] = field(default_factory=list)
    """Kings announced on purpose by a seat that did not hold it: (hand, seat)."""

    def unanswered(self) -> list[tuple[int, int, str, str]]:
        """Wrong cards the table accepted and neither proved nor voided (must stay empty)."""
        proven = {(hand, seat) for hand, _trick, seat, code in self.late if code != FaultCode.FALSE_KING}
        return [p for p in self.planted if (p[0], p[2]) not in proven and p not in self.voided]


class PacketPlayers:
    """Two built-in players at ``table``, playing the game ``world`` begins.

    Every choice is drawn from a ``random.Random`` seeded by the seed and the moment of the
    game (hand, trick, seat), so that the same seed plays the same game at any table, full
    sight or partial, whatever the table asked on the way.

    :param faults: the chance that a follower plays a wrong card on purpose.
    """

    def __init__(self, table: PhysicalTable, world: GameState, *, seed: int = 0, faults: float = 0.0,
                 false_kings: float = 0.0, say: Callable[..., None] | None = None) -> None:
        self.table = table
        self.say: Callable[..., None] = say or (lambda _msgid, **_values: None)
        """What the players say of what they do: ``say(message id, **values)``, a seat as ``who``, a
        :class:`~engine.cards.Card` as ``card``, a :class:`~engine.Fault` as ``fault`` (the demo's
        narrator words them in the table's language)."""
        self.world = world
        self.seed = seed
        self.faults = faults
        self.false_kings = false_kings
        self.conduct = Conduct()
        self.on_play: dict[str, str | None] = {"A": None, "B": None}
        self.turn_up: str | None = None
        self.discarded: list[str] = []
        self._play_start: GameState | None = None
        self._replaying = False
        self._recuts = 0

    # -- choices ---------------------------------------------------------------------------------

    def _rng(self, *what: object) -> random.Random:
        w = self.world
        done = w.tricks[0] + w.tricks[1]
        return random.Random(f"{self.seed}/{w.game_no}/{w.hand_no}/{w.proposals}/{w.exchanges}/{done}/{w.led}/"
                             f"{self._recuts}/" + "/".join(map(str, what)))

    # -- watching the table ----------------------------------------------------------------------

    def _watch(self, events: Sequence[Event], *, wrong: tuple[str, str] | None = None,
               hand: int | None = None, false_king: str | None = None) -> bool:
        """Read what the table said of the players' last act in ``hand`` (default: the world's);
        True when it proved a fault late and waits for the other seat's choice."""
        hand = self.world.hand_no if hand is None else hand
        replay = False
        for ev in events:
            if not isinstance(ev, Fault):
                continue
            if ev.late:
                self.conduct.late.append((hand, ev.trick or 0, ev.seat or "", ev.code))
                self.say("demo.proven_late", who=ev.seat or "", trick=ev.trick or 0, fault=ev)
                if ev.code == FaultCode.FALSE_KING:
                    innocent = (hand, ev.seat) not in self.conduct.false_kings
                else:
                    innocent = not any(p[:3] == (hand, ev.trick, ev.seat) for p in self.conduct.planted)
                if innocent:
                    self.conduct.unfounded.append(f"late {ev.code} against {ev.seat}: {event_line(ev)}")
                if self.table.snapshot.choosing is not None:
                    replay = True
                continue
            planted_card = wrong is not None and ev.seat == wrong[0] and str(ev.card) == wrong[1]
            planted_king = false_king is not None and ev.code == FaultCode.FALSE_KING and ev.seat == false_king
            if not (planted_card or planted_king):
                self.conduct.unfounded.append(f"{ev.code} against {ev.seat}: {event_line(ev)}")
        return replay

    def _choose_replay(self) -> None:
        """The other seat has the hands played again; the cards on the play pads are taken back."""
        chooser = self.table.snapshot.choosing
        if chooser is None:
            raise PlayersError("no choice is awaited")
        self.say("demo.replay_chosen", who=chooser)
        events = self.table.press(chooser, "yes")
        if not any(e.event == "replay_hand" for e in events):
            raise PlayersError(f"the table did not replay the hand: {[e.to_json() for e in events]}")
        self._watch(events)
        hand = self.world.hand_no if self._play_start is None else self._play_start.hand_no
        proven = {(h, s) for h, _t, s, code in self.conduct.late if h == hand and code != FaultCode.FALSE_KING}
        self.conduct.voided.extend(p for p in self.conduct.planted if p[0] == hand and (p[0], p[2]) not in proven)
        self.gather()
        if self._play_start is None:
            raise PlayersError("a hand played again before it began")
        self.world = self._play_start
        self._replaying = True

    # -- acts ------------------------------------------------------------------------------------

    def gather(self) -> None:
        """Pick up the cards lying on the play pads."""
        for seat, card in self.on_play.items():
            if card is not None:
                self._watch(self.table.lift(Zone.play(seat), [card]))
                self.on_play[seat] = None

    def deal(self, deal: Deal) -> None:
        """Packets of three then two, non-dealer first (rule 8); the eleventh card turned up;
        the players pick their hands up."""
        w = self.world
        first, second = (deal.a, deal.b) if w.elder == "A" else (deal.b, deal.a)
        hands = {w.elder: [str(c) for c in first], w.dealer: [str(c) for c in second]}
        for packet in (slice(0, 3), slice(3, 5)):
            for seat in (w.elder, w.dealer):
                self._watch(self.table.lay(Zone.hand(seat), hands[seat][packet]))
        if self.discarded:
            self._watch(self.table.lift(Zone.DISCARD, self.discarded))  # gathered with the pack
            self.discarded = []
        if self.turn_up is not None:
            self._watch(self.table.lift(Zone.TURNUP, [self.turn_up]))
        self.turn_up = str(deal.turn_up)
        self._watch(self.table.lay(Zone.TURNUP, [self.turn_up]))
        for seat, cards in hands.items():
            self._watch(self.table.lift(Zone.hand(seat), cards))

    def act(self, action: Action) -> None:
        """Do ``action`` at the table and move the world."""
        w = self.world
        if isinstance(action, Deal):
            self.deal(action)
        elif isinstance(action, Discard):
            cards = [str(c) for c in action.cards]
            self.discarded.extend(cards)
            self._watch(self.table.lay(Zone.DISCARD, cards))
        elif isinstance(action, Draw):
            cards = [str(c) for c in action.cards]
            self._watch(self.table.lay(Zone.hand(action.seat), cards))
            self._watch(self.table.lift(Zone.hand(action.seat), cards))
        elif isinstance(action, Cut):
            self.play_card(action.seat, str(action.card))
        elif isinstance(action, PlayCard):
            if self._play(action):
                return
        elif isinstance(action, Announce) and self._replaying:
            pass  # no king is announced in a hand played again: the point stands
        else:
            for event in physical_events(w, action):
                if isinstance(event, ButtonEvent):
                    self._watch(self.table.press(event.seat, event.button))
        before = w
        self.world, _ = engine.apply(w, action)
        self._after(before)

    def _after(self, before: GameState) -> None:
        w = self.world
        if w.phase == Phase.PLAY and before.phase != Phase.PLAY:
            self._play_start = w
            self._replaying = False
            if before.phase == Phase.EXCHANGE:
                # the stock ran out: play began by itself, but a table that cannot count the
                # stock waits for the elder's button (docs/transcript.md, partial sight)
                self._watch(self.table.press(w.elder, "no"))
            elif before.phase == Phase.FORCE and w.declarer == w.dealer:
                # german: nobody declared and the stock is gone, so the dealer must take the game;
                # a table that cannot count the stock asks him
                self._watch(self.table.press(w.dealer, "yes"))
        if w.phase == Phase.DEAL and before.phase != Phase.DEAL:
            self.gather()
        if before.phase == Phase.CUT and (w.phase != Phase.CUT or w.cuts == (-1, -1)):
            self.gather()  # the cut is over (or must be made again)
            self._recuts += 1

    def play_card(self, seat: str, card: str) -> list[Event]:
        """Lay ``card`` on the seat's play pad (a trick's card, or a cut)."""
        if self.on_play[seat] is not None:
            self.gather()
        self.on_play[seat] = card
        return self.table.lay(Zone.play(seat), [card])

    def _play(self, action: PlayCard) -> bool:
        """Play a card (now and then a wrong one first); True when the hand is being played again."""
        w = self.world
        seat = action.seat
        i = engine.SEATS.index(seat)
        king = engine.king_index(w.turn_up)
        if (not self._replaying and w.counts[i] == 0 and w.king is None and not w.hands[i] >> king & 1
                and self._rng("false king", seat).random() < self.false_kings):
            # a king announced by a seat that does not hold it (rule 25): the world knows it is false
            self.conduct.false_kings.append((w.hand_no, seat))
            self.say("demo.false_king", who=seat)
            if self._watch(self.table.press(seat, "king"), false_king=seat):
                self._choose_replay()
                return True
            if self.world.phase == Phase.OVER or self.table.snapshot.phase == Phase.OVER:
                return True
        wrong = None
        if not self._replaying and w.led >= 0 and self._rng("fault", seat).random() < self.faults:
            wrong = wrong_card(w)
        if wrong is not None:
            events = self.play_card(seat, str(wrong.card))
            refused = any(isinstance(e, Fault) and not e.late and e.seat == seat and e.card == wrong.card
                          for e in events)
            if refused:
                self.conduct.refused_at_once += 1
                fault = next(e for e in events if isinstance(e, Fault) and e.card == wrong.card)
                self.say("demo.refused", who=seat, card=wrong.card, fault=fault)
                self._watch(events, wrong=(seat, str(wrong.card)))
                self._watch(self.table.lift(Zone.play(seat), [str(wrong.card)]))
                self.on_play[seat] = None
                self.world, _ = engine.apply(w, wrong)  # refused: nothing changes (italian: a point)
            else:
                trick = w.tricks[0] + w.tricks[1] + 1
                self.conduct.planted.append((w.hand_no, trick, seat, str(wrong.card)))
                self.say("demo.unproven", who=seat, card=wrong.card)
                i = engine.SEATS.index(seat)
                self.world, _ = accept_play(w, seat, i, wrong.card, 1 << wrong.card.index)
                if self._watch(events, hand=w.hand_no):
                    self._choose_replay()
                    return True
                self._trick_done(w)
                return True
        events = self.play_card(seat, str(action.card))
        if any(isinstance(e, Fault) and not e.late and e.seat == seat for e in events):
            raise PlayersError(f"{seat}'s legal {action.card} was refused: {[e.to_json() for e in events]}")
        before = self.world
        self.world, _ = engine.apply(before, action)
        if self._watch(events, hand=before.hand_no):
            self._choose_replay()
            return True
        self._trick_done(before)
        return True

    def _trick_done(self, before: GameState) -> None:
        w = self.world
        if before.led >= 0 and w.phase != Phase.OVER:
            self.gather()  # the trick is complete: its winner gathers it
        self._after(before)

    # -- the game --------------------------------------------------------------------------------

    def next_action(self) -> Action:
        w = self.world
        if w.phase == Phase.DEAL:
            return random_deal(w, self._rng("deal"))
        seat = w.turn or w.exchanger or w.elder
        return random_action(w, self._rng("act", seat))

    def play_game(self, max_actions: int = 5000) -> GameState:
        """Play until the game is over; the players' world at the end."""
        for _ in range(max_actions):
            if self.world.phase == Phase.OVER or self.table.snapshot.phase == Phase.OVER:
                # (a false king not yet proven may take its announcer to the target: the game is over)
                return self.world
            self.act(self.next_action())
        raise PlayersError(f"the game did not end within {max_actions} actions")


def full_and_partial(rules: str, seed: int, *, depth: int, faults: float = 0.0,
                     **options: Any) -> tuple[ModelTable, ModelTable, Conduct]:
    """The same game (same seed) at full sight and at partial sight with pads of ``depth``:
    both tables, and what the players did at the partial one."""
    out = []
    conduct = Conduct()
    for sight, d in (("full", 99), ("partial", depth)):
        setup = Setup(rules=rules, dealer="A", options=dict(options), sight=sight)
        table = ModelTable(Controller(), depth=d, setup=setup)
        players = PacketPlayers(table, engine.new_game(rules, dealer="A", **options), seed=seed, faults=faults)
        players.play_game()
        out.append(table)
        conduct = players.conduct
    return out[0], out[1], conduct


__all__ = ["Conduct", "ModelTable", "PacketPlayers", "PhysicalTable", "PlayersError", "full_and_partial"]
