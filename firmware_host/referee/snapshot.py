"""What the table shows at one moment: a frozen value, the referee's only way out besides its events.

:meth:`firmware_host.referee.controller.Controller.handle` returns the table events an input
caused and a :class:`TableSnapshot` of what the table shows after it. The display, the
LEDs, ``--json``, the journal's outputs, the demo, the web page and MQTT take these and
never read the controller. A snapshot holds no hidden card: the game is the engine's
public :class:`~engine.state.View` (counts, never a hand, the stock or the discards);
the faults hold only cards laid face up on a pad. The outcome's ``private`` views do, and only a
seat's own earpiece gets its seat's (:meth:`Outcome.seen_by`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from engine import Card, Event, Fault, GameState, HandEnd, Prompt, Trick, View
from engine.message import Phrase
from engine.seats import PerSeat
from engine.state import Phase
from firmware_host.referee.event_words import prompt_words
from firmware_host.referee.table_setup import MenuLine


@dataclass(frozen=True, slots=True)
class Sight:
    """How much of the hands the table has seen (partial sight: stacked cards it could not read).

    ``mode``: ``full`` or ``partial``; ``seen``: per seat (A, B), how many of the cards it
    holds the table knows; ``held``: how many it holds.
    """

    mode: str = "full"
    seen: tuple[int, int] = (0, 0)
    held: tuple[int, int] = (0, 0)

    @classmethod
    def of(cls, state: GameState) -> Sight:
        """How much of each hand the table knows, out of the cards the hand holds (docs/transcript.md,
        *Partial sight*: a seat's unseen cards are five minus those it is known to hold).

        A hand never holds more than five: during the exchange the engine cannot count the
        unseen discards and keeps five unseen, so the replacements seen are counted out of five.
        """
        known = (state.hands[0].bit_count(), state.hands[1].bit_count())
        held = tuple(min(5, known[i] + state.unseen[i]) for i in (0, 1))
        return cls(state.sight, known, (held[0], held[1]))

    @property
    def complete(self) -> bool:
        """True when the table knows every card in both hands."""
        return self.mode == "full" or self.seen == self.held

    def to_json(self) -> dict[str, Any]:
        return {"mode": self.mode, "seen": PerSeat.of(self.seen).to_json(), "held": PerSeat.of(self.held).to_json()}


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """What the table shows now.

    :param view: the game as anyone watching may know it (the engine's public view).
    :param prompt: what the table waits for (seat, a few words, a sentence).
    :param faults: refused cards still on their pads, oldest first: the seats must take
        them back (their LEDs are lit).
    :param warning: the last fault that needs no correction but must be seen (a void
        deal, a false king), until the next accepted action.
    :param last_trick: the last trick completed in this hand (None once a new hand is dealt).
    :param last_hand: the last hand's result (None once the next turn-up is seen).
    :param offline: zones whose reader is offline.
    :param game: the game's number in the journal (1, 2...; the same after a restart).
    :param hand_no: the hand's number in the game.
    :param between_hands: nothing of the next deal is on the pads yet.
    :param fresh_king: a king was scored and no card has been played since.
    :param winner: the game's winner once it is over.
    :param players: the names at A and B (and the pool's watcher).
    :param sight: how much of the hands the table has seen.
    :param choosing: the seat that must choose, after a fault proven late, between having
        the hands played again (``yes``) and playing on (``no``).
    :param hand_notes: where the hand's points came from besides its tricks: the king,
        penalty and *d'autorité* bid events of the hand (the last one's until the next turn-up).
    :param setting_up: no card of the game is down yet: the table takes its settings
        menu, badges and rule cards (:mod:`firmware_host.referee.table_setup`).
    :param menu: the settings menu's line when it is open.
    """

    view: View
    prompt: Prompt
    faults: tuple[Fault, ...] = ()
    warning: Fault | None = None
    last_trick: Trick | None = None
    last_hand: HandEnd | None = None
    offline: frozenset[str] = frozenset()
    game: int = 1
    hand_no: int = 1
    between_hands: bool = False
    fresh_king: bool = False
    winner: str | None = None
    players: tuple[str, str, str] = ("A", "B", "")
    sight: Sight = field(default_factory=Sight)
    choosing: str | None = None
    hint: str | None = None
    """Learners: before the elder decides, his odds of standing (a table that turns hints on)."""
    notice: Fault | None = None
    """The last input meant nothing now (a button nobody asked for): what it was, until the next input."""
    hand_notes: tuple[Event, ...] = ()
    setting_up: bool = False
    menu: MenuLine | None = None
    language: str | None = None
    """The OLED's language chosen at the table (the settings menu, saved in the game's setup line);
    None: the display's own (the table file's ``language``)."""

    @property
    def phase(self) -> Phase:
        return self.view.phase

    @property
    def faulty_seats(self) -> frozenset[str]:
        """Seats with a fault still to put right (their LEDs are lit)."""
        return frozenset(f.seat for f in self.faults if f.seat)

    @property
    def expectation(self) -> Phrase:
        """What the table waits for, as a message's id and values (worded at the edge,
        :func:`~firmware_host.referee.event_words.said_in`): the last fault to put right (its message),
        else the prompt (``prompt.<key>``)."""
        if self.faults:
            fault = self.faults[-1]
            return Phrase(fault.says.msgid if fault.says is not None else "", tuple(fault.values().items()))
        return self.prompt.says

    def to_json(self) -> dict[str, Any]:
        """The snapshot as JSON data (no hidden card: see the module's docstring)."""
        return {
            "game": self.game,
            "hand": self.hand_no,
            "view": self.view.to_json(),
            "prompt": {"seat": self.prompt.seat, **prompt_words(self.prompt)},
            "faults": [f.to_json() for f in self.faults],
            "warning": self.warning.to_json() if self.warning else None,
            "last_trick": self.last_trick.to_json() if self.last_trick else None,
            "last_hand": self.last_hand.to_json() if self.last_hand else None,
            "offline": sorted(self.offline),
            "winner": self.winner,
            "players": list(self.players),
            "sight": self.sight.to_json(),
            "choosing": self.choosing,
        }


@dataclass(frozen=True, slots=True)
class PrivateView:
    """What ``seat`` alone may know now (made by :mod:`firmware_host.referee.private_view`).

    :param hand: the cards it holds as the referee judged them, in the engine's order.
    :param unseen: how many more it holds that the table did not see (partial sight; 0 in full sight).
    :param discards: its own discards of this hand (laid face down: the other seat never sees them).
    """

    seat: str
    hand: tuple[Card, ...] = ()
    unseen: int = 0
    discards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Outcome:
    """What refereeing one input gave: the table events it caused, the snapshot after it and each
    seat's private view (:mod:`firmware_host.referee.private_view`).

    ``private`` holds hidden cards: an output gets the outcome :meth:`seen_by` it, never this one
    (the service's one door, :func:`firmware_host.outputs.deliver`).
    """

    events: tuple[Any, ...]
    snapshot: TableSnapshot
    private: Mapping[str, PrivateView] = field(default_factory=dict)
    """By seat (``A``, ``B``): what that seat alone may know now; empty for an output of no seat."""

    def seen_by(self, seat: str | None) -> Outcome:
        """This outcome as an output of ``seat`` may see it: a seat's earpiece with its own private
        view only; any other output (``seat`` None) with none."""
        if not self.private:
            return self
        mine = {seat: self.private[seat]} if seat is not None and seat in self.private else {}
        return replace(self, private=MappingProxyType(mine))  # (a journaled outcome keeps its numbers)
