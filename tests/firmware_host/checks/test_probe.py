"""``ecarte-table doctor --probe``: each reader brought up, and every PN532 frame in a file.

The readers are simulated PN532s named by their paths in the table, as a real table names
``/dev/ttyUSB0``; the maker who lays the cards at each step is the test.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from catalogue.english import english_words
from drivers.nfc.pn532sim import Pn532Simulator, tag_signer
from firmware_host.checks.doctor import Check
from firmware_host.checks.probe import Ask, ask_at_the_console, run_probe, simulated_readers
from hardware.table import simulated_table
from hardware.table_config import PadConfig, TableConfig

ROOT = Path(__file__).resolve().parents[3]
CARDS = ["04C1D2E3F40501", "04C1D2E3F40502", "04C1D2E3F40503"]  # laid in this order, bottom first
FRAME_LINE = re.compile(r"^ +\d+\.\d{6} \S+ [<>] (?:[0-9A-F]{2} )*[0-9A-F]{2}(?:  .+)?$")


@pytest.fixture
def sim() -> Iterator[Pn532Simulator]:
    with Pn532Simulator(name="ttyUSB0", depth=2, miss=0.0, signer=tag_signer.sim_signer()) as simulator:
        yield simulator


def table_of(*pads: PadConfig) -> TableConfig:
    """The simulated table with these pads, trusting the simulator's TEST key as a real one trusts NXP's."""
    table = simulated_table()
    return replace(table, pads=pads, tags=replace(table.tags, trusted_key="test"))


def maker(sim: Pn532Simulator, kind: str = "genuine", skip: tuple[int, ...] = ()) -> Ask:
    """Lays the next card of :data:`CARDS` on ``sim`` at each step (none at the steps ``skip``)."""

    def ask(pad: PadConfig, laid: int) -> bool:
        if laid in skip:
            return False
        sim.place_stack(CARDS[len(sim.on_pad) : laid], kind=kind)
        return True

    return ask


def probe(table: TableConfig, frames: Path, ask: Ask) -> list[Check]:
    return run_probe(table, frames, ask=ask, lang="en")


def test_the_probe_reports_firmware_poll_and_each_stack(sim: Pn532Simulator, tmp_path: Path) -> None:
    frames = tmp_path / "frames.txt"
    checks = probe(table_of(PadConfig("hand.A", sim.path, depth=2)), frames, maker(sim))
    assert all(check.ok for check in checks), "\n".join(map(str, checks))
    said = [str(check) for check in checks]
    assert "PN532 v1.6" in said[0] and "921600 baud" in said[0]
    assert said[1].endswith("a poll of the empty pad: nothing listed")
    stacks = [line for line in said if " laid" in line]
    assert [line.split(": ")[2] for line in stacks] == ["1 tag listed", "2 tags listed", "2 tags listed"]
    cards = [line for line in said if ": tag " in line]
    assert len(cards) == 1 + 2 + 2  # the third card lies above the pad's depth: never listed, never asked
    assert all("GET_VERSION 00 04 04 02 01 00 0F 03" in line and line.endswith(": genuine") for line in cards)
    assert str(frames) in said[-1]


@pytest.mark.parametrize("wakes", [True, False], ids=["InSelect wakes a halted card", "InSelect wakes nothing"])
def test_the_probe_asks_each_card_laid_as_a_game_asks_it(tmp_path: Path, wakes: bool) -> None:
    with Pn532Simulator(name="ttyUSB0", depth=2, miss=0.0, signer=tag_signer.sim_signer(),
                        in_select_wakes=wakes) as chip:
        checks = probe(table_of(PadConfig("hand.A", chip.path, depth=2)), tmp_path / "f.txt", maker(chip))
        sent = [bytes(c) for c in chip.commands]
    in_play = [check for check in checks if " in play " in check.name]
    assert [check.name.split()[2] for check in in_play] == CARDS[:2]  # the third lies above the pad's depth
    assert all(check.ok and "GET_VERSION not asked, READ_SIG " in check.detail for check in in_play)
    assert "selected again" not in in_play[0].detail  # laid alone on the empty pad: listed alone, asked at once
    expected = ("1 by InSelect (0 InSelect found nothing), 0 by a listing with its UID, 0 after a field reset" if wakes
                else "0 by InSelect (1 InSelect found nothing), 0 by a listing with its UID, 1 after a field reset")
    assert in_play[1].detail.endswith("selected again: " + expected)  # a card laid on one: the pair's halted first
    first = sent.index(bytes.fromhex("42 3C 00"))
    assert bytes.fromhex("42 60") not in sent[:first] and sent[first - 1] == bytes.fromhex("32 02 0A 0B 0B")
    assert [c for c in sent[:first] if c[0] == 0x4A][-1] == bytes.fromhex("4A 01 00")  # listed alone, READ_SIG next


def test_the_probe_of_a_noisy_simulated_pad_reads_every_card_genuine(tmp_path: Path) -> None:
    table = table_of(PadConfig("hand.A", "sim", 2, 10.0), PadConfig("hand.B", "sim", 2, 10.0))
    with simulated_readers(table) as (ports, lays):
        checks = run_probe(table, tmp_path / "f.txt", ask=lays, lang="en", ports=ports)
    cards = [check for check in checks if " in play " in check.name or ": tag " in check.name]
    assert len(cards) == 2 * (2 + 1 + 2 + 2) and all(check.ok for check in checks), "\n".join(map(str, checks))


def test_every_frame_of_the_probe_is_in_the_file(sim: Pn532Simulator, tmp_path: Path) -> None:
    frames = tmp_path / "frames.txt"
    probe(table_of(PadConfig("hand.A", sim.path, depth=2)), frames, maker(sim))
    lines = frames.read_text().splitlines()
    body = [line for line in lines if not line.startswith("#")]
    assert body and all(FRAME_LINE.match(line) for line in body), [line for line in body if not FRAME_LINE.match(line)]
    sent = [line for line in body if " > " in line]
    woken = [line for line in sent if line.endswith("  wake-up")]  # the reader wakes the chip first
    assert woken and sent.index(woken[0]) == 0
    written = [line for line in sent if line not in woken]
    assert sum(" sent" not in line for line in written) == sim.stats.commands + sim.stats.acks  # every frame written
    wire = "\n".join(body)
    assert " D4 02 2A 00  GetFirmwareVersion" in wire
    assert "D4 42 60 " in wire and "D4 42 3C 00 " in wire  # GET_VERSION and READ_SIG by InCommunicateThru
    assert "D4 40 01 60" not in wire and "D4 40 01 3C" not in wire
    assert f"D4 4A 01 00 88 {bytes.fromhex(CARDS[0]).hex(' ').upper()}" in wire  # a card named with its CT
    assert any(line.startswith("# pad hand.A: cards laid: 2") for line in lines)


def test_a_pad_reading_less_deep_than_the_table_says_is_told_its_depth(sim: Pn532Simulator, tmp_path: Path) -> None:
    sim.depth = 1
    checks = probe(table_of(PadConfig("hand.A", sim.path, depth=2)), tmp_path / "f.txt", maker(sim))
    failed = [check for check in checks if not check.ok]
    assert [check.name for check in failed] == ["reader hand.A: 2 cards laid", "reader hand.A: 3 cards laid"]
    assert all("`depth = 1`" in check.fix for check in failed)


def test_clones_fail_with_their_verdict(sim: Pn532Simulator, tmp_path: Path) -> None:
    checks = probe(table_of(PadConfig("hand.A", sim.path, depth=2)), tmp_path / "f.txt", maker(sim, "clone"))
    cards = [check for check in checks if ": tag " in check.name]
    assert cards and all(not check.ok and check.detail.endswith(": no_signature") for check in cards)


def test_skipped_steps_and_a_silent_reader_do_not_stop_the_probe(sim: Pn532Simulator, tmp_path: Path) -> None:
    frames = tmp_path / "frames.txt"
    table = table_of(PadConfig("hand.A", str(tmp_path / "ttyUSB9"), depth=2), PadConfig("hand.B", sim.path, depth=2))
    checks = probe(table, frames, maker(sim, skip=(2, 3)))
    assert not checks[0].ok and checks[0].name == "reader hand.A: firmware"
    assert [check.detail for check in checks if " laid" in check.name][1:] == ["skipped", "skipped"]
    assert checks[-1].ok and frames.exists()
    assert "# pad hand.A: " in frames.read_text() and "# pad hand.B: " in frames.read_text()


def test_the_console_asks_and_s_skips() -> None:
    asked: list[str] = []
    answers = iter(["", "s"])

    def read(prompt: str) -> str:
        asked.append(prompt)
        return next(answers)

    ask = ask_at_the_console("fr", read)
    pad = PadConfig("hand.A", "/dev/ttyUSB0")
    assert ask(pad, 1) is True and ask(pad, 2) is False
    assert asked[0].startswith("Posez une carte sur le tapis hand.A")


def test_doctor_probe_on_the_simulated_table(tmp_path: Path) -> None:
    frames = tmp_path / "frames.txt"
    done = subprocess.run([sys.executable, "-m", "cli.main", "doctor", "--probe", "--frames", str(frames),
                           "--language", "de"], capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env={**os.environ, "XDG_STATE_HOME": str(tmp_path)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("Leser ") >= 6 * 4 and frames.stat().st_size > 0
    as_typed = r"`[^`]*`|\b(?:hand|play)\.[AB]\b|\bturnup\b|\bdiscard\b|GET_VERSION|READ_SIG|\b[0-9A-F]+\b"  # hex: UIDs
    read = re.sub(as_typed, " ", done.stdout)
    assert english_words(read) == set()


def test_a_frames_file_that_cannot_be_written_fails_its_line(sim: Pn532Simulator, tmp_path: Path) -> None:
    checks = probe(table_of(PadConfig("hand.A", sim.path, depth=2)), tmp_path / "no-such-folder" / "f.txt", maker(sim))
    assert [check.name for check in checks if not check.ok] == ["frames file"]
    assert "doctor --probe --frames FILE" in checks[-1].fix


def test_doctor_probe_on_a_table_file_that_does_not_load_says_why(tmp_path: Path) -> None:
    table = tmp_path / "table.toml"
    table.write_text("[table]\nlayout = 'round'\n")
    done = subprocess.run([sys.executable, "-m", "cli.main", "doctor", "--probe", str(table), "--frames",
                           str(tmp_path / "f.txt")], capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env={**os.environ, "XDG_STATE_HOME": str(tmp_path)})
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert str(table) in done.stdout and not (tmp_path / "f.txt").exists()


@pytest.mark.parametrize("after", [5, 9, 14, 16, 22, 36, 39, 44], ids=lambda n: f"after {n} commands")
def test_a_missed_ack_is_tried_again_and_said_never_a_false_verdict(sim: Pn532Simulator, tmp_path: Path,
                                                                    after: int) -> None:
    """A busy host that misses the PN532's ACK (nfcpy waits 100 ms for it: "[Errno 5] Input/output
    error") at any step of the probe: the step is tried again once the reader is back in step, its
    line says so, and every line still passes."""
    # 5, 9: the opening (SAMConfiguration, RFConfiguration); 14: GetFirmwareVersion; 16: the empty pad's poll;
    # 22: READ_SIG of the card in play; 36, 39, 44: a stack's InDeselect, GET_VERSION, READ_SIG
    sim.ignore_commands(1, after=after)  # one command neither ACKed nor answered: nfcpy's EIO
    checks = probe(table_of(PadConfig("hand.A", sim.path, depth=2)), tmp_path / "f.txt", maker(sim))
    assert all(check.ok for check in checks), "\n".join(map(str, checks))
    said = [str(check) for check in checks]
    assert sum("1 exchange tried again after the reader was put back in step" in line for line in said) == 1, said
    assert len([line for line in said if ": tag " in line]) == 1 + 2 + 2
