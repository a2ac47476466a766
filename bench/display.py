"""Display benchmark: bytes on the I2C bus and time per frame, through the real luma code.

Prints one line per figure, ``name: value unit``:

- ``full_frame_bytes``: every pixel changed on an SSD1306 (luma's own update sends this every time);
- ``score_update_bytes``: the score changes (3:1 → 4:1) on the trump screen, SSD1306;
- ``score_update_sh1106_bytes``: the same on an SH1106;
- ``prompt_update_bytes``: the prompt line changes (a typical move);
- ``full_frame_sh1106_bytes``: every pixel changed on an SH1106 (8 pages of 4 + 128 + 4);
- ``frame_render_ms``: drawing a screen with Pillow;
- ``frame_send_ms``: packing, diffing and sending a changed frame to the simulated bus.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PIL import Image

from drivers.display.i2c_sim import FakeI2CBus
from drivers.display.oled import open_display
from engine.seats import SEATS
from firmware_host.screens.drawing import Screen, render

_TABLE = dict(trump_card="9D", dealer="A", elder="B")
BEFORE = Screen(score_a=3, score_b=1, turn="B", expects="propose or play?", **_TABLE)  # type: ignore[arg-type]
SCORE = Screen(score_a=4, score_b=1, turn="B", expects="propose or play?", **_TABLE)  # type: ignore[arg-type]
PROMPT = Screen(score_a=3, score_b=1, turn="A", expects="accept or refuse?", **_TABLE)  # type: ignore[arg-type]


def update_bytes(chip: str, before: Image.Image, after: Image.Image) -> int:
    bus = FakeI2CBus(chip)
    with open_display(chip, bus=bus) as oled:
        oled.show(before)
        bus.mark()
        oled.show(after)
        return bus.bytes_since_mark


def main() -> None:
    blank, full = Image.new("1", (128, 64), 0), Image.new("1", (128, 64), 1)
    print(f"full_frame_bytes: {update_bytes('ssd1306', blank, full)} bytes")
    print(f"score_update_bytes: {update_bytes('ssd1306', render(BEFORE), render(SCORE))} bytes")
    print(f"score_update_sh1106_bytes: {update_bytes('sh1106', render(BEFORE), render(SCORE))} bytes")
    print(f"prompt_update_bytes: {update_bytes('ssd1306', render(BEFORE), render(PROMPT))} bytes")
    print(f"full_frame_sh1106_bytes: {update_bytes('sh1106', blank, full)} bytes")
    screens = [
        Screen(trump_card="9D", score_a=n % 5, score_b=n // 5 % 5, turn=SEATS[n % 2], expects=f"move {n}")
        for n in range(400)
    ]
    t0 = time.perf_counter()
    images = [render(s) for s in screens]
    print(f"frame_render_ms: {(time.perf_counter() - t0) / len(screens) * 1000:.3f} ms")
    bus = FakeI2CBus("ssd1306")
    with open_display("ssd1306", bus=bus) as oled:
        t0 = time.perf_counter()
        for image in images:
            oled.show(image)
        print(f"frame_send_ms: {(time.perf_counter() - t0) / len(images) * 1000:.3f} ms")


if __name__ == "__main__":
    main()
