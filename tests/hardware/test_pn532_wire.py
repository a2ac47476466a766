"""The PN532 frames the table sends, read on the wire: the bytes the simulated chip received.

As ``../shared/tools/pn532_frames.py`` reads them from outside the process (every byte written to
the chip), these tests read every byte the simulator took off its pty (its ``WIRE`` log) and cut it
into frames: the originality check sends ``GET_VERSION`` and ``READ_SIG`` as nfcpy sends Type 2
commands (InCommunicateThru), never as InDataExchange (which the PN532 takes as MIFARE commands:
``60`` is an authentication), and names a card by its UID with the cascade tag. A pad with the
check asks each tag of a packet while the listing that found it holds it: no field reset, no
reselection, the tag heard before the InDeselect that halts it.
"""

from __future__ import annotations

import queue

import pytest
from waiting import HANG_S

from drivers.device_events import CardSeen, DeviceEvent, ReaderStatus
from drivers.nfc.originality import OriginalityCheck, TagFacts
from drivers.nfc.pad import Pad, PadTiming
from drivers.nfc.pn532_reader import NfcpyReader
from drivers.nfc.pn532sim import WIRE, Pn532Simulator, tag_signer
from hardware import ntag_signature

KEY = tag_signer.sim_public_key()
STACK = ["04A1B2C3D4E501", "04A1B2C3D4E502", "04A1B2C3D4E503"]  # bottom first
_IN_DATA_EXCHANGE, _IN_COMMUNICATE_THRU, _IN_LIST_PASSIVE_TARGET = 0x40, 0x42, 0x4A


def host_commands(caplog: pytest.LogCaptureFixture) -> list[bytes]:
    """Every command (code and data, TFI stripped) in the bytes the simulated chip received."""
    wire = b"".join(
        bytes.fromhex(record.getMessage().rsplit(" ", 1)[1])
        for record in caplog.records
        if record.name == "drivers.nfc.pn532sim.simulator" and " <<< " in record.getMessage()
    )
    commands, at = [], 0
    while (at := wire.find(b"\x00\x00\xff", at)) >= 0:
        size = wire[at + 3] if at + 4 < len(wire) else 0
        body = wire[at + 5 : at + 5 + size]
        if size >= 2 and len(body) == size and (size + wire[at + 4]) & 0xFF == 0 and body[0] == 0xD4:
            commands.append(bytes(body[1:]))
        at += 3
    return commands


def facts_of_a_stack(caplog: pytest.LogCaptureFixture, uids: list[str]) -> dict[str, TagFacts | None]:
    caplog.set_level(WIRE, logger="drivers.nfc.pn532sim.simulator")
    with Pn532Simulator(depth=3, miss=0.0, signer=tag_signer.sim_signer()) as sim:
        sim.place_stack(uids)
        with NfcpyReader(sim.path) as reader:
            assert set(reader.poll()) == set(uids)
            return {uid: reader.read_facts(uid) for uid in uids}


@pytest.mark.parametrize("uids", [STACK[:1], STACK], ids=["one card", "a stack of three"])
def test_the_originality_check_sends_type2_commands_as_nfcpy_does(
    caplog: pytest.LogCaptureFixture, uids: list[str]
) -> None:
    facts = facts_of_a_stack(caplog, uids)
    for uid in uids:
        assert ntag_signature.judge(uid, facts[uid], KEY) == "genuine"
    commands = host_commands(caplog)
    exchanges = [c for c in commands if c[0] == _IN_DATA_EXCHANGE]
    assert not [c.hex(" ") for c in exchanges if c[2:3] in (b"\x60", b"\x3c")]
    thru = [c[1:] for c in commands if c[0] == _IN_COMMUNICATE_THRU]
    assert thru.count(b"\x60") == len(uids)  # GET_VERSION: D4 42 60
    assert thru.count(b"\x3c\x00") == len(uids)  # READ_SIG: D4 42 3C 00


def test_a_card_of_a_stack_is_named_by_its_uid_with_the_cascade_tag(caplog: pytest.LogCaptureFixture) -> None:
    facts_of_a_stack(caplog, STACK)
    named = [c[3:] for c in host_commands(caplog) if c[0] == _IN_LIST_PASSIVE_TARGET and len(c) > 3]
    assert named  # two of the three are selected again by their UIDs
    for data in named:
        assert len(data) == 8 and data[0] == 0x88 and data[1:].hex().upper() in STACK


def test_a_nak_to_get_version_is_read_as_no_answer() -> None:
    # the receive CRC off, as nfcpy leaves it for a Type 2 tag: the 4-bit NAK comes through as one byte
    with Pn532Simulator(miss=0.0) as sim:
        sim.place(STACK[0], kind="counterfeit")
        with NfcpyReader(sim.path) as reader:
            assert reader.poll() == (STACK[0],)
            assert reader.read_facts(STACK[0]) == TagFacts(None, None)
            assert sim.tag(STACK[0], "counterfeit").state == "idle"  # the NAK sent it back to IDLE
            assert reader.read_facts(STACK[0]) == TagFacts(None, None)  # selected again by its UID



# -- a checked packet of three: each tag asked while the listing that found it holds it --------------


