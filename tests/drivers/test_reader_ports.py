"""A reader opens the device node its path names, and nfcpy decides by that node's name.

nfcpy's ``pn532.init`` (``nfc/clf/pn532.py``) decides by the port's name: on a Raspberry Pi it waits
1,500 ms for the first ACK only on a ``/dev/ttyUSB*`` (the Pi's USB can hold the first data about a
second), and it leaves ``/dev/ttyS0``, the mini UART, at 115,200. A table names its pads by udev's
stable names (``/dev/serial/by-path/…``) or ``/dev/serial0``: the reader resolves them first.

This machine has no ``/dev/ttyUSB7`` nor ``/dev/ttyS0`` of its own: :func:`_nodes` opens those names
on a simulated chip's pty, as the kernel would open the adapter's node, and the board is said to be
a Pi by the file nfcpy reads (``/proc/device-tree/model``).
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nfc.clf.pn532
import pytest

from drivers.nfc import hsu
from drivers.nfc.pn532_reader import NfcpyReader
from drivers.nfc.pn532sim import Pn532Simulator
from drivers.nfc.tty import RawTty

KS = "04A224B2C31D80"
BY_PATH = "platform-3f980000.usb-usb-0:1.2:1.0-port0"


def _nodes(nodes: dict[str, str]) -> Callable[[str], RawTty]:
    """A transport on this machine's /dev as a table's would be: each name in ``nodes`` (a node this
    machine lacks) opens the pty it maps to, and keeps its own name (what nfcpy reads)."""

    class Nodes(RawTty):
        def open(self, port: str, baudrate: int = 115200) -> None:
            super().open(nodes.get(port, port), baudrate)
            self._port = port

    return Nodes


def _link(tmp_path: Path, name: str, target: str) -> str:
    link = tmp_path / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    return str(link)


@pytest.fixture
def on_a_pi(monkeypatch: pytest.MonkeyPatch) -> None:
    """The board says it is a Raspberry Pi 4 where nfcpy's ``init`` asks (``/proc/device-tree/model``)."""
    real_open = open

    def model(path: Any, *args: Any, **kwargs: Any) -> Any:
        if path == "/proc/device-tree/model":
            return io.BytesIO(b"Raspberry Pi 4 Model B Rev 1.5\x00")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(nfc.clf.pn532, "open", model, raising=False)


def _timed(nodes: dict[str, str], waits: list[float]) -> Callable[[str], RawTty]:
    """:func:`_nodes`, each read's timeout kept in ``waits`` (the first: the wait for the first ACK)."""

    class Timed(_nodes(nodes)):  # type: ignore[misc]
        def read(self, timeout: float) -> bytearray:
            waits.append(timeout)
            return bytearray(super().read(timeout))

    return Timed


def test_a_reader_on_a_udev_name_opens_the_node_it_names(tmp_path: Path) -> None:
    with Pn532Simulator() as chip:
        waits: list[float] = []
        path = _link(tmp_path, f"serial/by-path/{BY_PATH}", chip.path)
        with NfcpyReader(path, transport=_timed({}, waits)) as reader:
            node = os.path.realpath(chip.path)
            assert node.startswith("/dev/pts/") and reader.port == node and reader.path == path
            assert waits[0] == hsu.first_ack_ms(node) == 100  # decided by the node, as nfcpy decides
            chip.place(KS)
            assert reader.poll() == (KS,)


def test_on_a_pi_nfcpy_waits_1500_ms_for_a_usb_adapter_named_by_path(tmp_path: Path, on_a_pi: None) -> None:
    """nfcpy's ``init`` waits 1,500 ms for the first ACK on a Pi's ``/dev/ttyUSB*``; the reader's own opening
    (:func:`hsu.init_at`, nfcpy's steps without its ``stty`` shell) waits as long, on the node a udev name
    resolves to."""
    with Pn532Simulator() as chip:
        waits: list[float] = []
        path = _link(tmp_path, f"serial/by-path/{BY_PATH}", "/dev/ttyUSB7")
        with NfcpyReader(path, transport=_timed({"/dev/ttyUSB7": chip.path}, waits)) as reader:
            assert reader.port == "/dev/ttyUSB7"
            assert waits[0] == 1500
            chip.place(KS)
            assert reader.poll() == (KS,)


@pytest.mark.parametrize("pi", [True, False], ids=["on a Pi", "on a board nfcpy does not know"])
def test_the_mini_uart_behind_serial0_stays_at_115200(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pi: bool, request: pytest.FixtureRequest
) -> None:
    if pi:
        request.getfixturevalue("on_a_pi")
    with Pn532Simulator() as chip:
        serial0 = _link(tmp_path, "serial0", "/dev/ttyS0")
        with NfcpyReader(serial0, transport=_nodes({"/dev/ttyS0": chip.path})) as reader:
            assert reader.port == "/dev/ttyS0"
            assert (chip.chip_baud, chip.line_baud) == (115200, 115200)
            assert 0x10 not in [command[0] for command in chip.commands]  # no SetSerialBaudrate
            chip.place(KS)
            assert reader.poll() == (KS,)


@pytest.mark.parametrize(("port", "first"), [("/dev/ttyUSB7", 1500), ("/dev/ttyACM3", 1500), ("/dev/ttyAMA2", 100)])
def test_at_the_power_on_rate_a_usb_adapter_gets_the_long_first_wait(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, port: str, first: int
) -> None:
    """nfcpy's long first wait holds on the reader's own opening at 115,200 too (:func:`hsu.init_at`)."""
    assert hsu.first_ack_ms(port) == first
    with Pn532Simulator() as chip:
        path = _link(tmp_path, "by-id/usb-1a86_USB_Serial-if00-port0", port)
        waits: list[float] = []

        class Timed(_nodes({port: chip.path})):  # type: ignore[misc]
            def read(self, timeout: float) -> bytearray:
                waits.append(timeout)
                return super().read(timeout)

        with NfcpyReader(path, transport=Timed, link_baud=hsu.POWER_ON) as reader:
            assert reader.port == port
            assert waits[0] == first
