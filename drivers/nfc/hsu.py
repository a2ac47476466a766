"""The PN532's serial link (HSU, high-speed UART): its rate, found again after a host that died.

A PN532 on HSU answers at 115,200 baud from power-on (UM0701-02, the HSU interface;
nfcpy's ``init``: "PN532 initial baudrate"). nfcpy's
``nfc/clf/pn532.py`` ``init`` moves it to 921,600 with SetSerialBaudrate (where
``stty -F PORT 921600`` succeeds, which it does on a USB adapter and on a pty),
and its ``Device.close`` moves it back to 115,200 before PowerDown: "otherwise we
can't talk next time". A host killed outright (``kill -9``, a crash, systemd's
watchdog) never closes: the chip stays at 921,600 until its power is cut, and the
next ``init`` speaks 115,200 to it and hears nothing (the bytes reach its UART
garbled). Every reader is then offline, and the service restarts in a loop.

Two things here, each usable alone:

* :func:`recover` finds a chip left at a faster rate (a GetFirmwareVersion at
  each of :data:`FASTER`, the first that is answered wins) and sets it back to
  115,200, so any opening after it starts from the power-on rate;
* :func:`init_at` opens the chip as nfcpy's ``init`` does (its ``stty`` probe
  asked without a shell: :func:`drivers.nfc.tty.port_takes`); at 115,200 it
  leaves the link there (no SetSerialBaudrate): a host killed then leaves
  nothing to recover.

:class:`~drivers.nfc.pn532_reader.NfcpyReader` always recovers; which rate the link keeps
(``link_baud``) was chosen from what each costs (``bench/restart.py``; ``docs/nfc.md``,
*A reader after a crash*): nfcpy's 921,600.

Frames are the manual's normal information frames (§6.2.1.1): ``00 00 FF LEN LCS
TFI PD0..PDn DCS 00``, TFI ``D4`` from the host and ``D5`` from the chip.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import time
from typing import Any

import nfc.clf.pn532

from drivers.nfc.tty import port_takes
from engine.message import Count, Phrase

logger = logging.getLogger(__name__)

POWER_ON = 115200
"""The PN532's HSU rate after power-on (UM0701-02, the HSU interface; nfcpy's ``init``: "PN532
initial baudrate"), and the only rate a Raspberry Pi's mini UART speaks."""

FAST = 921600
"""The rate nfcpy's ``init`` moves a PN532 to where the port takes it."""

FASTER = (921600, 460800, 230400)
"""Rates a chip may have been left at, in the order :func:`recover` asks them (nfcpy's own order
of preference: the first is where a killed nfcpy host leaves it)."""

PROBE_TIMEOUT_MS = 50
"""How long :func:`recover` waits for the ACK at each rate, milliseconds: the chip ACKs
within 15 ms (nfcpy's note in ``clf/pn532.py``), the transport waits 50 ms at least."""

ACK_TIMEOUT_MS = 100
"""The ACK wait of :func:`recover`'s second round, milliseconds: nfcpy's for every command
(``pn53x.Chipset.command``)."""

WAKE_UP = bytes.fromhex("5555000000")
"""The bytes that wake a PN532 from PowerDown over HSU: its fifth rising edge wakes the chip (UM0701-02
§6.3.2.3; ``55`` alone makes five on an 8N1 line), libnfc's ``pn532_uart_wakeup`` bytes, sent in a
write of their own before any frame."""

T_OSC_START = 0.002
"""Seconds a PN532 woken over HSU needs before it can receive, at most (UM0701-02 §6.3.2.3,
T_osc_start): what the host waits after the wake-up bytes (Adafruit's ``wakeup`` waits 2 ms)."""

WAKE_WAIT = 0.01
"""Seconds the host waits after the wake-up bytes before its first frame: five times T_osc_start. The
manual's 2 ms is the chip's; on the way a USB-serial adapter sends what the host wrote in the next USB
frame (1 ms at full speed, so two writes may reach the line a frame closer than they left), and a
busy host's timer may wake it early by its slack. 10 ms costs nothing where it is spent, once when a
reader is opened."""

MINI_UART = re.compile(r"/dev/ttyS[0-9]+")
"""A resolved port the link stays at 115,200 on: a Raspberry Pi's mini UART is ``ttyS0`` (``serial0``
names it on a Pi 3, 4 and Zero 2 W unless Bluetooth is moved off the PL011), an 8250-family UART
that cannot keep 921,600 (its clock follows the core's); nfcpy's ``pn532.init`` leaves ``/dev/ttyS0``
at 115,200 for that reason, but only under that name and only on a board that says it is a Pi."""

