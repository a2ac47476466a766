"""What the devices report: plain values, no game rules.

Every device of the table (NFC pad, button) only ever puts one of these on the
controller's queue; the controller thread alone decides what they mean.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Origin(StrEnum):
    """An originality verdict: what a tag's answers say of where it came from, defined here, once.

    The judge (:func:`hardware.ntag_signature.judge`) gives them, the pads report them
    (``Sighting.origin``), the registry records them (``origin``) and a table's transcript carries
    them (``origin``); each value is the text the registry file and the journal hold (a
    ``StrEnum``: ``Origin.GENUINE == "genuine"``), and nowhere else is a verdict written as a string.
    """

    GENUINE = "genuine"
    """The tag answered as an NTAG21x and its signature verifies with the trusted key (the one verdict
    remembered)."""
    NO_SIGNATURE = "no_signature"
    """An NTAG21x whose ``READ_SIG`` gave nothing or zeros: a copy on a blank tag."""
    BAD_SIGNATURE = "bad_signature"
    """A tag whose signature (not zeros) does not verify for its UID: a copied UID, or another maker's
    key (the pads do not ask such a tag's ``GET_VERSION``: the signature refuses it whatever chip it is)."""
    COUNTERFEIT = "counterfeit"
    """The chip does not answer ``GET_VERSION`` as an NTAG21x does: not an NXP NTAG."""
    UNREADABLE = "unreadable"
    """The tag gave no valid answer (it left the pad, couples badly, its answers came garbled): no
    evidence either way. The enrolment says so and asks for the tag again; the pads never report it (an
    :class:`OriginalityCheck` gives no verdict from silence: the tag is asked again at the next poll,
    and arrives when it answers)."""
    UNCHECKED = "unchecked"
    """Nobody asked (the registry's status of a tag enrolled without the check)."""

    @property
    def vouched(self) -> bool:
        """Whether the tag is not known to be a fake: genuine, or never asked (``unchecked``)."""
        return self in (Origin.GENUINE, Origin.UNCHECKED)


@dataclass(frozen=True, slots=True)
class Sighting:
    """One tag as the table saw it, the one value a card is from the pad to the referee: made once, by the
    pad that sees the tag arrive (:class:`drivers.nfc.pad_contents.PadContents`), and carried unchanged
    in its :class:`CardSeen`, the transcript's card event and the referee's judgement.

    ``uid``: the tag's UID in upper-case hex. ``card``: the two-character card it stands for
    (``"KS"``), from the tag registry or the tag's NDEF record, ``None`` for a tag the table does not
    know. ``origin``: what the pad learnt of the tag's originality when it checks, ``None`` when it
    does not (the pad only reports it; the referee decides what it means). ``pack``: the card's pack
    (1 or 2) as the registry's entry says it, or the table's ``ndef_pack`` for a card named by its
    NDEF record, ``None`` when neither says.
    """

    uid: str
    card: str | None = None
    origin: Origin | None = None
    pack: int | None = None


@dataclass(frozen=True, slots=True)
class CardSeen:
    """A tag arrived on a pad, or left it (``gone``): the pad's :class:`Sighting` of it, made once when
    it arrived and given again, the same value, when it leaves. ``t`` is seconds on the monotonic clock.

    A pad holding a stack reports each tag on its own: a packet of three laid
    at once is three arrivals, the top card lifted one departure.
    """

    zone: str
    sighting: Sighting
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
    """A pad's reader went offline (``online=False``) or came back. ``reason``: the failure as its
    library says it (English, for the log); ``code``: its system error number (``errno``), for the words
    a person reads in the table's language (``None``: none, the reader stopped answering)."""

    zone: str
    online: bool
    reason: str = ""
    t: float = 0.0
    code: int | None = None


DeviceEvent = CardSeen | ButtonPressed | ReaderStatus
