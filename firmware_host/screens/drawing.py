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

The glyphs are baked bitmaps (``firmware_host/screens/fonts``, from DejaVu), so a
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
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from PIL import Image, ImageDraw

from catalogue import SUIT_SYMBOLS
from engine.cards import Card

WIDTH, HEIGHT = 128, 64
FONTS = Path(__file__).resolve().parent / "fonts"

#: The views :func:`render` draws.
VIEWS = ("table", "fault", "king", "hand", "game_over", "offline", "paused", "message", "menu")

_SUIT_OF_SYMBOL = {symbol: letter for letter, symbol in SUIT_SYMBOLS.items()}

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
        trump. Empty: no deal yet. ``trump_label``: its rank as the table's language
        prints it (``"R"`` for a French king; empty: as ``trump_card`` says).
    :param score_a: points of seat A; ``score_b`` of seat B; ``target`` to win.
    :param label_a: whose number ``score_a`` is (a seat or a player's initial), ``label_b``.
    :param dealer: ``"A"`` or ``"B"`` (empty: not known yet); ``elder`` likewise.
    :param turn: who the table waits for (a seat or a name); ``expects`` what
        (``"propose or play?"``, ``"accept or refuse?"``, ``"discard"``, ``"play"``).
    :param tricks_a: tricks won this hand by A (``tricks_b`` by B); ``-1``: not
        in the trick play.
    :param colon: what stands between ``turn`` and ``expects``, as the table's language writes a colon
        (``": "``; French ``" : "``).
    :param status: the table view's middle line (who deals, the tricks), worded by the
        caller; empty: the English default.
    :param headline: the first line of a non-table view (``"B must follow ♥"``).
    :param detail: what follows, wrapped over the lines left (``"take back 7♠"``); a
        newline starts a new line.
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
    colon: str = ": "
    tricks_a: int = -1
    tricks_b: int = -1
    headline: str = ""
    detail: str = ""
    label_a: str = "A"
    label_b: str = "B"
    status: str = ""
    trump_label: str = ""


def card_label(card: str) -> str:
    """``"TH"`` → ``"10♥"``: the rank as printed on the card, then the suit symbol.

    :raises ValueError: not a two-character card.
    """
    if len(card) != 2 or card[1] not in SUIT_SYMBOLS:
        raise ValueError(f"not a card: {card!r} (rank then suit, like 'TH')")
    return Card.parse(card).symbol()


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
    are the 9×9 bitmaps; a character the font lacks is drawn as ``?``. The line is drawn as one
    mask (:func:`_line_mask`), the same pixels as its glyphs drawn one by one."""
    mask, end = _line_mask(text, font, x)
    if mask is not None:
        ImageDraw.Draw(image).bitmap((x, y), mask, fill=fill)
    return end


@lru_cache(maxsize=512)
def _line_mask(text: str, font: str, x: int) -> tuple[Image.Image | None, int]:
    """The glyphs of ``text`` laid from column ``x`` as one mask whose left edge is ``x`` (``None``
    for an empty text), and the x after it. Cached: a frame's lines mostly stand where they stood in
    the last frame (the status, the prompt), so a frame costs a bitmap a line, not one a character.
    Keyed on ``x`` too: the pen starts at ``x`` and rounds as it goes, so a line's pixels may
    depend on where it starts (``round`` halves to even)."""
    face = _font(font)
    placed: list[tuple[int, int, Image.Image]] = []  # (column from x, row, glyph)
    pen = float(x)
    for char in text:
        suit = _SUIT_OF_SYMBOL.get(char)
        if suit is not None:
            placed.append((round(pen) - x, 2, _suit(suit)))
            pen = round(pen) + 10
            continue
        left, cell, advance = face.cells.get(char, face.cells["?"])
        placed.append((round(pen) - x, 0, _glyph(font, left, cell)))
        pen += advance
    if not placed:
        return None, round(pen)
    # every advance is positive, so no glyph starts left of x: the mask's column 0 is x
    width = max(column + glyph.width for column, _, glyph in placed)
    height = max(row + glyph.height for _, row, glyph in placed)
    mask = Image.new("1", (width, height), 0)
    for column, row, glyph in placed:
        mask.paste(1, (column, row), glyph)
    return mask, round(pen)


@cache
def _glyph(font: str, left: int, cell: int) -> Image.Image:
    """The glyph at ``left`` (``cell`` pixels wide) of a baked font's strip, cut once: a frame's text
    costs a bitmap a character, not a crop and a bitmap (as many glyphs kept as the font has)."""
    face = _font(font)
    return face.strip.crop((left, 0, left + cell, face.height))


def missing_glyphs(text: str, *, font: str = "text") -> set[str]:
    """The characters of ``text`` the baked font lacks (drawn as ``?``): none, for every message
    of the catalogue in every language (a test)."""
    cells = _font(font).cells
    return {c for c in text if c not in cells and c not in _SUIT_OF_SYMBOL and c != "\n"}


def text_width(text: str, *, font: str = "text") -> int:
    """Width of ``text`` in pixels, measured with the glyphs :func:`render` draws."""
    return _width(text, font)


@lru_cache(maxsize=1024)
def _width(text: str, font: str) -> int:
    """:func:`text_width`, cached: a frame's layout measures the same few texts again and again
    (the status, the prompt, the labels: about 28 sums a frame without it)."""
    return _font(font).width(text)


def fitting(text: str, width: int, *, tail: str = "", font: str = "text") -> int:
    """How many characters of ``text`` fit ``width`` pixels with ``tail`` after them: the longest
    prefix ``p`` with ``text_width(p + tail) <= width``. One pass over the text (a name of 30,000
    characters costs what its first few do, not the square of its length)."""
    face = _font(font)
    advance = [10.0 if c in _SUIT_OF_SYMBOL else face.cells.get(c, face.cells["?"])[2] for c in tail]
    pen = 0.0
    best = 0
    for index, char in enumerate(text):
        pen += 10 if char in _SUIT_OF_SYMBOL else face.cells.get(char, face.cells["?"])[2]
        total = pen
        for step in advance:
            total += step
        if round(total) <= width:
            best = index + 1
        elif pen > width + 64:  # every character advances: nothing longer can fit
            break
    return best


def wrap(text: str, width: int = WIDTH - 4) -> tuple[list[str], list[str]]:
    """``text`` in lines that fit ``width`` pixels (a newline starts a new line), and the
    words too wide for any line (cut when drawn: a layout must leave none)."""
    face = _font("text")
    lines: list[str] = []
    too_wide: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split():
            if face.width(word) > width:
                too_wide.append(word)
            candidate = f"{line} {word}".strip()
            if face.width(candidate) <= width or not line:
                line = candidate
            else:
                lines.append(line)
                line = word
        lines.append(line)
    return lines, too_wide


@dataclass(frozen=True, slots=True)
class _Line:
    x: int
    y: int
    text: str
    fill: int = 1
    font: str = "text"


@dataclass(frozen=True, slots=True)
class Layout:
    """Where :func:`render` puts the words of a screen, and what did not fit.

    ``clipped``: each piece of text cut off (a line below the panel, a word or a line
    wider than the panel); a screen whose layout clips nothing shows all its words.
    """

    lines: tuple[_Line, ...]
    clipped: tuple[str, ...]
    rule: int = -1
    """The row of the line between a full-panel view's headline and its detail (-1: none)."""


LINE = 12
"""Pixels from one text line to the next on the full-panel views (fault, offline, message, menu)."""


def _block(text: str, top: int, pitch: int, fill: int, out: list[_Line], cut: list[str],
           *, x: int = 2, bottom: int = HEIGHT) -> int:
    """Lay ``text`` wrapped from row ``top``; the row after it. Lines whose ink would pass
    ``bottom`` are clipped."""
    lines, too_wide = wrap(text, WIDTH - 2 * x)
    cut.extend(too_wide)
    y = top
    for line in lines:
        if not line:
            continue
        if y + 12 > bottom:  # the glyphs' ink: rows 0-11 of the cell, descenders 10-13
            cut.append(line)
            continue
        out.append(_Line(x, y, line, fill))
        y += pitch
    return y


def _centred(text: str, y: int, fill: int, out: list[_Line], cut: list[str]) -> None:
    width = text_width(text)
    if width > WIDTH - 2:
        cut.append(text)
    out.append(_Line(max(1, (WIDTH - width) // 2), y, text, fill))


def layout(screen: Screen) -> Layout:
    """Where each text of ``screen`` goes (the top band's big digits and suit aside)."""
    out: list[_Line] = []
    cut: list[str] = []
    view = screen.view
    rule = -1
    if view == "table":
        status = screen.status or _status(screen)
        if text_width(status) > WIDTH - 2:
            cut.append(status)
        out.append(_Line(1, 21, status))
        prompt = f"{screen.turn}{screen.colon}{screen.expects}" if screen.turn else screen.expects
        if prompt:
            if text_width(prompt) <= WIDTH - 4:
                _centred(prompt, 41, 0, out, cut)
            else:
                _centred(f"{screen.turn}{screen.colon.rstrip()}", 35, 0, out, cut)
                _centred(screen.expects, 48, 0, out, cut)
    elif not view_has_band(view):
        # the whole panel: the headline, a rule, then the detail. Fault and offline in
        # reverse video; message, menu and hand with the headline reversed.
        reverse = view in ("fault", "offline")
        y = _block(screen.headline, 0, LINE, 0, out, cut)
        if screen.detail:
            rule = y + 1
            _block(screen.detail, y + 3, LINE, 0 if reverse else 1, out, cut)
    else:
        # below the top band: the headline reversed, then two lines of detail
        if text_width(screen.headline) > WIDTH - 4:
            cut.append(screen.headline)
        out.append(_Line(2, 20, screen.headline, 0))
        _block(screen.detail, 34, 13, 1, out, cut)
    return Layout(tuple(out), tuple(cut), rule)


def clipped(screen: Screen) -> tuple[str, ...]:
    """The texts of ``screen`` that would be cut off when drawn (none: everything fits)."""
    cut = list(layout(screen).clipped)
    if view_has_band(screen.view):
        cut.extend(_band_clipped(screen))
    return tuple(cut)


def view_has_band(view: str) -> bool:
    """Whether ``view`` shows the top band (trump and score)."""
    return view not in ("fault", "offline", "message", "menu", "hand")


def _status(screen: Screen) -> str:
    if screen.tricks_a >= 0 and screen.tricks_b >= 0:
        return f"tricks {screen.label_a} {screen.tricks_a} · {screen.label_b} {screen.tricks_b}"
    return " · ".join(
        part for part in (
            f"deal {screen.dealer}" if screen.dealer else "",
            f"elder {screen.elder}" if screen.elder else "",
        ) if part
    ) or f"game to {screen.target}"


# -- the views ----------------------------------------------------------------------------


def _small_rank(screen: Screen) -> bool:
    """A wide score pushes the turn-up's rank into the text font (``-3:10`` beside a ``10``)."""
    return _score_parts(screen, big=True)[0] < _trump_right(screen, big=True) + 3


def _small_score(screen: Screen) -> bool:
    """A score too wide even then is written in the text font (``11:-10``)."""
    return _score_parts(screen, big=True)[0] < _trump_right(screen, big=False) + 3


def _score_parts(screen: Screen, *, big: bool) -> tuple[int, int, int]:
    """x of the label A, of the score digits and of the label B in the top band."""
    score = f"{screen.score_a}:{screen.score_b}"
    b = WIDTH - 1 - text_width(screen.label_b)
    digits = b - 3 - text_width(score, font="big" if big else "text")
    a = digits - 3 - text_width(screen.label_a)
    return a, digits, b


def _trump_right(screen: Screen, *, big: bool) -> int:
    if len(screen.trump_card) == 2 and screen.trump_card[1] in SUIT_SYMBOLS:
        rank = screen.trump_label or card_label(screen.trump_card)[:-1]
        return 21 + text_width(rank, font="big" if big else "text")
    return text_width("Écarté")


def _band_clipped(screen: Screen) -> list[str]:
    a, _, _ = _score_parts(screen, big=False)
    if a < _trump_right(screen, big=False) + 3:
        return [f"{screen.label_a} {screen.score_a}:{screen.score_b} {screen.label_b}"]
    return []


def _top_band(image: Image.Image, screen: Screen) -> None:
    """Rows 0-19: the trump (suit 18×18 and the turn-up card's rank), the score A:B with
    whose number is whose on either side."""
    draw = ImageDraw.Draw(image)
    if len(screen.trump_card) == 2 and screen.trump_card[1] in SUIT_SYMBOLS:
        draw.bitmap((0, 0), _suit(screen.trump_card[1], 2), fill=1)
        rank = screen.trump_label or card_label(screen.trump_card)[:-1]
        if _small_rank(screen):
            _text(image, 21, 4, rank)
        else:
            _text(image, 22, -3, rank, font="big")
    else:
        _text(image, 0, 2, "Écarté")
    big = not _small_score(screen)
    a, digits, b = _score_parts(screen, big=big)
    _text(image, a, 5, screen.label_a)
    _text(image, digits, -3 if big else 5, f"{screen.score_a}:{screen.score_b}", font="big" if big else "text")
    _text(image, b, 5, screen.label_b)
    draw.line((0, 19, WIDTH - 1, 19), fill=1)


def render(screen: Screen) -> Image.Image:
    """Draw ``screen``: a 1-bit 128×64 image, 1 = lit pixel.

    :raises ValueError: an unknown view.
    """
    if screen.view not in VIEWS:
        raise ValueError(f"unknown view {screen.view!r}: one of {', '.join(VIEWS)}")
    image = Image.new("1", (WIDTH, HEIGHT), 0)
    draw = ImageDraw.Draw(image)
    view = screen.view
    placed = layout(screen)
    if view == "table":
        _top_band(image, screen)
        if screen.turn or screen.expects:
            draw.rectangle((0, 34, WIDTH - 1, HEIGHT - 1), fill=1)
    elif view in ("fault", "offline"):
        draw.rectangle((0, 0, WIDTH - 1, HEIGHT - 1), fill=1)
        if placed.rule >= 0:
            draw.line((0, placed.rule, WIDTH - 1, placed.rule), fill=0)
    elif view in ("message", "menu", "hand"):
        bottom = placed.rule if placed.rule >= 0 else HEIGHT
        draw.rectangle((0, 0, WIDTH - 1, bottom - 1), fill=1)
    else:
        _top_band(image, screen)
        draw.rectangle((0, 20, WIDTH - 1, 33), fill=1)
    for line in placed.lines:
        _text(image, line.x, line.y, line.text, font=line.font, fill=line.fill)
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
