"""A display unplugged and power-cycled lights up again when it comes back."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from drivers.display.i2c_sim import FakeI2CBus
from drivers.display.oled import DisplayError, open_display


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
