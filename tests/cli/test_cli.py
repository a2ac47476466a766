"""The ``ecarte-table`` command line, run as a player or a maker would run it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args: str, stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args], input=stdin, capture_output=True,
        text=True, timeout=timeout, cwd=ROOT,
    )


@pytest.mark.parametrize("command", ["run", "demo", "sim", "replay", "enroll", "doctor", "export", "deck", "review"])
def test_every_subcommand_has_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: ecarte-table {command}")


def test_demo_plays_a_whole_game_when_piped(tmp_path: Path) -> None:
    result = run_cli("demo", "--seed", "3", "--delay", "0", "--journal", str(tmp_path / "demo.sqlite"))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Game over:" in out
    assert "partial sight" in out
    assert re.search(r"\d+ wrong cards? refused at once", out)
    assert "the table refuses it at once:" in out
    over = next(line for line in out.splitlines() if line.startswith("Game over:"))
    assert "wins, A " in over


def test_demo_plays_a_whole_game_over_a_noisy_radio(tmp_path: Path) -> None:
    result = run_cli("demo", "--seed", "3", "--delay", "0", "--noise", "10", "--frames", "none",
                     "--journal", str(tmp_path / "demo.sqlite"))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    over = next(line for line in out.splitlines() if line.startswith("Game over:"))
    assert "wins, A " in over
    radio = re.search(r"radio was noisy \(level 10\): (\d+) answers garbled, (\d+) lost, (\d+) listings spoilt", out)
    assert radio is not None and int(radio.group(1)) > 0 and int(radio.group(2)) > 0, out[-600:]
    assert "counterfeit" not in out.lower() and "not genuine" not in out.lower()


def test_demo_saves_the_oled_frames(tmp_path: Path) -> None:
    from PIL import Image

    frames = tmp_path / "frames"
    result = run_cli("demo", "--seed", "3", "--delay", "0", "--frames", "none", "--png", str(frames),
                     "--journal", str(tmp_path / "demo.sqlite"))
    assert result.returncode == 0, result.stderr
    pngs = sorted(frames.glob("frame-*.png"))
    assert len(pngs) > 20
    with Image.open(pngs[-1]) as last:
        assert last.size == (128, 64)
        assert last.getbbox() is not None  # the game-over screen is not blank
    assert not [line for line in result.stdout.splitlines() if len(line) == 128]  # --frames none


def test_sim_understands_typed_events() -> None:
    lines = "deal\nB no\nhelp\nnonsense\nquit\n"
    result = run_cli("sim", "--dealer", "A", "--seed", "4", stdin=lines)
    assert result.returncode == 2  # one line not understood
    assert "trump: " in result.stdout and " turned up" in result.stdout
    assert "B stands (d'autorité" in result.stdout  # playing without proposing
    assert "?? cannot read 'nonsense'" in result.stdout
    frame_lines = [line for line in result.stdout.splitlines() if len(line) == 128]
    assert len(frame_lines) >= 2 * 32  # the OLED drawn (32 lines of 128) after the lines


def test_enroll_on_the_simulated_table_writes_a_whole_pack(tmp_path: Path) -> None:
    registry = tmp_path / "tags.json"
    result = run_cli("enroll", "--registry", str(registry))
    assert result.returncode == 0, result.stderr
    data = json.loads(registry.read_text())
    cards = {entry["card"] for entry in data["tags"]}
    assert len(cards) == 32
    assert "Pack 1 complete" in result.stdout


def test_doctor_passes_on_the_simulated_table() -> None:
    result = run_cli("doctor")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_broken_table_file_is_bad_input(tmp_path: Path) -> None:
    table = tmp_path / "table.toml"
    table.write_text('[table]\nlayout = "ful"\n')
    result = run_cli("run", str(table), "--journal", str(tmp_path / "j.sqlite"))
    assert result.returncode == 2
    assert str(table) in result.stderr
    assert "did you mean 'full'?" in result.stderr


def test_replay_reports_every_bad_line(tmp_path: Path) -> None:
    transcript = tmp_path / "bad.jsonl"
    transcript.write_text(
        '{"setup": {"rules": "classic", "dealer": "A"}}\n'
        '{"zone": "hand.a", "card": "KS"}\n'
        '{"zone": "hand.A", "card": "1X"}\n'
        "not json\n"
    )
    result = run_cli("replay", str(transcript), "--json")
    assert result.returncode == 2
    assert f"{transcript}:2: unknown zone 'hand.a'" in result.stderr
    assert f"{transcript}:3: cannot read card '1X'" in result.stderr
    assert f"{transcript}:4: not JSON" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(("lang", "card", "not_json"), [
    ("fr", "impossible de lire la carte '1X' : ", "ce n'est pas du JSON (colonne 1)"),
    ("it", "impossibile leggere la carta '1X': ", "non è JSON (colonna 1)"),
    ("de", "die Karte '1X' ist nicht lesbar: ", "kein JSON (Spalte 1)"),
    ("es", "no se puede leer la carta '1X': ", "no es JSON (columna 1)"),
])
def test_replay_says_its_bad_lines_in_the_readers_language(tmp_path: Path, lang: str, card: str,
                                                           not_json: str) -> None:
    """"cannot read card 'ZZ'" and "not JSON" were English in every language, though the catalogue words a
    card that is no card: each bad line is said in the language asked; the --json protocol's stdout stays
    empty."""
    transcript = tmp_path / "bad.jsonl"
    transcript.write_text('{"zone": "hand.A", "card": "1X"}\nnot json\n[1]\n')
    for json_too in ((), ("--json",)):
        result = run_cli("--language", lang, "replay", str(transcript), *json_too)
        assert result.returncode == 2 and result.stdout == ""
        assert f"{transcript}:1: {card}" in result.stderr
        assert f"{transcript}:2: {not_json}" in result.stderr
        assert "cannot read card" not in result.stderr and "not JSON" not in result.stderr
        assert "JSON object" not in result.stderr or lang == "en"


def test_run_then_export_then_replay_agree(tmp_path: Path) -> None:
    import random

    from engine import new_game
    from firmware_host.players.builtin import game_transcript
    from firmware_host.referee.transcript import dumps

    lines = [dumps(e) for e in game_transcript(new_game("classic", dealer="B"), random.Random(5), faults=True)]
    source = tmp_path / "game.jsonl"
    source.write_text("\n".join(lines) + "\n")
    journal = tmp_path / "journal.sqlite"
    ran = run_cli("run", "--journal", str(journal), "--events", str(source), "--json")
    assert ran.returncode == 0, ran.stderr
    exported = run_cli("export", "--journal", str(journal))
    assert exported.returncode == 0, exported.stderr
    again = tmp_path / "again.jsonl"
    again.write_text(exported.stdout)
    replayed = run_cli("replay", str(again), "--json")
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout == ran.stdout
    assert '"event": "game_end"' in ran.stdout


def test_demo_at_depth_one_proves_a_fault_late_and_plays_the_hand_again(tmp_path: Path) -> None:
    """Pads that read one card of a stack: the table cannot refuse every wrong card at once,
    proves it later, and the other player has the hand played again (seed 2 plants one)."""
    result = run_cli("demo", "--seed", "2", "--delay", "0", "--depth", "1", "--frames", "none",
                     "--journal", str(tmp_path / "demo.sqlite"))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "pads read 1 deep" in out
    assert "the table proves Bruno's fault at trick 1, late: Bruno: no trump, trick 1" in out
    assert "chooses to have the hand played again" in out
    assert "1 fault proven late" in next(line for line in out.splitlines() if line.startswith("Game over:"))


def test_deck_check_on_demand_says_what_is_missing(tmp_path: Path) -> None:
    """Enrol the simulated pack, then pass it over a pad: whole (exit 0), then two cards short (exit 1)."""
    registry = tmp_path / "tags.json"
    assert run_cli("enroll", "--registry", str(registry)).returncode == 0
    whole = run_cli("deck", "--registry", str(registry))
    assert whole.returncode == 0, whole.stderr
    assert "Pack 1: 32 cards OK" in whole.stdout
    short = run_cli("deck", "--registry", str(registry), "--drop", "7C", "--drop", "KH")
    assert short.returncode == 1
    assert "Pack 1: 30/32 cards" in short.stdout and "Missing: K♥ 7♣" in short.stdout


def test_deck_check_over_a_noisy_pad_passes_the_pack_and_catches_clones(tmp_path: Path) -> None:
    registry = tmp_path / "tags.json"
    assert run_cli("enroll", "--registry", str(registry)).returncode == 0
    table = tmp_path / "noisy.toml"
    shipped = (ROOT / "hardware" / "tables" / "simulated.toml").read_text()
    table.write_text(shipped.replace('"hand.A" = "sim"', '"hand.A" = { device = "sim", noise = 10 }'))
    whole = run_cli("deck", str(table), "--registry", str(registry))
    assert whole.returncode == 0, whole.stdout + whole.stderr
    assert "Pack 1: 32 cards OK" in whole.stdout
    clones = run_cli("deck", str(table), "--registry", str(registry), "--clone", "7C", "--clone", "KH")
    assert clones.returncode == 1
    fakes = [line for line in clones.stdout.splitlines() if line.startswith("Not genuine:")]
    assert sorted(fakes) == ["Not genuine: 7C: it gave no signature (7♣)", "Not genuine: KH: it gave no signature (K♥)"]


def test_deck_check_without_a_registry_says_what_to_do() -> None:
    done = run_cli("deck")
    assert done.returncode == 2
    assert "enrol the pack first" in done.stderr and "Traceback" not in done.stderr


TRANSCRIPTS = ROOT / "tests" / "transcripts"


@pytest.mark.parametrize(("name", "note"), [("classic_faults.jsonl", True), ("partial/late_yes.jsonl", False)])
def test_a_transcript_gives_the_same_game_on_the_live_table_and_in_replay(tmp_path: Path, name: str,
                                                                         note: bool) -> None:
    """The simulated table reads partial sight; a transcript whose setup names no sight is at full
    sight in replay (docs/transcript.md), so it is on the live table too, with one line saying the
    table's own pads cannot promise it. One that names partial sight needs no note."""
    source = TRANSCRIPTS / name
    journal = tmp_path / "journal.sqlite"
    ran = run_cli("run", "--journal", str(journal), "--events", str(source), "--json")
    assert ran.returncode == 0, ran.stderr
    replayed = run_cli("replay", str(source), "--json")
    assert replayed.returncode == 0, replayed.stderr
    assert ran.stdout == replayed.stdout
    expected = (TRANSCRIPTS / name.replace(".jsonl", ".expected.jsonl")).read_text().splitlines()
    kinds = [(e["event"], e.get("code")) for e in map(json.loads, expected)]
    assert [(e["event"], e.get("code")) for e in map(json.loads, ran.stdout.splitlines())] == kinds
    notes = [line for line in ran.stderr.splitlines() if "full sight" in line]
    if note:
        assert notes == [f"ecarte-table run: {source}:3: the transcript's game is at full sight (its setup names "
                         "no sight), as replay plays it; this table's pads read partial sight: a card laid on them "
                         "may go unseen, and a hand seen short is a misdeal"]
    else:
        assert notes == []
    exported = run_cli("export", "--journal", str(journal))
    setup = json.loads(exported.stdout.splitlines()[0])["setup"]
    assert setup["sight"] == ("full" if note else "partial")  # the journal keeps the game the table played


def test_a_table_at_full_sight_needs_no_note(tmp_path: Path) -> None:
    from hardware.table import shipped_table_path

    table = tmp_path / "table.toml"
    table.write_text(shipped_table_path("simulated").read_text().replace('sight = "partial"', 'sight = "full"'))
    source = TRANSCRIPTS / "classic_faults.jsonl"
    ran = run_cli("run", str(table), "--journal", str(tmp_path / "j.sqlite"), "--events", str(source), "--json")
    assert ran.returncode == 0, ran.stderr
    assert "full sight" not in ran.stderr
    assert ran.stdout == run_cli("replay", str(source), "--json").stdout
