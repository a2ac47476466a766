"""drivers.display.oled through the real luma code: what goes on the bus, and errors at the edge.

(tests/drivers/test_display.py covers the basics: set-up, pixel-exact frames, 1,063 bytes, faults.)
"""

from __future__ import annotations

import errno
import sys
import types

import pytest
from PIL import Image, ImageDraw

from drivers.device_errors import DeviceNotFoundError, DevicePermissionError, DriverError
from drivers.display.i2c_sim import FakeI2CBus
from drivers.display.oled import DisplayError, open_display

CHIPS = ["ssd1306", "sh1106"]


class LoggingBus(FakeI2CBus):
    """The fake bus, remembering every write: (control byte, payload)."""

    def __init__(self, chip: str) -> None:
        super().__init__(chip)
        self.log: list[tuple[int, list[int]]] = []

    def write_i2c_block_data(self, i2c_addr: int, register: int, data, force=None) -> None:  # type: ignore[no-untyped-def, override]
        super().write_i2c_block_data(i2c_addr, register, data)
        self.log.append((register, list(data)))


def box(x0: int, y0: int, x1: int, y1: int, base: Image.Image | None = None) -> Image.Image:
    image = base.copy() if base is not None else Image.new("1", (128, 64))
    ImageDraw.Draw(image).rectangle((x0, y0, x1, y1), fill=1)
    return image


def test_ssd1306_diff_sends_one_window_over_the_changed_columns_and_pages() -> None:
    bus = LoggingBus("ssd1306")
    with open_display("ssd1306", bus=bus) as oled:
        oled.show(Image.new("1", (128, 64)))
        bus.log.clear()
        oled.show(box(40, 17, 45, 22))  # columns 40-45, rows 17-22: page 2 only
        commands = [data for control, data in bus.log if control == 0x00]
        data = [data for control, data in bus.log if control == 0x40]
        assert commands == [[0x21, 40, 45, 0x22, 2, 2]]
        assert data == [[0b01111110] * 6]
        assert bus.panel() == box(40, 17, 45, 22)


def test_ssd1306_diff_sends_separate_pages_when_that_is_fewer_bytes() -> None:
    bus = LoggingBus("ssd1306")
    with open_display("ssd1306", bus=bus) as oled:
        oled.show(Image.new("1", (128, 64)))
        bus.log.clear()
        bus.mark()
        image = box(0, 0, 3, 3, box(124, 60, 127, 63))  # two corners: one page each
        oled.show(image)
        commands = [data for control, data in bus.log if control == 0x00]
        assert commands == [[0x21, 0, 3, 0x22, 0, 0], [0x21, 124, 127, 0x22, 7, 7]]
        assert bus.bytes_since_mark == 2 * (7 + 4 + 1)
        assert bus.panel() == image


def test_sh1106_diff_sends_page_by_page_with_the_column_offset() -> None:
    bus = LoggingBus("sh1106")
    with open_display("sh1106", bus=bus) as oled:
        oled.show(Image.new("1", (128, 64)))
        bus.log.clear()
        oled.show(box(40, 6, 45, 9))  # rows 6-9: pages 0 and 1
        commands = [data for control, data in bus.log if control == 0x00]
        column = 40 + 2
        assert commands == [[0xB0, column & 0x0F, 0x10 | column >> 4],
                            [0xB1, column & 0x0F, 0x10 | column >> 4]]
        assert bus.panel() == box(40, 6, 45, 9)


def test_sh1106_full_frame_is_eight_pages_of_136_bytes() -> None:
    bus = FakeI2CBus("sh1106")
    with open_display("sh1106", bus=bus) as oled:
        bus.mark()
        oled.show(Image.new("1", (128, 64), 1))
        assert bus.bytes_since_mark == 8 * (4 + 128 + 4)


@pytest.mark.parametrize("chip", CHIPS)
def test_a_rotated_display_shows_the_image_upside_down(chip: str) -> None:
    bus = FakeI2CBus(chip)
    with open_display(chip, bus=bus, rotate=2) as oled:
        image = box(0, 0, 9, 3)
        oled.show(image)
        assert bus.panel() == image.rotate(180)


@pytest.mark.parametrize("chip", CHIPS)
def test_close_is_idempotent_and_luma_atexit_cleanup_sends_nothing_more(chip: str) -> None:
    bus = FakeI2CBus(chip)
    oled = open_display(chip, bus=bus)
    oled.close()
    sent = bus.bytes_sent
    oled.close()
    oled.device.cleanup()  # what luma's atexit hook calls
    assert bus.bytes_sent == sent
    assert not bus.chip.display_on


@pytest.mark.parametrize("chip", CHIPS)
def test_a_display_unplugged_mid_game_is_a_display_error(chip: str) -> None:
    bus = FakeI2CBus(chip)
    with open_display(chip, bus=bus) as oled:
        oled.show(box(0, 0, 5, 5))
        bus.detach()
        with pytest.raises(DisplayError) as error:
            oled.show(box(0, 0, 6, 6))
        assert isinstance(error.value, DriverError) and isinstance(error.value, OSError)
        bus.attach(power_cycled=False)
        oled.show(box(0, 0, 6, 6))
        assert bus.panel() == box(0, 0, 6, 6)


def test_a_bus_error_while_setting_up_is_a_display_error() -> None:
    bus = FakeI2CBus("ssd1306")
    bus.fail(None, errno.EIO)
    with pytest.raises((DisplayError, DeviceNotFoundError)) as error:
        open_display("ssd1306", bus=bus)
    assert isinstance(error.value, DriverError)


def fake_smbus2(monkeypatch: pytest.MonkeyPatch, exc: OSError) -> None:
    """An smbus2 whose SMBus(port) raises ``exc``, as opening /dev/i2c-N does."""
    module = types.ModuleType("smbus2")

    def smbus(port: int) -> None:
        raise exc

    module.SMBus = smbus  # type: ignore[attr-defined]
    module.i2c_msg = types.SimpleNamespace(write=None)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "smbus2", module)


def test_a_missing_bus_is_device_not_found_naming_dev_i2c_1(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_smbus2(monkeypatch, FileNotFoundError(errno.ENOENT, "No such file or directory", "/dev/i2c-1"))
    with pytest.raises(DeviceNotFoundError) as error:
        open_display("ssd1306")
    assert "/dev/i2c-1" in str(error.value)
    assert isinstance(error.value, FileNotFoundError)


def test_a_forbidden_bus_says_to_add_the_user_to_the_i2c_group(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_smbus2(monkeypatch, PermissionError(errno.EACCES, "Permission denied", "/dev/i2c-1"))
    with pytest.raises(DevicePermissionError) as error:
        open_display("sh1106")
    assert "i2c group" in str(error.value) and "/dev/i2c-1" in str(error.value)
    assert isinstance(error.value, PermissionError)


def test_a_bad_address_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        open_display("ssd1306", bus=FakeI2CBus(), address="sixty")  # type: ignore[arg-type]
