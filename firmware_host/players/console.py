"""``ecarte-table sim``: type the table's events, watch the OLED.

Lines understood (one event a line; ``help`` lists them):

- ``A yes`` / ``B no`` / ``A king``: a button;
- ``A plays KS``, ``B discards 7H``, ``A draws 9C``, ``B gets QD`` (dealt), ``turn 9D``:
  a card on the pad that act uses;
- ``hand.A KS``, ``play.B 7S``, ``play.B 7S gone``: a card on (or off) a pad;
- ``deal``: the dealer deals a random hand (``--seed``);
- a transcript line in JSON; ``state``; ``quit``.

The simulator is a bench, not a table: after each line it shows each seat's own hand (the
cards typed or dealt onto its hand pad, less those played or discarded), says why a line
changed nothing (a card already on that pad, an event the table had no use for), and
suggests the nearest command for a line it cannot read.
"""

from __future__ import annotations

import difflib
import json
import random
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import engine
from engine import NotationError
from engine.random_play import random_deal
from engine.seats import SEATS
from firmware_host.errors import BadInput
from firmware_host.journal.store import REJECTED, Journal, JournalError, default_journal
from firmware_host.referee.controller import Controller
from firmware_host.referee.protocol import physical_events
from firmware_host.referee.snapshot import Outcome, TableSnapshot
from firmware_host.referee.transcript import (
    ButtonEvent,
    CardEvent,
    PhysicalEvent,
    TranscriptError,
    dumps,
    parse_line,
)
from hardware.layout import ZONES

if TYPE_CHECKING:
    from firmware_host.outputs import TableOutput
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
    if head in ZONES or (head == "centre" and len(words) >= 2):
        if len(words) not in (2, 3) or (len(words) == 3 and words[2] != "gone"):
            raise NotationError(f"cannot read {text!r}: expected '<zone> <card> [gone]'")
        return [CardEvent(head, str(engine.Card.parse(words[1])), gone=len(words) == 3)]
    seat = head.upper()
    if seat in SEATS and len(words) >= 2:
        words = [words[0], _nearest_verb(text, words), *words[2:]]
    if seat in SEATS and len(words) == 2 and words[1].lower() in ("yes", "no", "king"):
        return [ButtonEvent(seat, words[1].lower())]
    if seat in SEATS and len(words) >= 3 and words[1].lower() in _ZONE_OF_VERB:
        zone = _ZONE_OF_VERB[words[1].lower()].format(seat=seat)
        return [CardEvent(zone, str(engine.Card.parse(w))) for w in words[2:]]
    raise NotationError(f"cannot read {text!r}: type 'help' for what the table understands")


_VERBS = ("yes", "no", "king", *_ZONE_OF_VERB)


def _nearest_verb(text: str, words: list[str]) -> str:
    """The verb of ``A plays KS``; a near miss (``A play KS``) is refused with the nearest."""
    verb = words[1].lower()
    if verb in _VERBS:
        return verb
    close = difflib.get_close_matches(verb, _VERBS, n=1, cutoff=0.5)
    hint = f": did you mean `{' '.join([words[0], close[0], *words[2:]])}`?" if close else (
        f": a seat's verb is one of {', '.join(_VERBS)}")
    raise NotationError(f"cannot read {text!r}{hint}")


