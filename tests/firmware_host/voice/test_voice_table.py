"""The voice on the simulated table, through the real drivers and the service's loop: a seat's
``listen`` button held on gpiozero's mock pins reads the cards its hand pad read (nfcpy on the
simulated PN532s) into that seat's earpiece folder only; a press repeats on the table's speaker."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from drivers.seat_controls import LISTEN
from firmware_host.journal.store import Journal
from firmware_host.players.simtable import SimulatedTable
from firmware_host.referee.controller import Controller
from firmware_host.service import TableService
from firmware_host.voice.spoken import spoken
from firmware_host.voice.voice_parts import open_voice
from hardware.table import simulated_table
from hardware.table_config import VoiceConfig

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                reason="espeak-ng is not installed: sudo bash scripts/system-deps.sh tests")


def said(folder: Path) -> list[str]:
    path = folder / "said.txt"
    return [line.split("\t", 1)[1] for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def test_a_held_listen_button_reads_the_seat_its_own_cards(tmp_path: Path) -> None:
    table = simulated_table()
    parts = open_voice(VoiceConfig(enabled=True, device="sim", earpieces=(("A", "sim"), ("B", "sim"))), "en",
                       tmp_path / "voice")
    with Journal(tmp_path / "journal.sqlite") as journal:
        service = TableService(journal=journal, controller=Controller(), outputs=parts.outputs)
        loop = threading.Thread(target=service.run, daemon=True)
        loop.start()
        sim = SimulatedTable(table, events=parts.with_listen(service.put_device_event), depth=5)
        try:
            sim.place_stack("play.A", ["KD"])  # the cut: A's king is higher, A deals (said once: "A wins the cut.")
            assert sim.wait_reported("play.A")
            sim.place_stack("play.B", ["7C"])
            assert sim.wait_reported("play.B")
            sim.place_stack("hand.B", ["7S", "8S", "9S"])
            assert sim.wait_reported("hand.B")
            sim.place_stack("hand.A", ["KH", "QH", "JH"])
            assert sim.wait_reported("hand.A")
            assert sim.buttons is not None
            sim.buttons.simulate_hold("A", LISTEN, 1.0)  # held: A's own cards, in A's earpiece
            sim.buttons.simulate_press("B", LISTEN)  # pressed: the last announcement again, aloud
            assert parts.drain(30)
        finally:
            sim.close()
            service.stop()
            loop.join(10)
            parts.close()
    voice = tmp_path / "voice"
    assert said(voice / "A") == ["Your cards: the king of hearts, the queen of hearts and the jack of hearts."]
    assert said(voice / "B") == []
    table_said = said(voice)
    assert table_said and not any(spoken("en").cards_in(line) for line in table_said), table_said
    assert table_said[-1].startswith(table_said[-2] + " ")  # B's press: the last again, then what is awaited
    assert journal_buttons(tmp_path / "journal.sqlite") == []  # listen is never journaled


def journal_buttons(path: Path) -> list[str]:
    with Journal(path, readonly=True) as journal:
        record = journal.current_game()
        assert record is not None
        return [line for line in record.lines if '"button"' in line]
