"""A PN532 keeps the serial rate a host set until its power is cut; a reader finds it again.

nfcpy's ``init`` moves a PN532 to 921,600 baud and its ``Device.close`` back to 115,200
(``nfc/clf/pn532.py``); a host killed before it closes leaves the chip at 921,600, and the
next ``init`` at 115,200 hears nothing. The simulator keeps the chip's rate as the chip
does and garbles what comes at another; the reader finds a chip left faster and sets it
back (``drivers/nfc/hsu.py``), or keeps its link at 115,200 when asked.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import nfc.clf.pn532
import pytest
from waiting import HANG_S

from drivers.nfc import hsu
from drivers.nfc.pn532_reader import NfcpyReader
from drivers.nfc.pn532sim import Pn532Simulator
from drivers.nfc.pn532sim.chip_host import ChipHost, ControlError, ask, chip_path
from drivers.nfc.tty import RawTty

KS = "04A224B2C31D80"


def _killed_at_921600(path: str) -> None:
    """What a host killed outright leaves: nfcpy's init (the chip moved to 921,600), no close."""
    transport = RawTty(path)
    nfc.clf.pn532.init(transport)
    transport.release()


def test_a_chip_keeps_the_rate_a_killed_host_left_it_at_and_garbles_frames_at_another() -> None:
    with Pn532Simulator() as chip:
        _killed_at_921600(chip.path)
        assert chip.chip_baud == 921600
        with pytest.raises(OSError):  # nfcpy's init at the power-on rate: nothing answers
            nfc.clf.pn532.init(RawTty(chip.path))
        assert chip.stats.garbled >= 1
        assert chip.chip_baud == 921600
        chip.unplug()  # the power cut: the chip starts at 115,200 again
        chip.replug()
        device = nfc.clf.pn532.init(RawTty(chip.path))
        device.close()  # nfcpy's close sets it back to 115,200
        assert chip.chip_baud == 115200


@pytest.mark.parametrize("link_baud", [115200, 921600])
def test_a_reader_finds_a_chip_left_at_921600_and_sets_it_back(link_baud: int) -> None:
    with Pn532Simulator() as chip:
        _killed_at_921600(chip.path)
        with NfcpyReader(chip.path, link_baud=link_baud) as reader:
            assert reader.recovered_from == 921600
            assert chip.chip_baud == link_baud  # set back to 115,200, then where the reader wants it
            chip.place(KS)
            assert reader.poll() == (KS,)


@pytest.mark.parametrize("link_baud", [115200, 921600])
@pytest.mark.parametrize("late", [0.06, 0.12])
def test_a_chip_left_at_921600_that_acks_late_is_still_found_at_921600(link_baud: int, late: float) -> None:
    """The race a busy machine ran: the simulated chip's thread not scheduled for longer than the
    recovery's 50 ms ACK wait. Its late answer came while the host asked 460,800 and was taken for
    that rate's (SetSerialBaudrate then refused: no PN532 answers); now it reaches that line as
    garbage, and the rates are asked once more with nfcpy's 100 ms."""
    with Pn532Simulator() as chip:
        _killed_at_921600(chip.path)
        chip.answer_late(1, late)  # the first command the chip hears: the GetFirmwareVersion at 921,600
        with NfcpyReader(chip.path, link_baud=link_baud) as reader:
            assert reader.recovered_from == 921600
            assert chip.chip_baud == link_baud
            chip.place(KS)
            assert reader.poll() == (KS,)


@pytest.mark.parametrize("link_baud", [115200, 921600])
def test_a_reader_killed_at_either_link_rate_is_opened_again(link_baud: int) -> None:
    with Pn532Simulator() as chip:
        killed = NfcpyReader(chip.path, link_baud=link_baud)
        assert chip.chip_baud == link_baud
        killed._close_transport()  # the process dies: the port goes, the chip is never told
        with NfcpyReader(chip.path, link_baud=link_baud) as again:
            assert again.recovered_from == (None if link_baud == hsu.POWER_ON else link_baud)
            chip.place(KS)
            assert again.poll() == (KS,)


def test_a_reader_asked_to_keeps_the_link_at_the_power_on_rate() -> None:
    with Pn532Simulator() as chip, NfcpyReader(chip.path, link_baud=115200) as reader:
        assert chip.chip_baud == 115200 and chip.line_baud == 115200
        chip.place(KS)
        assert reader.poll() == (KS,)
        assert 0x10 not in [command[0] for command in chip.commands]  # no SetSerialBaudrate
        assert chip.stats.garbled == 0


def test_a_reader_on_a_silent_port_is_still_not_found() -> None:
    with Pn532Simulator() as chip:
        chip.ignore_commands(50)
        with pytest.raises(OSError):
            NfcpyReader(chip.path)


def test_chips_in_a_chip_host_outlive_a_reader_killed_with_sigkill(tmp_path: Path) -> None:
    directory = str(tmp_path / "chips")
    with ChipHost(directory, ["turnup"]) as host:
        chip = host.chips["turnup"]
        assert chip.path == chip_path(directory, "turnup") and os.path.islink(chip.path)
        code = (
            "import os, signal, sys, nfc.clf.pn532\n"
            "from drivers.nfc.tty import RawTty\n"
            "nfc.clf.pn532.init(RawTty(sys.argv[1]))\n"
            "os.kill(os.getpid(), signal.SIGKILL)\n"
        )
        killed = subprocess.run([sys.executable, "-c", code, chip.path], timeout=HANG_S, check=False)
        assert killed.returncode == -signal.SIGKILL
        assert chip.chip_baud == 921600  # the chip outlived the process that moved it
        chip.place(KS, "ecarte:KS")
        with NfcpyReader(chip.path) as reader:
            assert reader.recovered_from == 921600
            assert reader.poll() == (KS,)
            assert reader.read_text(KS) == "ecarte:KS"
        assert chip.state()["chip_baud"] == 115200
        with pytest.raises(ControlError, match="no pad"):
            ask(directory, {"op": "state", "pad": "hand.C"})
    assert not os.path.exists(chip.path)  # the host's end: the chips' power cut


