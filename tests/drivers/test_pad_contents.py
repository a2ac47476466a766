"""A pad's own logic at the Reader seam: debounce, stacks, identification, back-off.

:class:`PadContents` is fed polls of a :class:`MockReader` directly (no pty, no thread);
the back-off goes through a :class:`Pad` on :class:`MockReaders` (its thread, no pty).
"""

from __future__ import annotations

import queue

import pytest

from drivers.device_events import CardSeen, DeviceEvent, Origin, ReaderStatus, Sighting
from drivers.nfc.mock_reader import MockReader, MockReaders
from drivers.nfc.originality import OriginalityCheck, TagFacts
from drivers.nfc.pad import Pad, PadTiming
from drivers.nfc.pad_contents import PadContents

KS, QH, JD = "04A224B2C31D80", "04B1C2D3E4F501", "04C1C2D3E4F502"
REGISTRY = {KS: "KS", QH: "QH"}


class Table:
    """A PadContents on a MockReader, and the events it emitted."""

    def __init__(self, **options: object) -> None:
        self.reader = MockReader()
        self.events: list[DeviceEvent] = []
        self.t = 0.0
        self.contents = PadContents("play.A", emit=self.events.append, clock=lambda: self.t, **options)  # type: ignore[arg-type]

    def poll(self, times: int = 1) -> list[tuple[str, str | None, bool]]:
        """Poll ``times``; the arrivals and leaves of those polls (uid, card, gone)."""
        before = len(self.events)
        for _ in range(times):
            self.t += 0.02
            self.contents.observe(self.reader.poll(), self.reader)
        return [(e.sighting.uid, e.sighting.card, e.gone) for e in self.events[before:] if isinstance(e, CardSeen)]


def test_a_card_arrives_at_its_first_poll_and_leaves_after_leave_after_polls() -> None:
    table = Table(leave_after=3, card_for=REGISTRY.get)
    table.reader.lay(KS)
    assert table.poll() == [(KS, "KS", False)]
    assert table.poll(5) == []  # read again: not a new arrival
    table.reader.lift(KS)
    assert table.poll(2) == []  # two polls without it: a flicker, it stays
    assert table.contents.present == {KS}
    assert table.poll() == [(KS, "KS", True)]
    assert table.contents.present == frozenset() and table.contents.card_of(KS) is None


def test_a_flicker_shorter_than_leave_after_resets_the_count() -> None:
    table = Table(leave_after=2, card_for=REGISTRY.get)
    table.reader.lay(KS)
    table.poll()
    for _ in range(5):
        table.reader.lift(KS)
        assert table.poll() == []
        table.reader.lay(KS)
        assert table.poll() == []
    assert table.contents.present == {KS}


def test_a_stack_arrives_in_listed_order_and_each_tag_leaves_on_its_own() -> None:
    table = Table(leave_after=1, card_for=REGISTRY.get)
    table.reader.lay(KS, QH, JD)
    assert table.poll() == [(KS, "KS", False), (QH, "QH", False), (JD, None, False)]
    table.reader.lift(QH)
    assert table.poll() == [(QH, "QH", True)]
    assert table.contents.present == {KS, JD}


def test_tags_beyond_the_readable_depth_are_not_seen() -> None:
    table = Table(leave_after=1)
    table.reader.depth = 2
    table.reader.lay(KS, QH, JD)
    assert [uid for uid, _card, _gone in table.poll()] == [KS, QH]
    table.reader.lift(KS)  # the third tag comes within reach
    assert sorted(table.poll()) == sorted([(KS, None, True), (JD, None, False)])


def test_the_registry_wins_and_the_ndef_record_names_the_others() -> None:
    table = Table(card_for=REGISTRY.get)
    table.reader.lay(KS, text="ecarte:TH")
    table.reader.lay(JD, text="ecarte:9C")
    table.reader.lay("04D1C2D3E4F503", text="hello")
    assert table.poll() == [(KS, "KS", False), (JD, "9C", False), ("04D1C2D3E4F503", None, False)]
    assert table.reader.text_reads == [JD, "04D1C2D3E4F503"]  # a registered tag is not read


def test_an_ndef_card_s_sighting_takes_the_ndef_pack() -> None:
    """The pad makes the whole sighting: a card named by its NDEF record is of the table's ``ndef_pack``
    (the door used to add it, rebuilding the pad's value)."""
    table = Table(card_for=REGISTRY.get, ndef_pack=2, originality=OriginalityCheck(lambda uid, facts: Origin.GENUINE))
    table.reader.lay(JD, text="ecarte:9C")
    table.reader.facts[JD] = table.reader.facts[KS] = TagFacts(bytes(8), bytes(32))
    table.poll()
    event = table.events[-1]
    assert isinstance(event, CardSeen)
    assert (event.sighting.card, event.sighting.pack, event.sighting.origin) == ("9C", 2, Origin.GENUINE)
    table.reader.lay(KS, text="ecarte:TH")
    table.poll()
    assert table.events[-1] == CardSeen("play.A", Sighting(KS, "KS", Origin.GENUINE), t=table.t)  # no entry's pack


