"""A simulated I2C bus with an SSD1306 or SH1106 on it: the display's twin.

luma's real :class:`luma.core.interface.serial.i2c` writes to it as to an
smbus2 bus: ``write_i2c_block_data(address, control, data)`` (at most 32 data
bytes a call) when it is handed the bus, ``i2c_rdwr(i2c_msg.write(...))`` when
it opened smbus2 itself. The bus decodes every control, command and data byte
the way the controller chip would, into display memory, and rebuilds the glass
from it with the chip's registers (segment remap, COM scan direction,
multiplex ratio, display offset, start line, invert, entire display on,
display on/off, charge pump), so tests assert on the pixels a player would
see, and a wrongly initialised chip shows up mirrored, flipped or dark::

    >>> from luma.core.interface.serial import i2c
    >>> from luma.oled.device import ssd1306
    >>> bus = FakeI2CBus("ssd1306")
    >>> device = ssd1306(i2c(bus=bus, address=0x3C))
    >>> bus.chip.display_on, bus.bytes_sent > 1024
    (True, True)

The modelled modules are the common 0.96" (SSD1306) and 1.3" (SH1106) boards:
a 128×64 glass on SEG0-127 of the SSD1306, on SEG2-129 of the SH1106 (132
columns of RAM), mounted so that segment remap on (``0xA1``) and COM scan
reversed (``0xC8``), as luma sends them, show RAM column 0 (SH1106: 2) at the
left and RAM row 0 at the top.

Bytes are counted as a real bus carries them after the address byte: the
control byte of each write plus its payload. A full SSD1306 frame from luma in
SMBus blocks is 7 + 1,024 + 32 = 1,063 bytes.
"""

from __future__ import annotations

import errno
import logging
import os
import random
import threading
from collections.abc import Sequence
from typing import Protocol

from PIL import Image

from drivers.closing import Closing
from drivers.display.chips import check_chip

logger = logging.getLogger(__name__)

WIDTH = 128
HEIGHT = 64
PAGES = HEIGHT // 8
#: smbus2 refuses more data bytes than this in one SMBus block write.
SMBUS_BLOCK_MAX = 32
#: ``i2c_msg.flags`` bit of a read.
I2C_M_RD = 0x0001

_CO = 0x80  # control byte: one byte follows, then another control byte
_DC = 0x40  # control byte: display data (else commands)

# commands followed by that many argument bytes (SSD1306 datasheet, section 10)
_ARGS_SSD1306 = {
    0x81: 1, 0x20: 1, 0x21: 2, 0x22: 2, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1,
    0x8D: 1, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0xA3: 2, 0xD6: 1,
}
# SH1106 datasheet: no addressing-mode or window commands; 0xAD DC-DC takes one byte.
# 0x8D is not an SH1106 command, but luma sends it (with 0x14) and the common
# SH1106 clones accept it: decoded as a one-byte-argument pump command.
_ARGS_SH1106 = {0x81: 1, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1, 0xAD: 1, 0x8D: 1}
# commands that change nothing the panel shows (scrolling, zoom, NOP, read-modify-write)
_IGNORED_SSD1306 = frozenset({0x26, 0x27, 0x29, 0x2A, 0x2E, 0x2F, 0xA3, 0xD6, 0xE3})
_IGNORED_SH1106 = frozenset({0x30, 0x31, 0x32, 0x33, 0xE0, 0xEE, 0xE3})


class I2CMessage(Protocol):
    """What :meth:`FakeI2CBus.i2c_rdwr` needs of an ``smbus2.i2c_msg``."""

    addr: int
    flags: int
    len: int

    def __bytes__(self) -> bytes: ...


