"""``ecarte-table sim``: type the table's events, watch the OLED.

Lines understood (one event a line; ``help`` lists them):

- ``A yes`` / ``B no`` / ``A king``: a button;
- ``A plays KS``, ``B discards 7H``, ``A draws 9C``, ``B gets QD`` (dealt), ``turn 9D``:
  a card on the pad that act uses;
- ``hand.A KS``, ``play.B 7S``, ``play.B 7S gone``: a card on (or off) a pad;
- ``deal``: the dealer deals a random hand (``--seed``);
- a transcript line in JSON; ``state``; ``quit``.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Iterable
from typing import TextIO

import engine
from engine import NotationError
from engine.random_play import random_deal
from firmware_host.controller import Controller, TableDefaults
from firmware_host.players import physical_events
from firmware_host.transcript import ZONES, ButtonEvent, CardEvent, PhysicalEvent, TranscriptError, parse_line

HELP = __doc__.split("\n\n", 1)[1] if __doc__ else ""

_ZONE_OF_VERB = {"plays": "play.{seat}", "discards": "discard", "draws": "hand.{seat}", "gets": "hand.{seat}"}


def parse_sim_line(text: str, controller: Controller, rng: random.Random) -> list[PhysicalEvent]:
    """The physical events a typed line stands for.

    :raises NotationError: naming the line and what was expected.
    """
    words = text.split()
    if not words:
        return []
    if text.lstrip().startswith("{"):
        event = parse_line(text, source="<typed>")
        return [event] if event is not None else []
    head = words[0]
    if head.lower() == "deal":
        state = controller.state
        if state.phase != "deal":
            raise NotationError(f"'deal' is for the deal; now: {engine.expectation(state)}")
        return physical_events(state, random_deal(state, rng))
    if head.lower() == "turn" and len(words) == 2:
        return [CardEvent("turnup", str(engine.Card.parse(words[1])))]
    if head in ZONES or (head in ("A", "B", "centre") and len(words) >= 2 and words[1] not in (
        "yes", "no", "king", *_ZONE_OF_VERB,
    )):
        if len(words) not in (2, 3) or (len(words) == 3 and words[2] != "gone"):
            raise NotationError(f"cannot read {text!r}: expected '<zone> <card> [gone]'")
        return [CardEvent(head, str(engine.Card.parse(words[1])), gone=len(words) == 3)]
    seat = head.upper()
    if seat in ("A", "B") and len(words) == 2 and words[1].lower() in ("yes", "no", "king"):
        return [ButtonEvent(seat, words[1].lower())]
    if seat in ("A", "B") and len(words) >= 3 and words[1].lower() in _ZONE_OF_VERB:
        zone = _ZONE_OF_VERB[words[1].lower()].format(seat=seat)
        return [CardEvent(zone, str(engine.Card.parse(w))) for w in words[2:]]
    raise NotationError(f"cannot read {text!r}: type 'help' for what the table understands")


def run_session(lines: Iterable[str], out: TextIO, *, controller: Controller, rng: random.Random,
                panel: object | None = None, prompt: bool = False) -> int:
    """Read typed lines until ``quit`` or their end; the number of lines not understood."""
    bad = 0
    if prompt:
        out.write(f"{engine.expectation(controller.state)}\n> ")
        out.flush()
    for text in lines:
        text = text.strip()
        if text in ("quit", "exit"):
            break
        if text == "help":
            out.write(HELP + "\n")
        elif text == "state":
            out.write(f"{controller.state.view(controller.state.turn or 'A').to_json()}\n")
        elif text:
            try:
                events = parse_sim_line(text, controller, rng)
            except (NotationError, TranscriptError) as exc:
                out.write(f"?? {exc}\n")
                bad += 1
                events = []
            for event in events:
                for table_event in controller.handle(event):
                    data = table_event.to_json()
                    kind = data.pop("event")
                    out.write(f"  {kind}: " + ", ".join(f"{k}={v}" for k, v in data.items() if v is not None) + "\n")
            if panel is not None:
                panel.show(controller)  # type: ignore[attr-defined]
        if prompt:
            state = controller.state
            out.write(f"[A {state.score[0]} - B {state.score[1]}] {controller.expectation()}\n> ")
            out.flush()
    return bad


def run_sim(args: argparse.Namespace) -> int:
    """``ecarte-table sim``: returns 0, or 2 when some typed lines were not understood."""
    from firmware_host.panel import open_panel
    from hardware.table import simulated_table

    controller = Controller(TableDefaults(rules=args.rules, dealer=args.dealer))
    panel = open_panel(simulated_table(), terminal=sys.stdout)
    try:
        panel.show(controller)
        bad = run_session(sys.stdin, sys.stdout, controller=controller, rng=random.Random(args.seed),
                          panel=panel, prompt=sys.stdin.isatty())
    finally:
        panel.close()
    return 2 if bad and not sys.stdin.isatty() else 0
