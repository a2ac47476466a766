"""A PN532 in PowerDown wakes on HSU as UM0701-02 §6.3.2.3 says, and the table waits for it.

The chip wakes on the fifth rising edge on its RX line and its UART hears nothing until its
oscillator is up, T_osc_start (2 ms at most) later (:mod:`drivers.nfc.pn532sim.hsu_wakeup`). nfcpy's
``init`` writes its wake-up bytes and first frame at once: a chip asleep loses that frame.
"""

from __future__ import annotations

import errno

import nfc.clf.pn532
import pytest
from pn532_commands import command

from drivers.nfc import hsu
from drivers.nfc.pn532_reader import NfcpyReader
from drivers.nfc.pn532sim import Pn532Simulator
from drivers.nfc.pn532sim.frames import frame
from drivers.nfc.pn532sim.hsu_wakeup import HsuWakeup, rising_edges
from drivers.nfc.tty import RawTty

KS = "04A224B2C31D80"
GET_FIRMWARE_VERSION = frame(b"\xd4\x02")
NFCPY_PREAMBLE = bytes(10)  # nfc/clf/pn532.py init: long_preamble = bytearray(10)


def _asleep(port: RawTty) -> None:
    command(port, 0x16, b"\xb0\x00")  # PowerDown, woken by I2C, SPI or HSU (as nfcpy's close asks)


def test_a_frame_written_with_the_wake_up_bytes_is_lost(sim: Pn532Simulator, port: RawTty) -> None:
    _asleep(port)
    assert sim.asleep
    port.write(NFCPY_PREAMBLE + GET_FIRMWARE_VERSION)  # nfcpy's init: one write
    with pytest.raises(OSError) as silent:
        port.read(200)
    assert silent.value.errno == errno.ETIMEDOUT
    assert sim.lost_asleep >= len(NFCPY_PREAMBLE) + 1  # the zeros and the frame's start with them
    assert not sim.asleep  # woken all the same: the next frame is heard
    assert command(port, 0x02)[:1] == b"\x32"


def test_a_frame_sent_after_the_wake_up_and_t_osc_start_is_heard(sim: Pn532Simulator, port: RawTty) -> None:
    _asleep(port)
    hsu.wake_up(port)
    assert command(port, 0x02)[:1] == b"\x32"
    assert sim.lost_asleep == len(hsu.WAKE_UP)  # the wake-up bytes only


def test_fewer_than_five_rising_edges_leave_the_chip_asleep(sim: Pn532Simulator, port: RawTty) -> None:
    _asleep(port)
    port.write(bytes(4))  # four bytes of 00: four stop bits, four rising edges
    with pytest.raises(OSError):
        port.read(100)
    assert sim.asleep and sim.lost_asleep == 4


def test_a_reader_closed_opens_again_on_the_chip_it_put_to_sleep() -> None:
    with Pn532Simulator() as chip:
        NfcpyReader(chip.path).close()  # nfcpy's close: PowerDown
        assert chip.asleep
        with NfcpyReader(chip.path) as again:
            chip.place(KS)
            assert again.poll() == (KS,)
        assert chip.asleep


def test_nfcpy_alone_does_not_wake_a_chip_it_put_to_sleep() -> None:
    """What the reader's wake-up saves: nfcpy's own init, on a chip its close put to sleep, hears no ACK."""
    with Pn532Simulator() as chip:
        nfc.clf.pn532.init(RawTty(chip.path)).close()
        transport = RawTty(chip.path)
        try:
            with pytest.raises(OSError):
                nfc.clf.pn532.init(transport)
        finally:
            transport.release()


def test_the_wake_up_model_counts_edges_across_writes_and_times_the_oscillator() -> None:
    wakeup = HsuWakeup()
    assert wakeup.hear(b"\x01", 0.0, 115200) == b"\x01"  # awake: everything is heard
    wakeup.sleep()
    byte = 10 / 115200
    assert wakeup.hear(bytes(4), 1.0, 115200) == b""  # four edges: still asleep
    assert wakeup.asleep
    assert wakeup.hear(b"\x00" + GET_FIRMWARE_VERSION, 2.0, 115200) == b""  # woken, the frame too soon
    assert not wakeup.asleep
    assert wakeup.hear(GET_FIRMWARE_VERSION, 2.0 + byte + 0.0002, 115200) == b""  # the oscillator starting
    tail = wakeup.hear(GET_FIRMWARE_VERSION, 2.0 + byte + 0.0009, 115200)  # up mid-frame (less the slack)
    assert 0 < len(tail) < len(GET_FIRMWARE_VERSION)
    assert wakeup.hear(GET_FIRMWARE_VERSION, 2.1, 115200) == GET_FIRMWARE_VERSION
    wakeup.sleep()
    assert wakeup.hear(b"\x55" + GET_FIRMWARE_VERSION, 3.0, 115200) == b""  # 55 alone has five edges
    assert wakeup.hear(GET_FIRMWARE_VERSION, 3.0 + byte + 0.0021, 115200) == GET_FIRMWARE_VERSION
    assert [rising_edges(b) for b in (0x55, 0xAA, 0x00, 0xF0)] == [5, 4, 1, 1]
