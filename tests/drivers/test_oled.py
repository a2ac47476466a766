"""drivers.display.oled through the real luma code, on the simulated I2C bus that decodes the chip:
the set-up, pixel-exact frames, what goes on the bus, errors at the edge, and a display that comes
back after it was unplugged."""

from __future__ import annotations

import errno
import sys
import types

import pytest
from PIL import Image, ImageDraw

from drivers.device_errors import DeviceNotFoundError, DevicePermissionError, DriverError
from drivers.display.i2c_sim import FakeI2CBus
from drivers.display.oled import DisplayError, open_display, pack_pages

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


# -- frames, faults and errors at the edge -------------------------------------------------------


def picture(seed: int = 0) -> Image.Image:
    image = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    draw.ellipse((2 + seed, 3, 90, 60), outline=1)
    draw.text((40, 20), f"Ecarte {seed}", fill=1)
    draw.rectangle((100, 0, 127, 7), fill=1)
    return image


@pytest.mark.parametrize("chip", CHIPS)
def test_the_set_up_sequence_turns_the_display_on_blank(chip: str) -> None:
    bus = FakeI2CBus(chip)
    with open_display(chip, bus=bus):
        assert bus.chip.display_on
        assert bus.chip.charge_pump
        assert bus.chip.segment_remap and bus.chip.com_scan_dec
        assert bus.panel() == Image.new("1", (128, 64))
    assert not bus.chip.display_on  # luma's cleanup turns it off


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("seed", [0, 7, 21])
def test_a_frame_lands_pixel_exact(chip: str, seed: int) -> None:
    bus = FakeI2CBus(chip)
    with open_display(chip, bus=bus) as oled:
        oled.show(picture(seed))
        assert bus.panel() == picture(seed)
        oled.show(picture(seed + 1))  # a diff update
        assert bus.panel() == picture(seed + 1)


def test_a_full_ssd1306_frame_is_1063_bytes() -> None:
    bus = FakeI2CBus("ssd1306")
    with open_display("ssd1306", bus=bus) as oled:
        bus.mark()
        oled.show(Image.new("1", (128, 64), 1))
        assert bus.bytes_since_mark == 1063  # 7 address bytes + 32 blocks of (1 + 32)


@pytest.mark.parametrize("chip", CHIPS)
def test_an_unchanged_frame_sends_nothing(chip: str) -> None:
    bus = FakeI2CBus(chip)
    with open_display(chip, bus=bus) as oled:
        oled.show(picture())
        bus.mark()
        oled.show(picture())
        assert bus.bytes_since_mark == 0


def test_pages_pack_the_top_pixel_in_the_low_bit() -> None:
    image = Image.new("1", (128, 64))
    image.putpixel((5, 0), 1)
    image.putpixel((5, 9), 1)
    pages = pack_pages(image)
    assert pages[0][5] == 0x01 and pages[1][5] == 0x02
    assert sum(map(sum, pages)) == 3


@pytest.mark.parametrize("chip", CHIPS)
def test_a_bus_fault_is_a_display_error_and_the_next_frame_heals(chip: str) -> None:
    bus = FakeI2CBus(chip)
    with open_display(chip, bus=bus) as oled:
        oled.show(picture(1))
        bus.fail(1, errno.EREMOTEIO)
        with pytest.raises(DisplayError):
            oled.show(picture(2))
        oled.show(picture(2))  # sends the whole frame again: the panel may hold half of one
        assert bus.panel() == picture(2)


def test_nothing_at_the_address_is_device_not_found() -> None:
    bus = FakeI2CBus("ssd1306", address=0x3D)
    with pytest.raises(DeviceNotFoundError) as error:
        open_display("ssd1306", bus=bus, address=0x3C)
    assert "0x3C" in str(error.value)


def test_a_missing_bus_names_the_device_and_the_fix() -> None:
    with pytest.raises(DeviceNotFoundError) as error:
        open_display("ssd1306", port=97)
    assert isinstance(error.value, FileNotFoundError)
    assert "/dev/i2c-97" in str(error.value)
    assert "dtparam=i2c_arm=on" in str(error.value)


