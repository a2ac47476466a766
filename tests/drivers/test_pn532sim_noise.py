"""The simulated radio's noise: what a garbled or lost answer and a collision look like on the wire,
seeded, and where they are likelier (a card just laid, a card up the stack)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pn532_commands import command
from waiting import HANG_S

from drivers.nfc.pn532_reader import NfcpyReader
from drivers.nfc.pn532sim import Pn532Core, Pn532Simulator, crc_a
from drivers.nfc.pn532sim.chip import air_time
from drivers.nfc.pn532sim.chip_host import ask, chip_path
from drivers.nfc.pn532sim.field import Field
from drivers.nfc.pn532sim.noise import DEFAULT, MOST, Garble, Noise, NoiseDraws, of_level
from drivers.nfc.pn532sim.ntag213 import Ntag213
from drivers.nfc.tty import RawTty

UID = "04A1B2C3D4E501"
_LIST, _THRU, _WRITE_REGISTER = 0x4A, 0x42, 0x08
_RX_CRC_OFF = bytes.fromhex("63 03 00")


@contextlib.contextmanager
def raw(sim: Pn532Simulator) -> Iterator[RawTty]:
    transport = RawTty(sim.path)
    try:
        yield transport
    finally:
        transport.release()


def _selected(sim: Pn532Simulator, port: RawTty, *, crc_off: bool) -> None:
    sim.place(UID)
    assert command(port, _LIST, b"\x01\x00")[0] == 1
    if crc_off:
        command(port, _WRITE_REGISTER, _RX_CRC_OFF)


@pytest.mark.parametrize(("kind", "crc_off", "status"), [
    (Garble.PARITY, True, 0x03), (Garble.PARITY, False, 0x03),
    (Garble.CRC, False, 0x02), (Garble.LOST, True, 0x01), (Garble.LOST, False, 0x01),
])
def test_a_garbled_or_lost_answer_gives_the_chip_s_error_status(kind: Garble, crc_off: bool, status: int) -> None:
    with Pn532Simulator(miss=0.0) as sim, raw(sim) as port:
        _selected(sim, port, crc_off=crc_off)
        sim.garble_answers(kind)
        assert command(port, _THRU, b"\x60") == bytes([status])
        answer = command(port, _THRU, b"\x60")  # the next one comes through
        assert answer[0] == 0 and len(answer) == 1 + 8 + (2 if crc_off else 0)


def test_two_errors_in_one_byte_keep_the_length_and_break_the_crc_a() -> None:
    with Pn532Simulator(miss=0.0) as sim, raw(sim) as port:
        _selected(sim, port, crc_off=True)
        sim.garble_answers(Garble.CRC)
        garbled = command(port, _THRU, b"\x60")
        good = command(port, _THRU, b"\x60")
        assert garbled[0] == 0 and len(garbled) == len(good)
        assert crc_a(good[1:-2]) == good[-2:] and crc_a(garbled[1:-2]) != garbled[-2:]
        assert sum(bin(a ^ b).count("1") for a, b in zip(garbled, good, strict=True)) == 2


def test_a_garbled_nak_is_lost() -> None:
    # a 4-bit frame has no parity and no CRC: the chip hears no frame
    with Pn532Simulator(miss=0.0) as sim, raw(sim) as port:
        sim.place(UID, kind="counterfeit")
        assert command(port, _LIST, b"\x01\x00")[0] == 1
        command(port, _WRITE_REGISTER, _RX_CRC_OFF)
        sim.garble_answers(Garble.PARITY)
        assert command(port, _THRU, b"\x3c\x00") == b"\x01"


def test_the_noise_is_seeded() -> None:
    def draws(seed: int) -> list[Garble | None]:
        noise = NoiseDraws(of_level(20), seed=seed)
        return [noise.answer(below=0, settling=False) for _ in range(500)]

    assert draws(1) == draws(1)
    assert draws(1) != draws(2)
    assert of_level(0).quiet and NoiseDraws(of_level(0)).answer(below=3, settling=True) is None


def test_a_card_just_laid_and_a_card_up_the_stack_are_noisier() -> None:
    assert DEFAULT.answer_odds(below=0, settling=True) > DEFAULT.answer_odds(below=0, settling=False)
    assert DEFAULT.answer_odds(below=1, settling=False) > DEFAULT.answer_odds(below=0, settling=False)
    assert DEFAULT.scaled(1000).answer_odds(below=4, settling=True) == (MOST, MOST)
    now = [0.0]
    field = Field(depth=3, miss=0.0, noise=of_level(4), seed=7, clock=lambda: now[0])
    bottom, top = Ntag213(bytes.fromhex(UID)), Ntag213(bytes.fromhex("04A1B2C3D4E502"))
    field.lay(bottom)
    field.lay(top)

    def spoiled(tag: Ntag213) -> int:
        return sum(field.answer_noise(tag) is not None for _ in range(4000))

    fresh_bottom, fresh_top = spoiled(bottom), spoiled(top)
    now[0] = 1.0  # both settled
    settled_bottom, settled_top = spoiled(bottom), spoiled(top)
    assert fresh_bottom > 3 * settled_bottom and fresh_top > fresh_bottom
    assert settled_top > 2 * settled_bottom > 0


def test_a_collision_spoils_an_activation_of_a_stack_only() -> None:
    noise = NoiseDraws(Noise(collision=0.5), seed=3)
    assert not any(noise.collides(1) for _ in range(200))
    assert 50 < sum(noise.collides(2) for _ in range(200)) < 150
    with Pn532Simulator(miss=0.0, depth=2, noise=Noise(collision=MOST), seed=5) as sim, raw(sim) as port:
        sim.place_stack([UID, "04A1B2C3D4E502"])
        answers = [command(port, _LIST, b"\x01\x00")[0] for _ in range(40)]
        assert 0 in answers  # a listing that found nothing: both its attempts collided
        assert sim.noise.collisions >= answers.count(0) * 2


def test_noise_rates_are_probabilities() -> None:
    with pytest.raises(ValueError, match="probability"):
        Noise(garble=1.5)
    with pytest.raises(ValueError, match="level"):
        DEFAULT.scaled(-1)


def test_the_chips_command_serves_a_noisy_radio(tmp_path: Path) -> None:
    directory = str(tmp_path / "chips")
    host = subprocess.Popen([str(Path(sys.executable).parent / "ecarte-table"), "chips", directory, "--pads", "turnup",
                             "--noise", "40"], stdout=subprocess.PIPE, text=True)
    try:
        assert host.stdout is not None and host.stdout.readline().strip() == "ready"
        ask(directory, {"op": "place", "pad": "turnup", "uids": [UID]})
        with NfcpyReader(chip_path(directory, "turnup")) as reader:
            signatures = []
            for _ in range(40):
                facts = reader.read_facts(UID) if reader.poll() else None
                signatures += [facts.signature] if facts is not None and facts.signature else []
            assert signatures and all(s == signatures[0] and any(s) for s in signatures)  # never a wrong answer
        noise = ask(directory, {"op": "state", "pad": "turnup"})["noise"]
        assert noise["garbled"] + noise["lost"] > 0, noise
    finally:
        host.terminate()
        assert host.wait(timeout=HANG_S) == 0


@pytest.mark.parametrize(("index", "seconds"), [(8, 0.0128), (11, 0.1024)])
def test_a_lost_answer_costs_the_response_timeout_the_host_set(index: int, seconds: float) -> None:
    # RFConfiguration item 02 (UM0701-02, §7.3.1): 100 µs × 2^(n-1), as nfcpy sets it before each command
    field = Field(miss=0.0)
    field.lay(Ntag213(bytes.fromhex(UID)))
    core = Pn532Core(field)
    assert core.execute(bytes([0x4A, 0x01, 0x00]))[1] == 1
    assert core.execute(bytes([0x32, 0x02, 0x0A, 0x0B, index])) == b"\x33"
    answered = core.execute(bytes([0x42, 0x60]))
    heard = core.rf_time
    field.forced.append(Garble.LOST)
    assert core.execute(bytes([0x42, 0x60])) == b"\x43\x01"
    assert core.rf_time == pytest.approx(seconds + heard - air_time(8 + 2), abs=1e-6)
    assert answered[:2] == b"\x43\x00"
