"""A card the chip halted, or a NAK left IDLE, is selected again whether or not InSelect wakes it.

No public trace shows a PN532's InSelect waking a Type A target the chip halted itself (nfcpy never
sends InSelect): the reader falls back on the path nfcpy proves, a listing with the card's UID (a
field reset first for a halted card). The simulator models either chip (``in_select_wakes``), and a
reader may be told never to send InSelect.
"""

from __future__ import annotations

import queue

import pytest
from waiting import HANG_S

from drivers.device_events import CardSeen, DeviceEvent, Origin, ReaderStatus
from drivers.nfc.originality import OriginalityCheck, TagFacts
from drivers.nfc.pad import Pad, PadTiming
from drivers.nfc.pn532_reader import NfcpyReader
from drivers.nfc.pn532sim import Pn532Simulator, tag_signer
from drivers.nfc.reader import AskEvery
from hardware import ntag_signature

KEY = tag_signer.sim_public_key()
PAIR = ["04A1B2C3D4E501", "04A1B2C3D4E502"]  # bottom first; anticollision lists ...01 first
_IN_SELECT = 0x54


def judge(uid: str, facts: TagFacts | None) -> Origin:
    return ntag_signature.judge(uid, facts, KEY)



@pytest.mark.parametrize(("wakes", "in_select"), [(True, True), (False, True), (True, False)],
                         ids=["InSelect wakes it", "InSelect wakes nothing", "no InSelect"])
def test_both_cards_of_a_pair_are_asked_in_the_poll_that_lists_them(wakes: bool, in_select: bool) -> None:
    with Pn532Simulator(depth=2, miss=0.0, signer=tag_signer.sim_signer(), in_select_wakes=wakes) as sim, \
            NfcpyReader(sim.path, in_select=in_select) as reader:
        sim.place_stack(PAIR)
        heard = AskEvery()
        assert sorted(reader.poll(ask=heard)) == PAIR  # MaxTg=2: the chip halted the first to find the second
        assert {uid: judge(uid, facts) for uid, facts in heard.facts.items()} == dict.fromkeys(PAIR, Origin.GENUINE)
        again = reader.reselections
        sent_in_select = any(c[0] == _IN_SELECT for c in sim.commands)
        if wakes and in_select:
            assert (again.in_select, again.field_reset) == (1, 0)
        else:
            assert (again.in_select, again.field_reset) == (0, 1)  # the path nfcpy proves
            assert sent_in_select == in_select and again.in_select_missed == int(in_select)


def test_a_counterfeit_s_nak_is_followed_by_its_selection_by_uid_where_in_select_wakes_nothing() -> None:
    with Pn532Simulator(miss=0.0, in_select_wakes=False) as sim, NfcpyReader(sim.path) as reader:
        sim.place(PAIR[0], kind="counterfeit")
        heard = AskEvery()
        reader.poll(ask=heard)
        assert judge(PAIR[0], heard.facts[PAIR[0]]) == Origin.COUNTERFEIT  # both NAKs heard
        again = reader.reselections
        # the listing (MaxTg=2) halted it looking for a second: a field reset; IDLE after each NAK: none
        assert (again.field_reset, again.by_uid, again.in_select_missed) == (1, 2, 3)
        assert sim.tag(PAIR[0], "counterfeit").state == "active"  # selected, for the next InDeselect to halt


def test_read_facts_of_the_card_the_last_poll_left_alone_where_in_select_wakes_nothing() -> None:
    with Pn532Simulator(miss=0.0, signer=tag_signer.sim_signer(), in_select_wakes=False) as sim, \
            NfcpyReader(sim.path) as reader:
        sim.place(PAIR[0])
        assert reader.poll() == (PAIR[0],)  # MaxTg=2: the chip halted it looking for a second
        assert judge(PAIR[0], reader.read_facts(PAIR[0])) == Origin.GENUINE


def test_a_packet_laid_on_a_card_is_judged_where_in_select_wakes_nothing() -> None:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    check = OriginalityCheck(judge)
    stack = [*PAIR, "04A1B2C3D4E503"]
    with Pn532Simulator(depth=3, miss=0.0, signer=tag_signer.sim_signer(), in_select_wakes=False) as sim, \
            Pad("hand.A", sim.path, events=events, card_for=dict.fromkeys(stack, "KS").get,
                timing=PadTiming(poll_interval=0.005), originality=check):
        status = events.get(timeout=HANG_S)
        assert isinstance(status, ReaderStatus) and status.online
        sim.place(stack[0])
        first = events.get(timeout=HANG_S)
        sim.place_stack(stack[1:])  # a packet of two on the card lying there
        arrivals = [first] + [events.get(timeout=HANG_S) for _ in stack[1:]]
    assert sorted((e.sighting.uid, e.sighting.origin) for e in arrivals if isinstance(e, CardSeen)) == [
        (uid, Origin.GENUINE) for uid in stack]


def test_a_reader_opened_above_a_thousand_descriptors_reads_its_cards() -> None:
    """A fresh clone's suite failed six of these tests with ``filedescriptor out of range in select()``:
    its worker had opened over 2,000 descriptors, and the tty and the simulated chip waited with
    :func:`select.select`, which refuses a descriptor numbered 1024 or more (a long-lived service may
    get there too). They wait with :func:`select.poll`."""
    import os
    import resource

    if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < 1200:
        pytest.skip("this process may not open 1,200 descriptors")
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        with Pn532Simulator(depth=2, miss=0.0, signer=tag_signer.sim_signer()) as sim, \
                NfcpyReader(sim.path) as reader:
            sim.place_stack(PAIR)
            assert sorted(reader.poll(ask=AskEvery())) == PAIR
    finally:
        for fd in held:
            os.close(fd)
