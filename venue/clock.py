"""Whether the wall clock is set: the table's feed (:class:`venue.table.mqtt.TablePublisher`, a game of an
earlier boot) and the hub's evening (:mod:`venue.hub.evening`, a hub back after a reboot) trust the wall
clock across a reboot only once the kernel says NTP has set it. A Pi has no real-time clock: before NTP
answers it keeps the time it saved last (``fake-hwclock``)."""

from __future__ import annotations

import ctypes
import ctypes.util

_TIME_ERROR = 5
"""``adjtimex``'s answer while the kernel's clock is not synchronised (``STA_UNSYNC``: adjtimex(2))."""


def clock_set() -> bool:
    """Whether the kernel says the wall clock is synchronised (NTP, chrony, systemd-timesyncd set it):
    ``adjtimex`` with no change asked answers ``TIME_ERROR`` until then. False where it cannot be asked."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        timex = ctypes.create_string_buffer(512)  # struct timex is 208 bytes on 64-bit Linux; modes 0: read only
        state = int(libc.adjtimex(timex))
    except (OSError, AttributeError):
        return False
    return 0 <= state != _TIME_ERROR
