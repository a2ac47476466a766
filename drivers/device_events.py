"""What the devices report: plain values, no game rules.

Every device of the table (NFC pad, button) only ever puts one of these on the
controller's queue; the controller thread alone decides what they mean.
"""

from __future__ import annotations

from dataclasses import dataclass

from drivers.nfc.originality import Origin


@dataclass(frozen=True, slots=True)
class CardSeen:
    """A tag arrived on a pad, or left it (``gone``).

    ``card`` is the two-character card the tag stands for (``"KS"``), from the
    tag registry or the tag's NDEF record, or ``None`` for a tag the table does
    not know. ``uid`` is the tag's UID in upper-case hex. ``t`` is seconds on
    the monotonic clock.

    A pad holding a stack reports each tag on its own: a packet of three laid
    at once is three arrivals, the top card lifted one departure.

    ``origin`` is what the pad learnt of the tag's originality when it checks
    (a :class:`drivers.nfc.originality.Origin`), ``None`` when it does not
    check. The pad only reports it; the referee decides what it means.

    ``pack`` is the card's pack (1 or 2) as the tag registry's entry says it, ``None`` when the
    pad's lookup gives none (no registry, an unknown tag, a card named by its NDEF record).
    """

    zone: str
    uid: str
    card: str | None = None
    gone: bool = False
    t: float = 0.0
    origin: Origin | None = None
    pack: int | None = None


@dataclass(frozen=True, slots=True)
class ButtonPressed:
    """A seat pressed one of its buttons: ``yes``, ``no`` or ``king``."""

    seat: str
    button: str
    t: float = 0.0


@dataclass(frozen=True, slots=True)
class ReaderStatus:
    """A pad's reader went offline (``online=False``) or came back. ``reason``: the failure as its
    library says it (English, for the log); ``code``: its system error number (``errno``), for the words
    a person reads in the table's language (``None``: none, the reader stopped answering)."""

    zone: str
    online: bool
    reason: str = ""
    t: float = 0.0
    code: int | None = None


DeviceEvent = CardSeen | ButtonPressed | ReaderStatus
