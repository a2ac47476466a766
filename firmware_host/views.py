"""What the table shows now: the controller's state as a :class:`~firmware_host.screen.Screen`.

:mod:`firmware_host.screen` draws a screen from plain strings and numbers; this
module decides which view the table is in and fills it from the game:

- a reader offline, then a fault still to put right (reverse video: what went
  wrong, then what to do), then game over, then a warning just given (a void
  deal, a false king), then the hand's result (until the next deal begins), then the
  king just scored;
- otherwise the table view: trump, score, dealer and elder, tricks, and whose
  turn it is with what the table expects, in a few words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.prompts import prompt as engine_prompt
from firmware_host.screen import Screen, card_label, frame_to_text, render

if TYPE_CHECKING:
    from engine import GameState
    from firmware_host.controller import Controller

__all__ = ["Screen", "frame_to_text", "message_screen", "paused_screen", "prompt", "render", "screen_for"]


def prompt(state: GameState) -> tuple[str, str]:
    """Whose turn it is and what the table expects, short enough for one line of the panel."""
    p = engine_prompt(state)
    return p.seat, p.short


def _base(state: GameState) -> dict[str, object]:
    turn, expects = prompt(state)
    playing = state.phase == "play"
    return dict(
        trump_card=str(state.turned_up) if state.turned_up is not None else "",
        score_a=state.score[0], score_b=state.score[1], target=state.target,
        dealer=state.dealer, elder=state.elder, turn=turn, expects=expects,
        tricks_a=state.tricks[0] if playing else -1, tricks_b=state.tricks[1] if playing else -1,
    )


def screen_for(controller: Controller) -> Screen:
    """What the table shows now."""
    state = controller.state
    base = _base(state)
    if controller.offline:
        zones = ", ".join(sorted(controller.offline))
        return Screen(view="offline", headline=f"reader {zones} offline",
                      detail="check its cable; the game waits", **base)  # type: ignore[arg-type]
    if controller.rejected:
        fault = controller.rejected[-1].fault
        return Screen(view="fault", headline=f"{fault.seat or 'table'}: {fault.code.replace('_', ' ')}",
                      detail=fault.message, **base)  # type: ignore[arg-type]
    if state.phase == "over" and state.winner:
        a, b = state.score
        return Screen(view="game_over", headline=f"GAME OVER: {state.winner} wins",
                      detail=f"{a}:{b}. Press yes for a new game.", **base)  # type: ignore[arg-type]
    warning = controller.last_fault
    if warning is not None:
        return Screen(view="fault", headline=f"{warning.seat or 'table'}: {warning.code.replace('_', ' ')}",
                      detail=warning.message, **base)  # type: ignore[arg-type]
    hand = controller.last_hand
    if hand is not None and state.phase == "deal" and state.hands == (0, 0):
        ta, tb = hand.tricks
        pa, pb = hand.points
        winner = "A" if ta > tb else "B"
        return Screen(view="hand", headline=f"hand: {winner} wins {max(ta, tb)}-{min(ta, tb)}",
                      detail=f"A {pa:+d}, B {pb:+d}. {state.dealer} deals next.", **base)  # type: ignore[arg-type]
    if state.king is not None and state.phase in ("play", "propose") and not state.played and state.led < 0:
        king = card_label("K" + (state.trump or "S"))
        turn, expects = prompt(state)
        return Screen(view="king", headline=f"{state.king}: king {king} +1",
                      detail=f"{turn} {expects}".strip(), **base)  # type: ignore[arg-type]
    return Screen(**base)  # type: ignore[arg-type]


def paused_screen(controller: Controller | None, message: str) -> Screen:
    """The screen left on the panel when the service stops."""
    if controller is None:
        return Screen(view="paused", headline="table paused", detail=message)
    return Screen(view="paused", headline="table paused", detail=message, **_base(controller.state))  # type: ignore[arg-type]


def message_screen(lines: list[str]) -> Screen:
    """A few short lines (enrollment, doctor): the first as the headline."""
    return Screen(view="message", headline=lines[0] if lines else "", detail=" ".join(lines[1:]))
