"""The table's cards under its tags' wiring (:class:`firmware_host.cards.table_tags.TableTags`): a clone,
a counterfeit, a rewritten NDEF record, a card of the other pack or a badge that is not genuine meets
the real referee; enrolment records each tag's originality and locks it; the deck check catches a
pack that is short, doubled, foreign or fake. The real nfcpy driver reads the simulated PN532 and
NTAG213s.

Nothing here asserts on time: tests wait for events (generous timeouts).
"""

from __future__ import annotations

import dataclasses
import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from signed_tags import FAST, KEY, SIGNER, WAIT, signed_registry

from drivers.device_events import CardSeen, DeviceEvent, Origin, ReaderStatus, Sighting
from drivers.nfc.pad import Pad
from drivers.nfc.pn532sim import Pn532Simulator
from drivers.nfc.pn532sim.noise import of_level
from firmware_host.cards.deck_check import check_deck
from firmware_host.cards.enroll import Originality, enroll
from firmware_host.cards.table_tags import TableTags
from firmware_host.players.simtable import sim_uid
from firmware_host.referee.controller import Controller
from firmware_host.referee.event_words import message
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.referee.transcript import sighting_event
from hardware import locks, ntag_signature
from hardware.table import TagPolicy
from hardware.tag_registry import CARDS, TagRegistry


@pytest.fixture
def sim() -> Iterator[Pn532Simulator]:
    with Pn532Simulator(signer=SIGNER) as simulator:
        yield simulator


class Table:
    """One simulated pad under the table's tags wiring, feeding a real controller."""

    def __init__(self, tags: TableTags, sim: Pn532Simulator, zone: str = "hand.A") -> None:
        self.tags = tags
        self.sim = sim
        self.zone = zone
        self.events: queue.Queue[DeviceEvent] = queue.Queue()
        self.controller = Controller(TableDefaults(dealer="B", require_genuine=tags.policy.require_signature),
                                     registry=tags.registry)
        self.pad = Pad(zone, sim.path, events=self.events, card_for=tags.entry, timing=FAST,
                       **tags.pad_options())
        status = self.events.get(timeout=WAIT)
        assert isinstance(status, ReaderStatus) and status.online

    def seen(self) -> CardSeen:
        event = self.events.get(timeout=WAIT)
        assert isinstance(event, CardSeen)
        return dataclasses.replace(event, t=0.0)

    def lay(self, uid: str, *, kind: str = "genuine", ndef_text: str | None = None) -> tuple[CardSeen, list[tuple]]:
        """Lay a tag; the pad's event and what the referee made of it (kind, code)."""
        self.sim.place(uid, ndef_text, kind=kind)
        seen = self.seen()
        outcome = self.controller.handle(sighting_event(seen, by_tag=True))
        return seen, [(e.event, getattr(e, "code", None)) for e in outcome.events]

    def lift(self, uid: str) -> list[tuple]:
        self.sim.remove(uid)
        seen = self.seen()
        assert seen.gone
        outcome = self.controller.handle(sighting_event(seen, by_tag=True))
        return [(e.event, getattr(e, "code", None)) for e in outcome.events]

    def close(self) -> None:
        self.pad.close()


def table(sim: Pn532Simulator, policy: TagPolicy, registry: TagRegistry | None = None) -> Table:
    tags = TableTags.build(registry if registry is not None else signed_registry(), policy, simulated=True)
    return Table(tags, sim)


REQUIRE = TagPolicy(require_signature=True)


def test_a_genuine_card_is_dealt(sim: Pn532Simulator) -> None:
    t = table(sim, REQUIRE)
    try:
        seen, judged = t.lay(sim_uid("KS"))
        assert seen.sighting.origin == "genuine" and seen.sighting.card == "KS"
        assert judged == []  # dealt: nothing to say yet
    finally:
        t.close()


