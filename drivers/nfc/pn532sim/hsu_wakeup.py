"""A PN532 in PowerDown woken over HSU: what the chip's UART hears while its oscillator starts.

UM0701-02 §6.3.2.3 (HSU wake-up condition): a PN532 that PowerDown (§7.2.11) put to sleep with HSU
among its wake-up sources wakes on the **fifth rising edge** of its RX line, then needs the time its
oscillator takes to start, T_osc_start (up to 2 ms), before its UART can receive: the host is to
wait that long after the wake-up bytes before it sends a command. What reaches the line before the
oscillator is up is lost. libnfc sends its wake-up bytes (``55 55 00 00 00``) in a write of their
own before the frame (``libnfc/drivers/pn532_uart.c``, ``pn532_uart_wakeup``: "send 0x55 and wait a
'long' delay for PN532 being wakeup"); Adafruit's driver writes ``55 00 00`` and waits 2 ms
(``Adafruit_PN532.cpp``, ``wakeup``). nfcpy does neither: its ``pn532.init`` writes ten ``00``
and the frame in one write (0.87 ms of zeros at 115,200 baud, five of them after the fifth edge:
0.43 ms, not 2).

The model (:class:`HsuWakeup`): rising edges are counted on the line as it is (a byte's start bit
low, its eight data bits least significant first, its stop bit high: :func:`rising_edges`), at
whatever rate they come (an edge is an edge, garbled or not). Bytes written together follow one
another on the wire (10 bits a byte at the line's rate); a byte whose start bit comes before the
oscillator is up is lost. Assumptions, not measured: the oscillator takes the manual's longest
T_osc_start (:data:`T_OSC_START`); a chunk of bytes the pty gives at once was written at once and
goes out back to back from the moment it was read (a pty keeps no timing: it hands over at once
what the host wrote); a host that waited between two writes is heard as two chunks, and a later
chunk is judged with :data:`READ_SLACK` for the serving thread's own lateness.
"""

from __future__ import annotations

T_OSC_START = 0.002
"""Seconds the PN532's oscillator takes to start after the wake-up edge, at most (UM0701-02
§6.3.2.3, T_osc_start): the simulator takes the longest."""

READ_SLACK = 0.001
"""Seconds a chunk written after the waking one may come sooner than T_osc_start and still be heard:
the serving thread reads each chunk a little after it came (a loaded machine's scheduling, the
interpreter's lock), so the waking chunk's read may be late by as much, and the gap between two
chunks' reads shorter than the gap between their writes. Only a frame in the same write as the
wake-up (nfcpy's ``init``), or one sent more than this sooner than T_osc_start, is surely lost;
an assumption of this model, which keeps a patient host from being failed by a busy test machine."""

WAKE_EDGES = 5
"""The rising edge on RX that wakes a PN532 in PowerDown on HSU (UM0701-02 §6.3.2.3)."""

_BITS = 10  # start bit, 8 data bits, stop bit (8N1: UM0701-02 §6.2.3)


def rising_edges(byte: int) -> int:
    """The low-to-high transitions one byte makes on an idle-high 8N1 line.

    >>> rising_edges(0x55), rising_edges(0x00), rising_edges(0xFF)
    (5, 1, 1)
    """
    bits = [0] + [(byte >> bit) & 1 for bit in range(8)] + [1]
    level, edges = 1, 0
    for bit in bits:
        edges += level == 0 and bit == 1
        level = bit
    return edges


class HsuWakeup:
    """The chip's HSU receiver across a PowerDown: asleep, waking, awake.

    :meth:`sleep` when PowerDown is answered; :meth:`hear` every chunk the host's side writes (with
    the time it was read and the line's rate): it gives back the bytes the chip's UART receives.
    """

    def __init__(self) -> None:
        self._asleep = False
        self._edges = 0
        self._ready_at: float | None = None  # the oscillator is up from then (monotonic seconds)
        self.lost = 0
        """Bytes that came while the chip slept or its oscillator started."""

    @property
    def asleep(self) -> bool:
        """Whether the chip is in PowerDown, not yet woken (once woken, its oscillator takes
        :data:`T_OSC_START` more to start)."""
        return self._asleep

    def sleep(self) -> None:
        """PowerDown: from now on the chip hears nothing until the fifth rising edge."""
        self._asleep, self._edges, self._ready_at = True, 0, None

    def wake(self) -> None:
        """Power cut and back: the chip starts awake."""
        self._asleep, self._edges, self._ready_at = False, 0, None

    def hear(self, data: bytes, now: float, rate: int) -> bytes:
        """The bytes of ``data`` (read at ``now``, sent back to back at ``rate`` baud) the chip's
        UART receives."""
        if not self._asleep and self._ready_at is None:
            return data
        byte_time = _BITS / rate
        start = now  # the chunk's first start bit: a pty gives at once what the host wrote
        slack = READ_SLACK  # a chunk after the waking one: its read time and the waking one's may be late
        for index, byte in enumerate(data):
            at = start + index * byte_time
            if self._asleep:
                self._edges += rising_edges(byte)
                if self._edges >= WAKE_EDGES:  # woken by this byte (its last edge ends it, at worst)
                    self._asleep = False
                    self._ready_at = at + byte_time + T_OSC_START
                    slack = 0.0  # the bytes written with the wake-up are timed on the wire alone
                self.lost += 1
                continue
            if self._ready_at is not None and at < self._ready_at - slack:
                self.lost += 1
                continue
            self._ready_at = None
            return data[index:]
        return b""