def test_a_tag_leaves_with_the_sighting_it_arrived_with() -> None:
    """One value from the pad: the arrival's sighting is given again, the same object, when the tag leaves."""
    table = Table(leave_after=1, card_for=REGISTRY.get, originality=OriginalityCheck(lambda uid, facts: Origin.GENUINE))
    table.reader.lay(KS)
    table.reader.facts[KS] = TagFacts(bytes(8), bytes(32))
    table.poll()
    table.reader.lift(KS)
    table.poll()
    arrived, left = table.events[-2:]
    assert isinstance(arrived, CardSeen) and isinstance(left, CardSeen) and left.gone and not arrived.gone
    assert left.sighting is arrived.sighting


def test_without_read_ndef_no_record_is_read() -> None:
    table = Table(read_ndef=False)
    table.reader.lay(JD, text="ecarte:9C")
    assert table.poll() == [(JD, None, False)]
    assert table.reader.text_reads == []


def test_a_tag_that_does_not_answer_its_originality_check_arrives_at_a_later_poll() -> None:
    judged: list[str] = []

    def judge(uid: str, facts: TagFacts | None) -> str:
        judged.append(uid)
        return "genuine" if facts is not None else "unreadable"

    table = Table(card_for=REGISTRY.get, originality=OriginalityCheck(judge, attempts=3))
    table.reader.lay(KS)
    assert table.poll() == []  # no answer yet: asked again at the next poll
    table.reader.facts[KS] = TagFacts(bytes(8), bytes(32))
    assert table.poll() == [(KS, "KS", False)]
    arrived = table.events[-1]
    assert isinstance(arrived, CardSeen) and arrived.sighting.origin == "genuine" and judged == [KS]


class CountingReader(MockReader):
    """A mock reader that counts the originality checks it is asked."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = 0

    def read_facts(self, uid: str) -> TagFacts | None:
        self.asked += 1
        return super().read_facts(uid)


def test_a_tag_that_never_answers_is_asked_less_often_never_judged_and_asked_at_once_when_laid_again() -> None:
    table = Table(card_for=REGISTRY.get, originality=OriginalityCheck(lambda uid, facts: "genuine", attempts=3))
    table.reader = reader = CountingReader()
    reader.lay(KS)
    assert table.poll(3) == [] and reader.asked == 3  # three polls, three asks
    assert table.poll(20) == [] and reader.asked == 3 + 4  # then one poll in five: no verdict from silence
    assert table.contents.inquiry is not None and not table.contents.inquiry.wants(KS)  # nor asked by the poll
    reader.lift(KS)
    table.poll()  # gone before it answered
    reader.lay(KS)
    reader.facts[KS] = TagFacts(None, bytes(range(32)))
    assert table.poll() == [(KS, "KS", False)]  # laid again: asked at its first poll


def test_a_tag_answering_during_the_poll_arrives_then_and_only_once() -> None:
    table = Table(card_for=REGISTRY.get, originality=OriginalityCheck(lambda uid, facts: "genuine"))
    inquiry = table.contents.inquiry
    assert inquiry is not None
    assert inquiry.wants(KS) and inquiry.wants(JD)
    assert inquiry.answered(KS, TagFacts(None, bytes(range(32))))  # taken: KS arrives now
    assert [e.sighting for e in table.events if isinstance(e, CardSeen)] == [Sighting(KS, "KS", Origin.GENUINE)]
    assert not inquiry.wants(KS)  # on the pad: not asked again
    assert not inquiry.answered(JD, TagFacts(None, bytes(range(32))))  # unregistered: named by NDEF after the poll
    table.reader.lay(KS)
    assert table.poll() == []  # the poll that listed it: no second arrival
    assert Table(card_for=REGISTRY.get).contents.inquiry is None  # no check: nothing asked


def test_a_pad_reopens_its_reader_with_back_off_and_reports_it() -> None:
    readers = MockReaders(fail_opens=2)
    events: queue.Queue[DeviceEvent] = queue.Queue()
    timing = PadTiming(poll_interval=0.001, idle_wait=0.0, fault_limit=2, reopen_first=0.01, reopen_max=0.02)
    with Pad("turnup", "mock0", events=events, open_reader=readers, timing=timing, card_for=REGISTRY.get):
        statuses = [events.get(timeout=5) for _ in range(2)]
        assert [(s.online) for s in statuses if isinstance(s, ReaderStatus)] == [False, True]
        assert readers.opens == 3  # one status for two failed opens: reported once
        reader = readers.reader("mock0")
        reader.lay(KS)
        seen = events.get(timeout=5)
        assert isinstance(seen, CardSeen) and seen.sighting.card == "KS"
        reader.fail(2)  # fault_limit polls without an answer: lost, closed, reopened
        lost, back = events.get(timeout=5), events.get(timeout=5)
        assert isinstance(lost, ReaderStatus) and not lost.online and "no answer" in lost.reason
        assert isinstance(back, ReaderStatus) and back.online
        assert reader.closed


@pytest.mark.parametrize("uids", [(), (KS,)])
def test_the_mock_reader_lifts_named_tags_or_all(uids: tuple[str, ...]) -> None:
    reader = MockReader()
    reader.lay(KS, QH)
    reader.lift(*uids)
    assert reader.stack == ([] if not uids else [QH])
