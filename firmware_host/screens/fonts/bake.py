"""Bake the table's bitmap fonts from DejaVu (run once; the output is committed).

FreeType renders a little differently from one version to the next, and a golden
PNG compared pixel for pixel must not depend on the machine. So the glyphs are
rasterised once, without anti-aliasing, into ``<name>.png`` (one strip, each
glyph a cell as wide as its ink, in pixels) and ``<name>.json`` (the
characters in order, their cell widths and advances); :mod:`firmware_host.screens.drawing` only pastes
bitmaps. DejaVu fonts: Bitstream Vera licence (free to redistribute, see
https://dejavu-fonts.github.io/License.html).

    .venv/bin/python firmware_host/screens/fonts/bake.py
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

HERE = Path(__file__).resolve().parent
DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
# appended, never reordered (the last group: what Spanish adds): the glyphs already baked keep their place in the strip
CHARS = "".join(chr(c) for c in range(32, 127)) + "éèàçÉ–·×" + "âäêëîïôöùûüœßÀÂÄÇÈÊÎÔÖÙÜŒìíòóúñ−…«»’•›‹→←" + "áÁÍÓÚÑ¿¡±"

FONTS = {
    # name: (file, size in pixels, characters)
    "text": ("DejaVuSansCondensed-Bold.ttf", 11, CHARS),
    "big": ("DejaVuSans-Bold.ttf", 20, "0123456789:-–ABKQJ ?" + "RDVF"),  # appended: French, Italian, German ranks
}


def bake(name: str, file: str, size: int, chars: str) -> None:
    font = ImageFont.truetype(str(DEJAVU / file), size)
    ascent, descent = font.getmetrics()
    height = ascent + descent
    # cells as wide as the ink (or the advance); the advances stay fractional, so the
    # renderer places each glyph at its rounded pen position, as FreeType would
    advances = [round(font.getlength(c), 3) for c in chars]
    cells = [
        max(math.ceil(a), int(font.getbbox(c)[2]) if c.strip() else 0) for c, a in zip(chars, advances, strict=True)
    ]
    strip = Image.new("1", (sum(cells), height), 0)
    x = 0
    for char, cell_width in zip(chars, cells, strict=True):
        cell = Image.new("1", (cell_width, height), 0)
        cell_draw = ImageDraw.Draw(cell)
        cell_draw.fontmode = "1"
        cell_draw.text((0, 0), char, font=font, fill=1)
        strip.paste(cell, (x, 0))
        x += cell_width
    strip.save(HERE / f"{name}.png")
    meta = {"source": f"{file} {size}px", "height": height, "ascent": ascent,
            "chars": chars, "cells": cells, "advances": advances}
    (HERE / f"{name}.json").write_text(json.dumps(meta, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    for font_name, (font_file, font_size, font_chars) in FONTS.items():
        bake(font_name, font_file, font_size, font_chars)
