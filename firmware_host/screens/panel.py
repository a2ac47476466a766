"""The panel: the table's OLED(s) showing the game, and optionally the terminal and PNGs.

:func:`open_panel` opens every display of the table file: on a real table luma on
``/dev/i2c-N``; on the simulated table luma on a simulated I2C bus that decodes
the chip's commands. Each frame is drawn once (:mod:`firmware_host.screens.chooser`) and
sent to every display, which send only what changed.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from catalogue.phrase import Count, Joined, Phrase, log_said, logged, os_words
from drivers.closing import Closing
from drivers.device_errors import DriverError
from drivers.display.i2c_sim import FakeI2CBus
from drivers.display.oled import DisplayError, Oled, open_display
from engine.state import Phase
from firmware_host.errors import BadInput
from firmware_host.referee import Outcome, TableSnapshot, said_in
from firmware_host.screens.chooser import Screen, frame_to_text, message_screen, paused_screen, render, screen_for

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Rest:
    """How an idle table spares its OLEDs: ``dim_after`` seconds after the last event the panels go down
    to ``dim_contrast``, ``blank_after`` seconds after it they go dark (display off, ``AE``: the RAM
    kept); the next event (a card laid or lifted, a button, a line fed) lights them again as they were.

    Why: a PMOLED's pixels wear with the current through them and the hours they are lit, and the
    table view lights the same pixels (the score, the trump, the names) for hours, an evening after
    another: they burn in, the rest of the panel does not. Dimmed, a pixel draws a fraction of its
    current; dark, none (the SSD1306 and SH1106 data sheets: the segment current follows the contrast
    setting, and display off drives no segment). The times are ours: a hand of Écarté waits seconds for
    a card, not minutes, so five minutes without one is a table left alone.
    """

    dim_after: float = 300.0
    blank_after: float = 900.0
    dim_contrast: int = 0x04

    @property
    def check_every(self) -> float:
        """Seconds between two looks at the idle time: at most a second, a quarter of the shorter wait."""
        return min(1.0, self.dim_after / 4, self.blank_after / 4)


REST = Rest()
"""The rest every table's panel takes (:class:`Rest`)."""