USB_SERIAL = re.compile(r"/dev/tty(USB|ACM)[0-9]+")
"""A resolved port on a USB-serial adapter (usb-serial drivers: ``ttyUSB``; CDC-ACM: ``ttyACM``)."""

USB_FIRST_ACK_MS = 1500
"""How long the first ACK is waited for on a USB-serial port, milliseconds: nfcpy's ``pn532.init`` waits
1,500 ms on a Pi's ``/dev/ttyUSB*`` (its USB holds the first data up to about a second after the
port is opened); 100 ms elsewhere."""

_ACK = bytes.fromhex("0000FF00FF00")
_WAKE = bytes(10)  # nfcpy's long preamble: wakes a chip in PowerDown on HSU (UM0701-02 §7.2.11)
_GET_FIRMWARE_VERSION = b"\xd4\x02"
_SAM_NORMAL = b"\xd4\x14\x01\x00\x00"  # SAMConfiguration: normal mode, no timeout, no IRQ (§7.2.10)
_SET_SERIAL_BAUDRATE = 0x10
_RATE_CODES = (9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600, 1288000)  # §7.2.8, BR


def node(path: str) -> str:
    """The device node a port path names (udev's ``/dev/serial/by-path/…`` and ``SYMLINK+=`` names,
    ``/dev/serial0``, a simulator's symlink all resolved): the name nfcpy decides by.

    >>> node("/dev/ttyUSB0")
    '/dev/ttyUSB0'
    """
    return os.path.realpath(path)


def link_rate(port: str, wanted: int) -> int:
    """The rate a reader's link runs at on the resolved ``port``: ``wanted``, but the power-on
    115,200 on a mini UART (:data:`MINI_UART`).

    >>> link_rate("/dev/ttyS0", FAST), link_rate("/dev/ttyUSB0", FAST), link_rate("/dev/ttyAMA0", FAST)
    (115200, 921600, 921600)
    """
    return POWER_ON if MINI_UART.fullmatch(port) else wanted


def first_ack_ms(port: str) -> int:
    """Milliseconds to wait for the first ACK after ``port`` (resolved) was opened: 1,500 on a
    USB-serial adapter (:data:`USB_FIRST_ACK_MS`), else 100 (nfcpy's).

    >>> first_ack_ms("/dev/ttyACM0"), first_ack_ms("/dev/ttyAMA0")
    (1500, 100)
    """
    return USB_FIRST_ACK_MS if USB_SERIAL.fullmatch(port) else 100


def wake_up(transport: Any) -> None:
    """Wake a PN532 that PowerDown left asleep (nfcpy's ``Device.close`` puts it there) as UM0701-02
    §6.3.2.3 asks: the wake-up bytes (:data:`WAKE_UP`) in a write of their own, then the time they
    take on the wire and more than T_osc_start (:data:`T_OSC_START`, :data:`WAKE_WAIT`) before any
    frame (10.4 ms at 115,200 baud); a frame that came sooner
    would be lost while the chip's oscillator starts. A chip awake takes them as noise before a
    frame's preamble.

    :raises OSError: the port is gone.
    """
    transport.write(WAKE_UP)
    rate = transport.baudrate or POWER_ON
    time.sleep(len(WAKE_UP) * 10 / rate + max(WAKE_WAIT, T_OSC_START))


def frame(payload: bytes) -> bytes:
    """A normal information frame around ``payload`` (TFI and data).

    >>> frame(b"\\xd4\\x02").hex()
    '0000ff02fed4022a00'
    """
    return bytes([0, 0, 0xFF, len(payload), -len(payload) & 0xFF]) + payload + bytes([-sum(payload) & 0xFF, 0])


def _exchange(transport: Any, payload: bytes, *, ack_timeout_ms: int, wake: bool = False) -> bytes | None:
    """Send a command and read its ACK and answer; the answer's TFI and data, ``None`` if no
    ACK or no well-formed answer to this command came."""
    transport.write((_WAKE if wake else b"") + frame(payload))
    try:
        if bytes(transport.read(timeout=ack_timeout_ms)) != _ACK:
            return None
        answer = bytes(transport.read(timeout=100))
    except OSError as error:
        if error.errno == errno.ETIMEDOUT:
            return None
        raise
    body = answer[5 : 5 + answer[3]] if len(answer) > 6 and answer[:3] == b"\x00\x00\xff" else b""
    if body[:2] != bytes([0xD5, payload[1] + 1]):
        return None
    return body


