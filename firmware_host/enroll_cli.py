"""``ecarte-table enroll``: register a pack's tags on one pad of the table.

On a real table the operator lays the cards asked for on the OLED and the
console. On the simulated table a simulated operator lays the simulated pack's
stickers, so the whole walk (real nfcpy driver, real registry file) can be seen
and tested anywhere.
"""

from __future__ import annotations

import argparse
import queue
import threading
import time
from pathlib import Path
from typing import Any

from drivers.events import DeviceEvent
from firmware_host.enroll import enroll


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
    except (OSError, TagRegistryError) as exc:
        raise BadInput(f"tag registry {registry_path}: {exc}") from None
    pad_config = table.pad(args.pad) if args.pad else table.pads[0]
    panel = open_panel(table)
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
