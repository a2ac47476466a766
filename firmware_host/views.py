"""The table's screens: what the 128×64 OLED shows, drawn with Pillow.

A :class:`Screen` is a plain value (strings and numbers, no engine types), built
from the controller by :func:`screen_for`; :func:`render` draws it. The layout,
readable across a table:

- top band: the turn-up card with its suit drawn large (trump), the score in big
  digits;
- a line with the dealer, the elder and the tricks of the hand;
- the rest: what the table expects ("A: propose or play?"), or a banner (a fault
  in reverse video with what to do, the king, the hand's result, game over, a
  reader offline, the table paused).

    >>> image = render(Screen(trump="9D", score=(3, 1), dealer="A", elder="B", prompt="B: propose or play?"))
    >>> image.size, image.mode
    ((128, 64), '1')
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw, ImageFont

if TYPE_CHECKING:
    from firmware_host.controller import Controller

WIDTH, HEIGHT = 128, 64

# 9×9 suit symbols, drawn by hand: no font Pillow ships has them at this size
_SUIT_ROWS = {
    "S": ["....#....", "...###...", "..#####..", ".#######.", "#########", "#########",
          ".##.#.##.", "....#....", "...###..."],
    "H": [".##...##.", "####.####", "#########", "#########", ".#######.", "..#####..",
          "...###...", "....#....", "........."],
    "D": ["....#....", "...###...", "..#####..", ".#######.", "#########", ".#######.",
          "..#####..", "...###...", "....#...."],
    "C": ["...###...", "..#####..", "...###...", ".#.###.#.", "#########", "#########",
          ".#..#..#.", "....#....", "...###..."],
}
SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


@dataclass(frozen=True, slots=True)
class Screen:
    """Everything one frame shows. Cards are written ``"TH"``; ``banner_kind`` is
    ``fault``, ``info`` or ``None``."""

    trump: str | None = None
    score: tuple[int, int] = (0, 0)
    target: int = 5
    dealer: str | None = None
    elder: str | None = None
    tricks: tuple[int, int] | None = None
    prompt: str = ""
    banner: str | None = None
    banner_kind: str | None = None
    detail: str = ""
    rules: str = ""


@lru_cache(maxsize=4)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


@lru_cache(maxsize=1)
def _small() -> ImageFont.ImageFont:
    # the classic 6×11 bitmap font: crisp on a 1-bit panel
    return ImageFont.load_default_imagefont()


@lru_cache(maxsize=16)
def suit_bitmap(suit: str, scale: int = 1) -> Image.Image:
    """A suit symbol as a 1-bit mask, 9×9 pixels times ``scale``."""
    mask = Image.new("1", (9, 9), 0)
    for row, line in enumerate(_SUIT_ROWS[suit]):
        for col, cell in enumerate(line):
            if cell == "#":
                mask.putpixel((col, row), 1)
    return mask.resize((9 * scale, 9 * scale), Image.Resampling.NEAREST) if scale != 1 else mask


def draw_suit(draw: ImageDraw.ImageDraw, x: int, y: int, suit: str, *, scale: int = 1, fill: int = 1) -> None:
    """Draw a suit symbol (9×9 pixels times ``scale``) with its top-left at (x, y)."""
    draw.bitmap((x, y), suit_bitmap(suit, scale), fill=fill)


_SUIT_OF_SYMBOL = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def _text_with_suits(draw: ImageDraw.ImageDraw, x: int, y: int, text: str, *, fill: int = 1) -> None:
    """Small text where ``♠♥♦♣`` are drawn as bitmaps (the bitmap font has no such glyph)."""
    font = _small()
    run = ""
    for char in text + "\0":
        suit = _SUIT_OF_SYMBOL.get(char)
        if suit is None and char != "\0":
            run += char if ord(char) <= 255 else "?"
            continue
        if run:
            draw.text((x, y), run, font=font, fill=fill)
            x += int(font.getlength(run))
            run = ""
        if suit is not None:
            draw_suit(draw, x, y + 1, suit, fill=fill)
            x += 10


def card_label(card: str) -> str:
    """``"TH"`` → ``"10"`` (the rank as printed on the card)."""
    return "10" if card[0] == "T" else card[0]


def _wrap(text: str, width: int, lines: int) -> list[str]:
    # suit symbols are drawn wider than letters: count them as two characters
    wrapped = textwrap.wrap(text, width=width, break_long_words=True)
    return wrapped[:lines]


def render(screen: Screen) -> Image.Image:
    """Draw ``screen``: a 1-bit 128×64 image."""
    image = Image.new("1", (WIDTH, HEIGHT), 0)
    draw = ImageDraw.Draw(image)
    draw.fontmode = "1"
    big = _font(16)
    # -- top band: trump and score --------------------------------------------------------
    if screen.trump:
        rank, suit = screen.trump[0], screen.trump[1]
        draw_suit(draw, 0, 0, suit, scale=2)
        draw.text((21, -2), card_label(rank + suit), font=big, fill=1)
    else:
        draw.text((0, 1), screen.rules or "écarté", font=_small(), fill=1)
    score = f"{screen.score[0]}:{screen.score[1]}"
    width = int(draw.textlength(score, font=big))
    b_x = WIDTH - 6
    digits_x = b_x - 3 - width
    draw.text((digits_x - 8, 6), "A", font=_small(), fill=1)
    draw.text((digits_x, -2), score, font=big, fill=1)
    draw.text((b_x, 6), "B", font=_small(), fill=1)
    draw.line((0, 19, WIDTH - 1, 19), fill=1)
    # -- a banner (fault, king, result) and its detail; or who deals and what is expected ---
    if screen.banner:
        y = 21
        inverse = screen.banner_kind == "fault"
        if inverse:
            draw.rectangle((0, y, WIDTH - 1, y + 11), fill=1)
        _text_with_suits(draw, 2, y, screen.banner[:20], fill=0 if inverse else 1)
        y += 13
        for line in _wrap(screen.detail, 21, 3):
            _text_with_suits(draw, 0, y, line)
            y += 10
        return image
    info = f"deal {screen.dealer}" if screen.dealer else ""
    info += f"   tricks {screen.tricks[0]}-{screen.tricks[1]}" if screen.tricks is not None else (
        f"   game to {screen.target}"
    )
    _text_with_suits(draw, 0, 21, info.strip())
    y = 33
    for line in _wrap(screen.prompt, 21, 3):
        _text_with_suits(draw, 0, y, line)
        y += 10
    return image


def frame_to_text(image: Image.Image) -> str:
    """The frame as text, two pixel rows a character (``▀▄█``), framed; works in any terminal
    that shows UTF-8, and when piped."""
    pixels = image.convert("1").load()
    assert pixels is not None
    width, height = image.size
    lines = ["┌" + "─" * width + "┐"]
    for y in range(0, height, 2):
        row = []
        for x in range(width):
            top = bool(pixels[x, y])
            bottom = bool(pixels[x, y + 1]) if y + 1 < height else False
            row.append("█" if top and bottom else "▀" if top else "▄" if bottom else " ")
        lines.append("│" + "".join(row) + "│")
    lines.append("└" + "─" * width + "┘")
    return "\n".join(lines)


def message_screen(lines: list[str]) -> Screen:
    """A screen of a few short lines (enrollment, doctor)."""
    return Screen(prompt=" ".join(lines[1:]), banner=lines[0] if lines else None, banner_kind="info",
                  detail=" ".join(lines[1:]))


def screen_for(controller: Controller) -> Screen:
    """What the table shows now."""
    state = controller.state
    trump = str(state.turned_up) if state.turned_up is not None else None
    tricks = state.tricks if state.phase == "play" else None
    base = dict(
        trump=trump, score=state.score, target=state.target, dealer=state.dealer or None,
        elder=state.elder or None, tricks=tricks, prompt=controller.expectation(),
        rules=state.rules.describe(),
    )
    if controller.offline:
        zones = ", ".join(sorted(controller.offline))
        return Screen(**base, banner=f"OFFLINE {zones}", banner_kind="fault",
                      detail="reader not answering: check its cable")
    if controller.rejected:
        fault = controller.rejected[-1].fault
        return Screen(**base, banner=f"{fault.seat or ''} {fault.code}".strip(), banner_kind="fault",
                      detail=fault.message)
    if state.phase == "over" and state.winner:
        a, b = state.score
        return Screen(**base, banner=f"GAME: {state.winner} wins", banner_kind="info",
                      detail=f"A {a} - B {b}. Press yes for a new game.")
    last_fault = controller.last_fault
    if last_fault is not None:
        return Screen(**base, banner=f"{last_fault.seat or ''} {last_fault.code}".strip(), banner_kind="fault",
                      detail=last_fault.message)
    hand = controller.last_hand
    if hand is not None and state.phase == "deal":
        pa, pb = hand.points
        return Screen(**base, banner=f"HAND {hand.tricks[0]}-{hand.tricks[1]} +{pa}/+{pb}", banner_kind="info",
                      detail=base["prompt"])  # type: ignore[arg-type]
    if state.king is not None and state.phase in ("play", "propose") and not state.played and state.led < 0:
        return Screen(**base, banner=f"KING: {state.king} +1", banner_kind="info",
                      detail=base["prompt"])  # type: ignore[arg-type]
    return Screen(**base)  # type: ignore[arg-type]


def paused_screen(controller: Controller | None, message: str) -> Screen:
    """The screen left on the panel when the service stops."""
    if controller is None:
        return Screen(banner="PAUSED", banner_kind="info", detail=message)
    state = controller.state
    return Screen(trump=str(state.turned_up) if state.turned_up is not None else None, score=state.score,
                  target=state.target, dealer=state.dealer or None, banner="PAUSED", banner_kind="info",
                  detail=message)