class Panel(Closing):
    """Shows the table's snapshots on the displays (and the terminal, and PNG files).

    :param displays: the opened OLEDs.
    :param png_dir: save every frame there as ``frame-0001.png``... (None: no files).
    :param terminal: draw frames there as text (None: no drawing).
    :param only_tricks: draw in the terminal only when a trick, a hand or the game ends
        (for piped output).
    :param redraw: draw each frame over the last one (a terminal, not a pipe), with the
        score and what the table waits for under it.
    :param language: the language of the screens (``en``, ``fr``, ``it``, ``de``).
    :param rest: when the displays dim and go dark on an idle table (:class:`Rest`; ``None``: never);
        a thread of the panel's own looks at the time, and :meth:`rest` does its work.
    :param clock: monotonic seconds (tests give their own).
    """

    def __init__(self, displays: list[Oled], *, png_dir: Path | None = None, terminal: TextIO | None = None,
                 only_tricks: bool = False, redraw: bool = False, language: str = "en",
                 rest: Rest | None = REST, clock: Callable[[], float] = time.monotonic) -> None:
        self.displays = displays
        self.resting = "lit"
        """``lit``, ``dim`` or ``dark``: what the idle table did to the displays (:class:`Rest`)."""
        self._rest = rest
        self._clock = clock
        self._active = clock()
        self._lit_contrast = [oled.contrast for oled in displays]
        self._lock = threading.RLock()  # the displays' bus: the game's frames and the rest's commands
        self._stopped = threading.Event()
        self._rester: threading.Thread | None = None
        if rest is not None and displays:
            self._rester = threading.Thread(target=self._rest_loop, args=(rest,), name="panel-rest", daemon=True)
            self._rester.start()
        self.language = language
        self.redraw = redraw
        self.caption = ""
        self.png_dir = png_dir
        self.terminal = terminal
        self.only_tricks = only_tricks
        self.frames = 0
        self.screen: Screen | None = None
        self._seen: tuple[Any, ...] = ()
        self._failing: set[int] = set()
        if png_dir is not None:
            png_dir.mkdir(parents=True, exist_ok=True)

    def publish(self, outcome: Outcome) -> None:
        """A :class:`~firmware_host.service.TableOutput`: show the outcome's snapshot."""
        self.show(outcome.snapshot)

    def show(self, snapshot: TableSnapshot, *, coach_line: str | None = None) -> None:
        """Show what the table shows now (nothing is sent if the screen did not change), with the
        coach's line on the hand just over (:func:`~firmware_host.screens.chooser.screen_for`). Every
        snapshot is an event: a resting panel is lit again."""
        self.wake()
        screen = screen_for(snapshot, self.language, coach_line=coach_line)
        if screen == self.screen:
            return
        moments = (snapshot.last_trick, snapshot.last_hand, snapshot.phase == Phase.OVER)
        worth_drawing = not self.only_tricks or moments != self._seen
        self._seen = moments
        view = snapshot.view
        self.caption = (
            f"{view.rules}  hand {snapshot.hand_no}  {snapshot.players[0]} {view.score[0]}"
            f" - {snapshot.players[1]} {view.score[1]}"
            f"  |  {said_in(snapshot.expectation, self.language)}"
        )
        self._put(screen, draw=worth_drawing)

    def paused(self, message: str, snapshot: TableSnapshot | None = None, *, said: Phrase | None = None) -> None:
        """Leave a 'paused' screen on the displays (the service is stopping); ``said``: the message in
        words, for a console in the table's language (:func:`catalogue.phrase.logged`)."""
        logger.info("%s", message, extra=logged(said) if said is not None else None)
        self.wake()
        self._put(paused_screen(snapshot, message, self.language), draw=True)

    def message(self, lines: list[str]) -> None:
        """A few short lines (enrollment, doctor)."""
        self.wake()
        self._put(message_screen(lines), draw=False)

    def wake(self) -> None:
        """Something happened at the table: the idle time starts again, and displays resting are lit
        again at their contrast."""
        with self._lock:
            self._active = self._clock()
            if self.resting == "lit":
                return
            self.resting = "lit"
            for oled, contrast in zip(self.displays, self._lit_contrast, strict=False):
                try:
                    oled.set_lit(True)
                    oled.set_contrast(contrast)
                except DisplayError as exc:
                    logger.debug("%s (set up again with the next frame)", exc)

    def rest(self) -> str:
        """Dim or darken the displays if the table has been idle long enough (:class:`Rest`): what they
        are now (``lit``, ``dim``, ``dark``)."""
        rest = self._rest
        with self._lock:
            if rest is None:
                return self.resting
            idle = self._clock() - self._active
            if idle >= rest.blank_after and self.resting != "dark":
                self.resting = "dark"
                for oled in self.displays:
                    try:
                        oled.set_lit(False)
                    except DisplayError as exc:
                        logger.debug("%s (set up again with the next frame)", exc)
                log_said(logger, logging.INFO, Phrase.of("log.display_dark", seconds=Count(round(idle))))
            elif idle >= rest.dim_after and self.resting == "lit":
                self.resting = "dim"
                for oled in self.displays:
                    try:
                        oled.set_contrast(rest.dim_contrast)
                    except DisplayError as exc:
                        logger.debug("%s (set up again with the next frame)", exc)
            return self.resting

    def _rest_loop(self, rest: Rest) -> None:
        while not self._stopped.wait(rest.check_every):
            self.rest()

    def _put(self, screen: Screen, *, draw: bool) -> None:
        with self._lock:
            self._active = self._clock()
            self._show(screen, draw=draw)

    def _show(self, screen: Screen, *, draw: bool) -> None:
        self.screen = screen
        image = render(screen)
        self.frames += 1
        for index, oled in enumerate(self.displays):
            try:
                oled.show(image)
            except DisplayError as exc:
                if index not in self._failing:
                    log_said(logger, logging.WARNING, Phrase.of("log.display_failed", chip=oled.chip,
                                                                why=os_words(exc)))
                self._failing.add(index)
            else:
                if index in self._failing:
                    log_said(logger, logging.INFO, Phrase.of("log.display_back", chip=oled.chip))
                self._failing.discard(index)
        if self.png_dir is not None:
            image.convert("L").save(self.png_dir / f"frame-{self.frames:04d}.png")
        if draw and self.terminal is not None:
            if self.redraw:
                # over the last frame: cursor home, the frame, the caption, clear the rest
                self.terminal.write("\x1b[H" + frame_to_text(image) + "\n" + self.caption + "\x1b[K\n\x1b[J")
            else:
                self.terminal.write(frame_to_text(image) + "\n")
            self.terminal.flush()

    def close(self) -> None:
        """Close every display (safe to call twice)."""
        self._stopped.set()
        if self._rester is not None and self._rester is not threading.current_thread():
            self._rester.join(timeout=5.0)
        with self._lock:
            displays, self.displays = self.displays, []
        for oled in displays:
            oled.close()


def open_panel(table: Any, *, png_dir: Path | None = None, terminal: TextIO | None = None,
               only_tricks: bool = False, redraw: bool = False, tolerant: bool = False) -> Panel:
    """The panel of a table file: each ``[[displays]]`` entry opened (``bus = "sim"``: simulated).

    :param tolerant: a display that cannot be opened is reported and left out (the
        service referees on without it) instead of raising.
    :raises DeviceNotFoundError, DevicePermissionError: a real display cannot be opened
        (unless ``tolerant``).
    """
    displays: list[Oled] = []
    try:
        for config in table.displays:
            try:
                if config.simulated:
                    bus = FakeI2CBus(config.chip, address=config.address)
                    displays.append(open_display(config.chip, bus=bus, address=config.address,
                                                 rotate=config.rotate))
                else:
                    displays.append(open_display(config.chip, port=config.bus, address=config.address,
                                                 rotate=config.rotate))
            except DriverError as exc:
                if not tolerant:
                    raise
                why: Phrase | Joined | str = str(exc)
                if isinstance(exc, OSError):  # the system's reason in words, and the node it could not open
                    why = Joined((os_words(exc), str(exc.filename)), ": ") if exc.filename else os_words(exc)
                log_said(logger, logging.WARNING, Phrase.of("log.display_left_out", chip=config.chip, bus=config.bus,
                                                            why=why))
    except BaseException:
        for oled in displays:
            oled.close()
        raise
    return Panel(displays, png_dir=png_dir, terminal=terminal, only_tricks=only_tricks, redraw=redraw,
                 language=getattr(table, "language", "en"))


def check_png_dir(path: Path | None) -> Path | None:
    """``--png DIR``: the directory, made if need be and checked writable.

    :raises BadInput: for a path that is a file, or a directory that cannot be written.
    """
    if path is None:
        return None
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise BadInput(msgid="error.png_not_a_folder", path=path) from None
    except OSError as exc:
        raise BadInput(msgid="error.png_cannot_make", path=path, reason=exc) from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise BadInput(msgid="error.png_cannot_write", path=path)
    return path
