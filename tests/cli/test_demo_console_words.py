"""``ecarte-table demo --web``: the lines its console logs for a person (the page's address, the pads'
frames, a reader lost and back, the page staying up) in the table's language, no English word left."""

from __future__ import annotations

import contextlib
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
    assert (f"ecarte-table demo : la page ne peut pas écouter sur 127.0.0.1:{port} : l'adresse est déjà utilisée"
            in capsys.readouterr().err)
    assert main(["demo", "--language", "es", "--web", "127.0.0.1:x", "--journal", str(tmp_path / "d.sqlite")]) == 2
    assert "ecarte-table demo: --web 127.0.0.1:x: el puerto 'x' no es un número" in capsys.readouterr().err


@pytest.mark.parametrize(("players", "said"), [
    ("Anne", "ecarte-table demo : --players 'Anne' : deux noms différents, celui de A puis celui de B, comme "
             "'Anne,Bruno'"),
    ("Anne,B\u0007", "ecarte-table demo : --players : un nom ne contient aucun caractère de contrôle, reçu 'B\\x07'"),
])
def test_the_demos_players_refused_in_its_language(
        players: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import main

    assert main(["demo", "--language", "fr", "--players", players, "--journal", str(tmp_path / "d.sqlite")]) == 2
    assert said in capsys.readouterr().err


def _session(sid: int) -> list[str]:
    """The processes of session ``sid`` still running (a zombie has ended: its parent, or init, reaps it)."""
    running = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # state, ppid, pgrp, session...
        if int(fields[3]) == sid and fields[0] != "Z":
            running.append(command)
    return running


def test_sigterm_ends_the_demo_and_its_page_as_ctrl_c_does(tmp_path: Path) -> None:
    """``demo --web`` ended by SIGTERM (``kill``, a service manager) left its coach's worker and
    multiprocessing's resource tracker running (8 orphans after 4 demos): SIGTERM's default ended the
    process at once. Now it closes all it started, as Ctrl-C does, and exits 143."""
    with (tmp_path / "console.txt").open("w") as console:  # a file: a pipe would wait for the orphans
        demo = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "demo", "--seed", "3", "--delay", "0.1", "--frames", "none",
             "--journal", str(tmp_path / "demo.sqlite"), "--web", "127.0.0.1:0"],
            cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=console,
            env={**os.environ, "XDG_STATE_HOME": str(tmp_path)}, start_new_session=True)
        try:
            deadline = time.monotonic() + HANG_S  # a hang's limit: the first hand over, its review under way
            while not any("multiprocessing" in command for command in _session(demo.pid)):
                assert demo.poll() is None and time.monotonic() < deadline, "no coach's worker started"
                time.sleep(0.1)
            demo.send_signal(signal.SIGTERM)  # the demo's process alone, as kill or systemd sends it
            assert demo.wait(timeout=HANG_S) == 128 + signal.SIGTERM
            deadline = time.monotonic() + HANG_S
            while _session(demo.pid) and time.monotonic() < deadline:  # the tracker ends once its parent has
                time.sleep(0.1)
            assert _session(demo.pid) == []
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(demo.pid, signal.SIGKILL)
            demo.wait()
    assert "Traceback" not in (tmp_path / "console.txt").read_text()
