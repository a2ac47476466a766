"""Benchmark: a card laid on a pad until the referee's event, through a pty on this machine.

``ecarte-table run`` on six simulated PN532s in a chip host (``ecarte-table chips``), each on a
pseudo-terminal, the simulated pack enrolled and signed (the TEST key): the deal is laid (three,
three, two, two), then the turn-up, and the figure is the time from laying the turn-up to the
referee's ``trump`` event on the service's standard output (``--json``). The same game and the same
figure through a real kernel (qemu's FTDI adapters, ftdi_sio, /dev/serial/by-path) is
``card_to_referee_ftdi_s`` in ``scripts/vm_test.py``'s figures (docs/hardware.md).

    card_to_referee_pty_s: ...     the median of --runs games (a fresh service and journal each)

Run: ``.venv/bin/python bench/card_to_referee.py`` (``--runs N``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from drivers.device_events import Origin
from drivers.nfc.pn532sim.chip_host import ChipHost, chip_path
from drivers.nfc.pn532sim.tag_signer import sim_signer
from engine.cards import CARDS
from firmware_host.players.simtable import sim_uid
from hardware.table import shipped_table_path
from hardware.tag_registry import TagRegistry

PADS = ("hand.A", "hand.B", "turnup", "discard", "play.A", "play.B")
CLI = Path(sys.executable).parent / "ecarte-table"


def table_file(folder: Path, chips: str) -> Path:
    """The simulated table on the chip host's ports, the pack enrolled genuine, full sight."""
    sign = sim_signer()
    registry = TagRegistry()
    for card in CARDS:
        uid = sim_uid(str(card))
        registry.add(uid, str(card), 1, origin=Origin.GENUINE, signature=sign(bytes.fromhex(uid)).hex().upper())
    registry.save(folder / "tags.json")
    text = shipped_table_path("simulated").read_text(encoding="utf-8").replace('sight = "partial"', 'sight = "full"')
    for pad in PADS:
        quoted = f'"{pad}"' if "." in pad else pad
        text = text.replace(f'{quoted} = "sim"\n', f'{quoted} = "{chip_path(chips, pad)}"\n')
    text = text.replace("[table]\n", '[table]\nregistry = "tags.json"\n', 1)
    text = text.replace("[tags]\n", '[tags]\ntrusted_key = "test"\n', 1)
    path = folder / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


def one_game(folder: Path) -> float:
    """Seconds from the turn-up laid to the referee's trump event."""
    events: list[tuple[float, dict[str, object]]] = []
    with ChipHost(str(folder / "chips"), PADS, depth=5) as host:
        table = table_file(folder, host.directory)
        service = subprocess.Popen([str(CLI), "run", str(table), "--journal", str(folder / "journal.sqlite"),
                                    "--json", "--all-events"], stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True)

        def read() -> None:
            assert service.stdout is not None
            for line in service.stdout:
                try:
                    value = json.loads(line)
                except ValueError:
                    continue
                if isinstance(value, dict):
                    events.append((time.perf_counter(), value))

        threading.Thread(target=read, daemon=True).start()

        def wait(event: str, timeout: float = 120) -> float:
            deadline = time.perf_counter() + timeout
            while time.perf_counter() < deadline:
                for at, value in list(events):
                    if value.get("event") == event:
                        return at
                time.sleep(0.002)
            raise RuntimeError(f"no {event} event within {timeout} s")

        try:
            host.chips["hand.A"].place_stack([sim_uid(c) for c in ("7H", "8H", "9H")])
            host.chips["hand.B"].place_stack([sim_uid(c) for c in ("7D", "8D", "9D")])
            wait("dealer")
            host.chips["hand.A"].place_stack([sim_uid(c) for c in ("TH", "JH")])
            host.chips["hand.B"].place_stack([sim_uid(c) for c in ("TD", "JD")])
            time.sleep(3)  # the hands read whole before the turn-up, as in vm_test.py
            laid = time.perf_counter()
            host.chips["turnup"].place(sim_uid("7C"))
            return wait("trump") - laid
        finally:
            service.kill()
            service.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    seconds = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as folder:
            seconds.append(one_game(Path(folder)))
    print(f"card_to_referee_pty_s: {statistics.median(seconds):.3f} s")


if __name__ == "__main__":
    main()