WAIT = HANG_S  # a hang's limit: a wait ends as soon as what it waits for comes
_FIELD, _READ_SIG, _GET_VERSION = bytes.fromhex("32 01"), bytes.fromhex("42 3C 00"), bytes.fromhex("42 60")
_IN_SELECT = 0x54
_WRITE_REGISTER_RX = bytes.fromhex("08 63 03 00")  # CIU_RxMode with the receive CRC off (nfcpy's sense_tta)


def laid_and_checked(uids: list[str]) -> tuple[list[bytes], list[CardSeen]]:
    """A pad with the originality check on an empty simulated pad; the packet ``uids`` laid at once.
    The commands from the listing that found the first of them to the last ``READ_SIG``, and the
    arrivals."""
    events: queue.Queue[DeviceEvent] = queue.Queue()
    check = OriginalityCheck(lambda uid, facts: ntag_signature.judge(uid, facts, KEY))
    timing = PadTiming(poll_interval=0.005, idle_wait=5.0)  # waiting for the packet the whole time
    with Pn532Simulator(depth=5, miss=0.0, signer=tag_signer.sim_signer()) as sim, \
            Pad("hand.A", sim.path, events=events, card_for=dict.fromkeys(uids, "KS").get, timing=timing,
                originality=check):
        status = events.get(timeout=WAIT)
        assert isinstance(status, ReaderStatus) and status.online
        sim.place_stack(uids)
        arrivals = [events.get(timeout=WAIT) for _ in uids]
        commands = [bytes(c) for c in sim.commands]
    first = max(i for i, c in enumerate(commands[: commands.index(_READ_SIG)]) if c[0] == _IN_LIST_PASSIVE_TARGET)
    last = len(commands) - 1 - commands[::-1].index(_READ_SIG)
    return commands[first : last + 1], [e for e in arrivals if isinstance(e, CardSeen)]


def test_a_checked_packet_of_three_is_asked_while_each_listing_holds_it() -> None:
    packet = STACK  # laid on an empty pad at once, as a dealer lays a packet
    commands, arrivals = laid_and_checked(packet)
    assert sorted(e.sighting.uid for e in arrivals) == sorted(packet)
    assert {e.sighting.origin for e in arrivals} == {"genuine"}
    codes = [c[0] for c in commands]
    # each tag listed alone, its receive CRC switched off, READ_SIG, halted; then the next: no field
    # reset, no reselection (by UID or InSelect) and no GET_VERSION for a tag whose signature came
    assert not [c.hex(" ") for c in commands if c.startswith(_FIELD)]
    assert _IN_SELECT not in codes and _GET_VERSION not in commands
    listings = [c for c in commands if c[0] == _IN_LIST_PASSIVE_TARGET]
    assert listings == [bytes.fromhex("4A 01 00")] * 3  # MaxTg=1, no UID named
    assert [c for c in commands if c[0] not in (0x06, 0x32)] == [
        bytes.fromhex("4A 01 00"), _WRITE_REGISTER_RX, _READ_SIG, bytes.fromhex("44 00"),
    ] * 2 + [bytes.fromhex("4A 01 00"), _WRITE_REGISTER_RX, _READ_SIG]



class Heard:
    """An :class:`~drivers.nfc.reader.Inquiry` that wants every tag and notes, for each answer, the
    last command the chip had taken when it was heard."""

    def __init__(self, sim: Pn532Simulator, *, take: bool = False) -> None:
        self.sim = sim
        self.take = take
        self.heard: dict[str, tuple[TagFacts, bytes]] = {}

    def wants(self, uid: str) -> bool:
        return True

    def answered(self, uid: str, facts: TagFacts) -> bool:
        self.heard[uid] = (facts, bytes(self.sim.commands[-1]))
        return self.take  # not taken: read_facts gives them


def test_each_tag_of_a_packet_is_heard_while_its_listing_holds_it() -> None:
    with Pn532Simulator(depth=3, miss=0.0, signer=tag_signer.sim_signer()) as sim:
        sim.place_stack(STACK)
        with NfcpyReader(sim.path) as reader:
            heard = Heard(sim)
            assert sorted(reader.poll(ask=heard)) == sorted(STACK)
            for uid in STACK:
                facts, last = heard.heard[uid]
                assert last == _READ_SIG  # heard before the InDeselect that halts it
                assert ntag_signature.judge(uid, facts, KEY) == "genuine"
                assert reader.read_facts(uid) == facts  # given once, not asked again
            assert not [c for c in sim.commands if c[0] == _IN_LIST_PASSIVE_TARGET and len(c) > 3]


def test_answers_the_pad_took_are_not_given_again() -> None:
    # what read_facts gives later (the enrolment asking a tag lying on its pad) is asked of the tag
    with Pn532Simulator(depth=3, miss=0.0, signer=tag_signer.sim_signer()) as sim:
        sim.place_stack(STACK)
        with NfcpyReader(sim.path) as reader:
            reader.poll(ask=Heard(sim, take=True))
            before = len(sim.commands)
            facts = reader.read_facts(STACK[0])
            assert facts is not None and facts.version is not None  # GET_VERSION asked: the tag itself
            assert ntag_signature.judge(STACK[0], facts, KEY) == "genuine"
            assert [c for c in list(sim.commands)[before:] if c[0] == _IN_LIST_PASSIVE_TARGET]  # selected again
