"""The OLED controller chips the table drives, named once (as luma keeps chip values in ``const``)."""

from __future__ import annotations

CHIPS: tuple[str, ...] = ("ssd1306", "sh1106")
"""SSD1306 (128 columns of RAM) and SH1106 (132 columns, the panel's 128 in the middle)."""


def check_chip(chip: str) -> None:
    """:raises ValueError: for a chip that is not one of :data:`CHIPS`."""
    if chip not in CHIPS:
        raise ValueError(f"unknown display chip {chip!r}: {' or '.join(CHIPS)}")
