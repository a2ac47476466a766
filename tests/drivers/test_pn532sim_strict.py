"""The simulated PN532 refuses what the chip refuses, and takes the time the air and the wire take.

Each rule of :mod:`drivers.nfc.pn532sim.chip` that a careless host's frames would break has its
test here, sending those frames (what the table sent before this rule) through the pty; the timing
rules are checked on the model's figures, never on a clock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from pn532_commands import command

from drivers.nfc.pn532_reader import NfcpyReader
from drivers.nfc.pn532sim import Pn532Simulator
from drivers.nfc.pn532sim.chip import GUARD_TIME, Pn532Core
from drivers.nfc.pn532sim.field import Field
from drivers.nfc.pn532sim.frames import ACK, frame
from drivers.nfc.pn532sim.ntag213 import Ntag213
from drivers.nfc.tty import RawTty

KS = "04A224B2C31D80"
QH = "04B1C2D3E4F501"
BIT = 128 / 13.56e6  # one bit at 106 kbit/s (fc/128)


@pytest.fixture
def sim() -> Iterator[Pn532Simulator]:
    with Pn532Simulator(depth=3, miss=0.0) as simulator:
        yield simulator


# -- InDataExchange is MIFARE ---------------------------------------------------------------


def test_in_data_exchange_60_to_a_type2_tag_is_an_authentication_that_fails(
    sim: Pn532Simulator, port: RawTty
) -> None:
    sim.place(KS)
    assert command(port, 0x4A, b"\x01\x00")[0] == 1
    assert command(port, 0x40, b"\x01\x60") == b"\x14"  # D4 40 01 60: MIFARE authentication error
    assert command(port, 0x40, b"\x01\x61\x04" + bytes(6) + bytes.fromhex(KS)[:4]) == b"\x14"
    assert sim.tag(KS).state == "active"  # the tag was not asked
    assert command(port, 0x42, b"\x60") == b"\x00" + Ntag213.VERSION  # D4 42 60: the tag's answer


def test_in_data_exchange_still_carries_type2_reads(sim: Pn532Simulator, port: RawTty) -> None:
    sim.place(KS)
    assert command(port, 0x4A, b"\x01\x00")[0] == 1
    assert command(port, 0x40, b"\x01\x30\x00")[1:4] == bytes.fromhex(KS)[:3]  # 30: a MIFARE read


# -- a UID names a card with its cascade tag --------------------------------------------------


def test_a_bare_seven_byte_uid_selects_nothing(sim: Pn532Simulator, port: RawTty) -> None:
    sim.place_stack([KS, QH])
    assert command(port, 0x4A, b"\x01\x00" + bytes.fromhex(QH)) == b"\x00"  # D4 4A 01 00 04 …
    listed = command(port, 0x4A, b"\x01\x00\x88" + bytes.fromhex(QH))
    assert listed[0] == 1 and listed[6:13] == bytes.fromhex(QH)
    assert command(port, 0x4A, b"\x01\x00\x88" + bytes.fromhex(QH)[:3]) == b"\x01" + listed[1:]  # CL1 only
    assert command(port, 0x4A, b"\x01\x00" + bytes.fromhex(QH)[:4]) == b"\x00"  # no CT: no 7-byte tag's CL1


def test_a_waiting_poll_for_a_bare_uid_waits(sim: Pn532Simulator, port: RawTty) -> None:
    sim.place(KS)
    assert command(port, 0x32, b"\x05\x01\x00\xff") == b""  # MxRtyPassiveActivation FF
    port.write(frame(bytes([0xD4, 0x4A, 0x01, 0x00]) + bytes.fromhex(KS)))
    assert bytes(port.read(2000)) == ACK
    with pytest.raises(OSError):
        port.read(300)  # no card answers to it: the chip keeps polling
    port.write(ACK)  # abort


# -- time on the air ----------------------------------------------------------------------------


def test_listing_after_a_field_reset_waits_the_guard_time() -> None:
    field = Field(depth=2, miss=0.0)
    field.lay(Ntag213(KS))
    core = Pn532Core(field)
    core.execute(bytes.fromhex("32 01 02"))  # field off (nfcpy's mute)
    core.execute(bytes.fromhex("4A 01 00 88") + bytes.fromhex(KS))
    # REQA (7 bits) + ATQA (2 bytes) + two levels of SELECT (7 bytes + CRC) and SAK (1 + CRC),
    # each frame with its start and end bits and a frame delay of 1172/fc
    air = (9 + 20) * BIT + 2 * ((2 + 81 + 2 + 27) * BIT) + 6 * 1172 / 13.56e6
    assert core.rf_time == pytest.approx(GUARD_TIME + air)
    assert GUARD_TIME >= 5.1e-3
    core.execute(bytes.fromhex("42 3C 00"))  # READ_SIG: 2 bytes + CRC out, 32 + CRC back, 9 bits a byte
    assert core.rf_time == pytest.approx((2 + 36 + 2 + 306) * BIT + 2 * 1172 / 13.56e6)


def test_a_listing_in_a_field_already_on_does_not_wait_again() -> None:
    field = Field(depth=2, miss=0.0)
    field.lay(Ntag213(KS))
    core = Pn532Core(field)
    core.execute(bytes.fromhex("4A 01 00"))
    first = core.rf_time
    field.power_off()  # the card back to IDLE, the field left on
    core.execute(bytes.fromhex("4A 01 00"))
    assert first - core.rf_time == pytest.approx(GUARD_TIME)


def test_in_deselect_halts_a_selected_tag_with_a_hlta_on_the_air() -> None:
    field = Field(depth=2, miss=0.0)
    field.lay(tag := Ntag213(KS))
    core = Pn532Core(field)
    core.execute(bytes.fromhex("4A 01 00"))
    assert tag.state == "active"
    core.execute(bytes.fromhex("44 00"))
    # HLTA: 2 bytes + CRC, 9 bits a byte with the start and end bits, a frame delay, then the 1 ms
    # in which an answer would mean NAK (ISO/IEC 14443-3)
    assert core.rf_time == pytest.approx((2 + 36) * BIT + 1172 / 13.56e6 + 1e-3)
    assert tag.state == "halt"
    core.execute(bytes.fromhex("44 00"))
    assert core.rf_time == 0.0  # a halted tag is not spoken to


def test_the_wire_is_paced_at_the_speed_nfcpy_moves_the_chip_to() -> None:
    with Pn532Simulator(baud=921600) as sim:
        assert sim.link_baud == 115200  # the PN532's speed at power-on
        with NfcpyReader(sim.path):
            assert (sim.host_baud, sim.link_baud) == (921600, 921600)  # nfcpy's pn532.init moved it
        assert sim.link_baud == 115200  # nfcpy's close moves it back
    with Pn532Simulator(baud=115200) as sim, NfcpyReader(sim.path):
        assert (sim.host_baud, sim.link_baud) == (921600, 115200)  # ``baud`` caps the link


def test_a_paced_command_takes_its_model_time_in_two_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    # each time.sleep overshoots (timer slack, a busy machine): the command and its ACK are one wait,
    # the air and the answer another, and together exactly the model's wire time (10 bits a byte)
    waits: list[float] = []
    real_sleep = time.sleep

    def sleep(seconds: float) -> None:
        if threading.current_thread().name.startswith("pn532sim"):
            waits.append(seconds)
        real_sleep(seconds)

    with Pn532Simulator(baud=115200) as simulator:
        port = RawTty(simulator.path)
        try:
            monkeypatch.setattr(time, "sleep", sleep)
            sent = frame(bytes([0xD4, 0x02]))  # GetFirmwareVersion: no air
            port.write(sent)
            assert bytes(port.read(2000)) == ACK
            answer = bytes(port.read(2000))
        finally:
            monkeypatch.undo()
            port.release()
    assert len(waits) == 2
    assert sum(waits) == pytest.approx((len(sent) + len(ACK) + len(answer)) * 10 / 115200)
