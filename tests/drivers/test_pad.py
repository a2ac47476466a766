"""Pads on the real nfcpy driver against the emulated PN532.

Nothing here asserts on time: tests wait for events (generous timeouts) or for
the simulator to have answered a number of polls.
"""

from __future__ import annotations

import dataclasses
import queue
import threading
import time
from collections.abc import Iterator

import pytest
from waiting import HANG_S

from drivers.device_events import CardSeen, DeviceEvent, ReaderStatus, Sighting
from drivers.nfc.pad import Pad, PadSet, PadTiming
from drivers.nfc.pad_contents import card_from_ndef
from drivers.nfc.pn532_reader import NfcpyReader
from drivers.nfc.pn532sim import Pn532Simulator
from drivers.nfc.reader import TagWriteError

KS = "04A224B2C31D80"
QH = "04B1C2D3E4F501"
STRANGER = "04EEEEEEEEEE01"
WAIT = HANG_S  # a hang's limit: a wait ends as soon as what it waits for comes

FAST = PadTiming(poll_interval=0.005, leave_after=3, fault_limit=3, reopen_first=0.02, reopen_max=0.2)


@pytest.fixture
def card_names() -> dict[str, str]:
    """The cards the pads' tags stand for (what a registry's ``card_for`` answers)."""
    return {KS: "KS", QH: "QH"}


@pytest.fixture
def pad(
    sim: Pn532Simulator, events: queue.Queue[DeviceEvent], card_names: dict[str, str]
) -> Iterator[Pad]:
    with Pad("play.A", sim.path, events=events, card_for=card_names.get, timing=FAST) as made:
        assert next_event(events) == ReaderStatus("play.A", online=True)
        yield made
    assert not made._thread.is_alive()


def next_event(events: queue.Queue[DeviceEvent], timeout: float = WAIT) -> DeviceEvent:
    """The next event, its time checked and then zeroed for comparisons."""
    event = events.get(timeout=timeout)
    assert 0 < event.t <= time.monotonic()
    return dataclasses.replace(event, t=0.0)


def arrived(uid: str, card: str | None, zone: str = "play.A") -> CardSeen:
    return CardSeen(zone, Sighting(uid, card))


def left(uid: str, card: str | None, zone: str = "play.A") -> CardSeen:
    return CardSeen(zone, Sighting(uid, card), gone=True)


def test_arrive_and_leave(sim: Pn532Simulator, pad: Pad, events: queue.Queue[DeviceEvent]) -> None:
    sim.place(KS)
    assert next_event(events) == arrived(KS, "KS")
    assert pad.present == {KS}
    sim.remove(KS)
    assert next_event(events) == left(KS, "KS")
    assert pad.present == frozenset()


def test_a_card_read_again_is_not_a_new_arrival(
    wait_polls, sim: Pn532Simulator, pad: Pad, events: queue.Queue[DeviceEvent]
) -> None:
    sim.place(KS)
    assert next_event(events) == arrived(KS, "KS")
    wait_polls(sim, 10)
    assert events.empty()


def test_a_flickering_tag_has_not_left(
    wait_polls, sim: Pn532Simulator, pad: Pad, events: queue.Queue[DeviceEvent]
) -> None:
    sim.place(KS)
    assert next_event(events) == arrived(KS, "KS")
    sim.flicker(KS, polls=FAST.leave_after - 1)
    wait_polls(sim, FAST.leave_after + 5)
    assert events.empty()
    sim.flicker(KS, polls=FAST.leave_after)  # missing for that many polls: it left
    assert next_event(events) == left(KS, "KS")
    assert next_event(events) == arrived(KS, "KS")


def test_an_unknown_tag_arrives_without_a_card(
    sim: Pn532Simulator, pad: Pad, events: queue.Queue[DeviceEvent]
) -> None:
    sim.place(STRANGER)
    assert next_event(events) == arrived(STRANGER, None)
    sim.remove(STRANGER)
    assert next_event(events) == left(STRANGER, None)


def test_ndef_record_names_an_unregistered_card(
    sim: Pn532Simulator, pad: Pad, events: queue.Queue[DeviceEvent]
) -> None:
    sim.place(STRANGER, ndef_text="ecarte:9D")
    assert next_event(events) == arrived(STRANGER, "9D")


def test_the_registry_wins_over_the_ndef_record(
    sim: Pn532Simulator, pad: Pad, events: queue.Queue[DeviceEvent]
) -> None:
    sim.place(KS, ndef_text="ecarte:7C")
    assert next_event(events) == arrived(KS, "KS")


@pytest.mark.parametrize("text", ["hello", "ecarte:10H", "ecarte:", "ECARTE:KS"])
def test_other_ndef_texts_name_no_card(
    sim: Pn532Simulator, pad: Pad, events: queue.Queue[DeviceEvent], text: str
) -> None:
    sim.place(STRANGER, ndef_text=text)
    assert next_event(events) == arrived(STRANGER, None)


