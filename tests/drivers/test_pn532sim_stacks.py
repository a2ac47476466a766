"""The emulated PN532 with stacks: REQA/WUPA/HLTA, MaxTg=2, depth, misses, and the
listing cycle of :class:`drivers.nfc.pn532_reader.NfcpyReader` frame by frame.

Everything goes through the pty: raw frames (``RawTty``) or the real nfcpy driver.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pn532_commands import command

from drivers.nfc.pn532_reader import NfcpyReader
from drivers.nfc.pn532sim import Pn532Simulator
from drivers.nfc.pn532sim.chip import CIU_BIT_FRAMING
from drivers.nfc.pn532sim.field import anticollision_order
from drivers.nfc.pn532sim.frames import frame
from drivers.nfc.tty import RawTty

# Seven-byte UIDs whose second byte, least significant bit first on air, reads 10 20 30 40 50:
# bit anticollision selects U5 first, then U4, U3, U2, U1.
U1, U2, U3, U4, U5 = (f"04{n:02X}0000000001" for n in (0x08, 0x04, 0x0C, 0x02, 0x0A))
STACK = [U1, U2, U3, U4, U5]  # bottom first

_STATUS_TIMEOUT = b"\x01"
ATQA_ON_AIR = bytes.fromhex("4400")


@pytest.fixture
def sim() -> Iterator[Pn532Simulator]:
    with Pn532Simulator(depth=5, miss=0.0) as simulator:
        yield simulator


def listed(data: bytes) -> list[str]:
    """UIDs in an InListPassiveTarget answer (7-byte UIDs, no ATS)."""
    return [data[1 + 12 * i + 5 : 1 + 12 * i + 12].hex().upper() for i in range(data[0])]


def field_off(port: RawTty) -> None:
    assert command(port, 0x32, b"\x01\x02") == b""


def short_frame(port: RawTty, code: int) -> bytes:
    """A 7-bit REQA (26) or WUPA (52) through InCommunicateThru: status and ATQA."""
    command(port, 0x08, bytes([CIU_BIT_FRAMING >> 8, CIU_BIT_FRAMING & 0xFF, 0x07]))
    try:
        return command(port, 0x42, bytes([code]))
    finally:
        command(port, 0x08, bytes([CIU_BIT_FRAMING >> 8, CIU_BIT_FRAMING & 0xFF, 0x00]))


def test_reqa_wakes_idle_tags_only_wupa_halted_ones_too(sim: Pn532Simulator, port: RawTty) -> None:
    assert short_frame(port, 0x26) == _STATUS_TIMEOUT  # nothing on the pad
    sim.place(U1)
    assert short_frame(port, 0x26) == b"\x00" + ATQA_ON_AIR
    assert listed(command(port, 0x4A, b"\x01\x00")) == [U1]  # selected: ACTIVE
    assert command(port, 0x44, b"\x00") == b"\x00"  # InDeselect: HLTA, the tag is HALT
    assert sim.tag(U1).state == "halt"
    assert short_frame(port, 0x26) == _STATUS_TIMEOUT  # REQA: a halted tag is silent
    assert command(port, 0x4A, b"\x01\x00") == b"\x00"  # and so InListPassiveTarget finds nothing
    assert short_frame(port, 0x52) == b"\x00" + ATQA_ON_AIR  # WUPA wakes it
    assert sim.tag(U1).state == "ready"


def test_field_reset_brings_halted_tags_back_to_idle(sim: Pn532Simulator, port: RawTty) -> None:
    sim.place(U1)
    assert listed(command(port, 0x4A, b"\x01\x00")) == [U1]
    assert command(port, 0x44, b"\x00") == b"\x00"
    assert command(port, 0x4A, b"\x01\x00") == b"\x00"
    field_off(port)
    assert sim.tag(U1).state == "idle" and not sim.rf_on
    assert listed(command(port, 0x4A, b"\x01\x00")) == [U1]


def test_hlta_sent_by_the_host(sim: Pn532Simulator, port: RawTty) -> None:
    sim.place(U2)
    assert listed(command(port, 0x4A, b"\x01\x00")) == [U2]
    assert command(port, 0x42, b"\x50\x00") == _STATUS_TIMEOUT  # HLTA is never answered
    assert sim.tag(U2).state == "halt"
    assert command(port, 0x4A, b"\x01\x00") == b"\x00"


def test_max_tg_2_lists_two_and_deselect_lets_the_next_two_answer(
    sim: Pn532Simulator, port: RawTty
) -> None:
    sim.place_stack([U1, U2, U3])
    assert listed(command(port, 0x4A, b"\x02\x00")) == [U3, U2]  # anticollision order
    # the chip halted the first target to find the second, which stays selected
    assert (sim.tag(U3).state, sim.tag(U2).state, sim.tag(U1).state) == ("halt", "active", "idle")
    assert command(port, 0x44, b"\x00") == b"\x00"
    assert listed(command(port, 0x4A, b"\x02\x00")) == [U1]
    assert command(port, 0x44, b"\x00") == b"\x00"
    assert command(port, 0x4A, b"\x02\x00") == b"\x00"
    field_off(port)
    assert listed(command(port, 0x4A, b"\x02\x00")) == [U3, U2]


def test_in_data_exchange_reselects_a_halted_target(sim: Pn532Simulator, port: RawTty) -> None:
    sim.place_stack([U1, U2])
    assert listed(command(port, 0x4A, b"\x02\x00")) == [U2, U1]
    page0 = command(port, 0x40, b"\x01\x30\x00")  # Tg 1 (halted): WUPA + SELECT, then READ
    assert page0[0] == 0 and page0[1:4] == bytes.fromhex(U2)[:3]
    assert (sim.tag(U2).state, sim.tag(U1).state) == ("active", "halt")
    assert command(port, 0x54, b"\x02") == b"\x00"  # InSelect Tg 2
    assert (sim.tag(U2).state, sim.tag(U1).state) == ("halt", "active")
    assert command(port, 0x54, b"\x03") == b"\x27"  # no such target


def test_depth_counts_from_the_bottom(sim: Pn532Simulator, port: RawTty) -> None:
    sim.depth = 2
    sim.place_stack([U1, U2, U3, U4])
    assert sim.readable == (U1, U2)
    assert listed(command(port, 0x4A, b"\x02\x00")) == [U2, U1]
    command(port, 0x44, b"\x00")
    assert command(port, 0x4A, b"\x02\x00") == b"\x00"  # U3 and U4 never answer
    assert sim.lift_top() == U4 and sim.on_pad == (U1, U2, U3)
    sim.remove(U1)  # the one below goes: U3 slides into the readable layer
    assert sim.readable == (U2, U3)
    assert sim.lift_all() == (U2, U3) and sim.on_pad == ()
    with pytest.raises(KeyError):
        sim.lift_top()
    with pytest.raises(ValueError):
        sim.depth = 0


def test_place_stack_checks() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Pn532Simulator(depth=0)
    with pytest.raises(ValueError, match="probability"):
        Pn532Simulator(miss=1.5)
    with Pn532Simulator() as sim:
        with pytest.raises(ValueError, match="2 tags but 1"):
            sim.place_stack([U1, U2], ["ecarte:KS"])
        sim.place_stack([U1, U2], [None, "ecarte:QH"])
        sim.place(U1)  # already there: stays where it lies
        assert sim.on_pad == (U1, U2) and sim.tag(U2).ndef_text() == "ecarte:QH"


def test_anticollision_order_is_bitwise_air_order(sim: Pn532Simulator) -> None:
    tags = sim.place_stack(STACK)
    assert [t.uid_hex for t in anticollision_order(tags)] == [U5, U4, U3, U2, U1]


# -- the pad's listing cycle, through nfcpy ---------------------------------------


def cycle(sim: Pn532Simulator, reader: NfcpyReader, wait: float = 0.0) -> tuple[tuple[str, ...], list[bytes]]:
    """One poll of ``reader``: what it found and the commands the chip received."""
    before = len(sim.commands)
    found = reader.poll(wait)
    return found, list(sim.commands)[before:]


MUTE = bytes.fromhex("32 01 02")
LIST2 = bytes.fromhex("4A 02 00")
DESELECT_ALL = bytes.fromhex("44 00")


def test_listing_cycle_exact_commands_and_frames(sim: Pn532Simulator) -> None:
    with NfcpyReader(sim.path) as reader:
        assert cycle(sim, reader) == ((), [MUTE, LIST2])
        assert cycle(sim, reader) == ((), [LIST2])  # nothing selected: the field stays on
        sim.place(U1)
        assert cycle(sim, reader) == ((U1,), [LIST2])  # one found: fewer than MaxTg, done
        sim.place(U2)
        assert cycle(sim, reader) == ((U2, U1), [MUTE, LIST2, DESELECT_ALL, LIST2])
        sim.place(U3)
        assert cycle(sim, reader) == ((U3, U2, U1), [MUTE, LIST2, DESELECT_ALL, LIST2])
        sim.place_stack([U4, U5])
        assert cycle(sim, reader) == (
            (U5, U4, U3, U2, U1), [MUTE, LIST2, DESELECT_ALL, LIST2, DESELECT_ALL, LIST2]
        )
    # the frames on the wire for the listing and the deselect
    assert frame(b"\xd4" + LIST2) == bytes.fromhex("0000FF04FCD44A0200E000")
    assert frame(b"\xd4" + DESELECT_ALL) == bytes.fromhex("0000FF03FDD44400E800")


def test_waiting_poll_switches_the_retries(sim: Pn532Simulator) -> None:
    with NfcpyReader(sim.path) as reader:
        reader.poll()
        sim.place_stack([U1, U2, U3])
        found, commands = cycle(sim, reader, wait=0.5)
        assert found == (U3, U2, U1)
        assert commands == [
            bytes.fromhex("32 05 01 00 FF"), LIST2,  # the PN532 retries on its own
            DESELECT_ALL, bytes.fromhex("32 05 01 00 01"), LIST2,  # one quick look for the rest
        ]


@pytest.mark.parametrize("depth", range(1, 6))
@pytest.mark.parametrize("size", range(1, 6))
def test_stacks_of_1_to_5_at_depths_1_to_5(size: int, depth: int) -> None:
    with Pn532Simulator(depth=depth, miss=0.0) as sim, NfcpyReader(sim.path) as reader:
        sim.place_stack(STACK[:size])
        for _ in range(2):  # and the same again after the field reset
            assert set(reader.poll()) == set(STACK[: min(size, depth)])


def test_ndef_read_of_a_tag_inside_a_stack(sim: Pn532Simulator) -> None:
    sim.place_stack([U1, U2, U3], [None, "ecarte:9D", None])
    with NfcpyReader(sim.path) as reader:
        assert set(reader.poll()) == {U1, U2, U3}  # all three halted now
        assert reader.read_text(U2) == "ecarte:9D"
        reader.write_text(U1, "ecarte:KS")
        assert sim.tag(U1).ndef_text() == "ecarte:KS"
        assert set(reader.poll()) == {U1, U2, U3}


def test_misses_are_seeded_and_only_for_stacks() -> None:
    def run(seed: int, stack: list[str]) -> tuple[list[tuple[str, ...]], int]:
        with Pn532Simulator(depth=5, miss=0.3, seed=seed) as sim, NfcpyReader(sim.path) as reader:
            sim.place_stack(stack)
            polls = [reader.poll() for _ in range(12)]
            return polls, sim.misses

    first, misses = run(7, STACK[:3])
    assert misses > 0 and any(len(found) < 3 for found in first)
    assert run(7, STACK[:3]) == (first, misses)  # deterministic
    assert run(8, STACK[:3])[0] != first
    alone, none = run(7, STACK[:1])
    assert none == 0 and all(found == (U1,) for found in alone)  # a lone card couples well


def test_flicker_counts_polls_not_listings(sim: Pn532Simulator) -> None:
    sim.place_stack([U1, U2, U3])
    with NfcpyReader(sim.path) as reader:
        sim.flicker(U1, polls=2)
        assert reader.poll() == (U3, U2)  # silent for the whole cycle
        assert reader.poll() == (U3, U2)
        assert reader.poll() == (U3, U2, U1)


def test_after_an_aborted_waiting_poll_the_field_is_reset(sim: Pn532Simulator) -> None:
    """A tag laid just as the host gives up waiting may have been selected, and with
    MaxTg=2 halted, by the answer the host dropped: the next poll resets the field."""
    with NfcpyReader(sim.path) as reader:
        found, commands = cycle(sim, reader, wait=0.05)
        assert found == () and commands[-1] == LIST2  # the host aborted it with an ACK
        sim.place(U1)
        sim.tag(U1).state = "halt"  # what the dropped answer left behind
        found, commands = cycle(sim, reader, wait=1.0)
        assert found == (U1,) and commands == [MUTE, LIST2]
        found, commands = cycle(sim, reader)
        assert commands[0] == MUTE
