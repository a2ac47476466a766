"""The OLED through the real luma code, on the simulated I2C bus that decodes the chip."""

from __future__ import annotations

import dataclasses
import errno

import pytest
from PIL import Image, ImageDraw

from drivers.device_errors import DeviceNotFoundError
from drivers.display.i2c_sim import FakeI2CBus
from drivers.display.oled import DisplayError, open_display, pack_pages
from firmware_host.screens.drawing import Screen, render

CHIPS = ["ssd1306", "sh1106"]


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


@pytest.mark.parametrize("chip", CHIPS)
def test_a_score_change_costs_at_most_64_bytes(chip: str) -> None:
    bus = FakeI2CBus(chip)
    base = Screen(trump_card="9D", score_a=3, score_b=1, dealer="A", elder="B", turn="B", expects="propose or play?")
    with open_display(chip, bus=bus) as oled:
        oled.show(render(base))
        bus.mark()
        after = Screen(trump_card="9D", score_a=4, score_b=1, dealer="A", elder="B", turn="B",
                       expects="propose or play?")
        oled.show(render(after))
        assert 0 < bus.bytes_since_mark <= 64
        assert bus.panel() == render(after)


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


def test_a_table_whose_display_is_missing_referees_on_without_it(caplog: pytest.LogCaptureFixture) -> None:
    from firmware_host.screens.panel import open_panel
    from hardware.table import DisplayConfig, simulated_table

    table = simulated_table()
    missing = DisplayConfig(bus=97, address=0x3C, chip="ssd1306")
    broken = dataclasses.replace(table, displays=(*table.displays, missing))
    with pytest.raises(DeviceNotFoundError):
        open_panel(broken)
    with open_panel(broken, tolerant=True) as panel:
        assert len(panel.displays) == 1  # the simulated one
    assert "left out" in caplog.text and "/dev/i2c-97" in caplog.text
