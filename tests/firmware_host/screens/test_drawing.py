"""The table's views (firmware_host.screens.drawing), pixel for pixel against golden PNGs.

After a deliberate change of the layout, regenerate the PNGs and look at every
one of them before committing::

    ECARTE_REGEN_GOLDEN=1 .venv/bin/python -m pytest tests/firmware_host/screens/test_drawing.py

The goldens are ``tests/golden/screen_<view>.png``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops, ImageDraw

from drivers.display.i2c_sim import FakeI2CBus
from drivers.display.oled import open_display
from firmware_host.referee.table_setup import MenuLine
from firmware_host.screens.chooser import menu_screen
from firmware_host.screens.drawing import Screen, card_label, frame_to_text, render

GOLDEN = Path(__file__).resolve().parents[2] / "golden"

_TABLE = dict(trump_card="TH", score_a=3, score_b=1, dealer="A", elder="B")

VIEWS = {
    "trump": Screen(trump_card="KS", score_a=0, score_b=0, dealer="B", elder="A",
                    turn="A", expects="propose or play?"),
    "propose": Screen(**_TABLE, turn="B", expects="propose or play?"),  # type: ignore[arg-type]
    "accept": Screen(**_TABLE, turn="A", expects="accept or refuse?"),  # type: ignore[arg-type]
    "discard": Screen(**_TABLE, turn="B", expects="discard"),  # type: ignore[arg-type]
    "play": Screen(**_TABLE, turn="B", expects="play", tricks_a=2, tricks_b=1),  # type: ignore[arg-type]
    "names": Screen(trump_card="TH", score_a=3, score_b=1, label_a="M", label_b="J",
                    status="Marguerite deals", turn="Jean", expects="accept or refuse?"),
    "names_two_lines": Screen(trump_card="QC", trump_label="D", score_a=-1, score_b=4, label_a="M", label_b="J",
                              status="levées M 2 · J 1", turn="Marguerite", expects="accepter ou refuser ?"),
    "wide_score": Screen(trump_card="TD", score_a=-3, score_b=10, status="tricks A 0 · B 3", turn="A",
                         expects="play"),
    "no_deal": Screen(score_a=0, score_b=0, status="king: settings", expects="cut for the deal"),
    "fault": Screen(view="fault", headline="A must trump ♦", detail="take back the 9♠"),
    "fault_long": Screen(view="fault", headline="Marguerite must follow ♥ and win",
                         detail="take back the 9♠; Marguerite −1 point"),
    "fault_fr": Screen(view="fault", headline="B doit couper ♦", detail="reprenez le V♠"),
    "king": Screen(view="king", trump_card="9S", score_a=1, score_b=0,
                   headline="A +1 king K♠", detail="A: propose or play?"),
    "hand": Screen(view="hand", headline="A wins 3-2",
                   detail="A +1 point, +1 king\nB −1 revoke\nscore A +4 · B +2\nB deals next"),
    "game_over": Screen(view="game_over", trump_card="QD", score_a=5, score_b=2,
                        headline="A wins", detail="the game, 5:2\nyes: new game"),
    "offline": Screen(view="offline", headline="reader play.B offline", detail="check its cable; the game waits"),
    "paused": Screen(view="paused", trump_card="AD", score_a=2, score_b=3,
                     headline="table paused", detail="the game resumes where it stopped"),
    "message": Screen(view="message", headline="Pack 1: 12/32",
                      detail="Lay the Q♥ on the pad\nthen lift it"),
    "menu": Screen(view="menu", headline="settings 1/7",
                   detail="rules: italian\nyes: change · no: next\nking: play"),
    "menu_language": menu_screen(MenuLine("language", "fr", 8, 8), "fr"),
    "menu_language_locked": menu_screen(MenuLine("language", "de", 7, 7, locked=True), "de"),
}


def same(a: Image.Image, b: Image.Image) -> bool:
    return ImageChops.difference(a.convert("L"), b.convert("L")).getbbox() is None


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_view_matches_its_golden_png(name: str) -> None:
    image = render(VIEWS[name])
    path = GOLDEN / f"screen_{name}.png"
    if os.environ.get("ECARTE_REGEN_GOLDEN"):
        image.save(path)
    assert image.size == (128, 64) and image.mode == "1"
    assert same(image, Image.open(path)), (
        f"{name} differs from {path}: ECARTE_REGEN_GOLDEN=1 regenerates it if the change is wanted"
    )


@pytest.mark.parametrize("chip", ["ssd1306", "sh1106"])
@pytest.mark.parametrize("name", sorted(VIEWS))
def test_view_shows_pixel_exact_on_the_simulated_panel(chip: str, name: str) -> None:
    bus = FakeI2CBus(chip, garbage_seed=5)
    with open_display(chip, bus=bus) as oled:
        oled.show(render(VIEWS[name]))
        assert same(bus.panel(), render(VIEWS[name]))


def test_no_golden_view_cuts_a_text() -> None:
    from firmware_host.screens.drawing import clipped

    assert {name: clipped(screen) for name, screen in VIEWS.items() if clipped(screen)} == {}


def test_views_all_differ() -> None:
    frames = {render(screen).tobytes() for screen in VIEWS.values()}
    assert len(frames) == len(VIEWS)


def test_render_is_a_pure_function_of_the_screen() -> None:
    assert same(render(VIEWS["play"]), render(Screen(**_TABLE, turn="B", expects="play",  # type: ignore[arg-type]
                                                     tricks_a=2, tricks_b=1)))


@pytest.mark.parametrize("chip", ["ssd1306", "sh1106"])
@pytest.mark.parametrize(("before", "after"), [((3, 1), (4, 1)), ((3, 1), (3, 2)), ((4, 4), (5, 4))])
def test_a_score_change_costs_at_most_64_bytes(chip: str, before: tuple[int, int],
                                               after: tuple[int, int]) -> None:
    bus = FakeI2CBus(chip)
    common = dict(trump_card="9D", dealer="A", elder="B", turn="B", expects="propose or play?")
    with open_display(chip, bus=bus) as oled:
        oled.show(render(Screen(score_a=before[0], score_b=before[1], **common)))  # type: ignore[arg-type]
        bus.mark()
        new = render(Screen(score_a=after[0], score_b=after[1], **common))  # type: ignore[arg-type]
        oled.show(new)
        assert 0 < bus.bytes_since_mark <= 64
        assert same(bus.panel(), new)


@pytest.mark.parametrize(("card", "label"), [("TH", "10♥"), ("7S", "7♠"), ("KD", "K♦"), ("AC", "A♣")])
def test_card_label(card: str, label: str) -> None:
    assert card_label(card) == label


@pytest.mark.parametrize("bad", ["", "T", "THX", "TX"])
def test_card_label_refuses_what_is_not_a_card(bad: str) -> None:
    with pytest.raises(ValueError, match="not a card"):
        card_label(bad)


def test_an_unknown_view_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown view"):
        render(Screen(view="splash"))


def test_frame_as_text_is_32_lines_of_128_half_blocks() -> None:
    image = render(VIEWS["play"])
    text = frame_to_text(image)
    lines = text.split("\n")
    assert len(lines) == 32 and all(len(line) == 128 for line in lines)
    assert set(text) <= {" ", "▀", "▄", "█", "\n"}
    # the bottom rows are the reversed prompt bar: mostly full blocks
    assert lines[-1].count("█") > 64


def test_frame_as_text_round_trips_the_pixels() -> None:
    image = render(VIEWS["fault"])
    lines = frame_to_text(image).split("\n")
    for y in range(64):
        for x in range(128):
            char = lines[y // 2][x]
            lit = char == "█" or char == ("▀" if y % 2 == 0 else "▄")
            assert lit == bool(image.getpixel((x, y))), (x, y)


def test_frame_as_ascii_for_a_pipe_that_is_not_utf8() -> None:
    text = frame_to_text(render(VIEWS["trump"]), ascii_only=True)
    assert text.isascii() and text.count("\n") == 31
    text.encode("ascii")


def _glyph_by_glyph(image: Image.Image, x: int, y: int, text: str, font: str, fill: int) -> int:
    """The reference: each glyph drawn on its own at its rounded pen (how lines were drawn before
    they were cached as one mask)."""
    from firmware_host.screens import drawing

    face = drawing._font(font)
    draw = ImageDraw.Draw(image)
    pen = float(x)
    for char in text:
        suit = drawing._SUIT_OF_SYMBOL.get(char)
        if suit is not None:
            draw.bitmap((round(pen), y + 2), drawing._suit(suit), fill=fill)
            pen = round(pen) + 10
            continue
        left, cell, advance = face.cells.get(char, face.cells["?"])
        draw.bitmap((round(pen), y), face.strip.crop((left, 0, left + cell, face.height)), fill=fill)
        pen += advance
    return round(pen)


_FONT_TEXT = st.text(alphabet=st.sampled_from("AaBbéÉèçÑñßüöß0123456789 :·−-?!,.()'«»♠♥♦♣\u4e2d"), max_size=24)


@settings(max_examples=300, deadline=None)
@given(text=_FONT_TEXT, x=st.integers(-20, 140), y=st.integers(-6, 70), font=st.sampled_from(["text", "big"]),
       fill=st.sampled_from([0, 1]), ground=st.sampled_from([0, 1]))
def test_a_line_drawn_as_one_cached_mask_is_its_glyphs_drawn_one_by_one(
        text: str, x: int, y: int, font: str, fill: int, ground: int) -> None:
    from firmware_host.screens import drawing

    cached, reference = Image.new("1", (128, 64), ground), Image.new("1", (128, 64), ground)
    end = drawing._text(cached, x, y, text, font=font, fill=fill)
    drawing._text(cached, x, y, text, font=font, fill=fill)  # again, from the cache
    assert end == _glyph_by_glyph(reference, x, y, text, font, fill)
    assert cached.tobytes() == reference.tobytes()
    assert drawing.text_width(text, font=font) == drawing.text_width(text, font=font) == \
        drawing._font(font).width(text)
