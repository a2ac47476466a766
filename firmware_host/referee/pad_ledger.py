"""What lies on each pad: the referee's memory of the cloth.

A pad reads a card again and again while it lies there, and a card lifted from one pad may be
laid on another: the ledger says whether a sighting is a card newly laid (the rules judge it) or
one read again where it lies (nothing happens). Cards are remembered by the zone the pad stands
for now (:func:`~firmware_host.referee.protocol.zone_of`): in the compact layout a card dealt
across pad A is a new card when it comes back to pad A as a play.

    >>> import engine
    >>> ledger = PadLedger()
    >>> ledger.lay("hand.A", "KS"), ledger.lay("hand.A", "KS")
    (True, False)
    >>> ledger.lay("discard", "KS"), ledger.empty
    (True, False)
    >>> ledger.lift("discard", "KS"); ledger.empty
    True
    >>> ledger.seen("A", "QS", engine.new_game("classic", dealer="A"), engine.Card.parse("QS"))
    ('hand.A', True)
"""

from __future__ import annotations

from engine import Card, GameState
from firmware_host.referee.protocol import zone_of


class PadLedger:
    """The cards lying on each zone (by card name, or ``uid:…`` for a tag that names no card)."""

    def __init__(self) -> None:
        self._on_pad: dict[str, set[str]] = {}

    def seen(self, pad: str, key: str, state: GameState, card: Card | None, *, gone: bool = False) -> tuple[str, bool]:
        """A card ``key`` (``card``, if it names one) seen arriving on ``pad``, or leaving it
        (``gone``): the zone the pad stands for now, and whether the card is newly laid there."""
        zone = zone_of(pad, state, card)
        if gone:
            self.lift(zone, key)
            return zone, False
        return zone, self.lay(zone, key)

    def lay(self, zone: str, key: str) -> bool:
        """A card seen arriving on ``zone``: True when newly laid, False when read again where it lies.

        A card lies on one pad at a time: laid here, it has left every other (a discard drawn
        again is no re-read).
        """
        lying = self._on_pad.setdefault(zone, set())
        if key in lying:
            return False
        for pad, cards in self._on_pad.items():
            if pad != zone:
                cards.discard(key)
        lying.add(key)
        return True

    def lift(self, zone: str, key: str) -> None:
        """A card seen leaving ``zone`` (nothing if the ledger did not have it there)."""
        self._on_pad.setdefault(zone, set()).discard(key)

    def clear(self) -> None:
        """The cards are gathered (a new deal, a new game)."""
        self._on_pad.clear()

    @property
    def empty(self) -> bool:
        """No card lies on any pad."""
        return not any(self._on_pad.values())
