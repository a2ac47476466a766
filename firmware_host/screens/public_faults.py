"""What of a fault a spectator may know: the rule the page, MQTT and the table's voice obey alike.

A fault's card may lie face down (a replacement beyond the count on a hand pad, a card dealt twice,
a discard the seat does not hold): such a fault goes out without its card. A fault keeps its card
only when the card lies face up on a play pad (a fault of play during the tricks) or on the cut.
A fault carries no words (its message's values, which may name a card in a hand, stay on the table):
what a spectator reads is worded here from its public data, as the table's screen words it. Only
these event kinds go out as they happen (:data:`PUBLIC_EVENTS`); ``hand_record`` waits for the
hand's end.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from engine import Fault
from engine.faults import FaultCode
from engine.state import Phase
from firmware_host.referee import TableSnapshot
from firmware_host.screens.chooser import fault_screen

PUBLIC_EVENTS = frozenset({
    "trump", "king", "trick", "hand_end", "game_end", "fault", "bid", "exchange", "play_begins", "play",
    "offer", "penalty", "match_end", "seating", "dealer", "target", "new_game", "reader", "corrected", "notice",
    "replay_hand",
})
"""Event kinds a spectator may see as they happen (``hand_record`` is held back: see the module)."""

PLAY_FAULTS = frozenset({FaultCode.REVOKE, FaultCode.NOT_OVERTAKING, FaultCode.NOT_TRUMPING, FaultCode.NOT_HIGHEST,
                         FaultCode.KING_NOT_LED})
"""Faults only a card on a play pad can cause: its card lies face up."""

PLAY_PHASE_FAULTS = frozenset({FaultCode.OUT_OF_TURN, FaultCode.CARD_NOT_IN_HAND, FaultCode.WRONG_TIME})
"""Faults whose card lies face up when they happen during the tricks (a card on a play pad)."""

_TRAILING_ARTICLE = re.compile(r"\s+(?:the|le|la|il|den|die|das|el)$")


def fault_face_up(fault: Fault, snapshot: TableSnapshot) -> bool:
    """Whether the card ``fault`` names lies face up (on a play pad, on the cut) when it is
    refused, judged from the snapshot of that moment: only then may it be shown or said."""
    if fault.card is None or fault.code in PLAY_FAULTS:
        return True
    if fault.code in PLAY_PHASE_FAULTS:
        return snapshot.phase == Phase.PLAY
    if fault.code == FaultCode.DUPLICATE_CARD:
        return snapshot.phase == Phase.CUT
    return False


def public_fault(fault: Fault, face_up: bool, snapshot: TableSnapshot | None = None,
                 language: str = "en") -> dict[str, Any]:
    """A fault as a spectator sees it: its card only when the card lies face up.

    With ``snapshot``, ``said`` holds what went wrong and what to do in ``language``,
    worded as the table's screen words them (:func:`firmware_host.screens.chooser.fault_screen`).
    """
    data = fault.to_json()
    if not face_up:
        data["card"] = None
        fault = replace(fault, card=None)
    if snapshot is not None:
        screen = fault_screen(fault, snapshot, language, whole_names=True)
        what, do = (" ".join(t.split()) for t in (screen.headline, screen.detail))
        # worded without its card, "does not hold the {card}" ends on an article: leave it out
        data["said"] = {"what": _TRAILING_ARTICLE.sub("", what), "do": _TRAILING_ARTICLE.sub("", do)}
    return data
