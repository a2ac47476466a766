"""Every PN532 frame a reader exchanges, written down for a bug report.

:class:`RecordingTty` is the pads' serial transport (:class:`~drivers.nfc.tty.RawTty`) that also
hands every frame it writes and reads to a :class:`FrameLog`: the frames exactly as they went on
the wire (nfcpy's wake-up preamble included), each on a line of its own with the time since the
log began, the reader's name, its direction (``>`` host to chip, ``<`` chip to host) and, for a
command or its answer, the command's name (UM0701-02, §7: the command set)::

    >>> log = FrameLog()
    >>> log.note("hand.A", ">", bytes.fromhex("0000FF02FED4022A00"), at=0.0)
    >>> log.lines[-1]
    '    0.000000 hand.A > 00 00 FF 02 FE D4 02 2A 00  GetFirmwareVersion'
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from pathlib import Path

from drivers.nfc.tty import RawTty

COMMANDS = {
    0x00: "Diagnose", 0x02: "GetFirmwareVersion", 0x04: "GetGeneralStatus", 0x06: "ReadRegister",
    0x08: "WriteRegister", 0x0C: "ReadGPIO", 0x0E: "WriteGPIO", 0x10: "SetSerialBaudRate", 0x12: "SetParameters",
    0x14: "SAMConfiguration", 0x16: "PowerDown", 0x32: "RFConfiguration", 0x40: "InDataExchange",
    0x42: "InCommunicateThru", 0x44: "InDeselect", 0x4A: "InListPassiveTarget", 0x50: "InATR", 0x52: "InRelease",
    0x54: "InSelect", 0x56: "InJumpForDEP", 0x58: "RFRegulationTest", 0x60: "InAutoPoll",
}
"""The PN532's command codes the table may send, by name (UM0701-02, §7)."""

_ACK = bytes.fromhex("0000FF00FF00")
_NACK = bytes.fromhex("0000FFFF0000")


def describe(frame: bytes) -> str:
    """What a frame is: ``ACK``, ``NACK``, ``error frame``, or the command it carries or answers.

    >>> describe(bytes.fromhex("0000FF03FDD54301E700"))
    'InCommunicateThru answer'
    >>> describe(bytes.fromhex("5555000000"))
    'wake-up'
    """
    start = frame.find(b"\x00\x00\xff")
    if start < 0:
        return "wake-up" if frame.startswith(b"\x55") else ""  # 55: the HSU wake-up (UM0701-02 §6.3.2.3)
    frame = frame[start:]
    if frame.startswith(_ACK):
        return "ACK"
    if frame.startswith(_NACK):
        return "NACK"
    body = 8 if frame[3:5] == b"\xff\xff" else 5
    if len(frame) < body + 2:
        return ""
    tfi, code = frame[body], frame[body + 1]
    if tfi == 0x7F:
        return "error frame"
    if tfi == 0xD4:
        return COMMANDS.get(code, f"command {code:02X}")
    if tfi == 0xD5:
        return f"{COMMANDS.get(code - 1, f'command {code - 1:02X}')} answer"
    return ""


class FrameLog:
    """The frames of one or more readers, as lines of text, in the order they went (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._start = time.monotonic()
        self.lines: list[str] = []

    def note(self, reader: str, direction: str, frame: bytes, *, at: float | None = None) -> None:
        """Write down one ``frame`` (``direction`` ``>``: written to the chip, ``<``: read from it).

        :param at: seconds since the log began (now, by default).
        """
        when = time.monotonic() - self._start if at is None else at
        text = frame.hex(" ").upper()
        what = describe(frame)
        with self._lock:
            self.lines.append(f"{when:12.6f} {reader} {direction} {text}" + (f"  {what}" if what else ""))

    def comment(self, text: str) -> None:
        """A line of its own, ``#`` first (what the next frames are for)."""
        with self._lock:
            self.lines.extend(f"# {line}" for line in text.splitlines())

    def write(self, path: Path, header: Iterable[str] = ()) -> None:
        """Write the log to ``path`` (``header`` lines first, ``#`` before each).

        :raises OSError: the file cannot be written.
        """
        with self._lock:
            lines = [*(f"# {line}" for line in header), *self.lines]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")


class RecordingTty(RawTty):
    """:class:`~drivers.nfc.tty.RawTty` that writes every frame down in ``log`` under ``name``.

    :raises OSError: the port cannot be opened (as :class:`~drivers.nfc.tty.RawTty`).
    """

    def __init__(self, port: str, log: FrameLog, name: str) -> None:
        self._log = log
        self._name = name
        super().__init__(port)

    def write(self, frame: bytes) -> None:
        self._log.note(self._name, ">", bytes(frame))
        super().write(frame)

    def read(self, timeout: float) -> bytearray:
        try:
            frame = super().read(timeout)
        except OSError as error:
            self._log.comment(f"{self._name}: nothing read within {timeout:.0f} ms ({error.strerror or error})")
            raise
        self._log.note(self._name, "<", bytes(frame))
        return frame
