"""Pads holding stacks: a pad's content is a set, each tag arrives and leaves on its own.

Real nfcpy on the emulated PN532; nothing asserts on time (generous waits on events
or on the simulator's poll count).
"""

from __future__ import annotations

import dataclasses
import hashlib
import queue
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from waiting import HANG_S

from drivers.device_events import CardSeen, DeviceEvent, ReaderStatus, Sighting
from drivers.nfc.originality import OriginalityCheck, TagFacts
from drivers.nfc.pad import Pad, PadTiming
from drivers.nfc.pn532sim import Pn532Simulator

WAIT = HANG_S  # a hang's limit: a wait ends as soon as what it waits for comes
FAST = PadTiming(poll_interval=0.005, leave_after=3, fault_limit=3, reopen_first=0.02, reopen_max=0.2)
CARDS = ["KS", "QS", "JS", "AS", "TS", "9S", "8S"]
UIDS = [f"04{i:02X}{i * 16:02X}B2C31D80" for i in range(1, len(CARDS) + 1)]
CARD = dict(zip(UIDS, CARDS, strict=True))
STRANGER = "04EEEEEEEEEE01"


@pytest.fixture
def card_names() -> dict[str, str]:
    """The cards the pads' tags stand for (what a registry's ``card_for`` answers)."""
    return dict(CARD)


def open_pad(sim: Pn532Simulator, events: queue.Queue[DeviceEvent], card_names: dict[str, str]) -> Pad:
    pad = Pad("hand.A", sim.path, events=events, card_for=card_names.get, timing=FAST)
    assert strip(events.get(timeout=WAIT)) == ReaderStatus("hand.A", online=True)
    return pad


@pytest.fixture
def deep() -> Iterator[Pn532Simulator]:
    with Pn532Simulator(depth=5, miss=0.0) as simulator:
        yield simulator


@pytest.fixture
def pad(deep: Pn532Simulator, events: queue.Queue[DeviceEvent], card_names: dict[str, str]) -> Iterator[Pad]:
    with open_pad(deep, events, card_names) as made:
        yield made


def strip(event: DeviceEvent) -> DeviceEvent:
    assert 0 < event.t <= time.monotonic()
    return dataclasses.replace(event, t=0.0)


def take(events: queue.Queue[DeviceEvent], count: int) -> list[DeviceEvent]:
    return [strip(events.get(timeout=WAIT)) for _ in range(count)]


def arrived(*uids: str) -> set[CardSeen]:
    return {CardSeen("hand.A", Sighting(uid, CARD.get(uid))) for uid in uids}


def left(*uids: str) -> set[CardSeen]:
    return {CardSeen("hand.A", Sighting(uid, CARD.get(uid)), gone=True) for uid in uids}


def test_a_packet_of_three_is_seen_whole(
    wait_polls, deep: Pn532Simulator, pad: Pad, events: queue.Queue[DeviceEvent]
) -> None:
    deep.place_stack(UIDS[:3])
    assert set(take(events, 3)) == arrived(*UIDS[:3])
    assert pad.present == frozenset(UIDS[:3])
    assert isinstance(pad.present, frozenset)
    assert {pad.card_of(uid) for uid in UIDS[:3]} == {"KS", "QS", "JS"}
    wait_polls(deep, 10)
    assert events.empty()


def test_adding_and_lifting_on_top_gives_exactly_what_changed(
    wait_polls, deep: Pn532Simulator, pad: Pad, events: queue.Queue[DeviceEvent]
) -> None:
    deep.place_stack(UIDS[:3])
    assert set(take(events, 3)) == arrived(*UIDS[:3])
    deep.place(UIDS[3])
    assert set(take(events, 1)) == arrived(UIDS[3])
    deep.place_stack(UIDS[4:6])
    assert set(take(events, 1)) == arrived(UIDS[4])  # six on a pad of depth five: one unseen
    wait_polls(deep, 10)
    assert events.empty() and UIDS[5] not in pad.present
    assert deep.lift_top() == UIDS[5]  # the unseen one goes: nothing changes
    wait_polls(deep, 10)
    assert events.empty()
    deep.lift_top()
    assert set(take(events, 1)) == left(UIDS[4])
    deep.remove(UIDS[0])  # pulled from the bottom
    assert set(take(events, 1)) == left(UIDS[0])
    deep.lift_all()
    assert set(take(events, 3)) == left(*UIDS[1:4])
    assert pad.present == frozenset()


def test_cards_above_the_depth_are_not_seen(
    wait_polls, events: queue.Queue[DeviceEvent], card_names: dict[str, str]
) -> None:
    with Pn532Simulator(depth=2, miss=0.0) as sim, open_pad(sim, events, card_names) as pad:
        sim.place_stack(UIDS[:3])
        assert set(take(events, 2)) == arrived(*UIDS[:2])
        wait_polls(sim, 10)
        assert events.empty() and pad.present == frozenset(UIDS[:2])
        sim.lift_top()  # the unseen third
        wait_polls(sim, 10)
        assert events.empty()
        sim.place(UIDS[3])  # on top of two: unseen too
        wait_polls(sim, 10)
        assert events.empty()
        sim.remove(UIDS[1])  # the card above slides into reach
        assert set(take(events, 2)) == left(UIDS[1]) | arrived(UIDS[3])


def test_a_missed_poll_does_not_make_a_card_leave(
    wait_polls, deep: Pn532Simulator, pad: Pad, events: queue.Queue[DeviceEvent]
) -> None:
    deep.place_stack(UIDS[:3])
    assert set(take(events, 3)) == arrived(*UIDS[:3])
    deep.flicker(UIDS[1], polls=FAST.leave_after - 1)
    wait_polls(deep, 3 * FAST.leave_after + 5)
    assert events.empty() and pad.present == frozenset(UIDS[:3])
    deep.flicker(UIDS[1], polls=FAST.leave_after)  # missing that many polls: it left
    assert take(events, 2) == [CardSeen("hand.A", Sighting(UIDS[1], "QS"), gone=True),
                               CardSeen("hand.A", Sighting(UIDS[1], "QS"))]


