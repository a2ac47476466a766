"""What lies on each pad: the referee's memory of the cloth.

A pad reads a card again and again while it lies there, and a card lifted from one pad may be
laid on another: the ledger says whether a sighting is a card newly laid (the rules judge it) or
one read again where it lies (nothing happens). Cards are remembered by the zone the pad stands
for now (:func:`~firmware_host.referee.protocol.zone_of`): in the compact layout a card dealt
across pad A is a new card when it comes back to pad A as a play.

A frozen value: each step gives the next ledger (the referee's state keeps it).

    >>> import engine
    >>> from hardware.layout import Zone
    >>> ledger, laid = PadLedger().lay(Zone.HAND_A, "KS")
    >>> laid, ledger.lay(Zone.HAND_A, "KS")[1]
    (True, False)
    >>> ledger, laid = ledger.lay(Zone.DISCARD, "KS")
    >>> laid, ledger.empty
    (True, False)
    >>> ledger.lift(Zone.DISCARD, "KS").empty
    True
    >>> PadLedger().seen(Zone.PAD_A, "QS", engine.new_game("classic", dealer="A"), engine.Card.parse("QS"))[1:]
    (<Zone.HAND_A: 'hand.A'>, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import Card, GameState
from firmware_host.referee.protocol import zone_of
from hardware.layout import Zone


@dataclass(frozen=True, slots=True)
class PadLedger:
    """The cards lying on the zones: (zone, key) pairs, a key (the card's name, or ``uid:…`` for a
    tag that names no card) on one zone at a time."""

    lying: frozenset[tuple[Zone, str]] = frozenset()

    def seen(self, pad: Zone, key: str, state: GameState, card: Card | None, *,
             gone: bool = False) -> tuple[PadLedger, Zone, bool]:
        """A card ``key`` (``card``, if it names one) seen arriving on ``pad``, or leaving it
        (``gone``): the ledger after it, the zone the pad stands for now, and whether the card is
        newly laid there."""
        zone = zone_of(pad, state, card)
        if gone:
            return self.lift(zone, key), zone, False
        ledger, laid = self.lay(zone, key)
        return ledger, zone, laid

    def lay(self, zone: Zone, key: str) -> tuple[PadLedger, bool]:
        """A card seen arriving on ``zone``: the ledger after it, and True when newly laid (False:
        read again where it lies).

        A card lies on one pad at a time: laid here, it has left every other (a discard drawn
        again is no re-read).
        """
        if (zone, key) in self.lying:
            return self, False
        return PadLedger(frozenset(p for p in self.lying if p[1] != key) | {(zone, key)}), True

    def lift(self, zone: Zone, key: str) -> PadLedger:
        """A card seen leaving ``zone`` (the same ledger if it did not have it there)."""
        return PadLedger(self.lying - {(zone, key)}) if (zone, key) in self.lying else self

    @property
    def empty(self) -> bool:
        """No card lies on any pad."""
        return not self.lying
