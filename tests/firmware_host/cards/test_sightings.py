"""A tag's sighting, journaled at the door: its UID, card, pack and originality verdict.

The door (the service's, :func:`~firmware_host.referee.transcript.sighting_event`, behind the table's
tags wiring :class:`~firmware_host.cards.table_tags.TableTags`) asks the registry nothing and withholds
nothing: the pad named the card and its pack and the check gave its verdict. The referee judges the
explicit verdict, so the journal replays to the same decisions with or without the registry; a
journal written before the lines carried their verdict replays as it did.
"""

from __future__ import annotations

import pytest
from signed_tags import CountedRegistry

from drivers.device_events import CardSeen, DeviceEvent, Origin, Sighting
from firmware_host.cards.table_tags import TableTags
from firmware_host.feeder import refuse_card_names
from firmware_host.referee.controller import Controller
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.referee.transcript import (
    CardEvent,
    PhysicalEvent,
    TranscriptError,
    dumps,
    parse_line,
    sighting_event,
)
from hardware.table import TagPolicy

KS_1, QS_1, JS_2, TH_2 = "04ECA701075A80", "04ECA701065A80", "04ECA702055A80", "04ECA702045A80"


def _registry() -> CountedRegistry:
    registry = CountedRegistry()
    for uid, card, pack in ((KS_1, "KS", 1), (QS_1, "QS", 1), (JS_2, "JS", 2), (TH_2, "TH", 2)):
        registry.add(uid, card, pack, origin=Origin.GENUINE)
    return registry


class _Sink:
    def __init__(self) -> None:
        self.lines: list[PhysicalEvent] = []
        self.devices: list[DeviceEvent] = []

    def put_physical(self, event: PhysicalEvent) -> None:
        self.lines.append(event)

    def put_device_event(self, event: DeviceEvent) -> None:
        self.devices.append(event)


def _refereed(controller: Controller, lines: list[str]) -> list[list[str]]:
    """The events (a fault by its code) of each journal line, read back as the resume reads it."""
    out = []
    for line in lines:
        event = parse_line(line)
        assert event is not None
        out.append([getattr(e, "code", e.event) for e in controller.handle(event).events])
    return out


def test_the_door_journals_the_pads_sighting_and_asks_nothing() -> None:
    registry = _registry()
    tags = TableTags.build(registry, TagPolicy(require_signature=True), simulated=True)
    sink = _Sink()
    route = tags.route(sink)
    route(CardSeen("hand.A", Sighting(KS_1, "KS", Origin.GENUINE, 1)))
    route(CardSeen("hand.A", Sighting(QS_1, "QS", Origin.NO_SIGNATURE, 1)))
    route(CardSeen("hand.A", Sighting(QS_1, "QS", Origin.NO_SIGNATURE, 1), gone=True))
    assert registry.lookups == 0
    assert sink.lines == []  # the pads' events go to the service's door as they are
    assert [dumps(sighting_event(seen, by_tag=tags.by_tag)) for seen in sink.devices] == [
        '{"zone": "hand.A", "card": "KS", "uid": "04ECA701075A80", "pack": 1, "origin": "genuine"}',
        '{"zone": "hand.A", "card": "QS", "uid": "04ECA701065A80", "pack": 1, "origin": "no_signature"}',
        '{"zone": "hand.A", "card": "QS", "uid": "04ECA701065A80", "pack": 1, "origin": "no_signature", '
        '"gone": true}',
    ]


def test_the_journal_replays_to_the_same_faults_without_the_registry() -> None:
    """The verdict and the pack are in the line: ``replay`` (no registry) decides as the table did."""
    tags = TableTags.build(_registry(), TagPolicy(require_signature=True), simulated=True)
    seen = [CardSeen("hand.A", Sighting(KS_1, "KS", Origin.GENUINE, 1)),
            CardSeen("hand.A", Sighting(QS_1, "QS", Origin.NO_SIGNATURE, 1)),
            CardSeen("hand.A", Sighting(JS_2, "JS", Origin.GENUINE, 2))]
    lines = [dumps(sighting_event(s, by_tag=tags.by_tag)) for s in seen]
    registry = _registry()
    live = _refereed(Controller(TableDefaults(dealer="B", require_genuine=True), registry=registry), lines)
    assert registry.lookups == 0
    assert live == _refereed(Controller(TableDefaults(dealer="B")), lines) == [
        [], ["counterfeit_card"], ["foreign_pack"]]


