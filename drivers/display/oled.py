"""The table's OLED on luma.oled, sending only the pages and columns that changed.

luma.oled's ``ssd1306.display`` sends the whole 1,063-byte frame on every update
(its ``framebuffer`` argument does nothing for this chip) and ``sh1106.display``
all eight pages. :class:`DiffSsd1306` and :class:`DiffSh1106` keep luma's
devices (their set-up sequence, contrast, rotation, the serial interface) and
replace only ``display``: the frame is packed into the chip's page layout, and
each page sends just the run of columns between its first and last changed
byte. A one-field change (the score) costs a few dozen bytes.

    >>> from PIL import Image, ImageDraw
    >>> from drivers.display.i2c_sim import FakeI2CBus
    >>> with open_display("ssd1306", bus=FakeI2CBus("ssd1306")) as oled:
    ...     image = Image.new("1", (128, 64))
    ...     ImageDraw.Draw(image).rectangle((10, 10, 13, 13), fill=1)
    ...     oled.bus.mark()
    ...     oled.show(image)
    ...     oled.bus.bytes_since_mark, oled.bus.panel() == image
    (12, True)
"""

from __future__ import annotations

import errno
import logging
from collections.abc import Callable
from typing import Any

from PIL import Image

from drivers.closing import Closing
from drivers.device_errors import DeviceNotFoundError, DevicePermissionError, DriverError
from drivers.display.chips import check_chip

logger = logging.getLogger(__name__)

_REVERSE = bytes(int(f"{b:08b}"[::-1], 2) for b in range(256))
"""Bit order reversed: PIL packs the top pixel in the high bit, the chips want it in the low bit."""


LIT_CONTRAST = 0x40
"""The contrast a display is set to when opened (the chips' Set Contrast Control, ``81 xx``: SSD1306 and
SH1106 data sheets, the segment current rises with it): a quarter of the scale, where luma leaves 0x7F
(SSD1306) or 0xCF (SH1106). A PMOLED's pixel wears with the current through it and the hours it is lit,
and the score layout lights the same pixels for hours: less current, less burn-in. Indoors, under a
card table's lamp, a quarter is readable (an assumption of ours, to be measured on a real panel)."""


class DisplayError(DriverError, OSError):
    """The display stopped answering (a loose wire, a display unplugged)."""


def pack_pages(image: Image.Image) -> list[bytes]:
    """A 1-bit image as the chip's pages: ``pages[p][x]`` holds pixels (x, 8p..8p+7), low bit on top."""
    height = image.size[1]
    column_major = image.convert("1").transpose(Image.Transpose.TRANSPOSE).tobytes()
    flipped = column_major.translate(_REVERSE)
    stride = height // 8
    return [flipped[page::stride] for page in range(stride)]


def changed_run(old: bytes | None, new: bytes) -> tuple[int, int] | None:
    """First and last index where ``new`` differs from ``old`` (None: identical)."""
    if old is None:
        return 0, len(new) - 1
    if old == new:
        return None
    first = next(i for i in range(len(new)) if old[i] != new[i])
    last = next(i for i in range(len(new) - 1, -1, -1) if old[i] != new[i])
    return first, last


