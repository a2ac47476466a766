"""Faults to put right: the cards refused on their pads, the warnings to be seen, the corrections.

The engine refuses an action with a :class:`~engine.Fault`; the table then keeps the fault until
it is put right: a refused card until it is taken back (or, for a play, until its seat plays a
legal card: rule 39), a fault that needs no correction (a void deal, a false king, one proven
late) as a warning until the next accepted action. A ``wrong_time`` fault, or ``yes``/``no``
pressed out of turn, is only a notice.

A frozen value: each step gives the corrections after it, and the table's events.

    >>> from engine import Card
    >>> from engine.faults import FaultCode, fault
    >>> from hardware.layout import Zone
    >>> refused = fault(FaultCode.OUT_OF_TURN, "B", "turn_to_play", Card.parse("7S"), turn="A")
    >>> fixes, events = Corrections().refuse(refused, Zone.PLAY_B, "7S", None, on_pad=True)
    >>> [e.code for e in events], [f.seat for f in fixes.faults]
    ([<FaultCode.OUT_OF_TURN: 'out_of_turn'>], ['B'])
    >>> fixes, events = fixes.taken_back("7S", None)
    >>> [e.to_json()["event"] for e in events], fixes.faults
    (['corrected'], ())
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from engine import Event, Fault
from engine.actions import Action, Discard, Draw, PlayCard
from engine.faults import VOID_DEAL_CODES, FaultCode
from engine.message import Phrase
from firmware_host.referee.pack_guard import TAG_FAULTS
from firmware_host.referee.table_events import Corrected, Notice
from hardware.layout import Zone, ZoneKind

FACE_UP_ZONES = frozenset({Zone.PLAY_A, Zone.PLAY_B, Zone.TURNUP})
"""Where a card lies face up: a fault about a card anywhere else must not name it."""


def face_down(refused: Fault, zone: Zone | None) -> Fault:
    """``refused`` as the table may show it: a card laid on a hand pad or the discards lies face
    down (a dealt card, a replacement, a discard), so its fault names no card.

    >>> from engine import Card
    >>> from engine.faults import fault
    >>> f = fault(FaultCode.DUPLICATE_CARD, "A", "turn_up_in_hand", Card.parse("KS"), holder="B")
    >>> face_down(f, Zone.HAND_A).card, face_down(f, Zone.HAND_A).says.msgid
    (None, 'says.face_down')
    >>> face_down(f, Zone.TURNUP) is f
    True
    """
    if refused.card is None or zone is None or zone in FACE_UP_ZONES:
        return refused
    # what it says: the fault's name and its remedy, no card
    return dataclasses.replace(refused, card=None, detail=(), says=Phrase(
        "says.face_down", (("code", refused.code), ("remedy", refused.code))))


def refusal(events: Iterable[Event]) -> bool:
    """Whether the engine refused the action (a fault proven late is no refusal: the card that
    proved it was accepted)."""
    return any(isinstance(e, Fault) and not e.late for e in events)


@dataclass(frozen=True, slots=True)
class _Rejected:
    zone: Zone
    card: str | None
    uid: str | None
    fault: Fault


Judged = tuple["Corrections", list[Event]]
"""A step of the corrections: the corrections after it, and the table's events."""


@dataclass(frozen=True, slots=True)
class Corrections:
    """The faults the table waits to see put right (see the module's docstring). ``Corrections()``:
    none (the cards are gathered: a new deal, a new game)."""

    rejected: tuple[_Rejected, ...] = ()
    """Refused cards still on their pads, oldest first."""
    warning: Fault | None = None
    """The last fault that needs no correction but must be seen, until the next accepted action."""

    @property
    def faults(self) -> tuple[Fault, ...]:
        """Refused cards still on their pads, oldest first."""
        return tuple(r.fault for r in self.rejected)

    def judge(self, action: Action, events: Iterable[Event], *, zone: Zone | None, card: str | None,
              button: str | None, void_deal: bool) -> Judged:
        """The table's events for the engine's ``events`` on ``action`` (laid as ``card`` on ``zone``,
        or pressed as ``button``): faults kept to be put right or turned into notices, the rest as
        they are, and the corrections a legal action makes (``void_deal``: the deal is void now)."""
        events = tuple(events)
        fixes = self
        out: list[Event] = []
        for ev in events:
            if isinstance(ev, Fault) and ev.late:
                # nothing to take back: shown until the other seat has chosen (or play goes on)
                fixes = dataclasses.replace(fixes, warning=ev)
                out.append(ev)
            elif isinstance(ev, Fault) and (ev.code == FaultCode.WRONG_TIME or (
                    button in ("yes", "no") and ev.code == FaultCode.OUT_OF_TURN)):
                out.append(Notice(ev.says or Phrase("says." + ev.code), ev.seat, ev.code))
            elif isinstance(ev, Fault):
                fixes, refused = fixes.refuse(ev, zone, card, None, on_pad=card is not None, void_deal=void_deal)
                out.extend(refused)
            else:
                out.append(ev)
        if not refusal(events):
            if fixes.warning is not None and not fixes.rejected and not any(isinstance(e, Fault) for e in events):
                # a void deal's or a false king's warning has been seen
                fixes = dataclasses.replace(fixes, warning=None)
            fixes, corrected = fixes._accepted(action)
            out.extend(corrected)
        return fixes, out

    def refuse(self, refused: Fault, zone: Zone | None, card: str | None, uid: str | None,
               *, on_pad: bool, void_deal: bool = False) -> Judged:
        """A card or button refused: kept until taken back (a card laid ``on_pad``), else a warning."""
        refused = face_down(refused, zone)
        if refused.code in VOID_DEAL_CODES and void_deal:
            # the deal is void: nothing to take back, the dealer deals again
            return Corrections((), refused), [refused]
        if on_pad and zone is not None:
            return dataclasses.replace(self, rejected=(*self.rejected, _Rejected(zone, card, uid, refused))), [refused]
        return dataclasses.replace(self, warning=refused), [refused]

    def _accepted(self, action: Action) -> Judged:
        """A legal action by a seat puts right that seat's refused plays (rule 39)."""
        seat = getattr(action, "seat", None)
        if not self.rejected or seat is None or not isinstance(action, PlayCard | Discard | Draw):
            return self, []
        out: list[Event] = []
        keep = []
        for r in self.rejected:
            if r.fault.seat == seat and r.fault.code not in TAG_FAULTS and r.zone.kind == ZoneKind.PLAY:
                out.append(Corrected(r.fault.code, r.fault.seat, r.card))
            else:
                keep.append(r)
        return (dataclasses.replace(self, rejected=tuple(keep)) if out else self), out

    def taken_back(self, card: str | None, uid: str | None) -> Judged:
        """A card lifted: the fault of the refused card it was is put right."""
        for i, r in enumerate(self.rejected):
            if (card is not None and r.card == card) or (card is None and uid and r.uid == uid):
                rest = self.rejected[:i] + self.rejected[i + 1:]
                return dataclasses.replace(self, rejected=rest), [Corrected(r.fault.code, r.fault.seat, r.card)]
        return self, []