def test_the_chip_host_refuses_bad_requests_with_exit_2(tmp_path: Path) -> None:
    directory = str(tmp_path / "chips")
    command = [str(Path(sys.executable).parent / "ecarte-table"), "chips"]
    with ChipHost(directory, ["turnup"]):
        bad = ("not json", '["a list"]', '{"op": "fly", "pad": "turnup"}', '{"op": "remove", "pad": "turnup"}')
        for request in bad:
            asked = subprocess.run([*command, directory, "--ask", request], capture_output=True, text=True,
                                   timeout=HANG_S, check=False)
            assert asked.returncode == 2, request
            assert asked.stderr.startswith("ecarte-table chips: ") and "Traceback" not in asked.stderr
        asked = subprocess.run([*command, directory, "--ask", '{"op": "pads"}'], capture_output=True, text=True,
                               timeout=HANG_S, check=False)
        assert asked.returncode == 0 and chip_path(directory, "turnup") in asked.stdout
    for pads in ("", "turnup,turnup"):
        served = subprocess.run([*command, directory, "--pads", pads], capture_output=True, text=True,
                                timeout=HANG_S, check=False)
        assert served.returncode == 2 and "Traceback" not in served.stderr


def test_a_chip_left_waiting_for_a_card_at_921600_is_found() -> None:
    """The host died while the chip polled on its own for a card (MxRtyPassiveActivation FF)."""
    with Pn532Simulator() as chip:
        killed = NfcpyReader(chip.path, link_baud=921600)
        killed._device().chipset.rf_configuration(0x05, b"\x01\x00\xff")  # MxRtyPassiveActivation FF
        port = killed._transport
        port.write(hsu.frame(b"\xd4\x4a\x02\x00"))  # InListPassiveTarget: no card, the chip keeps polling
        assert bytes(port.read(timeout=100)) == bytes.fromhex("0000ff00ff00")  # its ACK, no answer
        killed._close_transport()  # the host dies with the poll under way
        with NfcpyReader(chip.path) as reader:
            assert reader.recovered_from == 921600
            chip.place(KS)
            assert reader.poll() == (KS,)


def _set_serial_baudrate(port: RawTty, code: int) -> None:
    """SetSerialBaudrate sent and answered at the port's rate; the host's ACK not sent."""
    port.write(hsu.frame(bytes([0xD4, 0x10, code])))
    assert bytes(port.read(timeout=100)) == bytes.fromhex("0000ff00ff00")
    assert bytes(port.read(timeout=100))[5:7] == b"\xd5\x11"


def test_the_rate_changes_with_the_hosts_ack_or_a_frame_at_the_new_rate_in_its_place() -> None:
    """The ACK after SetSerialBaudrate moves the chip; a pty may lose it (a host that flushes its output
    before reopening), so a frame at the new rate in its place moves it too; one at the old rate does not."""
    with Pn532Simulator() as chip:
        port = RawTty(chip.path)
        try:
            _set_serial_baudrate(port, 7)  # 921,600
            assert chip.chip_baud == 115200  # not before the host's ACK
            port.write(hsu.frame(b"\xd4\x02"))  # at the old rate instead of the ACK: the chip stays
            assert bytes(port.read(timeout=100)) == bytes.fromhex("0000ff00ff00")
            port.read(timeout=100)
            assert chip.chip_baud == 115200
            _set_serial_baudrate(port, 7)
            port.baudrate = 921600  # the ACK lost: the next frame comes at the new rate
            port.write(hsu.frame(b"\xd4\x02"))
            assert bytes(port.read(timeout=100)) == bytes.fromhex("0000ff00ff00")
            assert bytes(port.read(timeout=100))[5:7] == b"\xd5\x03"
            assert chip.chip_baud == 921600
            hsu.set_rate(port, 115200)  # answer at 921,600, the ACK, the port at 115,200
            assert hsu.answers_at(port, 115200)
            assert chip.chip_baud == 115200 and chip.stats.garbled == 0
        finally:
            port.release()


def test_an_answer_sent_at_the_chip_s_rate_reaches_a_line_at_another_as_garbage() -> None:
    """A host that gave up on a chip and moved its line to another rate reads the chip's late answer
    as a UART would: bytes of no frame, never the answer."""
    with Pn532Simulator() as chip:
        _killed_at_921600(chip.path)
        transport = RawTty(chip.path)
        try:
            transport.open(chip.path, 921600)
            chip.answer_late(1, 0.2)
            transport.write(hsu.frame(b"\xd4\x02"))  # GetFirmwareVersion at the chip's rate, answered late
            until = time.monotonic() + HANG_S
            while chip.stats.late < 1 and time.monotonic() < until:  # the chip heard it (at 921,600)
                time.sleep(0.005)
            transport.baudrate = 460800  # the host moves on before the ACK comes
            try:
                seen = bytes(transport.read(timeout=500))
            except TimeoutError:
                seen = b""
        finally:
            transport.close()
        assert not seen.startswith(b"\x00\x00\xff")  # neither the ACK nor the answer
        assert chip.stats.garbled_answers == 2  # its ACK and its answer
