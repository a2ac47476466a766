"""The table's views on the 128×64 OLED, drawn with Pillow from a plain value.

A :class:`Screen` holds strings and integers only (no engine types: the caller
maps the game state to it); :func:`render` is a pure function of it and returns
a 1-bit 128×64 image; :func:`frame_to_text` draws a frame with half blocks for
a terminal.

Layout (pixels; rows 0-17 are the top band on every game view)::

    ♥ 10                3:1     trump: the suit 18×18, the turn-up card; score A:B
    ────────────────────────
    deal A · elder B            who deals, who is elder
    tricks A 2 · B 1            tricks this hand (or the game's target)
    ████ A: propose or play? █  whose turn and what the table expects (reversed)

The other views keep the top band and use rows 20-63 for a headline and its
detail: ``fault`` in reverse video (what went wrong, then what to do),
``king``, ``hand``, ``game_over``, ``offline``, ``paused``; ``message`` (enrollment,
doctor) uses the whole panel.

The glyphs are baked bitmaps (``firmware_host/fonts``, from DejaVu), so a
frame is the same on every machine; suit symbols are hand-drawn 9×9 bitmaps
(doubled for the trump), as no bitmap font has them at this size.

    >>> image = render(Screen(trump_card="TH", score_a=3, score_b=1, dealer="A", elder="B",
    ...                       turn="B", expects="propose or play?"))
    >>> image.size, image.mode
    ((128, 64), '1')
    >>> card_label("TH"), card_label("7S")
    ('10♥', '7♠')
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from PIL import Image, ImageDraw

WIDTH, HEIGHT = 128, 64
FONTS = Path(__file__).resolve().parent / "fonts"

#: The views :func:`render` draws.
VIEWS = ("table", "fault", "king", "hand", "game_over", "offline", "paused", "message")

SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_SUIT_OF_SYMBOL = {symbol: letter for letter, symbol in SUITS.items()}

# 9×9 suit symbols, drawn by hand for a 1-bit panel
_SUIT_ROWS = {
    "S": ["....#....", "...###...", "..#####..", ".#######.", "#########", "#########",
          ".##.#.##.", "....#....", "..#####.."],
    "H": [".##...##.", "####.####", "#########", "#########", ".#######.", "..#####..",
          "...###...", "....#....", "........."],
    "D": ["....#....", "...###...", "..#####..", ".#######.", "#########", ".#######.",
          "..#####..", "...###...", "....#...."],
    "C": ["...###...", "..#####..", "..#####..", ".#.###.#.", "#########", "#########",
          ".#..#..#.", "....#....", "..#####.."],
}


@dataclass(frozen=True, slots=True)
class Screen:
    """Everything one frame shows: plain strings and integers.

    :param view: one of :data:`VIEWS`.
    :param trump_card: the turn-up card, two characters (``"TH"``); its suit is
        trump. Empty: no deal yet.
    :param score_a: points of seat A; ``score_b`` of seat B; ``target`` to win.
    :param dealer: ``"A"`` or ``"B"`` (empty: not known yet); ``elder`` likewise.
    :param turn: the seat the table waits for; ``expects`` what from it
        (``"propose or play?"``, ``"accept or refuse?"``, ``"discard"``, ``"play"``).
    :param tricks_a: tricks won this hand by A (``tricks_b`` by B); ``-1``: not
        in the trick play, the game's target is shown instead.
    :param headline: the first line of a non-table view (``"B must follow ♥"``).
    :param detail: what follows, wrapped over the lines left (``"take back 7♠"``).
    """

    view: str = "table"
    trump_card: str = ""
    score_a: int = 0
    score_b: int = 0
    target: int = 5
    dealer: str = ""
    elder: str = ""
    turn: str = ""
    expects: str = ""
    tricks_a: int = -1
    tricks_b: int = -1
    headline: str = ""
    detail: str = ""


def card_label(card: str) -> str:
    """``"TH"`` → ``"10♥"``: the rank as printed on the card, then the suit symbol.

    :raises ValueError: not a two-character card.
    """
    if len(card) != 2 or card[1] not in SUITS:
        raise ValueError(f"not a card: {card!r} (rank then suit, like 'TH')")
    return ("10" if card[0] == "T" else card[0]) + SUITS[card[1]]


# -- drawing primitives --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Font:
    height: int
    strip: Image.Image
    cells: dict[str, tuple[int, int, float]]  # char -> (x in strip, cell width, advance), pixels

    def width(self, text: str) -> int:
        """Width of ``text`` in pixels (suit symbols count 10)."""
        return round(sum(10 if c in _SUIT_OF_SYMBOL else self.cells.get(c, self.cells["?"])[2]
                         for c in text))


@cache
def _font(name: str) -> _Font:
    meta = json.loads((FONTS / f"{name}.json").read_text(encoding="utf-8"))
    strip = Image.open(FONTS / f"{name}.png").convert("1")
    cells: dict[str, tuple[int, int, float]] = {}
    x = 0
    for char, cell, advance in zip(meta["chars"], meta["cells"], meta["advances"], strict=True):
        cells[char] = (x, cell, advance)
        x += cell
    return _Font(meta["height"], strip, cells)


@cache
def _suit(letter: str, scale: int = 1) -> Image.Image:
    mask = Image.new("1", (9, 9), 0)
    for y, row in enumerate(_SUIT_ROWS[letter]):
        for x, cell in enumerate(row):
            if cell == "#":
                mask.putpixel((x, y), 1)
    return mask.resize((9 * scale, 9 * scale), Image.Resampling.NEAREST) if scale > 1 else mask


def _text(image: Image.Image, x: int, y: int, text: str, *, font: str = "text", fill: int = 1) -> int:
    """Draw ``text`` with its cell top at (x, y); returns the x after it. Suit symbols
    are the 9×9 bitmaps; a character the font lacks is drawn as ``?``."""
    face = _font(font)
    draw = ImageDraw.Draw(image)
    pen = float(x)
    for char in text:
        suit = _SUIT_OF_SYMBOL.get(char)
        if suit is not None:
            draw.bitmap((round(pen), y + 2), _suit(suit), fill=fill)
            pen = round(pen) + 10
            continue
        left, cell, advance = face.cells.get(char, face.cells["?"])
        glyph = face.strip.crop((left, 0, left + cell, face.height))
        draw.bitmap((round(pen), y), glyph, fill=fill)
        pen += advance
    return round(pen)


def _wrap(text: str, width: int) -> list[str]:
    """Lines of ``text`` that fit ``width`` pixels in the text font."""
    face = _font("text")
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split():
            candidate = f"{line} {word}".strip()
            if face.width(candidate) <= width or not line:
                line = candidate
            else:
                lines.append(line)
                line = word
        lines.append(line)
    return [textwrap.shorten(line, 60) if face.width(line) > width else line for line in lines]


# -- the views ----------------------------------------------------------------------------


def _top_band(image: Image.Image, screen: Screen) -> None:
    """Rows 0-17: the trump (suit 18×18 and the turn-up card's rank), the score A:B."""
    draw = ImageDraw.Draw(image)
    if len(screen.trump_card) == 2 and screen.trump_card[1] in SUITS:
        draw.bitmap((0, 0), _suit(screen.trump_card[1], 2), fill=1)
        _text(image, 22, -3, card_label(screen.trump_card)[:-1], font="big")
    else:
        _text(image, 0, 2, "Écarté")
    score = f"{screen.score_a}:{screen.score_b}"
    width = _font("big").width(score)
    _text(image, WIDTH - width, -3, score, font="big")
    draw.line((0, 19, WIDTH - 1, 19), fill=1)


def _table(image: Image.Image, screen: Screen) -> None:
    who = " · ".join(
        part for part in (
            f"deal {screen.dealer}" if screen.dealer else "",
            f"elder {screen.elder}" if screen.elder else "",
        ) if part
    )
    _text(image, 1, 20, who)
    if screen.tricks_a >= 0 and screen.tricks_b >= 0:
        _text(image, 1, 33, f"tricks A {screen.tricks_a} · B {screen.tricks_b}")
    else:
        _text(image, 1, 33, f"game to {screen.target}")
    prompt = f"{screen.turn}: {screen.expects}" if screen.turn else screen.expects
    if prompt:
        ImageDraw.Draw(image).rectangle((0, 48, WIDTH - 1, HEIGHT - 1), fill=1)
        x = max(1, (WIDTH - _font("text").width(prompt)) // 2)
        _text(image, x, 49, prompt, fill=0)


def _banner(image: Image.Image, screen: Screen, *, reverse: bool, top: int = 21) -> None:
    """A headline and its detail below the top band; ``reverse``: white on black."""
    draw = ImageDraw.Draw(image)
    fill = 0 if reverse else 1
    if reverse:
        draw.rectangle((0, top - 1, WIDTH - 1, HEIGHT - 1), fill=1)
        draw.rectangle((0, top + 13, WIDTH - 1, top + 13), fill=0)
    else:
        draw.rectangle((0, top - 1, WIDTH - 1, top + 12), fill=1)
    _text(image, 2, top - 1, screen.headline, fill=0)
    y = top + 14
    for line in _wrap(screen.detail, WIDTH - 4)[: (HEIGHT - y) // 13]:
        _text(image, 2, y, line, fill=fill)
        y += 13


def render(screen: Screen) -> Image.Image:
    """Draw ``screen``: a 1-bit 128×64 image, 1 = lit pixel.

    :raises ValueError: an unknown view.
    """
    if screen.view not in VIEWS:
        raise ValueError(f"unknown view {screen.view!r}: one of {', '.join(VIEWS)}")
    image = Image.new("1", (WIDTH, HEIGHT), 0)
    if screen.view == "message":
        _banner(image, screen, reverse=False, top=1)
        return image
    _top_band(image, screen)
    if screen.view == "table":
        _table(image, screen)
    else:
        _banner(image, screen, reverse=screen.view in ("fault", "offline"))
    return image


def frame_to_text(image: Image.Image, *, ascii_only: bool = False) -> str:
    """The frame as text, two pixel rows a line: ``▀ ▄ █`` (or ``' , #`` with
    ``ascii_only``, for a terminal or pipe that cannot take UTF-8). 64 rows give
    32 lines of 128 characters, joined with newlines, trailing spaces kept."""
    top_only, bottom_only, both = ("'", ",", "#") if ascii_only else ("▀", "▄", "█")
    frame = image.convert("1")
    width, height = frame.size
    data = frame.tobytes()
    stride = (width + 7) // 8

    def lit(x: int, y: int) -> bool:
        return y < height and bool(data[y * stride + x // 8] & (0x80 >> (x % 8)))

    lines = []
    for y in range(0, height, 2):
        row = []
        for x in range(width):
            top, bottom = lit(x, y), lit(x, y + 1)
            row.append(both if top and bottom else top_only if top else bottom_only if bottom else " ")
        lines.append("".join(row))
    return "\n".join(lines)