@pytest.mark.parametrize(("kind", "origin"), [("clone", "no_signature"), ("counterfeit", "counterfeit")])
def test_a_clone_or_a_counterfeit_of_an_enrolled_card_is_refused(
    sim: Pn532Simulator, kind: str, origin: str
) -> None:
    t = table(sim, REQUIRE)
    try:
        seen, judged = t.lay(sim_uid("KS"), kind=kind)
        assert seen.sighting.origin == origin and seen.sighting.card == "KS"  # the pad names it; the referee decides
        assert judged == [("fault", "counterfeit_card")]
        outcome = t.controller.snapshot()
        assert "originality" in message(outcome.faults[0])
        assert t.lift(sim_uid("KS")) == [("corrected", "counterfeit_card")]
    finally:
        t.close()


def test_without_the_requirement_a_clone_is_not_refused(sim: Pn532Simulator) -> None:
    t = table(sim, TagPolicy())
    try:
        seen, judged = t.lay(sim_uid("KS"), kind="clone")
        assert seen.sighting.origin is None  # the pads do not even ask
        assert judged == []
    finally:
        t.close()


def test_a_card_of_the_other_pack_is_a_fault(sim: Pn532Simulator) -> None:
    t = table(sim, TagPolicy())
    try:
        assert t.lay(sim_uid("KS", 1))[1] == []  # the first card: pack 1
        seen, judged = t.lay(sim_uid("QH", 2))
        assert seen.sighting.card == "QH"
        assert judged == [("fault", "foreign_pack")]
        assert "pack 2" in message(t.controller.snapshot().faults[0])
        assert t.lift(sim_uid("QH", 2)) == [("corrected", "foreign_pack")]
        assert t.lay(sim_uid("QH", 1))[1] == []
    finally:
        t.close()


def test_over_a_noisy_radio_genuine_cards_are_dealt_and_clones_and_the_other_pack_refused() -> None:
    # ten times the noise model's rates: a card's first answers garbled half the time, then 5 %
    with Pn532Simulator(signer=SIGNER, noise=of_level(10), seed=11) as noisy:
        t = table(noisy, REQUIRE)
        try:
            for round_ in range(8):
                for card in ("KS", "QS", "JS"):
                    seen, judged = t.lay(sim_uid(card, 1))
                    assert (seen.sighting.origin, judged) == (Origin.GENUINE, []), (round_, card)
                    assert t.lift(sim_uid(card, 1)) == []
                for kind, origin in (("clone", Origin.NO_SIGNATURE), ("counterfeit", Origin.COUNTERFEIT)):
                    seen, judged = t.lay(sim_uid("KS", 1), kind=kind)
                    assert (seen.sighting.origin, judged) == (origin, [("fault", "counterfeit_card")]), (round_, kind)
                    assert t.lift(sim_uid("KS", 1)) == [("corrected", "counterfeit_card")]
                seen, judged = t.lay(sim_uid("QH", 2))
                assert (seen.sighting.origin, judged) == (Origin.GENUINE, [("fault", "foreign_pack")]), round_
                assert t.lift(sim_uid("QH", 2)) == [("corrected", "foreign_pack")]
            assert noisy.noise.garbled + noisy.noise.lost > 0
        finally:
            t.close()


def test_an_unregistered_tag_with_a_card_s_ndef_text_is_not_that_card(sim: Pn532Simulator) -> None:
    """The cheat of the issue: ``ecarte:AH`` written by a phone on a blank tag."""
    t = table(sim, TagPolicy())
    try:
        seen, judged = t.lay("04DEADBEEF0001", ndef_text="ecarte:AH")
        assert seen.sighting.card is None  # with a registry the pads do not read NDEF records
        assert judged == [("fault", "unknown_tag")]
    finally:
        t.close()


def test_a_rewritten_ndef_record_on_an_enrolled_tag_changes_nothing(sim: Pn532Simulator) -> None:
    t = table(sim, REQUIRE)
    try:
        seen, _ = t.lay(sim_uid("7C"), ndef_text="ecarte:AH")
        assert seen.sighting.card == "7C"  # the registry names it by its UID
    finally:
        t.close()


def test_ndef_names_the_cards_of_an_unenrolled_pack_when_the_table_says_so(sim: Pn532Simulator) -> None:
    t = table(sim, TagPolicy(ndef_pack=2), signed_registry((1,)))
    try:
        seen, judged = t.lay("04DEADBEEF0001", ndef_text="ecarte:AH")
        assert seen.sighting.card == "AH" and judged == []  # pack 2 (by NDEF) chosen by the first card
        assert t.lay(sim_uid("KS", 1))[1] == [("fault", "foreign_pack")]
    finally:
        t.close()


