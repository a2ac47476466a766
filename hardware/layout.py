"""The table's layout, defined once: seats, zones, pads and buttons.

A *zone* is where a card lies in the game (a seat's hand pad, the turn-up, the
discards, a seat's play pad); a *pad* is a reader under the cloth. In the full
layout each pad is one zone; in the compact layout a seat's pad is its hand pad
during the deal and the exchange and its play pad during the tricks, and the
centre pad takes the turn-up, then the discards::

    >>> PAD_ZONES["A"], PAD_ZONES["turnup"]
    ((<Zone.HAND_A: 'hand.A'>, <Zone.PLAY_A: 'play.A'>), (<Zone.TURNUP: 'turnup'>,))
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from engine.seats import SEATS


class ZoneKind(StrEnum):
    """What a zone is, whoever's it is: a seat's ``hand`` or ``play`` pad, the ``turnup``, the
    ``discard``; in the compact layout a seat's ``pad`` (its hand, then its play pad) and the
    ``centre`` (the turn-up, then the discards)."""

    HAND = "hand"
    PLAY = "play"
    TURNUP = "turnup"
    DISCARD = "discard"
    PAD = "pad"
    CENTRE = "centre"


class Zone(StrEnum):
    """A transcript's ``zone`` (docs/transcript.md): a zone of the game, or a pad of the compact layout that
    stands for two. A :class:`str` (``Zone.HAND_A == "hand.A"``), so the JSON protocol writes it as it
    was; read once, its :attr:`kind` and :attr:`seat` are known without parsing its text again::

        >>> zone = Zone("play.B")
        >>> zone.kind, zone.seat, Zone.hand("A")
        (<ZoneKind.PLAY: 'play'>, 'B', <Zone.HAND_A: 'hand.A'>)
    """

    HAND_A = "hand.A"
    HAND_B = "hand.B"
    TURNUP = "turnup"
    DISCARD = "discard"
    PLAY_A = "play.A"
    PLAY_B = "play.B"
    PAD_A = "A"
    PAD_B = "B"
    CENTRE = "centre"

    @property
    def kind(self) -> ZoneKind:
        """What the zone is (a hand pad, a play pad...), whoever's it is."""
        return _PARTS[self][0]

    @property
    def seat(self) -> str | None:
        """The seat whose zone it is (``A``, ``B``), None for the turn-up, the discards and the centre."""
        return _PARTS[self][1]

    @classmethod
    def hand(cls, seat: str) -> Zone:
        """``seat``'s hand pad."""
        return _OF[ZoneKind.HAND, seat]

    @classmethod
    def play(cls, seat: str) -> Zone:
        """``seat``'s play pad."""
        return _OF[ZoneKind.PLAY, seat]

    @classmethod
    def pad(cls, seat: str) -> Zone:
        """``seat``'s pad in the compact layout."""
        return _OF[ZoneKind.PAD, seat]


def _parts(zone: Zone) -> tuple[ZoneKind, str | None]:
    """The one reading of a zone's text: ``hand.A`` is A's hand, ``A`` is A's compact pad."""
    kind, dot, seat = zone.value.partition(".")
    if dot:
        return ZoneKind(kind), seat
    if zone.value in SEATS:
        return ZoneKind.PAD, zone.value
    return ZoneKind(zone.value), None


_PARTS: Mapping[Zone, tuple[ZoneKind, str | None]] = {zone: _parts(zone) for zone in Zone}
_OF: Mapping[tuple[ZoneKind, str | None], Zone] = {parts: zone for zone, parts in _PARTS.items()}

ZONES: tuple[Zone, ...] = (Zone.HAND_A, Zone.HAND_B, Zone.TURNUP, Zone.DISCARD, Zone.PLAY_A, Zone.PLAY_B)
"""The zones of a game (docs/transcript.md), which are also the pads of the full layout."""

FULL_PADS: tuple[Zone, ...] = ZONES
COMPACT_PADS: tuple[Zone, ...] = (Zone.PAD_A, Zone.PAD_B, Zone.CENTRE)
LAYOUTS: tuple[str, ...] = ("full", "compact")
"""``full``: six pads, one per zone; ``compact``: one pad per seat and a centre pad."""

PAD_ZONES: Mapping[str, tuple[Zone, ...]] = {
    **{name: (name,) for name in FULL_PADS},
    "A": (Zone.HAND_A, Zone.PLAY_A),
    "B": (Zone.HAND_B, Zone.PLAY_B),
    "centre": (Zone.TURNUP, Zone.DISCARD),
}
"""The zones each pad stands for, in the order the game uses them."""

BUTTONS: tuple[str, ...] = ("yes", "no", "king")
"""Each seat's buttons."""

__all__ = ["BUTTONS", "COMPACT_PADS", "FULL_PADS", "LAYOUTS", "PAD_ZONES", "SEATS", "ZONES", "Zone", "ZoneKind"]
