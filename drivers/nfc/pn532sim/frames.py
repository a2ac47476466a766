"""The PN532's high-speed-UART frames (user manual UM0701-02, §6.2): the codec.

What is emulated: preamble/wake-up bytes (``55`` or ``00``) are skipped; normal
and extended frames with LEN/LCS/DCS checksums; ACK, NACK and the
application-level error frame ``7F``. :class:`FrameParser` cuts the host's byte
stream into :class:`HostFrame` units; a frame with a bad checksum or a wrong
frame identifier comes out as ``bad`` (the chip then waits for a good one).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

ACK = bytes.fromhex("0000FF00FF00")
NACK = bytes.fromhex("0000FFFF0000")
ERROR_FRAME = bytes.fromhex("0000FF01FF7F8100")
"""The application-level error frame the PN532 sends for a command it rejects."""

HOST_TFI = 0xD4
CHIP_TFI = 0xD5


def frame(payload: bytes) -> bytes:
    """A PN532 information frame around ``payload`` (TFI and data).

    Normal frame up to 255 bytes of payload, extended frame above.

    >>> frame(bytes([0xD4, 0x02])).hex()
    '0000ff02fed4022a00'
    """
    size = len(payload)
    dcs = (-sum(payload)) & 0xFF
    if size < 256:
        head = bytes([0x00, 0x00, 0xFF, size, (-size) & 0xFF])
    else:
        hi, lo = size >> 8, size & 0xFF
        head = bytes([0x00, 0x00, 0xFF, 0xFF, 0xFF, hi, lo, (-(hi + lo)) & 0xFF])
    return head + payload + bytes([dcs, 0x00])


@dataclass(frozen=True, slots=True)
class HostFrame:
    """One unit the host sent: ``kind`` is ``command``, ``ack``, ``nack`` or ``bad``.

    ``payload`` holds TFI and data of a command (empty otherwise), ``size``
    the number of bytes the frame took on the wire, ``reason`` why a ``bad``
    frame was rejected.
    """

    kind: str
    payload: bytes = b""
    size: int = 0
    reason: str = ""


class FrameParser:
    """Cuts the host's byte stream into frames, skipping wake-up bytes."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> Iterator[HostFrame]:
        """Add received bytes and yield every frame they complete."""
        self._buffer += data
        while True:
            item = self._next()
            if item is None:
                return
            yield item

    def _next(self) -> HostFrame | None:
        buf = self._buffer
        start = buf.find(b"\x00\xff")
        if start < 0:
            # Keep a trailing 00: it may be the first byte of a start code.
            del buf[: len(buf) - 1 if buf.endswith(b"\x00") else len(buf)]
            return None
        del buf[:start]
        if len(buf) < 4:
            return None
        if buf[2:4] == b"\x00\xff":
            del buf[:4]
            return HostFrame("ack", size=6)
        if buf[2:4] == b"\xff\x00":
            del buf[:4]
            return HostFrame("nack", size=6)
        if buf[2:4] == b"\xff\xff":
            if len(buf) < 7:
                return None
            if (buf[4] + buf[5] + buf[6]) & 0xFF:
                del buf[:2]
                return HostFrame("bad", reason="extended length checksum", size=7)
            length, body = buf[4] << 8 | buf[5], 7
        else:
            if (buf[2] + buf[3]) & 0xFF:
                del buf[:2]
                return HostFrame("bad", reason="length checksum", size=4)
            length, body = buf[2], 4
        if len(buf) < body + length + 1:
            return None
        payload = bytes(buf[body : body + length])
        dcs = buf[body + length]
        del buf[: body + length + 1]
        size = body + length + 3  # preamble and postamble included
        if (sum(payload) + dcs) & 0xFF:
            return HostFrame("bad", reason="data checksum", size=size)
        if not payload or payload[0] != HOST_TFI:
            return HostFrame("bad", reason="frame identifier", size=size)
        return HostFrame("command", payload, size)
