"""A lean serial transport for nfcpy's PN532 driver.

nfcpy's own ``nfc.clf.transport.TTY`` goes through pyserial, which reprograms
the port (``tcsetattr``) every time a read timeout changes: twice per PN532
command. With six pads polling some thirty times a second that alone costs a
good part of a core on a Raspberry Pi. :class:`RawTty` keeps the same contract
(``TYPE``, ``open``, ``port``, ``baudrate``, ``read(timeout)``, ``write``,
``close``) on a raw file descriptor, configured once, with its own small
buffer. Every failure is an :class:`OSError` (a vanished port gives ``EIO``),
never a bare ``termios.error``.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import select
import termios
import time
import tty

from drivers.stalls import Deadline

logger = logging.getLogger(__name__)

WIRE = logging.DEBUG - 1
"""Log level of the byte dumps (below DEBUG, as nfcpy's own)."""

_ACK = bytes.fromhex("0000FF00FF00")
_START = bytes.fromhex("0000FF")  # every frame's preamble and start code
_SPEEDS = {
    9600: termios.B9600,
    19200: termios.B19200,
    38400: termios.B38400,
    57600: termios.B57600,
    115200: termios.B115200,
    230400: termios.B230400,
    460800: termios.B460800,
    921600: termios.B921600,
}


def _os_error(error: termios.error) -> OSError:
    code = error.args[0] if error.args and isinstance(error.args[0], int) else errno.EIO
    return OSError(code, os.strerror(code))


class RawTty:
    """nfcpy's TTY transport contract on a raw, non-blocking file descriptor.

    :param port: the serial device path (``/dev/ttyUSB0``, ``/dev/serial0``).
    :raises OSError: the port cannot be opened (``ENOENT``, ``EACCES``...).
    """

    TYPE = "TTY"

    def __init__(self, port: str) -> None:
        self._fd: int | None = None
        self._port = port
        self._baudrate = 0
        self._buffer = bytearray()
        self._expect: int | None = None
        self._awaiting_ack = False
        self._woken = False  # the last wait ended by interrupt()
        self._overdue = False  # the last command's ACK or answer did not come in time
        self.commands = 0
        """Command frames written since the port was made (a resent one counts again; ACKs do not)."""
        self.late = 0
        """Frames (an ACK, an answer) that came after the host had given up waiting for them (:meth:`resync`
        found them, or :meth:`read` dropped them as stale): the chip was late, not gone (a busy machine,
        where a simulated chip is a thread of it)."""
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        try:
            self.open(port)
        except OSError:
            self._close_pipe()
            raise

    @property
    def manufacturer_name(self) -> None:
        return None

    @property
    def product_name(self) -> None:
        return None

    def open(self, port: str, baudrate: int = 115200) -> None:
        """(Re)open ``port`` raw, 8N1, at ``baudrate`` bits a second.

        :raises OSError: the port cannot be opened or configured.
        """
        self.close()
        fd = os.open(port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        try:
            tty.setraw(fd)
            self._fd, self._port = fd, port
            self.baudrate = baudrate
        except (OSError, termios.error) as error:
            os.close(fd)
            self._fd = None
            raise error if isinstance(error, OSError) else _os_error(error) from error
        self._buffer.clear()

    @property
    def port(self) -> str:
        return self._port if self._fd is not None else ""

    @property
    def baudrate(self) -> int:
        return self._baudrate if self._fd is not None else 0

    @baudrate.setter
    def baudrate(self, value: int) -> None:
        if self._fd is None:
            return
        speed = _SPEEDS.get(value, termios.B115200)
        try:
            attributes = termios.tcgetattr(self._fd)
            attributes[4] = attributes[5] = speed
            attributes[2] |= termios.CLOCAL | termios.CREAD
            termios.tcsetattr(self._fd, termios.TCSANOW, attributes)
        except termios.error as error:
            raise _os_error(error) from error
        self._baudrate = value

    def read(self, timeout: float) -> bytearray:
        """One frame from the chip: an ACK or a whole normal/extended frame.

        Frames left over from an earlier command (an answer that came after the
        host had given up on it) are dropped: after a command is written the
        first ACK is its ACK, and a response must carry that command's code + 1.
        Without this, one late answer would put every later command one answer
        behind until the port was reopened.

        The time is the chip's: while this thread was not running (a busy machine, a process stopped
        and continued) it does not count (:class:`drivers.stalls.Deadline`), and what came meanwhile
        is read before the time is up. nfcpy gives a PN532 100 ms to ACK a command, and a host that
        did not listen for them took a chip that had answered for a dead one: on a busy two-core
        machine the demo's simulated readers were lost, several at once, and came back.

        :param timeout: milliseconds to wait (at least 50, as nfcpy's TTY).
        :raises OSError: ``ETIMEDOUT`` if nothing came, ``EIO`` if the port is gone.
        """
        deadline = Deadline(max(timeout / 1e3, 0.05))
        # Only long waits (a response, not an ACK) can be interrupted.
        interruptible = timeout > 150
        while True:
            frame = self._frame(deadline, interruptible)
            if frame is None:
                self._overdue = True
                raise OSError(errno.ETIMEDOUT, os.strerror(errno.ETIMEDOUT))
            if self._stale(frame):
                logger.debug("%s: dropped a stale frame %s", self._port, bytes(frame).hex())
                self.late += 1
                continue
            logger.log(WIRE, "<<< %s", frame.hex())
            return frame

    def _frame(self, deadline: Deadline, interruptible: bool) -> bytearray | None:
        head = self._take(6, deadline, interruptible)
        if not head:
            return None
        frame = bytearray(head)
        if frame.startswith(_ACK) or len(frame) < 6:
            return frame
        length = frame[3]
        if length == 0xFF:
            frame += self._take(3, deadline, interruptible)
            if len(frame) < 9:
                return frame
            length = frame[5] << 8 | frame[6]
        frame += self._take(length + 1, deadline, interruptible)
        return frame

    def _stale(self, frame: bytearray) -> bool:
        """True for a frame that answers an earlier command than the last one written."""
        if self._expect is None:
            return False
        if frame == _ACK:
            if self._awaiting_ack:
                self._awaiting_ack = False
                return False
            return True
        # normal frame: 00 00 FF LEN LCS D5 CODE ...; extended: 00 00 FF FF FF LENM LENL LCS D5 CODE
        body = 8 if frame[3:5] == b"\xff\xff" else 5
        if len(frame) > body + 1 and frame[body] == 0xD5:
            return frame[body + 1] != (self._expect + 1) & 0xFF
        return False

    def write(self, frame: bytes) -> None:
        """Discard unread input, then send ``frame``.

        :raises OSError: ``EIO`` if the port is gone.
        """
        fd = self._fd
        if fd is None:
            return
        logger.log(WIRE, ">>> %s", bytes(frame).hex())
        self._buffer.clear()
        self._note_command(bytes(frame))
        try:
            termios.tcflush(fd, termios.TCIFLUSH)
        except termios.error as error:
            raise _os_error(error) from error
        view = memoryview(bytes(frame))
        while view:
            try:
                written = os.write(fd, view)
            except BlockingIOError:
                poller = select.poll()
                poller.register(fd, select.POLLOUT)
                poller.poll(100)
                continue
            view = view[written:]

    def resync(self, quiet: float = 0.02, limit: float = 0.25) -> int:
        """After a failed exchange: abort the chip's command and drop what it still sends.

        Sends an ACK (the PN532 aborts the command under way), then reads and
        discards until the line stays quiet for ``quiet`` seconds (at most
        ``limit`` seconds). Without this, an answer that came too late is read
        as the answer to the next command, and every command after it is one
        answer behind until the port is reopened. What came before the abort
        is read first (the write flushes unread input): a frame of a command the
        host gave up on, come late, counts in :attr:`late`.

        :returns: how many bytes were dropped.
        :raises OSError: ``EIO`` if the port is gone.
        """
        fd = self._fd
        if fd is None:
            return 0
        drained = bytearray(self._buffer)  # what came before the abort, which the write would flush
        while (chunk := self._chunk(fd, 0.0)) is not None and chunk:
            drained += chunk
        self.write(_ACK)
        end = time.monotonic() + limit
        while time.monotonic() < end:
            chunk = self._chunk(fd, quiet)
            if chunk is None:
                break
            drained += chunk
        self._buffer.clear()
        if self._overdue and _START in drained:
            self.late += 1
            logger.debug("%s: the chip answered late", self._port)
        self._overdue = False
        dropped = len(drained)
        if dropped:
            logger.debug("%s: resync dropped %d stale bytes", self._port, dropped)
        return dropped

    def _note_command(self, frame: bytes) -> None:
        """Remember which command was written, to know its ACK and response."""
        if frame == _ACK:
            self._expect = None  # an abort: whatever comes next is not ours to judge
            return
        frame = frame[max(frame.find(b"\x00\x00\xff"), 0):]  # after the wake-up preamble nfcpy's init sends
        body = 8 if frame[3:5] == b"\xff\xff" else 5
        if len(frame) > body + 1 and frame[body] == 0xD4:
            self._expect = frame[body + 1]
            self._awaiting_ack = True
            self._overdue = False
            self.commands += 1

    def interrupt(self) -> None:
        """Make a long read waiting now (or the next one) time out at once.

        Long reads are those of more than 150 ms: waits for a response, never
        for an ACK (nfcpy would take a missing ACK for a broken link).

        Safe to call from another thread; nfcpy then aborts the command.
        """
        try:
            os.write(self._wake_w, b"x")
        except (BlockingIOError, OSError):
            logger.debug("interrupt pipe full or closed")

    def close(self) -> None:
        """Close the port. Safe to call twice."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def release(self) -> None:
        """Close the port and the interrupt pipe (after :meth:`close`, for good)."""
        self.close()
        self._close_pipe()

    def _close_pipe(self) -> None:
        for fd in (self._wake_r, self._wake_w):
            if fd >= 0:
                os.close(fd)
        self._wake_r = self._wake_w = -1

    def _take(self, count: int, deadline: Deadline, interruptible: bool = False) -> bytes:
        """Up to ``count`` bytes, waiting until ``deadline`` is up; what the port holds then is read
        (a thread that ran late finds what came meanwhile); an :meth:`interrupt` ends the wait."""
        fd = self._fd
        if fd is None:
            return b""
        while len(self._buffer) < count:
            left = deadline.left()
            chunk = self._chunk(fd, max(left, 0.0), interruptible and left > 0)
            if chunk is None and (left <= 0 or self._woken):
                break
            if chunk is not None:
                self._buffer += chunk
                if left <= 0 and not chunk:
                    break
        data = bytes(self._buffer[:count])
        del self._buffer[:count]
        return data

    def _chunk(self, fd: int, timeout: float, interruptible: bool = False) -> bytes | None:
        """What the port has within ``timeout`` seconds: some bytes, or none (a wake-up with nothing
        to read after all: ask again); None when nothing came in time, or :meth:`interrupt` was
        called (with ``interruptible``).

        :raises OSError: ``EIO`` if the port hung up (ready, and a read of nothing).
        """
        self._woken = False
        watched = [fd, self._wake_r] if interruptible else [fd]
        ready = readable(watched, timeout)
        if not ready:
            return None
        if self._wake_r in ready:
            os.read(self._wake_r, 64)
            self._woken = True
            return None
        try:
            chunk = os.read(fd, 4096)
        except BlockingIOError:
            return b""
        if not chunk:  # hang-up
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return chunk


def readable(fds: list[int], timeout: float) -> set[int]:
    """Which of ``fds`` can be read (or hung up) within ``timeout`` seconds (none: the time ran out).
    :func:`select.poll`, not :func:`select.select`, which refuses a descriptor numbered 1024 or more
    (``filedescriptor out of range``): a long-lived process, or a test worker after thousands of
    tests, opens its ports above that."""
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN | select.POLLPRI)
    return {fd for fd, _ in poller.poll(max(timeout, 0.0) * 1000)}


def port_takes(port: str, rate: int) -> bool:
    """Whether the serial port ``port`` takes ``rate``: the question nfcpy's ``init`` asks on Linux with
    ``os.system("stty -F PORT RATE 2> /dev/null")``, asked here of the kernel as ``stty`` asks it (the
    port opened non-blocking, its speed set with ``tcsetattr`` and read back; GNU stty fails when the
    read-back differs), then its settings put back (nfcpy runs ``stty -F PORT 115200`` after).

    No shell: ``os.system`` is C's ``system()``, which ignores SIGINT and SIGQUIT in the whole process
    until its child ends (POSIX, ``system``: "shall ignore the SIGINT and SIGQUIT signals"). nfcpy's probe
    runs it twice a reader; six readers opening at once kept a terminal's Ctrl-C out for tens of
    milliseconds at a time, and a Ctrl-C that came then was lost (the kernel drops an ignored signal).
    A port that cannot be opened takes no rate (``stty`` fails: nfcpy stays at 115,200).
    """
    speed = _SPEEDS.get(rate)
    if speed is None:
        return False
    try:
        fd = os.open(port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        before = termios.tcgetattr(fd)
        wanted = list(before)
        wanted[4] = wanted[5] = speed
        try:
            termios.tcsetattr(fd, termios.TCSANOW, wanted)
            after = termios.tcgetattr(fd)
        except termios.error:
            return False
        finally:
            with contextlib.suppress(termios.error):
                termios.tcsetattr(fd, termios.TCSANOW, before)
        return bool(after[4] == after[5] == speed)
    finally:
        os.close(fd)
