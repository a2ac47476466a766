"""The simulated I2C bus decodes the SSD1306/SH1106 command stream like the chips.

Most tests drive it through luma's real ``i2c`` interface and devices; a few
feed it raw bytes to pin a datasheet detail (addressing modes, the Co bit, the
registers that move the picture).
"""

from __future__ import annotations

import errno

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops, ImageDraw
from smbus2 import i2c_msg

from drivers.display.i2c_sim import FakeI2CBus

CHIPS = ["ssd1306", "sh1106"]
BLANK = Image.new("1", (128, 64))


def luma_device(bus: FakeI2CBus, **kwargs: int):  # type: ignore[no-untyped-def]
    from luma.core.interface.serial import i2c
    from luma.oled.device import sh1106, ssd1306

    cls = ssd1306 if bus.chip.chip == "ssd1306" else sh1106
    return cls(i2c(bus=bus, address=bus.address), **kwargs)


def corner_marks() -> Image.Image:
    """A picture whose mirror images and shifts all differ from it."""
    image = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 9, 3), fill=1)  # top left bar
    draw.point((127, 63), fill=1)  # bottom right dot
    draw.line((20, 10, 60, 50), fill=1)
    return image


def same(a: Image.Image, b: Image.Image) -> bool:
    return ImageChops.difference(a.convert("L"), b.convert("L")).getbbox() is None


def load_ram(bus: FakeI2CBus, image: Image.Image) -> None:
    """Write ``image`` into RAM through luma's own page layout (SSD1306 horizontal mode)."""
    from drivers.display.oled import pack_pages

    pages = pack_pages(image)
    bus.write_i2c_block_data(0x3C, 0x00, [0x20, 0x00, 0x21, 0, 127, 0x22, 0, 7])
    data = b"".join(pages)
    for i in range(0, len(data), 32):
        bus.write_i2c_block_data(0x3C, 0x40, list(data[i:i + 32]))


# -- luma's set-up, decoded ----------------------------------------------------------------


def test_luma_ssd1306_init_is_decoded_register_by_register() -> None:
    bus = FakeI2CBus("ssd1306")
    luma_device(bus)
    chip = bus.chip
    assert chip.display_on and chip.charge_pump
    assert chip.mode == 0  # horizontal addressing
    assert chip.segment_remap and chip.com_scan_dec
    assert (chip.multiplex, chip.display_offset, chip.start_line) == (0x3F, 0, 0)
    assert (chip.contrast, chip.clock_divide, chip.precharge, chip.com_pins, chip.vcom_detect) == (
        0xCF, 0x80, 0xF1, 0x12, 0x40,
    )
    assert not chip.inverted and not chip.all_on
    assert chip.unknown_commands == []


def test_luma_sh1106_init_is_decoded_and_its_ssd1306_memory_mode_ignored() -> None:
    bus = FakeI2CBus("sh1106")
    luma_device(bus)
    chip = bus.chip
    assert chip.display_on and chip.charge_pump
    assert chip.segment_remap and chip.com_scan_dec
    assert chip.contrast == 0x7F and chip.multiplex == 0x3F
    # luma sends the SSD1306's MEMORYMODE (0x20) alone: not an SH1106 command
    assert chip.unknown_commands == [0x20]


@pytest.mark.parametrize("chip", CHIPS)
def test_luma_init_clears_garbage_ram(chip: str) -> None:
    bus = FakeI2CBus(chip, garbage_seed=1)
    assert any(bus.chip.ram)
    luma_device(bus)
    assert same(bus.panel(), BLANK)


def test_luma_full_frame_is_1063_bytes_in_33_writes() -> None:
    bus = FakeI2CBus("ssd1306")
    device = luma_device(bus)
    writes = bus.writes
    bus.mark()
    device.command(0x21, 0, 127, 0x22, 0, 7)
    device.data([0xFF] * 1024)
    assert bus.bytes_since_mark == 1063
    assert bus.writes - writes == 33
    assert same(bus.panel(), Image.new("1", (128, 64), 1))


def test_sh1106_frame_lands_two_columns_into_its_132_column_ram() -> None:
    bus = FakeI2CBus("sh1106", garbage_seed=3)
    from drivers.display.oled import pack_pages

    device = luma_device(bus)
    image = corner_marks()
    for page, data in enumerate(pack_pages(image)):
        device.command(0xB0 + page, 0x02, 0x10)
        device.data(list(data))
    assert same(bus.panel(), image)
    ram = bus.ram_image()
    assert ram.size == (132, 64)
    assert same(ram.crop((2, 0, 130, 64)), image)


# -- addressing modes and control bytes ----------------------------------------------------