def answers_at(transport: Any, rate: int, timeout_ms: int = PROBE_TIMEOUT_MS) -> bool:
    """(Re)open the transport at ``rate`` and ask GetFirmwareVersion (with the wake-up
    preamble): whether the chip answered.

    :raises OSError: the port is gone.
    """
    transport.open(transport.port, rate)
    # an ACK first aborts what the dead host left under way (a poll waiting for a card), as nfcpy's
    # Device.close does before it talks to the chip
    transport.write(_ACK)
    return _exchange(transport, _GET_FIRMWARE_VERSION, ack_timeout_ms=timeout_ms, wake=True) is not None


def set_rate(transport: Any, rate: int) -> None:
    """Move the chip (answering at the transport's rate now) and the transport to ``rate``: a
    SetSerialBaudrate, its answer read at the old rate, the host's ACK, then the port at the new
    rate (UM0701-02 §7.2.8, as nfcpy's ``init`` does).

    :raises OSError: the chip did not answer, or the port is gone.
    :raises ValueError: a rate the PN532 does not have.
    """
    if rate not in _RATE_CODES:
        raise ValueError(f"a PN532 runs at one of {_RATE_CODES}, not {rate}")
    answer = _exchange(transport, bytes([0xD4, _SET_SERIAL_BAUDRATE, _RATE_CODES.index(rate)]),
                       ack_timeout_ms=ACK_TIMEOUT_MS)
    if answer is None:
        raise OSError(errno.EIO, f"the PN532 on {transport.port} refused SetSerialBaudrate {rate}")
    transport.write(_ACK)
    time.sleep(0.001)  # the ACK on the wire before the port changes rate (nfcpy waits as long)
    transport.open(transport.port, rate)


def recover(transport: Any, rates: tuple[int, ...] = FASTER) -> int | None:
    """After a chip did not answer at 115,200: find the rate it was left at and set it back.

    Each rate is asked with a short ACK wait (:data:`PROBE_TIMEOUT_MS`), then, if none answered, once
    more with nfcpy's (:data:`ACK_TIMEOUT_MS`): a chip late to ACK (a simulated one whose thread was not
    scheduled, a USB adapter that held its bytes) is still found, and its late answer, which reaches a
    line already at the next rate as garbage, is not taken for that rate's.

    :returns: the rate it answered at (it now runs at :data:`POWER_ON`, and so does the
        transport), ``None`` if it answered at none of ``rates`` (the transport is then at
        :data:`POWER_ON` again).
    :raises OSError: the port is gone.
    """
    for timeout_ms in (PROBE_TIMEOUT_MS, ACK_TIMEOUT_MS):
        for rate in rates:
            if answers_at(transport, rate, timeout_ms):
                logger.info("%s: the PN532 was left at %d baud (a host that did not close it): set back to %d",
                            transport.port, rate, POWER_ON, extra={"said": Phrase.of(  # a console says it in its own
                                "log.pn532_left_at", port=transport.port, rate=Count(rate), power_on=Count(POWER_ON))})
                set_rate(transport, POWER_ON)
                return rate
    transport.open(transport.port, POWER_ON)
    return None


def init_at(transport: Any, rate: int) -> Any:
    """nfcpy's PN532 device, opened as ``nfc.clf.pn532.init`` opens it (the wake-up preamble,
    GetFirmwareVersion, SAMConfiguration normal, then nfcpy's ``Device``), the link then moved to the
    fastest of nfcpy's rates up to ``rate`` that the port takes (:func:`~drivers.nfc.tty.port_takes`, nfcpy's ``stty``
    probe without its shell; nfcpy's order: 921,600, 460,800, 230,400) by SetSerialBaudrate
    (:func:`set_rate`); at ``rate`` 115,200, or where the port takes none, it stays at 115,200.

    :raises OSError: no PN532 answered (``ENODEV``), or the port is gone.
    """
    transport.open(transport.port, POWER_ON)
    first = first_ack_ms(transport.port)
    if _exchange(transport, _GET_FIRMWARE_VERSION, ack_timeout_ms=first, wake=True) is None:
        raise OSError(errno.ENODEV, os.strerror(errno.ENODEV))
    if _exchange(transport, _SAM_NORMAL, ack_timeout_ms=100, wake=True) is None:
        raise OSError(errno.ENODEV, os.strerror(errno.ENODEV))
    faster = next((r for r in FASTER if r <= rate and port_takes(transport.port, r)), None)
    if faster is not None:
        set_rate(transport, faster)
    log = nfc.clf.pn532.log
    return nfc.clf.pn532.Device(nfc.clf.pn532.Chipset(transport, logger=log), logger=log)