class Bench:
    """What the simulator's typist holds: each seat's own cards, and what lies on each pad."""

    def __init__(self) -> None:
        self.held: dict[str, list[str]] = {"A": [], "B": []}
        self.on_pad: dict[str, set[str]] = {}

    def refuse(self, event: PhysicalEvent) -> str | None:
        """Why ``event`` would change nothing on the pads (None: it would)."""
        if not isinstance(event, CardEvent) or event.card is None:
            return None
        here = self.on_pad.get(event.zone, set())
        if not event.gone and event.card in here:
            return (f"the {event.card} already lies on {event.zone}: a pad sees a card arrive once "
                    f"(lift it first: '{event.zone} {event.card} gone')")
        if event.gone and event.card not in here:
            return f"the {event.card} is not on {event.zone}: nothing to lift"
        return None

    def take(self, event: PhysicalEvent, verb_seat: str | None) -> None:
        if not isinstance(event, CardEvent) or event.card is None:
            return
        here = self.on_pad.setdefault(event.zone, set())
        if event.gone:
            here.discard(event.card)
            return
        here.add(event.card)
        zone_seat = event.zone.rpartition(".")[2] if "." in event.zone else None
        if event.zone.startswith("hand.") and zone_seat in self.held:
            if event.card not in self.held[zone_seat]:
                self.held[zone_seat].append(event.card)
        elif event.zone.startswith(("play.", "discard")):
            for seat in ((zone_seat or verb_seat),) if (zone_seat or verb_seat) else SEATS:
                if seat in self.held and event.card in self.held[seat]:
                    self.held[seat].remove(event.card)

    def refused(self, event: PhysicalEvent, verb_seat: str | None) -> None:
        """The table refused the card: it goes back to its seat's hand once taken back."""
        if isinstance(event, CardEvent) and event.card is not None and not event.zone.startswith("hand."):
            seat = event.zone.rpartition(".")[2] if "." in event.zone else verb_seat
            if seat in self.held and event.card not in self.held[seat]:
                self.held[seat].append(event.card)

    def new_deal(self) -> None:
        self.held = {"A": [], "B": []}
        self.on_pad = {}

    def hands(self) -> str:
        return "  ".join(f"{seat} holds " + (" ".join(engine.Card.parse(c).symbol() for c in cards) or "nothing")
                         for seat, cards in self.held.items())