def test_the_referee_decides_the_same_on_replay() -> None:
    """What reaches the journal (the card events) replays to the same faults."""
    tags = TableTags.build(signed_registry(), REQUIRE, simulated=True)
    lines = [
        sighting_event(CardSeen("hand.A", Sighting(sim_uid("KS", 1), "KS", Origin.GENUINE, 1)), by_tag=True),
        sighting_event(CardSeen("hand.A", Sighting(sim_uid("QS", 1), "QS", Origin.NO_SIGNATURE, 1)), by_tag=True),
        sighting_event(CardSeen("hand.A", Sighting(sim_uid("JS", 2), "JS", Origin.GENUINE, 2)), by_tag=True),
    ]
    assert lines[1].to_json() == {"zone": "hand.A", "card": "QS", "uid": sim_uid("QS", 1), "pack": 1,
                                  "origin": "no_signature"}

    def referee() -> list[list[str]]:
        controller = Controller(TableDefaults(dealer="B", require_genuine=True), registry=tags.registry)
        return [[getattr(e, "code", e.event) for e in controller.handle(line).events] for line in lines]

    assert referee() == referee() == [[], ["counterfeit_card"], ["foreign_pack"]]


def _operator(sim: Pn532Simulator, pad: Pad, registry: TagRegistry, tags: list[tuple[str, str]]) -> None:
    """Lays each (uid, kind) and lifts it once the walk has registered it."""
    for uid, kind in tags:
        sim.place(uid, kind=kind)
        deadline = time.monotonic() + WAIT
        while uid not in registry and time.monotonic() < deadline:
            time.sleep(0.005)
        sim.remove(uid)
        while uid in pad.present and time.monotonic() < deadline:
            time.sleep(0.005)


def test_enrolment_records_originality_and_locks_and_flags_a_clone(sim: Pn532Simulator, tmp_path: Path) -> None:
    secret = b"a table secret of 32 bytes......"
    events: queue.Queue[DeviceEvent] = queue.Queue()
    registry = TagRegistry()
    shown: list[list[str]] = []
    cards = ["KS", "QS", "JS"]
    with Pad("enroll", sim.path, events=events, card_for=None, read_ndef=False, timing=FAST) as pad:

        def check(uid: str) -> Originality:
            facts = pad.read_facts(uid)
            signature = facts.signature.hex() if facts is not None and facts.signature else None
            return Originality(ntag_signature.judge(uid, facts, KEY), signature)

        layer = threading.Thread(target=_operator, args=(sim, pad, registry, [
            (sim_uid("KS"), "genuine"), (sim_uid("QS"), "clone"), (sim_uid("JS"), "genuine"),
        ]), daemon=True)
        layer.start()
        result = enroll(events, registry, shown.append, cards=cards, save_to=tmp_path / "tags.json",
                        write_tag=pad.write_text, check=check,
                        lock=lambda uid: pad.lock(uid, locks.tag_password(secret, uid)),
                        lock_id=locks.lock_id(secret))
        layer.join(WAIT)
    assert result.complete
    assert [(e.card, e.origin, e.locked) for e in result.enrolled] == [
        ("KS", "genuine", True), ("QS", "no_signature", True), ("JS", "genuine", True),
    ]
    assert [e.card for e in result.flagged] == ["QS"]
    assert any("NOT GENUINE" in line for lines in shown for line in lines)
    saved = TagRegistry.load(tmp_path / "tags.json")
    ks = saved.entry(sim_uid("KS"))
    assert ks is not None and ks.origin == "genuine" and ks.locked and ks.lock_id == locks.lock_id(secret)
    assert ntag_signature.verify_signature(bytes.fromhex(ks.uid), bytes.fromhex(ks.signature or ""), KEY)
    assert sim.tag(sim_uid("KS")).locked and sim.tag(sim_uid("KS")).ndef_text() == "ecarte:KS"
    assert "password" not in (tmp_path / "tags.json").read_text()
    assert locks.tag_password(secret, sim_uid("KS")).hex() not in (tmp_path / "tags.json").read_text().lower()


