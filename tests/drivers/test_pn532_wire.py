"""The PN532 frames the table sends, read on the wire: the bytes the simulated chip received.

As ``../shared/tools/pn532_frames.py`` reads them from outside the process (every byte written to
the chip), these tests read every byte the simulator took off its pty (its ``WIRE`` log) and cut it
into frames: the originality check sends ``GET_VERSION`` and ``READ_SIG`` as nfcpy sends Type 2
commands (InCommunicateThru), never as InDataExchange (which the PN532 takes as MIFARE commands:
``60`` is an authentication), and names a card by its UID with the cascade tag.
"""

from __future__ import annotations

import pytest

from drivers.device_events import TagFacts
from drivers.nfc.pn532sim import WIRE, Pn532Simulator
from drivers.nfc.reader import NfcpyReader
from hardware import ntag_signature

KEY = ntag_signature.sim_public_key()
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
    with Pn532Simulator(depth=3, miss=0.0, signer=ntag_signature.sim_signer()) as sim:
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

