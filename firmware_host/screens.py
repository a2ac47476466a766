"""What the table shows now: a snapshot as a :class:`~firmware_host.drawing.Screen`.

:mod:`firmware_host.drawing` draws a screen from plain strings and numbers; this
module decides, from a :class:`~firmware_host.snapshot.TableSnapshot` alone, which
view the table is in and fills it:

- a reader offline, then a fault still to put right (reverse video: what went
  wrong, then what to do), then game over, then a warning just given (a void
  deal, a false king), then the hand's result (until the next deal begins), then the
  king just scored;
- otherwise the table view: trump, score, dealer and elder, tricks, and whose
  turn it is with what the table expects, in a few words.
"""

from __future__ import annotations

from typing import Any

from engine import Fault
from firmware_host.drawing import Screen, card_label, frame_to_text, render
from firmware_host.snapshot import TableSnapshot

__all__ = ["Screen", "frame_to_text", "message_screen", "paused_screen", "render", "screen_for"]


def _base(snapshot: TableSnapshot) -> dict[str, Any]:
    view = snapshot.view
    playing = view.phase == "play"
    return dict(
        trump_card=str(view.trump) if view.trump is not None else "",
        score_a=view.score[0], score_b=view.score[1], target=view.target,
        dealer=view.dealer, elder=view.elder, turn=snapshot.prompt.seat, expects=snapshot.prompt.short,
        tricks_a=view.tricks[0] if playing else -1, tricks_b=view.tricks[1] if playing else -1,
    )


def _fault_screen(fault: Fault, base: dict[str, Any]) -> Screen:
    return Screen(view="fault", headline=f"{fault.seat or 'table'}: {fault.code.replace('_', ' ')}",
                  detail=fault.message, **base)


def screen_for(snapshot: TableSnapshot) -> Screen:
    """What the table shows for ``snapshot``."""
    view = snapshot.view
    base = _base(snapshot)
    if snapshot.offline:
        zones = ", ".join(sorted(snapshot.offline))
        return Screen(view="offline", headline=f"reader {zones} offline",
                      detail="check its cable; the game waits", **base)
    if snapshot.faults:
        return _fault_screen(snapshot.faults[-1], base)
    if view.phase == "over" and snapshot.winner:
        a, b = view.score
        return Screen(view="game_over", headline=f"GAME OVER: {snapshot.winner} wins",
                      detail=f"{a}:{b}. Press yes for a new game.", **base)
    if snapshot.warning is not None:
        return _fault_screen(snapshot.warning, base)
    hand = snapshot.last_hand
    if hand is not None and snapshot.between_hands:
        ta, tb = hand.tricks
        pa, pb = hand.points
        winner = "A" if ta > tb else "B"
        return Screen(view="hand", headline=f"hand: {winner} wins {max(ta, tb)}-{min(ta, tb)}",
                      detail=f"A {pa:+d}, B {pb:+d}. {view.dealer} deals next.", **base)
    if snapshot.fresh_king and view.king is not None:
        king = card_label("K" + (view.trump.suit if view.trump is not None else "S"))
        prompt = snapshot.prompt
        return Screen(view="king", headline=f"{view.king}: king {king} +1",
                      detail=f"{prompt.seat} {prompt.short}".strip(), **base)
    return Screen(**base)


def paused_screen(snapshot: TableSnapshot | None, message: str) -> Screen:
    """The screen left on the panel when the service stops."""
    if snapshot is None:
        return Screen(view="paused", headline="table paused", detail=message)
    return Screen(view="paused", headline="table paused", detail=message, **_base(snapshot))


def message_screen(lines: list[str]) -> Screen:
    """A few short lines (enrollment, doctor): the first as the headline."""
    return Screen(view="message", headline=lines[0] if lines else "", detail=" ".join(lines[1:]))
