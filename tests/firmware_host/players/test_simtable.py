"""The simulated table (``firmware_host/players/simtable.py``): real pads on emulated PN532s, stacks
laid and lifted as people lay and lift them."""

from __future__ import annotations

import queue

import pytest
from waiting import HANG_S

from drivers.device_events import ButtonPressed, CardSeen, DeviceEvent, ReaderStatus
from firmware_host.players.simtable import SimulatedTable, sim_tags, sim_uid
from hardware.table import simulated_table

WAIT = HANG_S  # a hang's limit: a wait ends as soon as what it waits for comes


def test_simulated_table_stacks(wait_for) -> None:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    with SimulatedTable(simulated_table(), events=events, buttons=False, miss=0.0,
                        depth={"hand.A": 3}) as table:
        assert table.simulators["hand.A"].depth == 3 and table.simulators["hand.B"].depth == 2
        assert table.place_stack("hand.A", ["KS", "QH", "7C"]) == [sim_uid(c) for c in ("KS", "QH", "7C")]
        assert all(table.wait_seen("hand.A", card, timeout=WAIT) for card in ("KS", "QH", "7C"))
        table.place_stack("hand.B", ["8D", "9D", "TD"])  # depth 2: the top card unseen
        assert table.wait_seen("hand.B", "9D", timeout=WAIT)
        assert table.on_pad("hand.B") == ["8D", "9D", "TD"]
        assert not table.wait_seen("hand.B", "TD", timeout=0.3)
        assert table.lift_top("hand.A") == "7C"
        wait_for(lambda: sim_uid("7C") not in table.pads["hand.A"].present, "7C gone from hand.A")  # type: ignore[index]
        assert table.wait_seen("hand.A", "QH", timeout=WAIT)
        assert table.lift_all("hand.A") == ["KS", "QH"]
        assert table.lift_top("hand.A") is None
        assert table.wait_seen("hand.A", None, timeout=WAIT)
    with pytest.raises(ValueError, match="no simulated pad"):
        SimulatedTable(simulated_table(), events=events, buttons=False, depth={"centre": 3})
    with SimulatedTable(simulated_table(), events=events, buttons=False, depth=4) as table:
        assert {sim.depth for sim in table.simulators.values()} == {4}


def test_each_simulated_sticker_has_its_own_uid_and_each_pack_its_registry() -> None:
    """Two packs of 32 stickers, every UID seven bytes and none twice; each pack's registry names each
    of its cards once."""
    from engine.cards import CARDS

    uids = [sim_uid(str(card), pack) for pack in (1, 2) for card in CARDS]
    assert len(set(uids)) == 64 and all(len(bytes.fromhex(uid)) == 7 for uid in uids)
    for pack in (1, 2):
        assert sorted(sim_tags(pack).values()) == sorted(str(card) for card in CARDS)
        assert all(sim_tags(pack)[sim_uid(card, pack)] == card for card in ("KS", "7C"))
    assert not set(sim_tags(1)) & set(sim_tags(2))


def _seen(events: queue.Queue[DeviceEvent], count: int) -> list[DeviceEvent]:
    """The next ``count`` events that are not a reader coming online."""
    out: list[DeviceEvent] = []
    while len(out) < count:
        event = events.get(timeout=WAIT)
        if not isinstance(event, ReaderStatus):
            out.append(event)
    return out


def test_a_card_slid_across_a_pad_arrives_and_leaves_named_by_its_pack() -> None:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    with SimulatedTable(simulated_table(), events=events, buttons=False, miss=0.0) as table:
        table.slide("turnup", "KS", pack=2, timeout=WAIT)
        arrived, left = _seen(events, 2)
        assert isinstance(arrived, CardSeen) and isinstance(left, CardSeen)
        assert (arrived.zone, arrived.sighting.uid, arrived.sighting.card, arrived.gone) == (
            "turnup", sim_uid("KS", 2), "KS", False)
        assert (left.sighting.uid, left.gone) == (sim_uid("KS", 2), True)
        assert table.on_pad("turnup") == []


def test_a_stranger_tag_is_named_by_its_ndef_text_and_lifted_by_its_uid() -> None:
    """A tag no pack registers (a card of another deck, a phone's sticker) is named by what its NDEF
    record says, as a pad reads it; lifted by its UID."""
    events: queue.Queue[DeviceEvent] = queue.Queue()
    stranger = "04EEEEEEEEEE01"
    with SimulatedTable(simulated_table(), events=events, buttons=False, miss=0.0) as table:
        assert table.place_tag("discard", stranger, ndef_text="ecarte:9D") == stranger
        (arrived,) = _seen(events, 1)
        assert isinstance(arrived, CardSeen) and (arrived.sighting.uid, arrived.sighting.card) == (stranger, "9D")
        assert table.on_pad("discard") == [None]  # no pack's card
        table.lift_tag("discard", stranger)
        table.lift_tag("discard", stranger)  # not there any more: nothing
        assert table.wait_seen("discard", None, timeout=WAIT)


def test_a_button_pressed_on_the_simulated_table_is_reported_once() -> None:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    with SimulatedTable(simulated_table(), events=events, miss=0.0) as table:
        table.press("B", "king")
        (pressed,) = _seen(events, 1)
        assert isinstance(pressed, ButtonPressed) and (pressed.seat, pressed.button) == ("B", "king")


def test_a_closed_table_says_so_and_closes_twice() -> None:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    table = SimulatedTable(simulated_table(), events=events, buttons=False, miss=0.0)
    with pytest.raises(RuntimeError, match="no buttons"):
        table.press("A", "yes")
    table.close()
    table.close()
    assert table.pads is None and table.simulators == {}
    with pytest.raises(RuntimeError, match="closed"):
        table.wait_seen("hand.A", "KS")


def test_a_busy_process_does_not_lose_its_simulated_readers() -> None:
    """A first demo on a busy two-core machine lost its simulated readers ("reader … lost: [Errno 5]",
    then "back"), several at once: a simulated chip is a thread of the table's process, and on a busy
    machine it answered after nfcpy's 100 ms ACK time, or the host's thread did not run to read it in
    time. Here six threads keep the interpreter busy (as the panel's drawing, a garbage collection and
    a loaded machine do) for a few seconds while the pads poll their stacks: every reader stays online
    (the pads see the chips answer, late, and do not call them lost). Bounded: the busy time is fixed."""
    import threading
    import time

    events: queue.Queue[DeviceEvent] = queue.Queue()
    with SimulatedTable(simulated_table(), events=events, buttons=False, baud=115200) as table:
        for pad in ("hand.A", "play.A", "turnup"):
            table.place_stack(pad, ["KS", "QH"])
        assert all(table.wait_reported(pad, timeout=WAIT) for pad in ("hand.A", "play.A", "turnup"))
        stop = threading.Event()

        def busy() -> None:
            while not stop.is_set():
                sum(range(1000))

        threads = [threading.Thread(target=busy, daemon=True) for _ in range(6)]
        for thread in threads:
            thread.start()
        try:
            stop.wait(5.0)
        finally:
            stop.set()
            for thread in threads:
                thread.join()
        time.sleep(0.5)  # a reader lost at the end says so
        offline = [event.zone for event in _drain(events) if isinstance(event, ReaderStatus) and not event.online]
        assert offline == []
        assert all(table.wait_reported(pad, timeout=WAIT) for pad in ("hand.A", "play.A", "turnup"))


def _drain(events: queue.Queue[DeviceEvent]) -> list[DeviceEvent]:
    out: list[DeviceEvent] = []
    while True:
        try:
            out.append(events.get_nowait())
        except queue.Empty:
            return out
