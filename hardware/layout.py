"""The table's layout, defined once: seats, zones, pads and buttons.

A *zone* is where a card lies in the game (a seat's hand pad, the turn-up, the
discards, a seat's play pad); a *pad* is a reader under the cloth. In the full
layout each pad is one zone; in the compact layout a seat's pad is its hand pad
during the deal and the exchange and its play pad during the tricks, and the
centre pad takes the turn-up, then the discards::

    >>> PAD_ZONES["A"], PAD_ZONES["turnup"]
    (('hand.A', 'play.A'), ('turnup',))
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.seats import SEATS

ZONES: tuple[str, ...] = ("hand.A", "hand.B", "turnup", "discard", "play.A", "play.B")
"""The zones of a game (docs/transcript.md), which are also the pads of the full layout."""

FULL_PADS: tuple[str, ...] = ZONES
COMPACT_PADS: tuple[str, ...] = ("A", "B", "centre")
LAYOUTS: tuple[str, ...] = ("full", "compact")
"""``full``: six pads, one per zone; ``compact``: one pad per seat and a centre pad."""

PAD_ZONES: Mapping[str, tuple[str, ...]] = {
    **{name: (name,) for name in FULL_PADS},
    "A": ("hand.A", "play.A"),
    "B": ("hand.B", "play.B"),
    "centre": ("turnup", "discard"),
}
"""The zones each pad stands for, in the order the game uses them."""

BUTTONS: tuple[str, ...] = ("yes", "no", "king")
"""Each seat's buttons."""

__all__ = ["BUTTONS", "COMPACT_PADS", "FULL_PADS", "LAYOUTS", "PAD_ZONES", "SEATS", "ZONES"]