class ControllerChip:
    """The display memory and registers of one SSD1306 or SH1106.

    :param chip: ``ssd1306`` (128 columns of RAM, page/horizontal/vertical
        addressing with column and page windows) or ``sh1106`` (132 columns of
        RAM, page addressing; the glass shows columns 2 to 129).
    :param garbage_seed: RAM powers up holding seeded noise, as a real chip's
        does, instead of zeros.
    :raises ValueError: an unknown chip.
    """

    def __init__(self, chip: str, *, garbage_seed: int | None = None) -> None:
        check_chip(chip)
        self.chip = chip
        self.columns = 128 if chip == "ssd1306" else 132
        self.visible_offset = 0 if chip == "ssd1306" else 2
        self._args = _ARGS_SSD1306 if chip == "ssd1306" else _ARGS_SH1106
        self._ignored = _IGNORED_SSD1306 if chip == "ssd1306" else _IGNORED_SH1106
        self._garbage_seed = garbage_seed
        self.unknown_commands: list[int] = []
        self.reset()

    def reset(self) -> None:
        """Power-on values from the datasheets."""
        size = self.columns * PAGES
        if self._garbage_seed is None:
            self.ram = bytearray(size)
        else:
            self.ram = bytearray(random.Random(self._garbage_seed).randbytes(size))
        self.display_on = False
        self.contrast = 0x7F if self.chip == "ssd1306" else 0x80
        self.inverted = False
        self.all_on = False
        self.segment_remap = False
        self.com_scan_dec = False
        self.multiplex = 0x3F  # ratio - 1: 64 lines
        self.start_line = 0
        self.display_offset = 0
        self.mode = 2  # SSD1306 resets to page addressing (0 horizontal, 1 vertical)
        self.col_start, self.col_end = 0, self.columns - 1
        self.page_start, self.page_end = 0, PAGES - 1
        self.column = 0
        self.page = 0
        # the SSD1306's pump is off after reset; the SH1106's DC-DC converter is on
        self.charge_pump = self.chip == "sh1106"
        self.clock_divide = 0x80 if self.chip == "ssd1306" else 0x50
        self.precharge = 0x22
        self.com_pins = 0x12
        self.vcom_detect = 0x20 if self.chip == "ssd1306" else 0x35
        self._pending: list[int] = []

    def command(self, data: Sequence[int]) -> None:
        """Feed command bytes (after a 0x00 control byte); arguments may span writes."""
        for byte in data:
            self._pending.append(byte)
            need = self._args.get(self._pending[0], 0)
            if len(self._pending) > need:
                self._execute(self._pending)
                self._pending = []

    def _execute(self, cmd: list[int]) -> None:
        op = cmd[0]
        ssd = self.chip == "ssd1306"
        page_mode = not ssd or self.mode == 2
        if op in (0xAE, 0xAF):
            self.display_on = op == 0xAF
        elif op == 0x81:
            self.contrast = cmd[1]
        elif op in (0xA4, 0xA5):
            self.all_on = op == 0xA5
        elif op in (0xA6, 0xA7):
            self.inverted = op == 0xA7
        elif op in (0xA0, 0xA1):
            self.segment_remap = op == 0xA1
        elif op in (0xC0, 0xC8):
            self.com_scan_dec = op == 0xC8
        elif 0x40 <= op <= 0x7F:
            self.start_line = op - 0x40
        elif op == 0xA8:
            self.multiplex = max(0x0F, min(cmd[1] & 0x3F, 0x3F))
        elif op == 0xD3:
            self.display_offset = cmd[1] & 0x3F
        elif op == 0xD5:
            self.clock_divide = cmd[1]
        elif op == 0xD9:
            self.precharge = cmd[1]
        elif op == 0xDA:
            self.com_pins = cmd[1]
        elif op == 0xDB:
            self.vcom_detect = cmd[1]
        elif op == 0x8D:
            self.charge_pump = bool(cmd[1] & 0x04)
        elif not ssd and op == 0xAD:
            self.charge_pump = bool(cmd[1] & 0x01)
        elif ssd and op == 0x20:
            self.mode = cmd[1] & 0x03 if cmd[1] & 0x03 != 3 else 2
        elif ssd and op == 0x21:
            self.col_start, self.col_end = cmd[1] & 0x7F, cmd[2] & 0x7F
            self.column = self.col_start
        elif ssd and op == 0x22:
            self.page_start, self.page_end = cmd[1] & 0x07, cmd[2] & 0x07
            self.page = self.page_start
        elif 0xB0 <= op <= 0xB7:
            if page_mode:
                self.page = op - 0xB0
        elif op <= 0x0F:
            if page_mode:
                self.column = (self.column & 0xF0) | op
        elif 0x10 <= op <= 0x1F:
            if page_mode:
                self.column = (self.column & 0x0F) | ((op & 0x0F) << 4)
        elif op in self._ignored:
            pass
        else:
            # the chip ignores what it does not know (an SH1106 fed the SSD1306's 0x20)
            self.unknown_commands.append(op)
            logger.debug("%s ignores unknown command 0x%02X", self.chip, op)

    def data(self, data: Sequence[int]) -> None:
        """Feed display data bytes (after a 0x40 control byte) at the address pointer."""
        horizontal = self.chip == "ssd1306" and self.mode in (0, 1)
        for byte in data:
            if self.column < self.columns:
                self.ram[self.page * self.columns + self.column] = byte
            if not horizontal:
                # page addressing: the column pointer moves on, the page does not
                if self.chip == "ssd1306" and self.column >= self.col_end:
                    self.column = self.col_start
                elif self.column < self.columns:
                    self.column += 1  # SH1106: past column 131 the bytes are lost
                continue
            if self.mode == 0:  # horizontal: column first, then next page
                if self.column >= self.col_end:
                    self.column = self.col_start
                    self.page = self.page_start if self.page >= self.page_end else self.page + 1
                else:
                    self.column += 1
            else:  # vertical: page first, then next column
                if self.page >= self.page_end:
                    self.page = self.page_start
                    self.column = self.col_start if self.column >= self.col_end else self.column + 1
                else:
                    self.page += 1

    def transfer(self, payload: bytes) -> None:
        """Decode one I2C write after the address: control byte(s), then commands or data."""
        i, n = 0, len(payload)
        while i < n:
            control = payload[i]
            i += 1
            feed = self.data if control & _DC else self.command
            if control & _CO:
                feed(payload[i:i + 1])
                i += 1
                continue
            feed(payload[i:])
            return

    def ram_bit(self, column: int, row: int) -> int:
        """One bit of display RAM (1 = lit before invert)."""
        return self.ram[(row // 8) * self.columns + column] >> (row % 8) & 1

    def panel(self) -> Image.Image:
        """What the glass shows: a 1-bit 128×64 image, 1 = lit.

        Dark when the display is off or (SSD1306) the charge pump is off. Display
        line ``L`` shows RAM row ``(L + offset + start line) % 64`` and is driven
        on COM ``N-1-L`` (``0xC8``) or ``L``; lines past the multiplex ratio ``N``
        stay dark.
        """
        image = Image.new("1", (WIDTH, HEIGHT), 0)
        if not (self.display_on and self.charge_pump):
            return image
        if self.all_on:
            return Image.new("1", (WIDTH, HEIGHT), 1)
        lines = self.multiplex + 1
        columns = []
        for x in range(WIDTH):
            seg = self.visible_offset + WIDTH - 1 - x  # the glass's left edge is the highest SEG
            columns.append(self.columns - 1 - seg if self.segment_remap else seg)
        out = bytearray(WIDTH * HEIGHT)
        ram, cols, inverted = self.ram, self.columns, self.inverted
        for y in range(HEIGHT):
            com = HEIGHT - 1 - y  # the glass's top row is COM63
            line = lines - 1 - com if self.com_scan_dec else com
            if not 0 <= line < lines:
                continue
            row = (line + self.display_offset + self.start_line) % HEIGHT
            base, bit = (row // 8) * cols, row % 8
            for x, column in enumerate(columns):
                if (ram[base + column] >> bit & 1) != inverted:
                    out[y * WIDTH + x] = 255
        return Image.frombytes("L", (WIDTH, HEIGHT), bytes(out)).convert("1")


class FakeI2CBus(Closing):
    """An smbus2-like bus with one display chip at ``address``.

    Counts the bytes a real bus would carry (the control byte and the payload of
    each write; the address byte is not counted). Thread-safe.

    :param chip: ``ssd1306`` or ``sh1106``.
    :param address: the chip's I2C address (a write to another one fails like
        a missing device: ``OSError(EREMOTEIO)``).
    :param garbage_seed: the chip's RAM powers up as seeded noise (see
        :class:`ControllerChip`).
    :raises ValueError: an unknown chip.
    """

    def __init__(self, chip: str = "ssd1306", *, address: int = 0x3C,
                 garbage_seed: int | None = None) -> None:
        self.chip = ControllerChip(chip, garbage_seed=garbage_seed)
        self.address = address
        self.bytes_sent = 0
        self.writes = 0
        self.failed_writes = 0
        self._mark = 0
        self._fail: int | None = 0
        self._fail_errno = errno.EIO
        self._attached = True
        self._lock = threading.Lock()
        self.closed = False

    # -- the smbus2 surface ---------------------------------------------------------------

    def write_i2c_block_data(self, i2c_addr: int, register: int, data: Sequence[int],
                             force: bool | None = None) -> None:
        """One I2C write: ``register`` is the control byte (0x00 commands, 0x40 data).

        :param data: at most 32 bytes.
        :raises ValueError: more than 32 data bytes (as smbus2).
        :raises OSError: the bus is closed (EBADF), nothing answers at that
            address or the display is detached (EREMOTEIO), a simulated fault.
        """
        if len(data) > SMBUS_BLOCK_MAX:
            raise ValueError("Data length cannot exceed 32 bytes")
        self._write(i2c_addr, bytes([register & 0xFF, *(b & 0xFF for b in data)]))

    def write_byte_data(self, i2c_addr: int, register: int, value: int,
                        force: bool | None = None) -> None:
        """A control byte and one byte.

        :raises OSError: as :meth:`write_i2c_block_data`.
        """
        self._write(i2c_addr, bytes([register & 0xFF, value & 0xFF]))

    def i2c_rdwr(self, *i2c_msgs: I2CMessage) -> None:
        """Combined transfers (luma's path when it opened smbus2 itself): each write
        message is decoded like a block write of any length; reads are only answered.

        :raises OSError: as :meth:`write_i2c_block_data`.
        """
        for msg in i2c_msgs:
            if msg.flags & I2C_M_RD:
                with self._lock:
                    self._check(msg.addr)
                continue
            self._write(msg.addr, bytes(msg)[:msg.len])

    def write_quick(self, i2c_addr: int, force: bool | None = None) -> None:
        """An address-only probe, as ``i2cdetect`` sends.

        :raises OSError: nothing answers at that address (EREMOTEIO).
        """
        with self._lock:
            self._check(i2c_addr)

    def read_byte(self, i2c_addr: int, force: bool | None = None) -> int:
        """The status byte: bit 6 set while the display is off (SSD1306 and SH1106).

        :raises OSError: nothing answers at that address (EREMOTEIO).
        """
        with self._lock:
            self._check(i2c_addr)
            return 0x00 if self.chip.display_on else 0x40

    def close(self) -> None:
        """Close the bus (safe to call twice); later transfers fail with EBADF."""
        self.closed = True

    # -- faults -----------------------------------------------------------------------------

    def fail(self, count: int | None = 1, code: int = errno.EIO) -> None:
        """Make the next ``count`` writes fail with ``OSError(code)``, as smbus2 raises
        them (EIO, ETIMEDOUT: a bus error; EREMOTEIO: no acknowledge). ``None``:
        every write, until :meth:`heal`."""
        with self._lock:
            self._fail = count
            self._fail_errno = code

    def heal(self) -> None:
        """Stop the failures set by :meth:`fail`."""
        with self._lock:
            self._fail = 0

    def detach(self) -> None:
        """Unplug the display: every transfer gets no acknowledge (EREMOTEIO)."""
        with self._lock:
            self._attached = False

    def attach(self, *, power_cycled: bool = True) -> None:
        """Plug the display back in; ``power_cycled``: it lost its registers and RAM."""
        with self._lock:
            self._attached = True
            if power_cycled:
                self.chip.reset()

    # -- what tests and the demo read -----------------------------------------------------------

    def mark(self) -> None:
        """Start counting :attr:`bytes_since_mark` from now."""
        with self._lock:
            self._mark = self.bytes_sent

    @property
    def bytes_since_mark(self) -> int:
        """Bytes sent since the last :meth:`mark`, in bytes."""
        return self.bytes_sent - self._mark

    def panel(self) -> Image.Image:
        """What the panel shows now: a 1-bit 128×64 image."""
        with self._lock:
            return self.chip.panel()

    def ram_image(self) -> Image.Image:
        """The display RAM as stored (128 or 132 × 64 pixels): no remap, no invert."""
        with self._lock:
            chip = self.chip
            out = bytes(
                255 if chip.ram_bit(x, y) else 0 for y in range(HEIGHT) for x in range(chip.columns)
            )
        return Image.frombytes("L", (self.chip.columns, HEIGHT), out).convert("1")

    # -- inside -------------------------------------------------------------------------------

    def _check(self, i2c_addr: int) -> None:
        """Raise the OSError smbus2 would raise for this transfer (lock held)."""
        if self.closed:
            raise OSError(errno.EBADF, "I2C bus closed")
        if self._fail is None or self._fail > 0:
            if self._fail is not None:
                self._fail -= 1
            self.failed_writes += 1
            raise OSError(self._fail_errno, f"simulated I2C failure: {os.strerror(self._fail_errno)}")
        if i2c_addr != self.address or not self._attached:
            self.failed_writes += 1
            raise OSError(errno.EREMOTEIO, f"no device at 0x{i2c_addr:02X}")

    def _write(self, i2c_addr: int, payload: bytes) -> None:
        with self._lock:
            self._check(i2c_addr)
            self.writes += 1
            self.bytes_sent += len(payload)
            self.chip.transfer(payload)
