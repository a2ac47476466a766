"""The service killed with -9 mid-game: every reader answers again after the restart.

The PN532s live in a chip host (``drivers/nfc/pn532sim/chip_host.py``), a process of their
own that outlives the service as real chips do, and keep the serial rate the service left
them at. The table file names the host's ports as a real one names ``/dev/ttyUSB0``.
Before, the service moved every chip to 921,600 baud (nfcpy's ``init``), a kill left them
there, and the restarted service spoke 115,200 to them: every reader offline.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import nfc.clf.pn532
import pytest
from waiting import HANG_S

from drivers.nfc.pn532sim.chip_host import ChipHost, chip_path
from drivers.nfc.pn532sim.tag_signer import sim_signer
from drivers.nfc.tty import RawTty
from engine.cards import CARDS
from firmware_host.players.simtable import sim_uid
from hardware.table import shipped_table_path
from hardware.tag_registry import TagRegistry

CLI = Path(sys.executable).parent / "ecarte-table"
PADS = ("hand.A", "hand.B", "turnup", "discard", "play.A", "play.B")
TIMEOUT = HANG_S


def table_on_chip_host(tmp_path: Path, chips: str) -> Path:
    """The simulated table's file with every pad on the chip host's port, and a registry of
    pack 1 enrolled genuine (signed with the TEST key, which the table trusts)."""
    sign = sim_signer()
    registry = TagRegistry()
    for card in CARDS:
        uid = sim_uid(str(card))
        registry.add(uid, str(card), 1, origin="genuine", signature=sign(bytes.fromhex(uid)).hex().upper())
    registry.save(tmp_path / "tags.json")
    text = shipped_table_path("simulated").read_text(encoding="utf-8")
    for pad in PADS:
        quoted = f'"{pad}"' if "." in pad else pad
        text = text.replace(f'{quoted} = "sim"\n', f'{quoted} = "{chip_path(chips, pad)}"\n')
    assert '= "sim"\n' not in text.split("[pads]")[1].split("[")[0], "a pad left simulated in-process"
    text = text.replace("[table]\n", '[table]\nregistry = "tags.json"\n', 1)
    text = text.replace("[tags]\n", '[tags]\ntrusted_key = "test"\n', 1)
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


class Service:
    """``ecarte-table run TABLE --json --all-events``, its output and log collected."""

    def __init__(self, table: Path, journal: Path) -> None:
        self.proc = subprocess.Popen(
            [str(CLI), "run", str(table), "--journal", str(journal), "--json", "--all-events"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self.out: list[str] = []
        self.err: list[str] = []
        self._threads = [threading.Thread(target=self._drain, args=(stream, into), daemon=True)
                         for stream, into in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))]
        for thread in self._threads:
            thread.start()

    @staticmethod
    def _drain(stream, into: list[str]) -> None:  # type: ignore[no-untyped-def]
        for line in stream:
            into.append(line)

    def checked(self, uid: str) -> bool:
        """Whether the service read tag ``uid``'s signature (its pad's reader answered it)."""
        return any(f"tag {uid}: genuine" in line for line in list(self.err))

    def said(self, text: str) -> bool:
        return any(text in line for line in list(self.out))

    def stop(self, sig: int) -> int:
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=TIMEOUT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            for thread in self._threads:
                thread.join(timeout=TIMEOUT)


@pytest.fixture
def chips(tmp_path: Path) -> Iterator[ChipHost]:
    with ChipHost(str(tmp_path / "chips"), PADS, depth=5) as host:  # a packet read whole
        yield host


@contextlib.contextmanager
def running(table: Path, journal: Path) -> Iterator[Service]:
    service = Service(table, journal)
    try:
        yield service
    finally:
        if service.proc.poll() is None:
            service.stop(signal.SIGKILL)


def _every_reader_answers(chips: ChipHost, service: Service, cards: dict[str, str],
                          wait_for: Callable[..., None]) -> None:
    """Lay ``cards`` (pad → card), one a pad, and wait until the service read each one's signature."""
    for pad, card in cards.items():
        chips.chips[pad].place(sim_uid(card))
    for pad, card in cards.items():
        wait_for(lambda card=card: service.checked(sim_uid(card)), f"the reader of {pad} to read {card}",
                 timeout=TIMEOUT)


def test_every_reader_answers_after_the_service_is_killed_mid_game(
    tmp_path: Path, chips: ChipHost, wait_for: Callable[..., None]
) -> None:
    table, journal = table_on_chip_host(tmp_path, chips.directory), tmp_path / "table.sqlite"
    with running(table, journal) as first:
        # B deals (the table's dealer): packets of three to each hand, as people deal
        chips.chips["hand.A"].place_stack([sim_uid(c) for c in ("7H", "8H", "9H")])
        chips.chips["hand.B"].place_stack([sim_uid(c) for c in ("7D", "8D", "9D")])
        wait_for(lambda: first.checked(sim_uid("7H")) and first.checked(sim_uid("7D")), "the first packets read",
                 timeout=TIMEOUT)
        wait_for(lambda: first.said('"event": "dealer"'), "the game under way", timeout=TIMEOUT)
        assert first.stop(signal.SIGKILL) == -signal.SIGKILL
    # the chips outlived the service at the rate it moved them to
    assert {chip.state()["chip_baud"] for chip in chips.chips.values()} == {921600}
    with running(table, journal) as second:
        _every_reader_answers(chips, second, {"hand.A": "TH", "hand.B": "TD", "turnup": "7C", "discard": "8C",
                                              "play.A": "9C", "play.B": "TC"}, wait_for)
        # the deal goes on from where the kill left it: the turn-up is trump
        wait_for(lambda: second.said('"event": "trump"'), "the turn-up as trump", timeout=TIMEOUT)
        assert not second.said('"online": false'), "".join(second.out)


def _left_at_921600(path: str) -> None:
    code = (
        "import os, signal, sys, nfc.clf.pn532\n"
        "from drivers.nfc.tty import RawTty\n"
        "nfc.clf.pn532.init(RawTty(sys.argv[1]))\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    subprocess.run([sys.executable, "-c", code, path], timeout=TIMEOUT, check=False)


def test_a_service_started_on_chips_a_killed_host_left_at_921600_reads_every_pad(
    tmp_path: Path, chips: ChipHost, wait_for: Callable[..., None]
) -> None:
    """What an older version, killed, left behind (nfcpy moved each chip to 921,600)."""
    for chip in chips.chips.values():
        _left_at_921600(chip.path)
    assert {chip.state()["chip_baud"] for chip in chips.chips.values()} == {921600}
    with pytest.raises(OSError):  # nfcpy alone cannot open them any more
        nfc.clf.pn532.init(RawTty(chips.chips["turnup"].path))
    table, journal = table_on_chip_host(tmp_path, chips.directory), tmp_path / "table.sqlite"
    with running(table, journal) as service:
        _every_reader_answers(chips, service, dict(zip(PADS, ("7S", "8S", "9S", "TS", "JS", "QS"), strict=True)),
                              wait_for)
        assert service.stop(signal.SIGTERM) == 0
    assert {chip.state()["chip_baud"] for chip in chips.chips.values()} == {115200}  # closed: set back
