"""What the devices report: plain values, no game rules.

Every device of the table (NFC pad, button) only ever puts one of these on the
controller's queue; the controller thread alone decides what they mean.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CardSeen:
    """A tag arrived on a pad, or left it (``gone``).

    ``card`` is the two-character card the tag stands for (``"KS"``), from the
    tag registry or the tag's NDEF record, or ``None`` for a tag the table does
    not know. ``uid`` is the tag's UID in upper-case hex. ``t`` is seconds on
    the monotonic clock.

    A pad holding a stack reports each tag on its own: a packet of three laid
    at once is three arrivals, the top card lifted one departure.
    """

    zone: str
    uid: str
    card: str | None = None
    gone: bool = False
    t: float = 0.0


@dataclass(frozen=True, slots=True)
class ButtonPressed:
    """A seat pressed one of its buttons: ``yes``, ``no`` or ``king``."""

    seat: str
    button: str
    t: float = 0.0


@dataclass(frozen=True, slots=True)
class ReaderStatus:
    """A pad's reader went offline (``online=False``) or came back."""

    zone: str
    online: bool
    reason: str = ""
    t: float = 0.0


DeviceEvent = CardSeen | ButtonPressed | ReaderStatus
