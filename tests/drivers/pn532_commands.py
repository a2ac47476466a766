"""The PN532 command helper the simulator's tests share (a plain module: ``conftest`` is no module
name to import from, as pytest loads one ``conftest`` a folder under that one name)."""

from __future__ import annotations

from drivers.nfc.tty import RawTty


def command(port: RawTty, code: int, params: bytes = b"") -> bytes:
    """Send the PN532 command ``code`` with ``params`` through ``port``, check the chip's ACK and that the
    answer is this command's (code + 1), and return the answer's data (UM0701-02 6.2.1.1-3)."""
    from drivers.nfc.pn532sim.frames import ACK, frame

    port.write(frame(bytes([0xD4, code]) + params))
    assert bytes(port.read(2000)) == ACK
    answer = bytes(port.read(2000))
    assert answer[5:7] == bytes([0xD5, code + 1])
    return answer[7:-2]
