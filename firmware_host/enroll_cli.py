"""``ecarte-table enroll``: register a pack's tags on one pad of the table.

On a real table the operator lays the cards asked for on the OLED and the
console. On the simulated table a simulated operator lays the simulated pack's
stickers, so the whole walk (real nfcpy driver, real registry file) can be seen
and tested anywhere.
"""

from __future__ import annotations

import argparse
import logging
import os
import queue
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from drivers.events import DeviceEvent
from firmware_host.enroll import enroll

logger = logging.getLogger(__name__)

READER_WAIT_S = 15.0
"""Seconds to wait for the pad's reader to answer before giving up."""


def run_enroll(args: argparse.Namespace) -> int:
    """``ecarte-table enroll``: returns the exit status."""
    from drivers.nfc.pad import Pad
    from firmware_host.app import load_table_or_exit
    from firmware_host.errors import BadInput
    from firmware_host.panel import open_panel
    from hardware.tags import TagRegistry, TagRegistryError

    table = load_table_or_exit(args.table)
    registry_path = args.registry or table.registry
    if registry_path is None:
        if not table.simulated:
            raise BadInput("the table file names no registry: give --registry FILE")
        registry_path = Path("registry.json")
    registry_path = Path(registry_path)
    try:
        registry = TagRegistry.load(registry_path) if registry_path.exists() else TagRegistry()
    except UnicodeDecodeError:
        raise BadInput(f"tag registry {registry_path}: not a registry (not UTF-8 text)") from None
    except (OSError, ValueError, TagRegistryError) as exc:
        raise BadInput(f"tag registry {registry_path}: {getattr(exc, 'strerror', None) or exc}") from None
    _check_writable(registry_path)
    try:
        pad_config = table.pad(args.pad) if args.pad else table.pads[0]
    except KeyError as exc:
        raise BadInput(f"--pad: {exc.args[0]}") from None
    if not pad_config.simulated and pad_config.serial_port and not os.path.exists(pad_config.serial_port):
        raise BadInput(f"pad {pad_config.name}: no reader at {pad_config.serial_port} (is it plugged in? "
                       "`ecarte-table doctor` checks the table)")
    panel = open_panel(table, tolerant=True)
    events: queue.Queue[DeviceEvent] = queue.Queue()

    def show(lines: list[str]) -> None:
        print(" | ".join(lines), flush=True)
        panel.message(lines)

    sim: Any = None
    operator: threading.Thread | None = None
    try:
        if pad_config.simulated:
            from drivers.nfc.pn532sim import Pn532Simulator

            sim = Pn532Simulator(name="pn532-enroll")
            path = sim.path
        else:
            path = pad_config.serial_port or pad_config.device
        with Pad(pad_config.name, path, events=events, card_for=None, read_ndef=False) as pad:
            _wait_online(pad, path)
            if sim is not None:
                operator = threading.Thread(
                    target=_simulated_operator, args=(sim, pad, args.pack, registry), daemon=True,
                )
                operator.start()
            result = enroll(
                events, registry, show, pack=args.pack, save_to=registry_path,
                write_tag=pad.write_text if args.write_ndef else None,
            )
    finally:
        panel.close()
        if sim is not None:
            sim.close()
    print(f"{len(result.enrolled)} card(s) enrolled in pack {result.pack}; registry {registry_path}"
          + ("" if result.complete else " (pack incomplete)"))
    return 0 if result.complete else 1


def _check_writable(path: Path) -> None:
    """The registry is saved after every card: say now, not after the first, if it cannot be.

    :raises BadInput: naming the file and why.
    """
    from firmware_host.errors import BadInput

    if path.is_dir():
        raise BadInput(f"tag registry {path}: is a directory")
    if not path.parent.is_dir():
        raise BadInput(f"tag registry {path}: the directory {path.parent} does not exist")
    try:
        if path.exists():
            with open(path, "ab"):
                pass
        else:
            with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".ecarte-enroll-"):
                pass
    except OSError as exc:
        raise BadInput(f"tag registry {path}: cannot write it ({exc.strerror or exc})") from None


def _wait_online(pad: Any, path: str) -> None:
    """Give up with a clear message when the reader does not answer.

    :raises BadInput: after :data:`READER_WAIT_S` seconds without an answer.
    """
    from firmware_host.errors import BadInput

    deadline = time.monotonic() + READER_WAIT_S
    while not pad.online:
        if time.monotonic() > deadline:
            raise BadInput(f"pad {pad.zone}: the reader at {path} does not answer "
                           f"(after {READER_WAIT_S:.0f} s; `ecarte-table doctor` checks the table)")
        time.sleep(0.02)


def _simulated_operator(sim: Any, pad: Any, pack: int, registry: Any) -> None:
    """Lays the simulated pack's stickers in order, as the walk asks."""
    from firmware_host.simtable import sim_uid
    from hardware.tags import CARDS

    for card in CARDS:
        if registry.uid_for(card, pack) is not None:
            continue
        uid = sim_uid(card, pack)
        sim.place(uid)
        deadline = time.monotonic() + 10
        while uid not in pad.present and time.monotonic() < deadline:
            time.sleep(0.005)
        while registry.uid_for(card, pack) is None and time.monotonic() < deadline:
            time.sleep(0.005)
        sim.remove(uid)
        while pad.present and time.monotonic() < deadline:
            time.sleep(0.005)
