"""``demo --voice DIR`` and ``run --voice DIR``: one WAV and one numbered line per announcement,
that a listener can follow the game from."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import wave
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "voice"

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                reason="espeak-ng is not installed: sudo bash scripts/system-deps.sh tests")


def cli(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "XDG_STATE_HOME": str(tmp_path / "state"), "HOME": str(tmp_path)}
    return subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env=env, check=False)


def said(folder: Path) -> list[str]:
    lines = (folder / "said.txt").read_text(encoding="utf-8").splitlines()
    numbers = [line.split("\t", 1)[0] for line in lines]
    assert numbers == [f"{i:04d}" for i in range(1, len(lines) + 1)]
    assert sorted(p.name for p in folder.glob("*.wav")) == [f"{n}.wav" for n in numbers]
    for n in numbers:
        with wave.open(str(folder / f"{n}.wav")) as w:
            assert 0.3 < w.getnframes() / w.getframerate() < 20
    return [line.split("\t", 1)[1] for line in lines]


def test_run_with_a_voice_says_the_golden_game(tmp_path: Path) -> None:
    done = cli("run", "--events", str(GOLDEN / "partial_game.jsonl"), "--voice", str(tmp_path / "voice"),
               tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert said(tmp_path / "voice") == (GOLDEN / "said_en.txt").read_text(encoding="utf-8").splitlines()


def test_demo_with_a_voice_in_french_can_be_followed(tmp_path: Path) -> None:
    done = cli("demo", "--seed", "3", "--delay", "0", "--frames", "none", "--language", "fr",
               "--journal", str(tmp_path / "demo.sqlite"), "--voice", str(tmp_path / "voix"), tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = said(tmp_path / "voix")
    text = "\n".join(lines)
    assert lines[0] in ("Anne gagne la coupe.", "Bruno gagne la coupe.", "Coupez une autre carte.")
    assert text.count("Atout ") >= 2 and " joue le " in text and "fait la levée" in text
    assert "Score : " in text and lines[-1].split(",")[0].endswith("gagne la partie")
    # the demo's own last words (in French too) name the same winner and score
    found = re.search(r"(\w+) (?:wins|gagne), A (\d+) - B (\d+)", done.stdout)
    assert found is not None, done.stdout[-400:]
    winner, a, b = found.group(1), int(found.group(2)), int(found.group(3))
    assert lines[-1] == f"{winner} gagne la partie, {max(a, b)} à {min(a, b)}."