def _deck_events(registry: TagRegistry, pack: int, *, skip: tuple[str, ...] = (),
                 extra: tuple[CardSeen, ...] = ()) -> queue.Queue[DeviceEvent]:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    for card in CARDS:
        if card not in skip:
            events.put(CardSeen("discard", Sighting(sim_uid(card, pack), card, "genuine")))
            events.put(CardSeen("discard", Sighting(sim_uid(card, pack), card, "genuine"), gone=True))
    for event in extra:
        events.put(event)
    return events


def test_the_deck_check_confirms_a_whole_pack() -> None:
    registry = signed_registry()
    report = check_deck(_deck_events(registry, 1), registry, lambda lines: None, quiet=0.2,
                        require_genuine=True)
    assert report.ok and report.pack == 1 and report.lines() == ["Pack 1: 32 cards OK"]


def test_the_deck_check_shows_what_is_missing_twice_foreign_and_fake() -> None:
    registry = signed_registry()
    extra = (
        CardSeen("discard", Sighting(sim_uid("KS", 1), "KS", "no_signature")),  # a clone passed after it
        CardSeen("discard", Sighting(sim_uid("QH", 2), "QH", "genuine")),       # the other pack
        CardSeen("discard", Sighting("04DEADBEEF0001", None, "counterfeit")),     # a stranger
    )
    report = check_deck(_deck_events(registry, 1, skip=("7C", "8D"), extra=extra), registry,
                        lambda lines: None, quiet=0.2, require_genuine=True)
    assert not report.ok and report.pack == 1
    assert report.missing == ("8D", "7C")
    assert report.repeated == ("KS",)
    assert report.foreign == ("QH of pack 2", "tag 04DEADBEEF0001: not registered")
    assert report.not_genuine == ("KS: no_signature",)
    assert report.lines()[:3] == ["Pack 1: 30/32 cards", "Missing: 8♦ 7♣", "Twice: K♠"]


def test_the_deck_check_takes_each_card_s_verdict_from_its_best_evidence() -> None:
    # a card passed first with no answer (an old journal's unreadable, or none asked), then answering:
    # its answer decides; a clone's answer still counts beside its genuine twin's
    registry = signed_registry()
    events = _deck_events(registry, 1, skip=("KS", "QS", "JS"))
    for card, first in (("KS", Origin.UNREADABLE), ("QS", None)):
        events.put(CardSeen("discard", Sighting(sim_uid(card, 1), card, first)))
        events.put(CardSeen("discard", Sighting(sim_uid(card, 1), card, first), gone=True))
        events.put(CardSeen("discard", Sighting(sim_uid(card, 1), card, Origin.GENUINE)))
    events.put(CardSeen("discard", Sighting(sim_uid("JS", 1), "JS", Origin.UNREADABLE)))  # never answered
    report = check_deck(events, registry, lambda lines: None, quiet=0.2, require_genuine=True)
    assert report.not_genuine == ("JS: unreadable",)
    assert report.repeated == ("KS", "QS")


def test_the_deck_check_over_a_pad_catches_a_clone(sim: Pn532Simulator) -> None:
    registry = signed_registry((1,))
    tags = TableTags.build(registry, REQUIRE, simulated=True)
    events: queue.Queue[DeviceEvent] = queue.Queue()
    with Pad("discard", sim.path, events=events, card_for=tags.entry, timing=FAST, **tags.pad_options()) as pad:
        for card in ("KS", "QS"):
            sim.place(sim_uid(card))
        sim.place(sim_uid("JS"), kind="clone")
        deadline = time.monotonic() + WAIT
        while len(pad.present) < 2 and time.monotonic() < deadline:  # depth 2: the lowest two
            time.sleep(0.005)
        sim.lift_all()
        sim.place(sim_uid("JS"), kind="clone")
        report = check_deck(events, registry, lambda lines: None, pack=1, require_genuine=True, quiet=1.0,
                            linger=1.0)
    assert report.seen == ("KS", "QS", "JS")
    assert report.not_genuine == ("JS: no_signature",)


