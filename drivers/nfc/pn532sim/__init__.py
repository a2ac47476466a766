"""An emulated PN532 on a pseudo-terminal, with NTAG213 cards to lay on it.

The simulator speaks the PN532's high-speed-UART frame protocol (user manual
UM0701-02, §6.2) on the master side of a pty, so the real nfcpy driver talks
to it through its ordinary serial transport::

    >>> import nfc.clf.pn532, nfc.clf.transport
    >>> with Pn532Simulator() as sim:                   # doctest: +SKIP
    ...     device = nfc.clf.pn532.init(nfc.clf.transport.TTY(sim.path))
    ...     sim.place("04A224B2C31D80", ndef_text="ecarte:KS")

Layered as nfcpy layers its drivers (``clf/pn532.py`` over ``pn53x.py``, the
transport apart), one module a layer, each with the measured facts and the
assumptions it rests on:

* :mod:`~drivers.nfc.pn532sim.frames`: the UART frame codec (ACK, NACK, error
  frame, normal and extended frames, the host's byte stream cut into frames);
* :mod:`~drivers.nfc.pn532sim.chip`: the chip's command handling (registers,
  the RF field, InListPassiveTarget and the other commands, selected targets);
* :mod:`~drivers.nfc.pn532sim.ntag213` and :mod:`~drivers.nfc.pn532sim.ndef_text`:
  the tag model (NTAG213 memory, tag states, originality signature, password)
  and the NDEF text records it stores;
* :mod:`~drivers.nfc.pn532sim.field`: the field of one pad (the stack, its
  readable depth, misses, anticollision);
* :mod:`~drivers.nfc.pn532sim.simulator`: the pty, the serving thread, pacing
  and fault injection (:class:`Pn532Simulator`).
* :mod:`~drivers.nfc.pn532sim.pty_port`: the port on this machine (its symlink's
  private folder, swept after a killed process; the line's rate as termios says it).

Everything needs only the standard library. The public names are re-exported
here: ``from drivers.nfc.pn532sim import Pn532Simulator``.
"""

from __future__ import annotations

from drivers.nfc.pn532sim.chip import (
    CIU_BIT_FRAMING,
    CIU_FIFO_DATA,
    CIU_RX_MODE,
    CIU_TX_AUTO,
    CIU_TX_CONTROL,
    CIU_TX_MODE,
    FIRMWARE_VERSION,
    Pn532Core,
)
from drivers.nfc.pn532sim.field import DEFAULT_DEPTH, DEFAULT_MISS, Field, anticollision_order
from drivers.nfc.pn532sim.frames import ACK, CHIP_TFI, ERROR_FRAME, HOST_TFI, NACK, FrameParser, HostFrame, frame
from drivers.nfc.pn532sim.ndef_text import ndef_text_message, parse_ndef_text
from drivers.nfc.pn532sim.ntag213 import Ntag213, crc_a
from drivers.nfc.pn532sim.pty_port import FOLDER_PREFIX, sweep_folders
from drivers.nfc.pn532sim.simulator import WIRE, Pn532Simulator, SimStats

__all__ = [
    "ACK",
    "CHIP_TFI",
    "CIU_BIT_FRAMING",
    "CIU_FIFO_DATA",
    "CIU_RX_MODE",
    "CIU_TX_AUTO",
    "CIU_TX_CONTROL",
    "CIU_TX_MODE",
    "DEFAULT_DEPTH",
    "DEFAULT_MISS",
    "ERROR_FRAME",
    "FIRMWARE_VERSION",
    "FOLDER_PREFIX",
    "HOST_TFI",
    "NACK",
    "WIRE",
    "Field",
    "FrameParser",
    "HostFrame",
    "Ntag213",
    "Pn532Core",
    "Pn532Simulator",
    "SimStats",
    "anticollision_order",
    "crc_a",
    "frame",
    "ndef_text_message",
    "parse_ndef_text",
    "sweep_folders",
]