def test_a_journal_written_before_the_sightings_replays_as_it_did() -> None:
    """Lines without a verdict: the door then named a registered tag's card only when it was
    genuine (a line with its UID alone was refused), and the registry gave the pack."""
    lines = ['{"zone": "hand.A", "card": "KS", "uid": "04ECA701075A80"}',
             '{"zone": "hand.A", "uid": "04ECA701065A80"}',
             '{"zone": "hand.A", "card": "JS", "uid": "04ECA702055A80"}']
    registry = _registry()
    table = Controller(TableDefaults(dealer="B", require_genuine=True), registry=registry)
    assert _refereed(table, lines) == [[], ["counterfeit_card"], ["foreign_pack"]]
    assert registry.lookups == 3  # one a line: none carries its pack
    unchecked = Controller(TableDefaults(dealer="B"), registry=_registry())  # a table that checks nothing
    assert _refereed(unchecked, lines[1:2]) == [[]]


@pytest.mark.parametrize("origin", [o for o in Origin if o not in (Origin.GENUINE, Origin.UNCHECKED)])
def test_a_verdict_that_is_not_genuine_is_refused_on_any_table(origin: Origin) -> None:
    line = dumps(CardEvent("hand.A", sighting=Sighting(TH_2, "TH", origin, 2)))
    assert _refereed(Controller(TableDefaults(dealer="B")), [line]) == [["counterfeit_card"]]


def test_an_unchecked_tag_is_refused_where_genuine_tags_are_required() -> None:
    line = dumps(CardEvent("hand.A", sighting=Sighting(TH_2, "TH", Origin.UNCHECKED, 2)))
    assert _refereed(Controller(TableDefaults(dealer="B")), [line]) == [[]]
    assert _refereed(Controller(TableDefaults(dealer="B", require_genuine=True)), [line]) == [["counterfeit_card"]]


@pytest.mark.parametrize(("line", "problem"), [
    ('{"zone": "hand.A", "uid": "04AB", "origin": "fake"}', "'origin' is one of genuine, no_signature"),
    ('{"zone": "hand.A", "uid": "04AB", "origin": 1}', "'origin' is one of"),
    ('{"zone": "hand.A", "uid": "04AB", "pack": 3}', "'pack' is 1 or 2, got 3"),
    ('{"zone": "hand.A", "uid": "04AB", "pack": true}', "'pack' is 1 or 2"),
    ('{"zone": "hand.A", "card": "KS", "pack": 1}', "the line needs its 'uid'"),
])
def test_a_line_s_verdict_and_pack_are_checked_at_the_door(line: str, problem: str) -> None:
    with pytest.raises(TranscriptError, match=problem.replace("(", r"\(")):
        parse_line(line)


def test_a_sighting_reads_back_as_it_was_written() -> None:
    event = CardEvent("play.B", gone=True, sighting=Sighting(QS_1, "QS", Origin.BAD_SIGNATURE, 1))
    assert parse_line(dumps(event)) == event
    assert event.sighting is not None and event.sighting.origin is Origin.BAD_SIGNATURE


@pytest.mark.parametrize("line", [
    '{"zone": "hand.A", "uid": "04ECA701075A80", "origin": "genuine"}',
    '{"zone": "hand.A", "uid": "04ECA701075A80", "pack": 1}',
])
def test_a_stream_line_may_not_vouch_for_its_tag(line: str) -> None:
    """On a table with a registry only the pads' sightings carry a verdict and a pack: an
    ``--events`` line that claims them is refused at the door, as one that names its card."""
    event = parse_line(line)
    assert event is not None
    with pytest.raises(TranscriptError, match="a tag's \"origin\" or \"pack\" on the stream is refused"):
        refuse_card_names(event, "events.jsonl", 1)
    refuse_card_names(parse_line('{"zone": "hand.A", "uid": "04ECA701075A80"}'), "events.jsonl", 2)  # type: ignore[arg-type]
