"""A simulated I2C bus with an SSD1306 or SH1106 on it: the display's twin.

luma's real :class:`luma.core.interface.serial.i2c` writes to it as to an
smbus2 bus (``write_i2c_block_data``); the bus decodes every command and data
byte the way the controller chip would, into display memory, so tests assert
on the pixels a player would see::

    >>> from luma.core.interface.serial import i2c
    >>> from luma.oled.device import ssd1306
    >>> bus = FakeI2CBus("ssd1306")
    >>> device = ssd1306(i2c(bus=bus, address=0x3C))
    >>> bus.chip.display_on, bus.bytes_sent > 1024
    (True, True)
"""

from __future__ import annotations

import errno
import logging
import threading
from collections.abc import Sequence

from PIL import Image

from drivers.closing import Closing

logger = logging.getLogger(__name__)

WIDTH = 128
HEIGHT = 64
PAGES = HEIGHT // 8

# commands followed by that many argument bytes (SSD1306 datasheet, section 10)
_ARGS_SSD1306 = {
    0x81: 1, 0x20: 1, 0x21: 2, 0x22: 2, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1,
    0x8D: 1, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0xA3: 2,
}
# SH1106 datasheet: no addressing-mode or window commands; 0xAD DC-DC takes one byte
_ARGS_SH1106 = {0x81: 1, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1, 0xAD: 1, 0x8D: 1}


class ControllerChip:
    """The display memory and registers of one SSD1306 or SH1106.

    :param chip: ``ssd1306`` (128 columns of RAM, page/horizontal/vertical
        addressing with column and page windows) or ``sh1106`` (132 columns of
        RAM, page addressing; the panel shows columns 2 to 129).
    """

    def __init__(self, chip: str) -> None:
        if chip not in ("ssd1306", "sh1106"):
            raise ValueError(f"unknown display chip {chip!r}: ssd1306 or sh1106")
        self.chip = chip
        self.columns = 128 if chip == "ssd1306" else 132
        self.visible_offset = 0 if chip == "ssd1306" else 2
        self.ram = bytearray(self.columns * PAGES)
        self.display_on = False
        self.contrast = 0x7F
        self.inverted = False
        self.all_on = False
        self.segment_remap = False
        self.com_scan_dec = False
        self.start_line = 0
        self.display_offset = 0
        self.mode = 2  # SSD1306 resets to page addressing
        self.col_start, self.col_end = 0, self.columns - 1
        self.page_start, self.page_end = 0, PAGES - 1
        self.column = 0
        self.page = 0
        self.charge_pump = False
        self._pending: list[int] = []
        self._args = _ARGS_SSD1306 if chip == "ssd1306" else _ARGS_SH1106

    def command(self, data: Sequence[int]) -> None:
        """Feed command bytes (after a 0x00 control byte)."""
        for byte in data:
            self._pending.append(byte)
            need = self._args.get(self._pending[0], 0)
            if len(self._pending) > need:
                self._execute(self._pending)
                self._pending = []

    def _execute(self, cmd: list[int]) -> None:
        op = cmd[0]
        ssd = self.chip == "ssd1306"
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
        elif op == 0xD3:
            self.display_offset = cmd[1]
        elif op == 0x8D:
            self.charge_pump = bool(cmd[1] & 0x04)
        elif ssd and op == 0x20:
            self.mode = cmd[1] & 0x03
        elif ssd and op == 0x21:
            self.col_start, self.col_end = cmd[1] & 0x7F, cmd[2] & 0x7F
            self.column = self.col_start
        elif ssd and op == 0x22:
            self.page_start, self.page_end = cmd[1] & 0x07, cmd[2] & 0x07
            self.page = self.page_start
        elif 0xB0 <= op <= 0xB7:
            self.page = op - 0xB0
        elif op <= 0x0F:
            self.column = (self.column & 0xF0) | op
        elif 0x10 <= op <= 0x1F:
            self.column = (self.column & 0x0F) | ((op & 0x0F) << 4)
        # everything else (clock, multiplex, pins, precharge, VCOM, scrolling) does not
        # change what the memory holds

    def data(self, data: Sequence[int]) -> None:
        """Feed display data bytes (after a 0x40 control byte) at the address pointer."""
        horizontal = self.chip == "ssd1306" and self.mode in (0, 1)
        for byte in data:
            if self.column < self.columns:
                self.ram[self.page * self.columns + self.column] = byte
            if not horizontal:
                # page addressing: the column pointer moves on, the page does not
                if self.column < self.columns - 1:
                    self.column += 1
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

    def panel(self) -> Image.Image:
        """What the panel shows: a 1-bit 128×64 image (dark when the display is off).

        luma's set-up (segment remap and COM scan reversed) is the upright one.
        """
        image = Image.new("1", (WIDTH, HEIGHT), 0)
        if not self.display_on:
            return image
        pixels = image.load()
        assert pixels is not None
        ram = self.ram
        cols = self.columns
        for y in range(HEIGHT):
            line = (y + self.start_line + self.display_offset) % HEIGHT
            if not self.com_scan_dec:
                line = HEIGHT - 1 - line
            page, bit = divmod(line, 8)
            base = page * cols
            for x in range(WIDTH):
                column = x if self.segment_remap else WIDTH - 1 - x
                on = bool(ram[base + column + self.visible_offset] >> bit & 1)
                if self.all_on:
                    on = True
                pixels[x, y] = int(on != self.inverted)
        return image