def _value(value: Any) -> str:
    """A field's value in words: ``{'A': 1, 'B': 0}`` → ``A 1, B 0``; a list → its items."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {_value(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return " ".join(_value(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _card(code: object) -> str:
    return engine.Card.parse(str(code)).symbol() if code else "a card"


def describe(event: engine.Event, journal: str | None = None) -> str:
    """A table event as people read it: words, never a Python dict (``journal``: where the
    hand records are kept, for the line that says so)."""
    data = event.to_json()
    kind = data.pop("event")
    if isinstance(event, engine.HandEnd):
        return (f"hand over: tricks A {event.tricks[0]} – B {event.tricks[1]}, points A {event.points[0]} – "
                f"B {event.points[1]}, score A {event.score[0]} – B {event.score[1]}")
    if isinstance(event, engine.GameEnd):
        return f"game over: {event.winner} wins {event.score[0]}:{event.score[1]}"
    if kind == "hand_record":
        moves = len(data.get("actions", ()))
        where = f" --journal {journal}" if journal else ""
        return f"hand {data.get('hand')} recorded ({moves} moves: 'ecarte-table export{where}' shows them)"
    seat = data.get("seat")
    if kind == "trump":
        return f"trump: {_card(data['card'])} turned up"
    if kind == "king":
        return f"king: {seat} scores the king of trumps (score {_value(data['score'])})"
    if kind == "play":
        return f"{seat} plays the {_card(data['card'])}"
    if kind == "trick":
        cards = data["cards"]
        return (f"trick to {data['winner']}: " + ", ".join(f"{s} {_card(c)}" for s, c in cards.items()))
    if kind == "bid":
        return f"{seat} {data['bid']}s" + (" (d'autorité: losing the point costs more)" if data.get("vulnerable")
                                            else "")
    if kind == "exchange":
        return f"{seat} takes {data['count']} card(s); {data['stock']} left in the stock"
    if kind == "play_begins":
        return f"play begins: {data['leader']} leads"
    if kind in ("fault", "notice"):
        said = str(data.get("message") or data.get("code", kind))
        late = f" (proven late, trick {data['trick']})" if data.get("late") else ""
        return f"{kind}: {said}{late}"
    if kind == "corrected":
        code = str(data.get("code") or "").replace("_", " ")
        return f"corrected: {seat or 'the table'} took back {_card(data.get('card'))}" + (f" ({code})" if code else "")
    if kind == "reader":
        return f"reader {data.get('zone')} is {'back' if data.get('online') else 'offline'}"
    words = "; ".join(f"{k.replace('_', ' ')} {_value(v)}" for k, v in data.items()
                      if (v is not None and not isinstance(v, dict | list)) or (isinstance(v, dict) and k != "detail"))
    return f"{kind.replace('_', ' ')}: {words}" if words else kind.replace("_", " ")


def run_session(lines: Iterable[str], out: TextIO, *, controller: Controller, rng: random.Random,
                panel: Panel | None = None, prompt: bool = False, outputs: Sequence[TableOutput] = (),
                journal: SimJournal | None = None) -> int:
    """Read typed lines until ``quit`` or their end; the number of lines not understood
    (``journal``: each event is journaled before the referee acts on it, as the service does)."""
    bad = 0
    bench = Bench()
    snapshot = controller.snapshot()
    for output in outputs:
        output.publish(Outcome((), snapshot))
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
            if text.lower() == "deal" and events:
                bench.new_deal()
            words = text.split()
            verb_seat = words[0].upper() if len(words) > 1 and words[0].upper() in SEATS else None
            for event in events:
                why = bench.refuse(event)
                if why is not None:
                    out.write(f"?? nothing changed: {why}\n")
                    bad += 1
                    continue
                before = snapshot
                bench.take(event, verb_seat)
                outcome = journal.handle(event) if journal is not None else controller.handle(event)
                snapshot = outcome.snapshot
                for output in outputs:
                    output.publish(outcome)
                for table_event in outcome.events:
                    out.write(f"  {describe(table_event, journal.path if journal is not None else None)}\n")
                if any(isinstance(e, engine.Fault) and str(e.card) == getattr(event, "card", None)
                       for e in outcome.events):
                    bench.refused(event, verb_seat)  # still the seat's card: it takes it back
                if snapshot.hand_no != before.hand_no:
                    bench.new_deal()
                elif not outcome.events and snapshot.to_json() == before.to_json() and not (
                        isinstance(event, CardEvent) and event.gone):
                    out.write(f"  (nothing changed: the table waits for this: {snapshot.expectation})\n")
            if events:
                out.write(f"  {bench.hands()}\n")
            if panel is not None:
                panel.show(snapshot)
        if prompt:
            score = snapshot.view.score
            out.write(f"[A {score[0]} - B {score[1]}] {snapshot.expectation}\n> ")
            out.flush()
    return bad


class SimJournal:
    """The typed session's journal: each physical event written before the controller acts on it,
    each game a game of the journal (as the service keeps one), so that ``export``, ``review`` and
    ``history`` read what was typed."""

    def __init__(self, journal: Journal, controller: Controller) -> None:
        self.journal = journal
        self.path = journal.path
        self.controller = controller
        self._start()

    def _start(self) -> None:
        self.game = self.journal.start_game(dumps(self.controller.current_setup()))
        self.controller.renumber(self.game)

    def handle(self, event: PhysicalEvent) -> Outcome:
        event_id = self.journal.append(self.game, dumps(event))
        try:
            outcome = self.controller.handle(event)
        except Exception:
            self.journal.mark_done(event_id, REJECTED)
            raise
        self.journal.mark_done(event_id)
        if any(e.event == "new_game" for e in outcome.events):  # the table started the next game
            self._start()
        return outcome


@dataclass(frozen=True, slots=True)
class SimOptions:
    """What ``ecarte-table sim`` is asked (its flags, as plain values): the rule set, the first
    dealer, the seed of ``deal``'s random deals (None: any)."""

    rules: str = "classic"
    dealer: str = "A"
    seed: int | None = None
    journal: Path | None = None
    """Where the session is journaled (None: the state directory's ``sim.sqlite``)."""


def run_sim(options: SimOptions, controller: Controller, *, outputs: Sequence[TableOutput] = ()) -> int:
    """``ecarte-table sim``: returns 0, or 2 when some typed lines were not understood
    (``controller``: the referee, built by ``firmware_host.app.build_referee``; ``outputs``: what
    else shows each outcome, the page)."""
    from firmware_host.screens.panel import open_panel
    from hardware.table import simulated_table

    path = options.journal or default_journal().with_name("sim.sqlite")
    try:
        store = Journal(path, lock=True)
    except JournalError as exc:
        raise BadInput(str(exc)) from None
    panel = open_panel(simulated_table(), terminal=sys.stdout)
    try:
        panel.show(controller.snapshot())
        sys.stdout.write(f"journaled in {path} (ecarte-table export --journal {path})\n")
        bad = run_session(sys.stdin, sys.stdout, controller=controller, rng=random.Random(options.seed),
                          panel=panel, prompt=sys.stdin.isatty(), outputs=outputs,
                          journal=SimJournal(store, controller))
    finally:
        panel.close()
        store.close()
    return 2 if bad and not sys.stdin.isatty() else 0
