"""``ecarte-table demo --web``: the lines its console logs for a person (the page's address, the pads'
frames, a reader lost and back, the page staying up) in the table's language, no English word left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import catalogue
from catalogue import LANGUAGES
from hardware.layout import FULL_PADS
from tests.hardware.test_table_words import english_left
from tests.waiting import HANG_S

ROOT = Path(__file__).resolve().parents[2]
CONSOLE_ENGLISH = {"stays", "until", "retried", "stopping", "offline", "lost", "demo"}
"""The console's English words beside the game's and the files' (``page``, ``service``: French words too)."""


def _demo_console(lang: str, tmp_path: Path) -> str:
    """What ``demo --web`` writes to its console (stderr) until its page stays up, then Ctrl-C as a terminal
    sends it (to the whole group: the page's coach worker printed a KeyboardInterrupt's traceback)."""
    demo = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "demo", "--language", lang, "--seed", "3", "--delay", "0", "--frames",
         "none", "--journal", str(tmp_path / "demo.sqlite"), "--web", "127.0.0.1:0"],
        cwd=ROOT, text=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path)}, start_new_session=True)
    assert demo.stderr is not None
    said = []
    deadline = time.monotonic() + HANG_S
    for line in demo.stderr:
        said.append(line)
        if line.startswith("ecarte-table demo: ") or time.monotonic() > deadline:  # its page stays up
            break
    os.killpg(demo.pid, signal.SIGINT)  # a terminal's Ctrl-C: every process of the group, the coach's worker too
    _, rest = demo.communicate(timeout=HANG_S)
    assert demo.returncode == 0, "".join(said) + rest
    return "".join(said) + rest


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_the_demos_console_speaks_the_tables_language(lang: str, tmp_path: Path) -> None:
    console = _demo_console(lang, tmp_path)
    lines = console.splitlines()
    page = next(line for line in lines if "http://127.0.0.1:" in line and not line.startswith("ecarte-table"))
    url = page.rsplit(" ", 1)[-1]
    assert page == catalogue.say(lang, "log.page", url=url)
    assert lines[-1] == "ecarte-table demo: " + catalogue.say(lang, "demo.page_stays", url=url)
    assert catalogue.say(lang, "log.stopping", reason=catalogue.say(lang, "log.demo_over")) in lines
    assert any(line.startswith(catalogue.say(lang, "log.pad_frames", pad="hand.A", frames="")) for line in lines)
    words = console.replace("ecarte-table demo", "")
    for pad in FULL_PADS:  # a pad's name is the table file's, as typed (`[pads] "hand.A"`)
        words = words.replace(pad, "")
    left = english_left(lang, words) | {word for word in words.split() if word in CONSOLE_ENGLISH}
    assert left == set(), console
    assert "Traceback" not in console


def test_the_check_finds_the_english_console(tmp_path: Path) -> None:
    """In English the same lines are found English (the check can fail)."""
    console = _demo_console("en", tmp_path)
    assert "the table's page: http://127.0.0.1:" in console and "frames retried of" in console
    assert english_left("en", console) | {word for word in console.split() if word in CONSOLE_ENGLISH}


def test_a_page_the_demo_cannot_open_is_said_in_its_language(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    from cli.main import main

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["demo", "--language", "fr", "--web", f"127.0.0.1:{port}", "--journal",
                     str(tmp_path / "d.sqlite")]) == 2
    assert (f"ecarte-table demo: la page ne peut pas écouter sur 127.0.0.1:{port} : l'adresse est déjà utilisée"
            in capsys.readouterr().err)
    assert main(["demo", "--language", "es", "--web", "127.0.0.1:x", "--journal", str(tmp_path / "d.sqlite")]) == 2
    assert "ecarte-table demo: --web 127.0.0.1:x: el puerto 'x' no es un número" in capsys.readouterr().err


@pytest.mark.parametrize(("players", "said"), [
    ("Anne", "ecarte-table demo: --players 'Anne' : deux noms différents, celui de A puis celui de B, comme "
             "'Anne,Bruno'"),
    ("Anne,B\u0007", "ecarte-table demo: --players : un nom ne contient aucun caractère de contrôle, reçu 'B\\x07'"),
])
def test_the_demos_players_refused_in_its_language(
        players: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import main

    assert main(["demo", "--language", "fr", "--players", players, "--journal", str(tmp_path / "d.sqlite")]) == 2
    assert said in capsys.readouterr().err