class FakeI2CBus(Closing):
    """An smbus2-like bus with one display chip at ``address``.

    Counts the bytes a real bus would carry (the control byte and the payload of
    each write; the address byte is not counted). Thread-safe.

    :param chip: ``ssd1306`` or ``sh1106``.
    :param address: the chip's I2C address (a write to another one fails like
        a missing device: ``OSError(EREMOTEIO)``).
    """

    def __init__(self, chip: str = "ssd1306", *, address: int = 0x3C) -> None:
        self.chip = ControllerChip(chip)
        self.address = address
        self.bytes_sent = 0
        self.writes = 0
        self._mark = 0
        self._fail: int = 0
        self._fail_errno = errno.EIO
        self._lock = threading.Lock()
        self.closed = False

    def write_i2c_block_data(self, i2c_addr: int, register: int, data: Sequence[int]) -> None:
        """One I2C write: ``register`` is the control byte (0x00 commands, 0x40 data).

        :raises OSError: the device is gone (see :meth:`fail`), closed, or not at that address.
        """
        with self._lock:
            if self.closed:
                raise OSError(errno.EBADF, "I2C bus closed")
            if self._fail:
                self._fail -= 1
                raise OSError(self._fail_errno, "simulated I2C failure")
            if i2c_addr != self.address:
                raise OSError(errno.EREMOTEIO, f"no device at 0x{i2c_addr:02X}")
            if len(data) > 32:
                raise OSError(errno.EINVAL, "an SMBus block write carries at most 32 bytes")
            self.writes += 1
            self.bytes_sent += 1 + len(data)
            if register & 0x40:
                self.chip.data(data)
            else:
                self.chip.command(data)

    def fail(self, count: int = 1, code: int = errno.EIO) -> None:
        """Make the next ``count`` writes fail with ``OSError(code)`` (a loose wire)."""
        with self._lock:
            self._fail = count
            self._fail_errno = code

    def mark(self) -> None:
        """Start counting :attr:`bytes_since_mark` from now."""
        with self._lock:
            self._mark = self.bytes_sent

    @property
    def bytes_since_mark(self) -> int:
        """Bytes sent since the last :meth:`mark`."""
        return self.bytes_sent - self._mark

    def panel(self) -> Image.Image:
        """What the panel shows now."""
        with self._lock:
            return self.chip.panel()

    def close(self) -> None:
        """Close the bus (safe to call twice)."""
        self.closed = True