def test_card_from_ndef() -> None:
    assert card_from_ndef("ecarte:KS") == "KS"
    assert card_from_ndef(" ecarte:7C\n") == "7C"
    assert card_from_ndef(None) is None


def test_two_tags_on_one_pad_are_both_seen(
    wait_polls, sim: Pn532Simulator, pad: Pad, events: queue.Queue[DeviceEvent]
) -> None:
    sim.place(KS)
    assert next_event(events) == arrived(KS, "KS")
    sim.place(QH)
    assert next_event(events) == arrived(QH, "QH")
    wait_polls(sim, 10)
    assert events.empty()
    assert pad.present == {KS, QH}
    sim.remove(QH)
    assert next_event(events) == left(QH, "QH")
    wait_polls(sim, 10)
    assert events.empty() and pad.present == {KS}


def test_corrupt_answers_below_the_fault_limit_change_nothing(
    wait_for, wait_polls, sim: Pn532Simulator, pad: Pad, events: queue.Queue[DeviceEvent]
) -> None:
    sim.place(KS)
    assert next_event(events) == arrived(KS, "KS")
    sim.corrupt_answers(FAST.fault_limit - 1)
    wait_for(lambda: sim.stats.corrupted == FAST.fault_limit - 1, "sim.stats.corrupted == FAST.fault_limit - 1")
    wait_polls(sim, 10)
    assert events.empty()
    assert pad.online and pad.present == {KS}


def test_unanswered_commands_below_the_fault_limit_change_nothing(
    wait_for, sim: Pn532Simulator, pad: Pad, events: queue.Queue[DeviceEvent]
) -> None:
    sim.ignore_commands(FAST.fault_limit - 1)
    wait_for(lambda: sim.stats.dropped == FAST.fault_limit - 1, "sim.stats.dropped == FAST.fault_limit - 1")
    sim.place(KS)
    assert next_event(events) == arrived(KS, "KS")
    assert pad.online


def test_a_late_answer_does_not_put_the_pad_out_of_step(
    wait_for, sim: Pn532Simulator, events: queue.Queue[DeviceEvent], card_names: dict[str, str]
) -> None:
    """A chip that answers after the host's ACK timeout: its stale answer would meet the
    next command, and every command after it, until the port was reopened. The pad
    resyncs (abort + drain) after a failed poll and stays online."""
    with Pad("play.A", sim.path, events=events, card_for=card_names.get, timing=FAST) as pad:
        assert next_event(events) == ReaderStatus("play.A", online=True)
        sim.answer_late(1, seconds=0.3)
        wait_for(lambda: sim.stats.late == 1, "sim.stats.late == 1")
        after = sim.stats.commands
        wait_for(lambda: sim.stats.commands >= after + 10, "ten more commands")  # the pad went on polling
        sim.place(KS)
        assert next_event(events) == arrived(KS, "KS")
        assert pad.online
        assert events.empty()  # never reported offline


def test_a_reader_that_stops_answering_is_reopened(
    sim: Pn532Simulator, pad: Pad, events: queue.Queue[DeviceEvent]
) -> None:
    sim.corrupt_answers(FAST.fault_limit + 4)
    event = next_event(events)
    assert isinstance(event, ReaderStatus) and not event.online and event.reason
    assert next_event(events) == ReaderStatus("play.A", online=True)
    sim.place(KS)
    assert next_event(events) == arrived(KS, "KS")


def test_unplug_and_replug_mid_use(
    wait_polls, sim: Pn532Simulator, pad: Pad, events: queue.Queue[DeviceEvent]
) -> None:
    sim.place(KS)
    assert next_event(events) == arrived(KS, "KS")
    sim.unplug()
    event = next_event(events)
    assert isinstance(event, ReaderStatus) and not event.online
    assert not pad.online
    sim.replug()
    assert next_event(events) == ReaderStatus("play.A", online=True)
    wait_polls(sim, 5)
    assert events.empty()  # the card is still there: nothing happened to it
    sim.remove(KS)
    assert next_event(events) == left(KS, "KS")


def test_a_card_lifted_while_the_reader_was_away_leaves_after_replug(
    sim: Pn532Simulator, pad: Pad, events: queue.Queue[DeviceEvent]
) -> None:
    sim.place(KS)
    assert next_event(events) == arrived(KS, "KS")
    sim.unplug()
    assert isinstance(next_event(events), ReaderStatus)
    sim.remove(KS)
    sim.place(QH)
    sim.replug()
    assert next_event(events) == ReaderStatus("play.A", online=True)
    assert next_event(events) == arrived(QH, "QH")  # seen at once
    assert next_event(events) == left(KS, "KS")  # missed leave_after polls first


