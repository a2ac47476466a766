"""A card's walk: from the service to the snapshot, a sighting enters the controller once.

The controller holds the referee's state (docs/architecture.md, *The referee's parts*): ``handle``
calls ``referee(state, event)``, which carries the sighting through the namer, the ledger, the
protocol, the engine, the corrections and the hand log, and composes the snapshot of the next state.
A profiler counts the Python functions of ``controller.py`` entered while the service handles one
sighting, for the kinds of sighting a table sees: a play, a card dealt, a discard, a card refused,
an unknown tag, a card named by its tag, a tag of the other pack, a card read again, a refused card
taken back.

The registry is asked once a card: the pad's lookup gives its card and pack, the originality
check its verdict, and the door journals that sighting; the referee judges it without asking
again, and a card leaving asks nothing. A registry whose lookups are counted walks a tag from the
pad (its polls on a mock reader) through the door and the journal to the referee.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from referee_tables import DEAL, TAG_KS
from signed_tags import CountedRegistry

from drivers.device_events import CardSeen, Origin, Sighting
from drivers.nfc.mock_reader import MockReader
from drivers.nfc.originality import TagFacts
from drivers.nfc.pad_contents import PadContents
from drivers.nfc.pn532sim.tag_signer import sim_signer
from firmware_host.cards.table_tags import TableTags
from firmware_host.journal.store import Journal
from firmware_host.referee import controller as controller_module
from firmware_host.referee.controller import Controller
from firmware_host.referee.pack_guard import PackGuard
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.referee.transcript import ButtonEvent, CardEvent, PhysicalEvent, Setup, parse_line
from firmware_host.service import InputLine, TableService
from hardware.table import TagPolicy
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
    controller = Controller(registry=registry) if by_tag else Controller()
    service = TableService(journal=journal, controller=controller, by_tag=by_tag)
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
    assert service.controller.state.engine_state.phase == {"refused": "play"}.get(phase, phase)


SIGHTINGS: list[tuple[str, str, Any, list[str]]] = [
    # kind, phase, what the pad saw (a CardSeen, or the event a table with a registry puts), the events it causes
    ("a play", "play", CardSeen("play.B", Sighting("04B9", "9S")), ["play"]),
    ("a card dealt", "deal", CardSeen("hand.B", Sighting("04B9", "9S")), []),
    ("a discard", "exchange", CardSeen("discard", Sighting("04BC", "TC")), []),
    ("a card refused", "play", CardSeen("play.A", Sighting("04A7", "7S")), ["fault"]),
    ("an unknown tag", "deal", CardSeen("hand.A", Sighting("0011223344")), ["fault"]),
    ("a card named by its tag", "deal", CardSeen("hand.B", Sighting(PACK_1_9S)), []),
    ("a tag of the other pack", "pack", CardSeen("hand.B", Sighting(PACK_2_TC)), ["fault"]),
    ("a card read again", "refused", CardSeen("play.A", Sighting("04A7", "7S")), []),
    ("a refused card taken back", "refused", CardSeen("play.A", Sighting("04A7", "7S"), gone=True), ["corrected"]),
]


@pytest.mark.parametrize(("kind", "phase", "seen", "caused"), SIGHTINGS, ids=[s[0] for s in SIGHTINGS])
def test_a_sighting_enters_the_controller_once(tmp_path: Path, kind: str, phase: str, seen: CardSeen,
                                                        caused: list[str]) -> None:
    by_tag = seen.sighting.card is None and seen.sighting.uid.startswith("04A")
    with Journal(tmp_path / "j.sqlite") as journal:
        service = _service(journal, by_tag=by_tag)
        if phase == "pack":
            _to(service, "deal")
            kd = CardEvent("hand.B", sighting=Sighting(PACK_1_KD, "KD"))
            service.handle(InputLine(kd, fed=False))  # pack 1 is chosen
        else:
            _to(service, phase)
        with controller_entries() as entered:
            events = service.handle(seen)
    assert [e.to_json()["event"] for e in events] == caused
    assert entered == ["Controller.handle"], f"{kind} entered controller.py {len(entered)} times: {entered}"


def test_the_count_sees_every_entry() -> None:
    """The profiler can fail the test: a method of the controller calling another is two entries."""
    table = Controller()
    with controller_entries() as entered:
        table.begin(3)
        table.current_setup()
    assert entered == ["Controller.begin", "Controller.current_setup"]


NTAG213 = bytes.fromhex("0004040201000F03")
STRANGER = "04FF000000000F"
WALKS: list[tuple[str, str, TagFacts, list[str], tuple[int, int]]] = [
    # kind, the tag, what it answers, the events its arrival causes, the registry's lookups (arriving, leaving)
    ("a genuine card", PACK_1_9S, TagFacts(None, sim_signer()(bytes.fromhex(PACK_1_9S))), [], (1, 0)),
    ("a copy of a card", PACK_1_KD, TagFacts(NTAG213, bytes(32)), ["fault"], (1, 0)),
    ("a tag the registry does not know", STRANGER, TagFacts(None, sim_signer()(bytes.fromhex(STRANGER))),
     ["fault"], (2, 1)),  # its line carries no pack: the referee asks once more
]


@dataclass
class Walk:
    """A table with a signed registry at the deal, one hand pad of it, and its mock reader."""

    registry: CountedRegistry
    journal: Journal
    service: TableService
    pad: PadContents
    reader: MockReader


@contextmanager
def walk_table(tmp_path: Path, uid: str, facts: TagFacts) -> Iterator[Walk]:
    """The table of a card's walk: the tags' wiring, the service (its queue and its one door), the
    referee requiring genuine tags, at the deal; the reader answers ``facts`` for ``uid``."""
    registry = CountedRegistry()
    for entry in _registry():
        registry.add_entry(entry)
    tags = TableTags.build(registry, TagPolicy(require_signature=True), simulated=True)
    with Journal(tmp_path / "j.sqlite") as journal:
        service = TableService(journal=journal, controller=Controller(TableDefaults(require_genuine=True),
                                                                      registry=registry), by_tag=tags.by_tag)
        service.resume()
        _to(service, "deal")
        pad = PadContents("hand.B", emit=tags.route(service), leave_after=1, card_for=tags.entry,
                          read_ndef=tags.read_ndef, originality=tags.originality)
        reader = MockReader()
        reader.facts[uid] = facts
        yield Walk(registry, journal, service, pad, reader)


@pytest.mark.parametrize(("kind", "uid", "facts", "caused", "lookups"), WALKS, ids=[w[0] for w in WALKS])
def test_a_card_s_walk_asks_the_registry_once(tmp_path: Path, kind: str, uid: str, facts: TagFacts,
                                              caused: list[str], lookups: tuple[int, int]) -> None:
    with walk_table(tmp_path, uid, facts) as walk:
        registry, journal, service, pad, reader = walk.registry, walk.journal, walk.service, walk.pad, walk.reader
        reader.lay(uid)
        registry.lookups = 0
        pad.observe(reader.poll(), reader)
        arrival = service.queue.get_nowait()
        events = service.handle(arrival)
        assert [e.to_json()["event"] for e in events] == caused
        assert registry.lookups == lookups[0], f"{kind}: {registry.lookups} lookups"
        reader.lift(uid)
        registry.lookups = 0
        pad.observe(reader.poll(), reader)
        service.handle(service.queue.get_nowait())
        assert registry.lookups == lookups[1]  # leaving: the pad remembers what its arrival said
        record = journal.current_game()
    assert record is not None
    entry = _registry().entry(uid)
    named = {} if entry is None else {"card": entry.card, "pack": entry.pack}
    origin = Origin.GENUINE if facts.version is None else Origin.NO_SIGNATURE
    assert [json.loads(line) for line in record.lines[-2:]] == [  # the journaled sighting, arriving and leaving
        {"zone": "hand.B", "uid": uid, **named, "origin": str(origin)},
        {"zone": "hand.B", "uid": uid, **named, "origin": str(origin), "gone": True}]


@contextmanager
def judged_sightings() -> Iterator[list[object]]:
    """The sighting each call of the pack guard's ``judge`` was given inside the block (a profiler, as
    :func:`controller_entries`: the real referee, nothing of ours replaced)."""
    given: list[object] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code is PackGuard.judge.__code__:
            given.append(frame.f_locals["seen"])

    sys.setprofile(profile)
    try:
        yield given
    finally:
        sys.setprofile(None)


@pytest.mark.parametrize(("kind", "uid", "facts", "caused", "lookups"), WALKS[:2], ids=[w[0] for w in WALKS[:2]])
def test_the_pad_s_sighting_reaches_the_referee_unchanged(tmp_path: Path, kind: str, uid: str, facts: TagFacts,
                                                          caused: list[str], lookups: tuple[int, int]) -> None:
    """One value from the pad to the referee: the :class:`Sighting` the pad made is the very object the
    pack guard judges, through the tags' wiring, the service's queue and its one door, arriving and
    leaving; and the journal's line reads back to an equal one (a resume judges the same value)."""
    with walk_table(tmp_path, uid, facts) as walk:
        journal, service, pad, reader = walk.journal, walk.service, walk.pad, walk.reader
        made: list[Sighting] = []
        caused_by: list[list[str]] = []
        for move in (reader.lay, reader.lift):
            move(uid)
            pad.observe(reader.poll(), reader)
            seen = service.queue.get_nowait()
            assert isinstance(seen, CardSeen)
            made.append(seen.sighting)
            with judged_sightings() as judged:
                caused_by.append([e.to_json()["event"] for e in service.handle(seen)])
            assert len(judged) == 1 and judged[0] is seen.sighting, f"{kind}: the referee judged {judged}"
        assert caused_by[0] == caused
        record = journal.current_game()
    assert made[0] is made[1]  # the pad gives the same value again when the tag leaves
    assert record is not None
    journaled = [parse_line(line) for line in record.lines[-2:]]
    assert [e.sighting for e in journaled if isinstance(e, CardEvent)] == made