@pytest.mark.parametrize("chip", CHIPS)
def test_close_twice(chip: str) -> None:
    oled = open_display(chip, bus=FakeI2CBus(chip))
    oled.close()
    oled.close()


def test_an_unknown_chip_is_refused() -> None:
    with pytest.raises(ValueError, match="ssd1306 or sh1106"):
        open_display("st7735", bus=FakeI2CBus())


# -- a display unplugged and power-cycled lights up again when it comes back -----------------------


def _box(right: int) -> Image.Image:
    image = Image.new("1", (128, 64))
    ImageDraw.Draw(image).rectangle((0, 0, right, right), fill=1)
    return image


@pytest.mark.parametrize("chip", ["ssd1306", "sh1106"])
def test_a_power_cycled_display_is_set_up_again(chip: str) -> None:
    bus = FakeI2CBus(chip)
    with open_display(chip, bus=bus) as oled:
        oled.show(_box(5))
        assert bus.chip.display_on
        bus.detach()
        with pytest.raises(DisplayError):
            oled.show(_box(6))
        bus.attach(power_cycled=True)  # back, with its registers and RAM at their power-on values
        assert not bus.chip.display_on
        oled.show(_box(7))
        assert bus.chip.display_on
        assert bus.panel() == _box(7)
        oled.show(_box(8))  # and on with the diffs
        assert bus.panel() == _box(8)


def test_a_display_still_unplugged_keeps_failing_cleanly() -> None:
    bus = FakeI2CBus("ssd1306")
    with open_display("ssd1306", bus=bus) as oled:
        oled.show(_box(5))
        bus.detach()
        for right in (6, 7, 8):
            with pytest.raises(DisplayError):
                oled.show(_box(right))
        bus.attach(power_cycled=True)
        oled.show(_box(9))
        assert bus.panel() == _box(9)


# -- burn-in: the contrast and the panel switched off go on the wire -----------------------------


@pytest.mark.parametrize(("chip", "luma_s"), [("ssd1306", 0x7F), ("sh1106", 0xCF)])
def test_a_display_opens_at_the_lowered_contrast(chip: str, luma_s: int) -> None:
    from drivers.display.oled import LIT_CONTRAST

    bus = FakeI2CBus(chip)
    with open_display(chip, bus=bus) as oled:
        assert bus.chip.contrast == oled.contrast == LIT_CONTRAST < luma_s  # luma's set-up sent luma_s


def test_a_display_switched_off_is_dark_and_shows_its_frame_again_when_switched_on() -> None:
    from PIL import Image, ImageDraw

    bus = FakeI2CBus("sh1106")
    with open_display("sh1106", bus=bus) as oled:
        image = Image.new("1", (128, 64))
        ImageDraw.Draw(image).rectangle((4, 4, 60, 20), fill=1)
        oled.show(image)
        oled.set_lit(False)
        assert not bus.chip.display_on and bus.panel().getbbox() is None  # the glass dark
        oled.set_contrast(0x04)
        assert bus.chip.contrast == 0x04
        oled.set_lit(True)
        assert bus.chip.display_on and bus.panel() == image  # its RAM kept
        with pytest.raises(ValueError):
            oled.set_contrast(256)


def test_a_display_set_up_again_keeps_its_contrast_and_darkness() -> None:
    from PIL import Image

    bus = FakeI2CBus("ssd1306")
    with open_display("ssd1306", bus=bus) as oled:
        oled.set_contrast(0x04)
        oled.set_lit(False)
        bus.detach()
        with pytest.raises(DisplayError):
            oled.show(Image.new("1", (128, 64), 1))
        bus.attach()  # power-cycled: luma's set-up again, then ours
        oled.show(Image.new("1", (128, 64), 1))
        assert bus.chip.contrast == 0x04 and not bus.chip.display_on