def _cost(count: int) -> int:
    """Bytes on the bus for a window of ``count`` data bytes on an SSD1306: the address
    command (control byte + 6) and the data in SMBus blocks of 32 (a control byte each)."""
    return 7 + count + -(-count // 32)


def _device_classes() -> tuple[type, type]:
    from luma.oled.device import sh1106, ssd1306

    class DiffSsd1306(ssd1306):  # type: ignore[misc]
        """luma's SSD1306 sending only what changed (column/page address windows)."""

        _sent: list[bytes] | None = None

        def display(self, image: Image.Image) -> None:
            image = self.preprocess(image)
            pages = pack_pages(image)
            sent = self._sent
            runs = {
                page: run for page, data in enumerate(pages)
                if (run := changed_run(sent[page] if sent else None, data)) is not None
            }
            if runs:
                # one window over all changed pages, or one per page: whichever is fewer bytes
                first = min(r[0] for r in runs.values())
                last = max(r[1] for r in runs.values())
                top, bottom = min(runs), max(runs)
                window = (bottom - top + 1) * (last - first + 1)
                if _cost(window) <= sum(_cost(b - a + 1) for a, b in runs.values()):
                    self._send(top, bottom, first, last, b"".join(
                        pages[p][first:last + 1] for p in range(top, bottom + 1)
                    ))
                else:
                    for page, (a, b) in runs.items():
                        self._send(page, page, a, b, pages[page][a:b + 1])
            self._sent = pages

        def cleanup(self) -> None:
            # luma registers this for atexit too: once is enough (the bus may be gone by then)
            if not getattr(self, "_cleaned", False):
                self._cleaned = True
                super().cleanup()

        def _send(self, top: int, bottom: int, first: int, last: int, data: bytes) -> None:
            self.command(
                self._const.COLUMNADDR, self._colstart + first, self._colstart + last,
                self._const.PAGEADDR, top, bottom,
            )
            self.data(list(data))

    class DiffSh1106(sh1106):  # type: ignore[misc]
        """luma's SH1106 sending only what changed (page and column address)."""

        _sent: list[bytes] | None = None

        def display(self, image: Image.Image) -> None:
            image = self.preprocess(image)
            pages = pack_pages(image)
            sent = self._sent
            for page, data in enumerate(pages):
                run = changed_run(sent[page] if sent else None, data)
                if run is None:
                    continue
                first, last = run
                column = self._page_address_offset + first
                self.command(0xB0 + page, column & 0x0F, 0x10 | (column >> 4))
                self.data(list(data[first:last + 1]))
            self._sent = pages

        def cleanup(self) -> None:
            # luma registers this for atexit too: once is enough (the bus may be gone by then)
            if not getattr(self, "_cleaned", False):
                self._cleaned = True
                super().cleanup()

    return DiffSsd1306, DiffSh1106


class Oled(Closing):
    """One OLED: ``show(image)`` puts a 128×64 1-bit image on it.

    :raises DisplayError: from :meth:`show` when the display stops answering.
    """

    def __init__(self, device: Any, bus: Any, chip: str, *, remake: Callable[[], Any] | None = None) -> None:
        self.device = device
        self.bus = bus
        self.chip = chip
        self.frames = 0
        self._closed = False
        self._remake = remake
        self._lost = False
        self.contrast = 0x7F if chip == "ssd1306" else 0xCF  # what luma's set-up sends (0x7F / 0xCF)
        """The contrast last set (``81 xx``), 0-255."""
        self.lit = True
        """Whether the panel is on (``AF``) or off (``AE``: dark, its RAM kept)."""

    def set_contrast(self, level: int) -> None:
        """Set the panel's contrast (Set Contrast Control, ``81 level``), 0-255.

        :raises DisplayError: the display does not answer.
        :raises ValueError: a level outside 0-255.
        """
        if not 0 <= level <= 255:
            raise ValueError(f"display {self.chip}: contrast {level} is not 0-255")
        self.contrast = level
        self._send(lambda: self.device.contrast(level))

    def set_lit(self, lit: bool) -> None:
        """Switch the panel on (``AF``) or off (``AE``: dark, its RAM kept: switched on again it shows the
        last frame).

        :raises DisplayError: the display does not answer.
        """
        self.lit = lit
        self._send(self.device.show if lit else self.device.hide)

    def _send(self, command: Callable[[], Any]) -> None:
        if self._lost:
            return  # set up again with the next frame, this state with it
        try:
            command()
        except (OSError, _luma_errors()) as exc:
            self.device._sent = None
            self._lost = True
            raise DisplayError(errno.EIO, f"display {self.chip}: {exc}") from exc

    @property
    def size(self) -> tuple[int, int]:
        width, height = self.device.size
        return int(width), int(height)

    def show(self, image: Image.Image) -> None:
        """Display ``image`` (only the bytes that changed go over the bus).

        :raises DisplayError: the display does not answer.
        """
        try:
            if self._lost and self._remake is not None:
                # it stopped answering: unplugged, perhaps power-cycled, and then it has lost its
                # set-up (dark, charge pump off): send the chip's set-up again before the frame
                old, self.device = self.device, self._remake()
                old._cleaned = True  # its atexit clean-up would blank the new one
                self.device.contrast(self.contrast)  # luma's set-up sent its own
                if not self.lit:
                    self.device.hide()
                logger.info("display %s: set up again", self.chip)
            self._lost = False
            self.device.display(image.convert("1"))
        except (OSError, _luma_errors()) as exc:
            # the panel may hold half a frame now: send everything next time
            self.device._sent = None
            self._lost = True
            raise DisplayError(errno.EIO, f"display {self.chip}: {exc}") from exc
        self.frames += 1

    def close(self) -> None:
        """Blank the display and release the bus (safe to call twice)."""
        if self._closed:
            return
        self._closed = True
        try:
            self.device.cleanup()
        except (OSError, _luma_errors()) as exc:
            logger.warning("display %s: closing: %s", self.chip, exc)


def _luma_errors() -> type[Exception]:
    import luma.core.error

    return luma.core.error.Error  # type: ignore[no-any-return]


def open_display(chip: str = "ssd1306", *, bus: Any = None, port: int = 1, address: int = 0x3C,
                 rotate: int = 0, contrast: int = LIT_CONTRAST) -> Oled:
    """Open the OLED: luma's device over luma's I2C interface, with diff updates, at ``contrast``
    (:data:`LIT_CONTRAST`).

    :param chip: ``ssd1306`` or ``sh1106``.
    :param bus: an smbus2-like bus (the simulated one: :class:`~drivers.display.i2c_sim.FakeI2CBus`);
        None opens ``/dev/i2c-<port>`` with smbus2.
    :raises DeviceNotFoundError: no such I2C bus, or nothing answers at ``address``.
    :raises DevicePermissionError: the bus exists but this user may not open it.
    :raises DisplayError: the display stopped answering while it was being set up.
    :raises ValueError: an unknown chip or an invalid address.
    """
    from luma.core.error import DeviceAddressError as LumaAddress
    from luma.core.error import DeviceNotFoundError as LumaNotFound
    from luma.core.error import DevicePermissionError as LumaPermission
    from luma.core.interface.serial import i2c

    check_chip(chip)
    ssd, sh = _device_classes()
    path = f"/dev/i2c-{port}"
    try:
        serial = i2c(bus=bus, port=port, address=address) if bus is not None else i2c(port=port, address=address)
        device = (ssd if chip == "ssd1306" else sh)(serial, rotate=rotate)
    except LumaPermission as exc:
        raise DevicePermissionError(
            errno.EACCES, f"{exc}: add the user to the i2c group (sudo adduser $USER i2c)", path,
        ) from exc
    except LumaNotFound as exc:
        raise DeviceNotFoundError(
            errno.ENOENT,
            f"{exc}: enable I2C (dtparam=i2c_arm=on) and check the wiring and address 0x{address:02X}",
            path,
        ) from exc
    except LumaAddress as exc:
        raise ValueError(f"display {chip}: {exc}") from exc
    except OSError as exc:
        # luma passes a failed data write (and any errno it does not know) through as is
        if exc.errno == errno.ENOENT:
            raise DeviceNotFoundError(errno.ENOENT, f"I2C bus not found: {path}", path) from exc
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise DevicePermissionError(
                errno.EACCES, f"I2C bus {path}: permission denied: add the user to the i2c group "
                "(sudo adduser $USER i2c)", path,
            ) from exc
        raise DisplayError(exc.errno or errno.EIO, f"display {chip} on {path}: {exc}") from exc
    kind = ssd if chip == "ssd1306" else sh
    oled = Oled(device, bus if bus is not None else serial._bus, chip, remake=lambda: kind(serial, rotate=rotate))
    oled.set_contrast(contrast)
    return oled
