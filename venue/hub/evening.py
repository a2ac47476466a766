"""The hub's evening: when it began, and whether a hub that starts again takes it up.

A club's evening is one run of the hub, or several when it is restarted (a power cut, an update)
and comes back soon. What the hub keeps of an evening (the rounds' pairing times:
:class:`venue.hub.ledger.PairedTimes`; the start of free play's counting: :attr:`venue.hub.ledger.Ledger.evening`)
is taken up again only if the hub was away for less than :data:`BREAK_S` and the evening began less
than :data:`EVENING_S` ago. How long it was away is measured:

- in the same boot of the machine, on the monotonic clock (which never jumps);
- across a reboot, on the wall clock, and only once the kernel says the clock is set (NTP answered:
  :func:`clock_set`). A Pi has no real-time clock: before NTP answers it keeps the time it saved
  last (``fake-hwclock``), so that the next morning it reads the time it was switched off last night,
  and a stop of ten hours looks like one of ten minutes. Then the evening is not taken up: the hub
  begins a new one and says why in its log (the director sees last evening's results disputed,
  never counted).

The hub says it is alive in its folder (``evening.json``) at most every :data:`ALIVE_EVERY_S`; the
file is written whole (a temporary file renamed over it).
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware_host.journal.store import boot_id
from hardware.limits import read_text
from venue.clock import clock_set

logger = logging.getLogger(__name__)

EVENING_S = 12 * 3600.0
"""An evening lasts at most this long: a hub restarted later begins a new one."""

BREAK_S = 2 * 3600.0
"""A hub away for longer than this begins a new evening (the next morning is at least this far away)."""

ALIVE_EVERY_S = 60.0
"""How often the hub writes that it is alive (a stop is known to within this)."""

@dataclass
class Evening:
    """The evening under way: when it :attr:`began` (the hub's wall clock), and whether it was
    :attr:`continued` from an earlier run of the hub."""

    path: Path | None
    began: float
    continued: bool
    began_m: float
    began_boot: int
    boot: int
    _alive_m: float = -ALIVE_EVERY_S

    @classmethod
    def open(cls, path: Path | None, *, now: float | None = None, monotonic: float | None = None,
             boot: int | None = None, synchronised: bool | None = None) -> Evening:
        """The evening of the hub whose folder keeps ``path`` (None: kept nowhere, always a new one),
        taken up if the hub was away for less than :data:`BREAK_S` (see the module). ``now``,
        ``monotonic``, ``boot``, ``synchronised``: the wall clock, the monotonic clock, the boot and
        whether the clock is set (the machine's, unless given)."""
        now = time.time() if now is None else now
        monotonic = time.monotonic() if monotonic is None else monotonic
        boot = boot_id() if boot is None else boot
        kept = _read(path) if path is not None else None
        evening = cls(path, now, False, monotonic, boot, boot)
        if kept is not None:
            why = evening._take_up(kept, now, monotonic, synchronised)
            if why is None:
                logger.info("hub: the evening that began at %s taken up again (%s)",
                            time.strftime("%H:%M", time.localtime(evening.began)), path)
            else:
                logger.warning("hub: a new evening begins (%s)", why)
        evening.alive(now=now, monotonic=monotonic)
        return evening

    def _take_up(self, kept: dict[str, Any], now: float, monotonic: float, synchronised: bool | None) -> str | None:
        """Take up the evening ``kept`` describes, or say why not."""
        try:
            began, began_m, began_boot = float(kept["began"]), float(kept["began_m"]), int(kept["began_boot"])
            alive, alive_m, boot = float(kept["alive"]), float(kept["alive_m"]), int(kept["boot"])
        except (KeyError, TypeError, ValueError):
            return f"{self.path} cannot be read"
        if boot == self.boot:
            away = monotonic - alive_m
        elif synchronised if synchronised is not None else clock_set():
            away = now - alive
        else:
            return ("the machine started again and its clock is not set yet (no NTP): how long the hub was "
                    "away cannot be known")
        age = monotonic - began_m if began_boot == self.boot else now - began
        if not 0 <= away < BREAK_S:
            return f"the hub was away for {away / 3600:.1f} h"
        if not 0 <= age < EVENING_S:
            return f"the evening began {age / 3600:.1f} h ago"
        self.began, self.began_m, self.began_boot, self.continued = began, began_m, began_boot, True
        if began_boot != self.boot:  # its monotonic time means nothing in this boot: from the wall clock now
            self.began_m, self.began_boot = monotonic - (now - began), self.boot
        return None

    def alive(self, *, now: float | None = None, monotonic: float | None = None) -> None:
        """Say the hub is alive (written at most every :data:`ALIVE_EVERY_S`); a file that cannot be
        written is said in the log, and the evening goes on."""
        monotonic = time.monotonic() if monotonic is None else monotonic
        if self.path is None or monotonic - self._alive_m < ALIVE_EVERY_S:
            return
        now = time.time() if now is None else now
        self._alive_m = monotonic
        data = {"began": self.began, "began_m": self.began_m, "began_boot": self.began_boot, "alive": now,
                "alive_m": monotonic, "boot": self.boot}
        part = self.path.with_name(self.path.name + ".part")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            part.write_text(json.dumps(data), encoding="utf-8")
            os.replace(part, self.path)
        except OSError as exc:
            logger.warning("hub: cannot keep the evening in %s (%s)", self.path, exc)


def _read(path: Path) -> dict[str, Any] | None:
    try:  # through the doors of every file the table reads: a FIFO or a device is refused unread
        data = json.loads(read_text(path, limit=4096))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:  # FileProblem is a ValueError
        return {"error": str(exc)}
    return data if isinstance(data, dict) else {"error": "not an object"}
