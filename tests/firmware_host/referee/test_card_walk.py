"""A card's walk: from the service to the snapshot, a sighting enters the controller once.

The controller holds the referee's state (docs/architecture.md, *The referee's parts*): ``handle``
calls ``referee(state, event)``, which carries the sighting through the namer, the ledger, the
protocol, the engine, the corrections and the hand log, and composes the snapshot of the next state.
A profiler counts the Python functions of ``controller.py`` entered while the service handles one
sighting, for the kinds of sighting a table sees: a play, a card dealt, a discard, a card refused,
an unknown tag, a card named by its tag, a tag of the other pack, a card read again, a refused card
taken back.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from referee_tables import DEAL, TAG_KS

from drivers.device_events import CardSeen
from firmware_host.journal.store import Journal
from firmware_host.referee import controller as controller_module
from firmware_host.referee.controller import Controller
from firmware_host.referee.pack_guard import PackGuard
from firmware_host.referee.transcript import ButtonEvent, CardEvent, PhysicalEvent, Setup, sighting_event
from firmware_host.service import InputLine, TableService
from hardware.tag_registry import TagRegistry

CONTROLLER_FILE = str(Path(controller_module.__file__).resolve())

PACK_1_9S, PACK_1_KD, PACK_2_TC = "04A1000000001A", "04A1000000002A", "04A2000000003A"


@contextmanager
def controller_entries() -> Iterator[list[str]]:
    """The functions of ``controller.py`` entered (profiler ``call`` events) inside the block, in order."""
    entered: list[str] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and str(Path(frame.f_code.co_filename).resolve()) == CONTROLLER_FILE:
            entered.append(frame.f_code.co_qualname)

    sys.setprofile(profile)
    try:
        yield entered
    finally:
        sys.setprofile(None)


def _registry() -> TagRegistry:
    registry = TagRegistry()
    registry.add(PACK_1_9S, "9S", 1)
    registry.add(PACK_1_KD, "KD", 1)
    registry.add(PACK_2_TC, "TC", 2)
    return registry


def _service(journal: Journal, *, by_tag: bool) -> TableService:
    registry = _registry()
    controller = Controller(card_for_uid=registry.card_for, pack_guard=PackGuard(registry.entry)) if by_tag \
        else Controller()
    service = TableService(journal=journal, controller=controller)
    service.resume()
    return service


def _to(service: TableService, phase: str) -> None:
    """The service's table brought to ``phase`` (B is elder; hearts are trumps; B: 9S KD QD 7C TC)."""
    steps: list[PhysicalEvent] = [Setup(dealer="A", tags={TAG_KS: "KS"})]
    if phase != "deal":
        steps += [CardEvent(z, c) for z, c in DEAL] + [CardEvent("turnup", "7H")]
    if phase == "exchange":
        steps += [ButtonEvent("B", "yes"), ButtonEvent("A", "yes")]
    if phase in ("play", "refused"):
        steps += [ButtonEvent("B", "no")]
    if phase == "refused":
        steps += [CardEvent("play.A", "7S")]
    for step in steps:
        service.handle(InputLine(step, fed=False))
    assert service.controller.engine_state.phase == {"refused": "play"}.get(phase, phase)


SIGHTINGS: list[tuple[str, str, Any, list[str]]] = [
    # kind, phase, what the pad saw (a CardSeen, or the event a table with a registry puts), the events it causes
    ("a play", "play", CardSeen("play.B", "04B9", "9S"), ["play"]),
    ("a card dealt", "deal", CardSeen("hand.B", "04B9", "9S"), []),
    ("a discard", "exchange", CardSeen("discard", "04BC", "TC"), []),
    ("a card refused", "play", CardSeen("play.A", "04A7", "7S"), ["fault"]),
    ("an unknown tag", "deal", CardSeen("hand.A", "0011223344"), ["fault"]),
    ("a card named by its tag", "deal", CardSeen("hand.B", PACK_1_9S), []),
    ("a tag of the other pack", "pack", CardSeen("hand.B", PACK_2_TC), ["fault"]),
    ("a card read again", "refused", CardSeen("play.A", "04A7", "7S"), []),
    ("a refused card taken back", "refused", CardSeen("play.A", "04A7", "7S", gone=True), ["corrected"]),
]


@pytest.mark.parametrize(("kind", "phase", "seen", "caused"), SIGHTINGS, ids=[s[0] for s in SIGHTINGS])
def test_a_sighting_enters_the_controller_once(tmp_path: Path, kind: str, phase: str, seen: CardSeen,
                                                        caused: list[str]) -> None:
    by_tag = seen.card is None and seen.uid.startswith("04A")
    with Journal(tmp_path / "j.sqlite") as journal:
        service = _service(journal, by_tag=by_tag)
        if phase == "pack":
            _to(service, "deal")
            service.handle(InputLine(CardEvent("hand.B", "KD", uid=PACK_1_KD), fed=False))  # pack 1 is chosen
        else:
            _to(service, phase)
        item = InputLine(sighting_event(seen, by_tag=True), fed=False) if by_tag else seen
        with controller_entries() as entered:
            events = service.handle(item)
    assert [e.to_json()["event"] for e in events] == caused
    assert entered == ["Controller.handle"], f"{kind} entered controller.py {len(entered)} times: {entered}"


def test_the_count_sees_every_entry() -> None:
    """The profiler can fail the test: a method of the controller calling another is two entries."""
    table = Controller()
    with controller_entries() as entered:
        table.begin(3)
        table.current_setup()
    assert entered == ["Controller.begin", "Controller.current_setup"]