def test_horizontal_window_wraps_column_then_page() -> None:
    bus = FakeI2CBus("ssd1306")
    bus.write_i2c_block_data(0x3C, 0x00, [0x20, 0x00, 0x21, 10, 11, 0x22, 2, 3])
    bus.write_i2c_block_data(0x3C, 0x40, [1, 2, 3, 4])
    ram = bus.chip.ram
    assert (ram[2 * 128 + 10], ram[2 * 128 + 11], ram[3 * 128 + 10], ram[3 * 128 + 11]) == (1, 2, 3, 4)
    bus.write_i2c_block_data(0x3C, 0x40, [5])  # past the window's end: back to its start
    assert ram[2 * 128 + 10] == 5


def test_vertical_window_wraps_page_then_column() -> None:
    bus = FakeI2CBus("ssd1306")
    bus.write_i2c_block_data(0x3C, 0x00, [0x20, 0x01, 0x21, 10, 11, 0x22, 2, 3])
    bus.write_i2c_block_data(0x3C, 0x40, [1, 2, 3, 4])
    ram = bus.chip.ram
    assert (ram[2 * 128 + 10], ram[3 * 128 + 10], ram[2 * 128 + 11], ram[3 * 128 + 11]) == (1, 2, 3, 4)


def test_page_mode_uses_page_and_column_nibbles() -> None:
    bus = FakeI2CBus("ssd1306")  # page addressing after reset
    bus.write_i2c_block_data(0x3C, 0x00, [0xB5, 0x03, 0x14])  # page 5, column 0x43
    bus.write_i2c_block_data(0x3C, 0x40, [0xAA, 0xBB])
    assert bus.chip.ram[5 * 128 + 0x43: 5 * 128 + 0x45] == bytes([0xAA, 0xBB])


def test_page_and_column_commands_are_ignored_outside_page_mode() -> None:
    bus = FakeI2CBus("ssd1306")
    bus.write_i2c_block_data(0x3C, 0x00, [0x20, 0x00, 0x21, 0, 127, 0x22, 0, 7, 0xB5, 0x13])
    assert (bus.chip.page, bus.chip.column) == (0, 0)


def test_sh1106_column_stops_at_131() -> None:
    bus = FakeI2CBus("sh1106")
    bus.write_i2c_block_data(0x3C, 0x00, [0xB1, 0x02, 0x18])  # column 130
    bus.write_i2c_block_data(0x3C, 0x40, [1, 2, 3, 4])
    assert bus.chip.ram[132 + 130: 132 * 2] == bytes([1, 2])
    assert bus.chip.ram[132 * 2] == 0  # nothing spilled into page 2


def test_co_bit_control_bytes_alternate_command_and_data() -> None:
    bus = FakeI2CBus("ssd1306")
    # Co=1 command 0xAF, Co=1 command 0xB2, Co=0 data: 7 8
    bus.write_i2c_block_data(0x3C, 0x80, [0xAF, 0x80, 0xB2, 0x40, 7, 8])
    assert bus.chip.display_on
    assert bus.chip.ram[2 * 128: 2 * 128 + 2] == bytes([7, 8])


def test_command_arguments_may_span_writes() -> None:
    bus = FakeI2CBus("ssd1306")
    bus.write_i2c_block_data(0x3C, 0x00, [0x81])
    bus.write_i2c_block_data(0x3C, 0x00, [0x10, 0xA7])
    assert bus.chip.contrast == 0x10 and bus.chip.inverted


def test_i2c_rdwr_messages_as_luma_sends_them_from_smbus2() -> None:
    bus = FakeI2CBus("ssd1306")
    bus.i2c_rdwr(i2c_msg.write(0x3C, [0x00, 0x20, 0x00, 0x21, 0, 127, 0x22, 0, 7, 0x8D, 0x14, 0xAF]))
    bus.i2c_rdwr(i2c_msg.write(0x3C, [0x40] + [0xFF] * 1024))
    assert bus.bytes_sent == 12 + 1025
    assert same(bus.panel(), Image.new("1", (128, 64), 1))


def test_status_byte_and_probe() -> None:
    bus = FakeI2CBus("ssd1306")
    bus.write_quick(0x3C)
    assert bus.read_byte(0x3C) & 0x40  # display off
    bus.write_byte_data(0x3C, 0x00, 0xAF)
    assert bus.read_byte(0x3C) == 0
    with pytest.raises(OSError) as error:
        bus.write_quick(0x3D)
    assert error.value.errno == errno.EREMOTEIO


def test_more_than_32_bytes_in_one_block_is_refused_like_smbus2() -> None:
    with pytest.raises(ValueError):
        FakeI2CBus().write_i2c_block_data(0x3C, 0x40, [0] * 33)


# -- the registers that move the picture -----------------------------------------------------


@pytest.mark.parametrize("chip", CHIPS)
def test_luma_orientation_is_upright(chip: str) -> None:
    bus = FakeI2CBus(chip)
    luma_device(bus)
    if chip == "ssd1306":
        load_ram(bus, corner_marks())
    else:
        from drivers.display.oled import pack_pages

        for page, data in enumerate(pack_pages(corner_marks())):
            bus.write_i2c_block_data(0x3C, 0x00, [0xB0 + page, 0x02, 0x10])
            for i in range(0, 128, 32):
                bus.write_i2c_block_data(0x3C, 0x40, list(data[i:i + 32]))
    assert same(bus.panel(), corner_marks())