def test_a_pad_whose_port_does_not_exist_yet(events: queue.Queue[DeviceEvent], tmp_path) -> None:
    with Pn532Simulator() as later:
        path = str(tmp_path / "ttyPAD")
        with Pad("turnup", path, events=events, timing=FAST) as pad:
            event = next_event(events)
            assert isinstance(event, ReaderStatus) and not event.online
            assert "not found" in event.reason
            (tmp_path / "ttyPAD").symlink_to(later.path)
            assert next_event(events) == ReaderStatus("turnup", online=True)
            later.place(STRANGER)
            assert next_event(events) == arrived(STRANGER, None, zone="turnup")
            assert pad.online


def test_a_reader_that_misses_its_first_opening_is_not_called_offline(
    sim: Pn532Simulator, events: queue.Queue[DeviceEvent]
) -> None:
    """Under load a normal start said "reader … is offline" (then "back") for a reader whose first
    ACK came late: one failed opening is tried again, as one failed poll is."""
    sim.ignore_commands(1)  # its first GetFirmwareVersion unanswered: nfcpy says no PN532 answers
    with Pad("turnup", sim.path, events=events, timing=FAST) as pad:
        assert next_event(events) == ReaderStatus("turnup", online=True)
        assert pad.online and sim.stats.dropped == 1


def test_write_text_through_the_pad(
    wait_polls, sim: Pn532Simulator, pad: Pad, events: queue.Queue[DeviceEvent]
) -> None:
    sim.place(STRANGER)
    assert next_event(events) == arrived(STRANGER, None)
    pad.write_text(STRANGER, "ecarte:JD")
    assert sim.tag(STRANGER).ndef_text() == "ecarte:JD"
    wait_polls(sim, 5)
    assert events.empty()  # writing is not leaving
    with pytest.raises(TagWriteError, match="not on the reader"):
        pad.write_text(KS, "ecarte:KS")
    sim.remove(STRANGER)
    assert next_event(events) == left(STRANGER, None)


@pytest.mark.allow_error_log
def test_events_to_a_callback_that_fails_once(sim: Pn532Simulator) -> None:
    seen: list[DeviceEvent] = []
    arrival = threading.Event()

    def on_event(event: DeviceEvent) -> None:
        seen.append(event)
        if isinstance(event, ReaderStatus):
            raise RuntimeError("a broken consumer")
        arrival.set()

    with Pad("discard", sim.path, on_event=on_event, timing=FAST) as pad:
        sim.place(STRANGER)
        assert arrival.wait(WAIT)
        assert pad._thread.is_alive()
    assert dataclasses.replace(seen[-1], t=0.0) == arrived(STRANGER, None, zone="discard")


def test_constructor_checks(sim: Pn532Simulator) -> None:
    with pytest.raises(ValueError, match="exactly one"):
        Pad("play.A", sim.path)
    with pytest.raises(ValueError, match="exactly one"):
        Pad("play.A", sim.path, on_event=print, events=queue.Queue())
    with pytest.raises(ValueError, match="leave_after"):
        PadTiming(leave_after=0)
    with pytest.raises(ValueError, match="reopen_first"):
        PadTiming(reopen_first=3.0, reopen_max=1.0)


def test_close_is_idempotent(sim: Pn532Simulator, events: queue.Queue[DeviceEvent]) -> None:
    pad = Pad("hand.A", sim.path, events=events, timing=FAST)
    assert next_event(events) == ReaderStatus("hand.A", online=True)
    pad.close()
    pad.close()
    assert not pad._thread.is_alive()
    assert sim.commands[-1][0] == 0x16  # the PN532 was put to sleep
    with pytest.raises(OSError):
        pad.write_text(KS, "ecarte:KS")


def test_reader_directly(sim: Pn532Simulator) -> None:
    with NfcpyReader(sim.path) as reader:
        assert reader.poll() == ()
        sim.place(KS, ndef_text="ecarte:KS")
        assert reader.poll() == (KS,)
        assert reader.poll() == (KS,)  # field cycled: the card answers again
        assert reader.read_text(KS) == "ecarte:KS"
        assert reader.read_text(QH) is None
        reader.close()


def test_pad_set_starts_and_stops_several_pads(events: queue.Queue[DeviceEvent]) -> None:
    with Pn532Simulator() as one, Pn532Simulator() as two:
        with PadSet({"hand.A": one.path, "hand.B": two.path}, events=events, timing=FAST) as pads:
            assert len(pads) == 2
            zones = {next_event(events).zone, next_event(events).zone}
            assert zones == {"hand.A", "hand.B"}
            two.place(QH)
            assert next_event(events) == arrived(QH, None, zone="hand.B")
            assert pads["hand.B"].present == {QH}
        assert all(not pad._thread.is_alive() for pad in pads)
