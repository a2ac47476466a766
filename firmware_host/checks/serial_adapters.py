"""Which USB-serial adapter is which pad: udev's stable names for the serial ports plugged in.

udev names every USB-serial port twice under ``/dev/serial`` (systemd's ``60-serial.rules``):
``by-path/…`` by the USB port it is plugged into (``platform-fd500000.pcie-pci-0000:01:00.0-usb-0:1.3.2:1.0-port0``:
a Pi 4, hub in port 1.3, adapter in the hub's port 2), and ``by-id/…`` by the adapter's own vendor,
product and serial number (``usb-Silicon_Labs_CP2102_…_0001-if00-port0``; a CH340 has no serial
number, so two of them share one ``by-id`` name and udev keeps only one). The port a pad's adapter
is plugged into is what stays: the table files name the pads by path.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

_USB_PORT = re.compile(r"-usb-\d+:([0-9.]+):\d+\.\d+")


@dataclass(frozen=True, slots=True)
class SerialAdapter:
    """One serial port udev named: its node (``/dev/ttyUSB3``), and its ``by-path`` and ``by-id`` names."""

    node: str
    by_path: str | None = None
    by_id: str | None = None

    @property
    def usb_port(self) -> str | None:
        """The USB port it is plugged into, hub by hub (``1.3.2``), from its ``by-path`` name.

        >>> SerialAdapter("/dev/ttyUSB0", "platform-3f980000.usb-usb-0:1.1.3:1.0-port0").usb_port
        '1.1.3'
        """
        if self.by_path is None:
            return None
        match = _USB_PORT.search(self.by_path)
        return match.group(1) if match else None


def serial_adapters(dev: Path = Path("/dev")) -> dict[str, SerialAdapter]:
    """The serial ports udev named under ``dev/serial``, by their node (``/dev/ttyUSB3``)."""
    names: dict[str, dict[str, str]] = {}
    for kind in ("by-path", "by-id"):
        folder = dev / "serial" / kind
        try:
            links = sorted(folder.iterdir())
        except OSError:
            continue
        for link in links:
            node = _node(link, dev)
            if node is not None:
                names.setdefault(node, {})[kind] = link.name
    return {node: SerialAdapter(node, found.get("by-path"), found.get("by-id"))
            for node, found in sorted(names.items())}


def adapter_of(port: str, dev: Path = Path("/dev")) -> SerialAdapter | None:
    """The adapter a pad's ``port`` (any name of it: ``/dev/ttyUSB3``, ``/dev/serial/by-path/…``) is,
    ``None`` if udev named none such."""
    node = _node(_under(port, dev), dev)
    return None if node is None else serial_adapters(dev).get(node)


def _under(port: str, dev: Path) -> Path:
    return dev / port.removeprefix("/dev/") if port.startswith("/dev/") else Path(port)


def _node(path: Path, dev: Path) -> str | None:
    """``/dev/<node>`` of a path under ``dev`` (its links followed), ``None`` if it leads out of ``dev``."""
    real = Path(os.path.realpath(path))
    root = Path(os.path.realpath(dev))
    try:
        return "/dev/" + real.relative_to(root).as_posix()
    except ValueError:
        return None