def test_a_clone_laid_after_its_genuine_twin_was_lifted_is_refused(sim: Pn532Simulator) -> None:
    t = table(sim, REQUIRE)  # the default: check_every_arrival off
    try:
        seen, judged = t.lay(sim_uid("KS"))
        assert seen.sighting.origin == "genuine" and judged == []
        t.lift(sim_uid("KS"))
        seen, judged = t.lay(sim_uid("KS"), kind="clone")  # same UID, zero signature
        assert seen.sighting.origin == "no_signature"
        assert judged == [("fault", "counterfeit_card")]
    finally:
        t.close()


class _Sink:
    """Where the table's route puts what reaches the referee, through the service's door."""

    def __init__(self, by_tag: bool) -> None:
        self.by_tag = by_tag
        self.physical: list[object] = []

    def put_device_event(self, event: object) -> None:
        self.physical.append(sighting_event(event, by_tag=self.by_tag) if isinstance(event, CardSeen) else event)


@pytest.mark.parametrize(("kind", "named"), [("genuine", True), ("clone", False), ("counterfeit", False)])
def test_a_badge_is_signature_checked_like_a_card(sim: Pn532Simulator, kind: str, named: bool) -> None:
    badge = "04BADCE0000001"
    tags = TableTags.build(signed_registry(), TagPolicy(require_signature=True, check_every_arrival=True),
                           simulated=True, badges=frozenset({badge}))
    controller = Controller(TableDefaults(dealer="B", badges={badge: "player:Anne"}, require_genuine=True),
                            registry=tags.registry)
    sink = _Sink(tags.by_tag)
    events: queue.Queue[DeviceEvent] = queue.Queue()
    with Pad("play.A", sim.path, events=events, card_for=tags.entry, timing=FAST, **tags.pad_options()):
        assert isinstance(events.get(timeout=WAIT), ReaderStatus)
        sim.place(badge, kind=kind)
        seen = events.get(timeout=WAIT)
        assert isinstance(seen, CardSeen) and seen.sighting.uid == badge
        tags.route(sink)(seen)  # type: ignore[arg-type]
    for event in sink.physical:
        controller.handle(event)  # type: ignore[arg-type]
    assert (controller.snapshot().players[0] == "Anne") is named


def _pass(sim: Pn532Simulator, pad: Pad, uid: str, kind: str = "genuine") -> None:
    sim.place(uid, kind=kind)
    deadline = time.monotonic() + WAIT
    while uid not in pad.present and time.monotonic() < deadline:
        time.sleep(0.002)
    sim.remove(uid)
    while pad.present and time.monotonic() < deadline:
        time.sleep(0.002)


def test_the_deck_check_reads_on_after_the_32nd_card_until_the_pack_has_left(sim: Pn532Simulator) -> None:
    registry = signed_registry()
    tags = TableTags.build(registry, REQUIRE, simulated=True)
    events: queue.Queue[DeviceEvent] = queue.Queue()
    shown: list[object] = []
    with Pad("discard", sim.path, events=events, card_for=tags.entry, timing=FAST, **tags.pad_options()) as pad:

        def operator() -> None:
            for card in CARDS:
                _pass(sim, pad, sim_uid(card, 1))
            _pass(sim, pad, sim_uid("KS", 1), kind="clone")  # a second K♠ (its UID copied)
            _pass(sim, pad, sim_uid("QH", 2))  # a card of the other pack
            _pass(sim, pad, "04DEADBEEF0033")  # a 33rd tag

        layer = threading.Thread(target=operator, daemon=True)
        layer.start()
        report = check_deck(events, registry, shown.append, pack=1, require_genuine=True, quiet=1.0)
        layer.join(WAIT)
    assert report.seen == CARDS and not report.missing
    assert report.repeated == ("KS",)
    assert report.not_genuine == ("KS: no_signature",)
    assert report.foreign == ("QH of pack 2", "tag 04DEADBEEF0033: not registered")
    assert not report.ok and report.finished and report.lying == 0
    progress = [r for r in shown if not r.finished]  # type: ignore[attr-defined]
    assert [len(r.seen) for r in progress][-4:] == [32, 32, 32, 32]  # it read on after the 32nd
