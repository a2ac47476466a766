"""A seat's own cards, read to that seat alone (its earpiece), never on the table's speaker.

What a seat holds is hidden: it never goes through the referee's outcomes, which hold no
hidden card. :class:`SeatHands` learns it as the seat itself would, from the seat's own hand
pad: the pads' reports (tee'd by the composition root before they reach the service) of cards
laid on ``hand.A`` or ``hand.B`` (a compact table's seat pad ``A``, ``B`` before the tricks), less
those seen since on a play pad or the discard pad (``centre``) and those the referee says were played. It
forgets them at the hand's end (or a deal made void), which it learns from the outcomes like
every other output. A seat's long press of its ``listen`` button (:meth:`read`) has them said,
in the table's language, on that seat's own :class:`~firmware_host.voice.speech.Speaker` only.

The table knows only what its pads read: with partial sight a card it did not see is not said,
only counted ("and two the table has not seen").

    >>> hands = SeatHands({})
    >>> for card in ("KS", "9H", "7S"):
    ...     hands.seen("hand.A", card)
    >>> hands.seen("play.A", "7S")
    >>> hands.text("A")
    'Your cards: the king of spades and the nine of hearts.'
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from engine import Fault, HandEnd, Played
from engine.events import HandReplayed
from engine.faults import VOID_DEAL_CODES
from engine.seats import SEATS
from firmware_host.referee.snapshot import Outcome
from firmware_host.screens.i18n import language as table_language
from firmware_host.voice.announcer import Announcement
from firmware_host.voice.speech import Speaker
from firmware_host.voice.spoken import spoken

__all__ = ["SeatHands"]

_ORDER = {s: i for i, s in enumerate("SHDC")}
_RANKS = "AKQJT987"


class SeatHands:
    """Each seat's cards as its own hand pad read them (see the module).

    :param speakers: per seat, its earpiece (a seat without one hears nothing privately).
    :param lang: the table's language (the one chosen at the table wins, from the outcomes).
    """

    def __init__(self, speakers: Mapping[str, Speaker], lang: str = "en",
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.speakers = dict(speakers)
        self.lang = table_language(lang)
        self.clock = clock
        self._lock = threading.Lock()
        self._held: dict[str, list[str]] = {"A": [], "B": []}
        self._played: dict[str, list[str]] = {"A": [], "B": []}
        self._sizes: tuple[int, int] = (0, 0)
        self._hand: tuple[int, int] = (1, 1)
        self._phase = ""

    # -- the pads (any thread) -----------------------------------------------------------

    def seen(self, zone: str, card: str | None, gone: bool = False) -> None:
        """A pad reported ``card`` arriving on ``zone`` (or leaving it: ``gone``)."""
        if card is None or gone:
            return  # a card lifted from a hand pad is in its player's hand
        with self._lock:
            if zone in SEATS and self._phase == "play":
                return  # a compact table's seat pad in play: a card played (the referee's Played says it)
            if zone.startswith("hand.") or zone in SEATS:  # a compact table's seat pad before play
                seat = zone[-1]
                if seat in self._held and card not in self._held[seat]:
                    self._held[seat].append(card)
            elif zone.startswith("play.") or zone in ("discard", "centre"):
                for seat, cards in self._held.items():
                    if card in cards:
                        cards.remove(card)
                        if zone.startswith("play."):
                            self._played[seat].append(card)

    def device_event(self, event: Any) -> None:
        """A pad's :class:`drivers.device_events.CardSeen` or a transcript's card line (anything with
        ``zone``, ``card`` and ``gone``); other events are not looked at."""
        zone, card = getattr(event, "zone", None), getattr(event, "card", None)
        if isinstance(zone, str) and (card is None or isinstance(card, str)):
            self.seen(zone, card, bool(getattr(event, "gone", False)))

    # -- the referee's outcomes (the event loop) -----------------------------------------

    def publish(self, outcome: Outcome) -> None:
        snapshot = outcome.snapshot
        if snapshot.language is not None:
            self.lang = table_language(snapshot.language)
        with self._lock:
            self._sizes = snapshot.view.hand_sizes
            self._hand = (snapshot.game, snapshot.hand_no)
            self._phase = snapshot.phase
            for event in outcome.events:
                if isinstance(event, Played) and str(event.card) in self._held[event.seat]:
                    self._held[event.seat].remove(str(event.card))  # as a compact table's pad cannot tell
                    self._played[event.seat].append(str(event.card))
                elif isinstance(event, HandEnd) or (isinstance(event, Fault) and event.code in VOID_DEAL_CODES):
                    self._held = {"A": [], "B": []}
                    self._played = {"A": [], "B": []}
                elif isinstance(event, HandReplayed):
                    for seat, cards in self._played.items():  # the tricks are void: back into the hands
                        self._held[seat].extend(cards)
                        cards.clear()

    # -- a seat asks ---------------------------------------------------------------------

    def text(self, seat: str) -> str:
        """What ``seat`` hears: its cards as the table read them, and how many it did not see."""
        say = spoken(self.lang)
        with self._lock:
            cards = sorted(self._held.get(seat, []), key=lambda c: (_ORDER[c[1]], _RANKS.index(c[0])))
            size = self._sizes[0 if seat == "A" else 1]
        unseen = max(0, size - len(cards))
        said = [say.card(c) for c in cards]
        if unseen and said:
            said.append(say.word("unseen", n=unseen))
        if not said:
            return say.say("your_hand_none")
        listed = said[0] if len(said) == 1 else f"{', '.join(said[:-1])} {say.word('and')} {said[-1]}"
        return say.say("your_hand", cards=listed)

    def read(self, seat: str) -> bool:
        """Say ``seat``'s cards on its own earpiece; False when it has none (nothing is said)."""
        speaker = self.speakers.get(seat)
        if speaker is None:
            return False
        speaker.say(Announcement(self.text(seat), "hand", self.lang, self._hand, self.clock()))
        return True

    def close(self) -> None:
        """Stop the earpieces (safe to call twice)."""
        for speaker in self.speakers.values():
            speaker.close()

    def __enter__(self) -> SeatHands:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
