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
import json
import random
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, TextIO

import engine
from engine import NotationError
from engine.random_play import random_deal
from firmware_host.referee.controller import Controller, TableDefaults
from firmware_host.referee.protocol import physical_events
from firmware_host.referee.snapshot import TableSnapshot
from firmware_host.referee.transcript import ButtonEvent, CardEvent, PhysicalEvent, TranscriptError, parse_line
from hardware.layout import ZONES

if TYPE_CHECKING:
    from firmware_host.screens.panel import Panel

HELP = "\n".join(
    line.replace("``", "").replace("- ", "  ", 1) if line.startswith("- ") else line.replace("``", "")
    for line in (__doc__.split("\n\n", 1)[1] if __doc__ else "").splitlines()
)
"""The lines the console understands, as plain text (the docstring without its markup)."""

_ZONE_OF_VERB = {"plays": "play.{seat}", "discards": "discard", "draws": "hand.{seat}", "gets": "hand.{seat}"}


def parse_sim_line(text: str, snapshot: TableSnapshot, rng: random.Random) -> list[PhysicalEvent]:
    """The physical events a typed line stands for, the table showing ``snapshot``.

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
        view = snapshot.view
        if view.phase != "deal" or not snapshot.between_hands:
            raise NotationError(f"'deal' is for a new deal; now: {snapshot.expectation}")
        # nothing is dealt yet: a fresh hand with this dealer deals the same way
        fresh = engine.new_game(dealer=view.dealer)
        return physical_events(fresh, random_deal(fresh, rng))
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
                panel: Panel | None = None, prompt: bool = False) -> int:
    """Read typed lines until ``quit`` or their end; the number of lines not understood."""
    bad = 0
    snapshot = controller.snapshot()
    if prompt:
        out.write(f"{snapshot.expectation}\n> ")
        out.flush()
    for text in lines:
        text = text.strip()
        if text in ("quit", "exit"):
            break
        if text == "help":
            out.write(HELP + "\n")
        elif text == "state":
            out.write(json.dumps(snapshot.to_json(), ensure_ascii=False) + "\n")
        elif text:
            try:
                events = parse_sim_line(text, snapshot, rng)
            except (NotationError, TranscriptError) as exc:
                out.write(f"?? {exc}\n")
                bad += 1
                events = []
            for event in events:
                outcome = controller.handle(event)
                snapshot = outcome.snapshot
                for table_event in outcome.events:
                    data = table_event.to_json()
                    kind = data.pop("event")
                    out.write(f"  {kind}: " + ", ".join(f"{k}={v}" for k, v in data.items() if v is not None) + "\n")
            if panel is not None:
                panel.show(snapshot)
        if prompt:
            score = snapshot.view.score
            out.write(f"[A {score[0]} - B {score[1]}] {snapshot.expectation}\n> ")
            out.flush()
    return bad


def run_sim(args: argparse.Namespace) -> int:
    """``ecarte-table sim``: returns 0, or 2 when some typed lines were not understood."""
    from firmware_host.screens.panel import open_panel
    from hardware.table import simulated_table

    controller = Controller(TableDefaults(rules=args.rules, dealer=args.dealer))
    panel = open_panel(simulated_table(), terminal=sys.stdout)
    try:
        panel.show(controller.snapshot())
        bad = run_session(sys.stdin, sys.stdout, controller=controller, rng=random.Random(args.seed),
                          panel=panel, prompt=sys.stdin.isatty())
    finally:
        panel.close()
    return 2 if bad and not sys.stdin.isatty() else 0
