"""Time limits that do not count the time their waiter was not running.

A wait is a promise about the other side: the PN532 ACKs a command within 100 ms (nfcpy's
``pn53x.Chipset.command`` waits that long), the simulated table's pads report a card within
seconds. When the machine is busy (two cores shared by a test suite and four demos), when a
garbage collection holds every thread of the process, or when the whole process is stopped
(``SIGSTOP``, a laptop's lid closed), the waiter itself does not run: a wall-clock limit then
expires while nobody listened, and a reader that answered in time is taken for dead. A real
PN532's answer waits in the kernel's buffer meanwhile; a simulated one, or the simulated
table's pads, were stopped with the waiter.

A :class:`Deadline` sees such a stall as a wait that woke much later than asked (more than
:data:`STALL_S`): the time it was not running does not count, and the other side, which may
have been stopped too, gets its whole time again (at most :data:`RESTARTS` times a deadline, so
that a dead peer is still found on a machine that is stalled again and again).
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["RESTARTS", "STALL_S", "Deadline"]

STALL_S = 0.05
"""A wait that ends this much later than it asked to has stalled: the waiter was not running.
An idle Linux machine wakes a ``select`` or a ``sleep`` well within a millisecond; a busy one within
a few (measured here with four demos on two cores: 0.1–0.3 ms, with the occasional 20 ms). A
stall of this much already cost half of the PN532's ACK time."""

RESTARTS = 5
"""Stalls a deadline forgives at most: then it expires as a wall-clock one would."""


class Deadline:
    """A time limit of ``seconds`` for a waiter that asks :meth:`left` before each wait, and waits
    no longer than it said.

    :param seconds: the time the other side is given.
    :param clock: monotonic seconds.
    """

    def __init__(self, seconds: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self._clock = clock
        now = clock()
        self._end = now + seconds
        self._seen = now
        self._promised = 0.0  # what the last left() let the waiter wait
        self.stalls = 0
        """The stalls forgiven so far."""

    def left(self) -> float:
        """Seconds the waiter may still wait (0 or less: the time is up). A call that comes
        later than the previous one allowed by more than :data:`STALL_S` starts the time again."""
        now = self._clock()
        late = now - self._seen - self._promised
        if late > STALL_S and self.stalls < RESTARTS:
            self.stalls += 1
            self._end = max(self._end, now + self.seconds)
        self._seen = now
        self._promised = max(self._end - now, 0.0)
        return self._end - now

    @property
    def expired(self) -> bool:
        """Whether the time is up (asking counts as :meth:`left`)."""
        return self.left() <= 0
