"""RawTty, the pads' serial transport, on a pseudo-terminal pair: byte-exact."""

from __future__ import annotations

import errno
import os
import tty
from collections.abc import Iterator

import pytest

from drivers.nfc.pn532sim.frames import frame
from drivers.nfc.tty import RawTty

ACK = bytes.fromhex("0000FF00FF00")


@pytest.fixture
def line() -> Iterator[tuple[RawTty, int]]:
    master, slave = os.openpty()
    tty.setraw(master)
    port = RawTty(os.ttyname(slave))
    os.close(slave)
    try:
        yield port, master
    finally:
        port.release()
        os.close(master)


def command(code: int, params: bytes = b"") -> bytes:
    return frame(bytes([0xD4, code]) + params)


def response(code: int, data: bytes = b"") -> bytes:
    return frame(bytes([0xD5, code + 1]) + data)


def test_frames_are_written_and_read_whole(line: tuple[RawTty, int]) -> None:
    port, chip = line
    port.write(command(0x02))
    assert os.read(chip, 64) == command(0x02)
    os.write(chip, ACK + response(0x02, b"\x32\x01\x06\x07"))
    assert port.read(100) == ACK
    assert bytes(port.read(1000)) == response(0x02, b"\x32\x01\x06\x07")


def test_a_late_answer_to_an_earlier_command_is_dropped(line: tuple[RawTty, int]) -> None:
    """The chip answers command 0x4A after the host gave up on it and sent 0x02:
    the stale response (and the stale extra ACK) must not be taken for 0x02's."""
    port, chip = line
    port.write(command(0x02))
    os.read(chip, 64)
    os.write(chip, ACK + response(0x4A, b"\x00") + ACK + response(0x02, b"\x32\x01\x06\x07"))
    assert port.read(100) == ACK  # the first ACK after a command is its ACK
    assert bytes(port.read(1000)) == response(0x02, b"\x32\x01\x06\x07")


def test_nothing_but_stale_frames_is_a_timeout(line: tuple[RawTty, int]) -> None:
    port, chip = line
    port.write(command(0x02))
    os.read(chip, 64)
    os.write(chip, ACK + response(0x4A))
    assert port.read(100) == ACK
    with pytest.raises(OSError) as error:
        port.read(60)
    assert error.value.errno == errno.ETIMEDOUT


def test_resync_aborts_and_drains(line: tuple[RawTty, int]) -> None:
    port, chip = line
    os.write(chip, b"\x00\x00\xff" + response(0x4A, b"\x01\x01"))  # garbage and a stale answer
    port.resync(quiet=0.02)
    assert os.read(chip, 64) == ACK  # the abort the chip was sent
    port.write(command(0x02))
    os.read(chip, 64)
    os.write(chip, ACK + response(0x02, b"\x32"))
    assert port.read(100) == ACK
    assert bytes(port.read(1000)) == response(0x02, b"\x32")


def test_a_vanished_port_is_eio(line: tuple[RawTty, int]) -> None:
    port, chip = line
    port.write(command(0x02))
    os.close(chip)
    with pytest.raises(OSError) as error:
        port.read(200)
    assert error.value.errno == errno.EIO
    os.dup2(os.open(os.devnull, os.O_RDONLY), chip)  # the fixture closes it again


def test_an_interrupted_long_read_takes_nothing_and_the_next_read_takes_the_answer(line: tuple[RawTty, int]) -> None:
    """``interrupt()`` ends a long wait for a response even when the answer is there as well; the answer
    stays for the next read."""
    port, chip = line
    port.write(command(0x4A, b"\x02\x00"))
    os.read(chip, 64)
    os.write(chip, ACK)
    assert port.read(100) == ACK
    port.interrupt()
    os.write(chip, response(0x4A, b"\x00"))
    with pytest.raises(OSError) as error:
        port.read(1000)
    assert error.value.errno == errno.ETIMEDOUT
    assert bytes(port.read(1000)) == response(0x4A, b"\x00")


def test_a_resync_on_a_vanished_port_is_eio(line: tuple[RawTty, int]) -> None:
    port, chip = line
    os.close(chip)
    with pytest.raises(OSError) as error:
        port.resync(quiet=0.02)
    assert error.value.errno == errno.EIO
    os.dup2(os.open(os.devnull, os.O_RDONLY), chip)  # the fixture closes it again


def test_a_deadline_does_not_count_the_time_its_waiter_was_not_running() -> None:
    """A wait that woke much later than it asked (a busy machine, a process stopped and continued)
    gives the other side its whole time again, a few times at most; a wait on time does not."""
    from drivers.stalls import RESTARTS, STALL_S, Deadline

    now = [100.0]
    deadline = Deadline(0.1, clock=lambda: now[0])
    assert deadline.left() == pytest.approx(0.1)
    now[0] += 0.1  # woke on time: the time is up
    assert deadline.expired
    deadline = Deadline(0.1, clock=lambda: now[0])
    assert deadline.left() == pytest.approx(0.1)
    now[0] += 15.0  # stopped for 15 s inside its wait
    assert deadline.left() == pytest.approx(0.1) and deadline.stalls == 1
    for _ in range(RESTARTS):
        now[0] += 0.1 + 2 * STALL_S
        deadline.left()
    assert deadline.stalls == RESTARTS and deadline.expired  # stalled again and again: it ends