@pytest.mark.parametrize(
    ("commands", "expected"),
    [
        ([0xA0], lambda im: im.transpose(Image.Transpose.FLIP_LEFT_RIGHT)),
        ([0xC0], lambda im: im.transpose(Image.Transpose.FLIP_TOP_BOTTOM)),
        ([0xA0, 0xC0], lambda im: im.rotate(180)),
        ([0xA7], lambda im: ImageChops.invert(im.convert("L")).convert("1")),
        ([0xA5], lambda im: Image.new("1", (128, 64), 1)),
        ([0xAE], lambda im: BLANK),
        ([0x8D, 0x10], lambda im: BLANK),  # SSD1306 without its charge pump: dark
        ([0x48], lambda im: _shift(im, 8)),
        ([0xD3, 0x08], lambda im: _shift(im, 8)),
        # 32 lines scanned COM31 -> COM0: the upper half of the glass (COM32-63) stays dark
        ([0xA8, 0x1F], lambda im: _lines_on_the_lower_half(im, 32)),
    ],
)
def test_ssd1306_registers_move_the_picture(commands: list[int], expected) -> None:  # type: ignore[no-untyped-def]
    bus = FakeI2CBus("ssd1306")
    luma_device(bus)
    load_ram(bus, corner_marks())
    bus.write_i2c_block_data(0x3C, 0x00, commands)
    assert same(bus.panel(), expected(corner_marks()))


def _shift(image: Image.Image, rows: int) -> Image.Image:
    """Up by ``rows``, wrapping: what the start line and the display offset do."""
    out = Image.new("1", image.size)
    out.paste(image.crop((0, rows, 128, 64)), (0, 0))
    out.paste(image.crop((0, 0, 128, rows)), (0, 64 - rows))
    return out


def _lines_on_the_lower_half(image: Image.Image, lines: int) -> Image.Image:
    out = Image.new("1", image.size)
    out.paste(image.crop((0, 0, 128, lines)), (0, 64 - lines))
    return out


# -- faults ---------------------------------------------------------------------------------


def test_a_bus_fault_raises_like_smbus2_and_delivers_nothing() -> None:
    bus = FakeI2CBus()
    bus.fail(2, errno.ETIMEDOUT)
    for _ in range(2):
        with pytest.raises(OSError) as error:
            bus.write_i2c_block_data(0x3C, 0x00, [0xAF])
        assert error.value.errno == errno.ETIMEDOUT
    assert not bus.chip.display_on and bus.bytes_sent == 0 and bus.failed_writes == 2
    bus.write_i2c_block_data(0x3C, 0x00, [0xAF])
    assert bus.chip.display_on


def test_endless_fault_until_healed() -> None:
    bus = FakeI2CBus()
    bus.fail(None)
    for _ in range(5):
        with pytest.raises(OSError):
            bus.write_i2c_block_data(0x3C, 0x00, [0xAF])
    bus.heal()
    bus.write_i2c_block_data(0x3C, 0x00, [0xAF])


def test_a_detached_display_nacks_and_comes_back_blank() -> None:
    bus = FakeI2CBus()
    luma_device(bus)
    bus.detach()
    with pytest.raises(OSError) as error:
        bus.write_i2c_block_data(0x3C, 0x00, [0xAF])
    assert error.value.errno == errno.EREMOTEIO
    bus.attach()
    assert not bus.chip.display_on  # power cycled: the set-up must be sent again


def test_close_twice_then_writes_fail_with_ebadf() -> None:
    bus = FakeI2CBus()
    with bus:
        pass
    bus.close()
    assert bus.closed
    with pytest.raises(OSError) as error:
        bus.write_i2c_block_data(0x3C, 0x00, [0xAF])
    assert error.value.errno == errno.EBADF


def test_an_unknown_chip_is_refused() -> None:
    with pytest.raises(ValueError, match="ssd1306 or sh1106"):
        FakeI2CBus("st7735")


# -- any picture, any sequence of pictures ----------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    chip=st.sampled_from(CHIPS),
    frames=st.lists(st.binary(min_size=1024, max_size=1024), min_size=1, max_size=4),
    sparse=st.booleans(),
)
def test_any_frame_sequence_lands_pixel_exact_through_the_diff_device(
    chip: str, frames: list[bytes], sparse: bool
) -> None:
    from drivers.display.oled import open_display

    bus = FakeI2CBus(chip, garbage_seed=len(frames))
    with open_display(chip, bus=bus) as oled:
        for raw in frames:
            if sparse:  # a few pixels changing, as real screens do
                raw = bytes(b & 0x11 for b in raw)
            image = Image.frombytes("1", (128, 64), raw)
            oled.show(image)
            assert same(bus.panel(), image)
