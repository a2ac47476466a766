"""The enrollment walk, on a queue of events and on a pad over the simulator."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from waiting import HANG_S

from drivers.device_events import CardSeen, DeviceEvent, ReaderStatus, Sighting
from drivers.nfc.pad import Pad, PadTiming
from drivers.nfc.pn532sim import Pn532Simulator
from firmware_host.cards.enroll import EnrollResult, enroll
from firmware_host.screens.drawing import card_label
from hardware.tag_registry import CARDS, TagEntry, TagRegistry

WAIT = HANG_S  # a hang's limit: a wait ends as soon as what it waits for comes
FAST = PadTiming(poll_interval=0.005, leave_after=2, reopen_first=0.02, reopen_max=0.2)


class Screen:
    """What ``show`` put up, with a way to wait for a line."""

    def __init__(self) -> None:
        self.shown: list[list[str]] = []
        self._changed = threading.Condition()

    def __call__(self, lines: list[str]) -> None:
        with self._changed:
            self.shown.append(lines)
            self._changed.notify_all()

    def wait_for(self, text: str, after: int = 0) -> int:
        """Wait until a screen from index ``after`` on contains ``text``; its index."""
        deadline = time.monotonic() + WAIT
        with self._changed:
            while True:
                for index in range(after, len(self.shown)):
                    if any(text in line for line in self.shown[index]):
                        return index
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"never shown: {text!r}; shown: {self.shown}")
                self._changed.wait(left)


class Walk:
    """Runs :func:`enroll` on a thread; the test plays the operator."""

    def __init__(self, run: Callable[[], EnrollResult]) -> None:
        self.result: EnrollResult | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._main, args=(run,), daemon=True)
        self._thread.start()

    def _main(self, run: Callable[[], EnrollResult]) -> None:
        try:
            self.result = run()
        except BaseException as error:  # handed to the test thread
            self.error = error

    def finish(self) -> EnrollResult:
        self._thread.join(WAIT)
        assert not self._thread.is_alive(), "the walk did not finish"
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result


def uid(index: int, prefix: str = "04") -> str:
    return f"{prefix}{index:012X}"


def lay(events: queue.Queue[DeviceEvent], tag: str) -> None:
    events.put(CardSeen("enroll", Sighting(tag, None), t=time.monotonic()))


def lift(events: queue.Queue[DeviceEvent], tag: str) -> None:
    events.put(CardSeen("enroll", Sighting(tag, None), gone=True, t=time.monotonic()))


def test_a_whole_pack_from_a_queue(tmp_path: Path) -> None:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    registry = TagRegistry()
    screen = Screen()
    path = tmp_path / "tags.json"
    walk = Walk(lambda: enroll(events, registry, screen, pack=2, save_to=path))
    seen = 0
    for index, card in enumerate(CARDS):
        seen = screen.wait_for(f"Lay the {card_label(card)}", seen)
        lay(events, uid(index))
        seen = screen.wait_for(f"{card_label(card)} OK", seen)
        lift(events, uid(index))
    result = walk.finish()
    assert result.complete and not result.cancelled
    assert [e.card for e in result.enrolled] == list(CARDS)
    assert screen.shown[-1] == ["Pack 2 complete", "32/32 cards"]
    saved = TagRegistry.load(path)
    assert saved == registry
    assert saved.card_for(uid(0)) == "KS" and saved.pack_of(uid(0)) == 2


def test_a_registered_tag_is_refused_and_must_be_lifted() -> None:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    registry = TagRegistry([TagEntry(uid(99), "7C", 1)])
    screen = Screen()
    walk = Walk(lambda: enroll(events, registry, screen, pack=1, cards=("KS", "QS")))
    seen = screen.wait_for("Lay the K♠")
    lay(events, uid(99))
    seen = screen.wait_for("Tag is 7♣ of pack 1", seen)
    lay(events, uid(1))  # a second card before lifting: ignored until the first is lifted
    lift(events, uid(99))
    seen = screen.wait_for("K♠ OK", seen)
    lift(events, uid(1))
    seen = screen.wait_for("Lay the Q♠", seen)
    lay(events, uid(1))  # KS's tag again, now registered
    seen = screen.wait_for("Tag is K♠ of pack 1", seen)
    lift(events, uid(1))
    lay(events, uid(2))
    seen = screen.wait_for("Q♠ OK", seen)
    lift(events, uid(2))
    result = walk.finish()
    assert [(e.card, e.uid) for e in result.enrolled] == [("KS", uid(1)), ("QS", uid(2))]
    assert result.complete


def test_a_walk_resumes_at_the_first_missing_card() -> None:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    registry = TagRegistry([TagEntry(uid(i), card, 1) for i, card in enumerate(CARDS[:30])])
    screen = Screen()
    walk = Walk(lambda: enroll(events, registry, screen, pack=1))
    seen = screen.wait_for("Lay the 8♣")
    assert screen.shown[seen] == ["Pack 1: 30/32", "Lay the 8♣", "on the pad"]
    for index, card in ((30, "8C"), (31, "7C")):
        seen = screen.wait_for(f"Lay the {card_label(card)}", seen)
        lay(events, uid(index))
        seen = screen.wait_for(f"{card_label(card)} OK", seen)
        lift(events, uid(index))
    assert walk.finish().complete


def test_cancel_keeps_what_was_enrolled() -> None:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    registry = TagRegistry()
    screen = Screen()
    cancel = threading.Event()
    walk = Walk(lambda: enroll(events, registry, screen, cancel=cancel))
    screen.wait_for("Lay the K♠")
    lay(events, uid(0))
    screen.wait_for("K♠ OK")
    lift(events, uid(0))
    screen.wait_for("Lay the Q♠")
    events.put(ReaderStatus("enroll", online=False, reason="[Errno 5] Input/output error"))
    screen.wait_for("Reader offline")
    cancel.set()
    result = walk.finish()
    assert result.cancelled and not result.complete
    assert [e.card for e in result.enrolled] == ["KS"]
    assert registry.card_for(uid(0)) == "KS"


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        enroll(queue.Queue(), TagRegistry(), print, pack=3)
    with pytest.raises(ValueError):
        enroll(queue.Queue(), TagRegistry(), print, cards=("KS", "1S"))


# -- over a pad on the simulator ------------------------------------------------


def test_enroll_on_a_pad_writes_ndef_records(sim: Pn532Simulator, tmp_path: Path) -> None:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    registry = TagRegistry()
    screen = Screen()
    path = tmp_path / "tags.json"
    tags = {"KS": uid(1), "QS": uid(2), "JS": uid(3)}
    with Pad("enroll", sim.path, events=events, card_for=registry.card_for, timing=FAST) as pad:
        walk = Walk(
            lambda: enroll(
                events,
                registry,
                screen,
                save_to=path,
                write_tag=pad.write_text,
                cards=tuple(tags),
            )
        )
        seen = 0
        for card, tag in tags.items():
            seen = screen.wait_for(f"Lay the {card_label(card)}", seen)
            if card == "QS":  # try KS's tag again first
                sim.place(tags["KS"])
                seen = screen.wait_for("Tag is K♠ of pack 1", seen)
                sim.remove(tags["KS"])
            sim.place(tag)
            seen = screen.wait_for(f"{card_label(card)} OK", seen)
            sim.remove(tag)
        result = walk.finish()
    assert result.complete
    assert TagRegistry.load(path).tags() == {tag: card for card, tag in tags.items()}
    for card, tag in tags.items():
        assert sim.tag(tag).ndef_text() == f"ecarte:{card}"


def test_a_failed_write_asks_for_the_card_again(sim: Pn532Simulator) -> None:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    registry = TagRegistry()
    screen = Screen()
    attempts: list[str] = []

    with Pad("enroll", sim.path, events=events, timing=FAST) as pad:

        def write_tag(tag: str, text: str) -> None:
            attempts.append(tag)
            if len(attempts) == 1:
                sim.remove(tag)  # lifted too early: the write finds no tag
            pad.write_text(tag, text)

        walk = Walk(lambda: enroll(events, registry, screen, write_tag=write_tag, cards=("KS",)))
        seen = screen.wait_for("Lay the K♠")
        sim.place(uid(5))
        seen = screen.wait_for("Write failed", seen)
        seen = screen.wait_for("Lay the K♠", seen)
        sim.place(uid(5))
        seen = screen.wait_for("K♠ OK", seen)
        sim.remove(uid(5))
        result = walk.finish()
    assert result.complete and attempts == [uid(5), uid(5)]
    assert sim.tag(uid(5)).ndef_text() == "ecarte:KS"