def test_random_misses_of_stacked_cards_are_debounced(
    wait_for, events: queue.Queue[DeviceEvent], card_names: dict[str, str]
) -> None:
    with Pn532Simulator(depth=5, miss=0.08, seed=3) as sim, open_pad(sim, events, card_names) as pad:
        sim.place_stack(UIDS[:4])
        assert set(take(events, 4)) == arrived(*UIDS[:4])
        wait_for(lambda: sim.misses >= 6, "sim.misses >= 6")
        assert events.empty() and pad.present == frozenset(UIDS[:4])


def test_an_unregistered_card_inside_a_stack_is_named_by_its_ndef(
    wait_polls, deep: Pn532Simulator, pad: Pad, events: queue.Queue[DeviceEvent]
) -> None:
    deep.place_stack([UIDS[0], STRANGER, UIDS[1]], [None, "ecarte:9D", None])
    seen = set(take(events, 3))
    assert CardSeen("hand.A", Sighting(STRANGER, "9D")) in seen
    assert arrived(UIDS[0], UIDS[1]) <= seen
    wait_polls(deep, 10)
    assert events.empty()


def test_reader_unplugged_mid_stack(
    wait_polls, deep: Pn532Simulator, pad: Pad, events: queue.Queue[DeviceEvent]
) -> None:
    deep.place_stack(UIDS[:3])
    assert set(take(events, 3)) == arrived(*UIDS[:3])
    deep.unplug()
    offline = take(events, 1)[0]
    assert isinstance(offline, ReaderStatus) and not offline.online
    deep.lift_top()  # lifted while the reader was away
    deep.replug()
    assert take(events, 1) == [ReaderStatus("hand.A", online=True)]
    assert set(take(events, 1)) == left(UIDS[2])  # only what changed
    wait_polls(deep, 10)
    assert events.empty() and pad.present == frozenset(UIDS[:2])


@st.composite
def moves(draw: st.DrawFn) -> list[tuple[str, int]]:
    """Packets laid on top, single cards on top, the top lifted, everything lifted."""
    return draw(st.lists(
        st.one_of(
            st.tuples(st.just("packet"), st.integers(2, 3)),
            st.tuples(st.just("card"), st.just(1)),
            st.tuples(st.just("top"), st.just(0)),
            st.tuples(st.just("all"), st.just(0)),
        ),
        min_size=1, max_size=5,
    ))


def play_script(script: list[tuple[str, int]], sim: Pn532Simulator, pad: Pad, events: queue.Queue[DeviceEvent],
                wait_for: Any, wait_polls: Any, origin: str | None = None) -> None:
    """Each move of ``script`` made on ``sim``; after each, exactly the events of what changed (with
    ``origin``, when the pad checks originality), the pad holding what is readable, then no event more
    while it polls on."""
    spare = list(UIDS)
    for move, count in script:
        before = set(sim.readable)
        if move in ("packet", "card"):
            laid, spare = spare[:count], spare[count:]
            sim.place_stack(laid)
        elif move == "top" and sim.on_pad:
            spare.append(sim.lift_top())
        elif move == "all":
            spare += sim.lift_all()
        after = set(sim.readable)
        changes = left(*(before - after)) | arrived(*(after - before))
        expected = changes if origin is None else {
            dataclasses.replace(e, sighting=dataclasses.replace(e.sighting, origin=origin)) for e in changes}
        assert set(take(events, len(expected))) == expected
        wait_for(lambda after=after: pad.present == after, "pad.present == after")
        wait_polls(sim, 2 * FAST.leave_after)
        assert events.empty()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(depth=st.integers(1, 4), script=moves())
def test_every_change_of_a_stack_gives_exactly_its_events(
    wait_for, wait_polls, depth: int, script: list[tuple[str, int]], card_names: dict[str, str]
) -> None:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    with Pn532Simulator(depth=depth, miss=0.0) as sim, open_pad(sim, events, card_names) as pad:
        play_script(script, sim, pad, events, wait_for, wait_polls)


def _sign(uid: bytes) -> bytes:
    """A stand-in for NXP's signature (the drivers know no key: hardware.ntag_signature judges the
    real one, tests/hardware): 32 bytes only this UID gets."""
    return hashlib.sha256(uid).digest()


def _judge(uid: str, facts: TagFacts | None) -> str:
    ok = facts is not None and facts.signature == _sign(bytes.fromhex(uid))
    return "genuine" if ok else "bad_signature"


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(depth=st.integers(1, 4), script=moves())
def test_every_change_of_a_checked_stack_gives_exactly_its_events(
    wait_for, wait_polls, depth: int, script: list[tuple[str, int]], card_names: dict[str, str]
) -> None:
    """With the originality check each arriving tag is asked while the listing that found it holds
    it (one tag a listing from then on): the same events as without, each with its verdict."""
    events: queue.Queue[DeviceEvent] = queue.Queue()
    check = OriginalityCheck(_judge)
    with Pn532Simulator(depth=depth, miss=0.0, signer=_sign) as sim, \
            Pad("hand.A", sim.path, events=events, card_for=card_names.get, timing=FAST, originality=check) as pad:
        assert strip(events.get(timeout=WAIT)) == ReaderStatus("hand.A", online=True)
        play_script(script, sim, pad, events, wait_for, wait_polls, origin="genuine")


# -- the simulated table ----------------------------------------------------------
