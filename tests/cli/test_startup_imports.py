"""What a command imports before it does its work: its own module and what it uses, never every
command's. A table restarts after the watchdog, a crash and every power cut, and pays its imports
each time (``bench/instructions.py --startup`` counts them); these tests check the imports themselves,
in a fresh interpreter, so they do not drift with the machine as a time would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG_S

ROOT = Path(__file__).resolve().parents[2]

COMMAND_MODULES = {"cli.run", "cli.hub", "cli.demo", "cli.sim", "cli.replay", "cli.enroll", "cli.doctor", "cli.export",
                   "cli.history", "cli.review", "cli.deck", "cli.journal", "cli.chips"}
HEAVY = ("starlette", "uvicorn", "paho", "networkx", "babel", "ecdsa", "PIL", "nfc", "luma", "gpiozero", "sqlite3",
         "importlib.metadata", "importlib.resources", "logging", "typing", "shutil", "zipfile", "tempfile")
"""What ``--help`` and ``--version`` have no use for: the web, MQTT, the coach's graphs, Babel, the tags'
signatures, images, the NFC and display drivers, the journal, and the standard library's heaviest (shutil
imports the compressors; argparse imports it for each formatter)."""
OURS = ("engine", "hardware", "drivers", "venue", "coach", "firmware_host")

CONSOLE_SCRIPT = Path(sys.executable).parent / "ecarte-table"
"""The command as a maker runs it: the entry point pip wrote in this venv (the editable install's finder
in the venv's site, or a wheel's packages)."""


def imported_by(code: str) -> set[str]:
    """The modules a fresh interpreter holds after ``code`` (a ``SystemExit`` in it taken as its end)."""
    probe = ("import json, sys\n"
             f"try:\n    exec({code!r})\nexcept SystemExit:\n    pass\n"
             "sys.stdout = sys.__stdout__\nprint(json.dumps(sorted(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT,
                          timeout=HANG_S, check=False)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def heavy(modules: set[str]) -> list[str]:
    """The modules of ``HEAVY`` (and below them) among ``modules``."""
    return sorted(name for name in modules if any(name == h or name.startswith(h + ".") for h in HEAVY))


@pytest.mark.parametrize("line", [["--version"], ["--help"], ["--language", "fr", "--help"]])
def test_version_and_help_import_no_command(line: list[str]) -> None:
    """``--help`` lists every command with its line (from :data:`cli.main.COMMANDS`) without importing one."""
    modules = imported_by(f"import io, contextlib\nfrom cli.main import main\n"
                          f"with contextlib.redirect_stdout(io.StringIO()):\n    main({line!r})")
    assert modules & COMMAND_MODULES == set()
    assert heavy(modules) == []
    assert not any(name.split(".")[0] in OURS for name in modules)


@pytest.mark.parametrize("line", [["--version"], ["--help"]])
def test_the_console_script_imports_only_what_it_uses(line: list[str], tmp_path: Path) -> None:
    """``ecarte-table --version`` and ``--help`` as a maker types them, through the venv's entry point:
    every module imported (``PYTHONPROFILEIMPORTTIME``, Python's ``-X importtime``), none of a command,
    of our other packages or of :data:`HEAVY`."""
    if not CONSOLE_SCRIPT.exists():
        pytest.skip(f"no console script at {CONSOLE_SCRIPT} (the package is not installed in this venv)")
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1", "PYTHONPYCACHEPREFIX": str(tmp_path)}
    done = subprocess.run([str(CONSOLE_SCRIPT), *line], capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=HANG_S, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(("ecarte-table ", "usage: ecarte-table"))
    modules = {row.rpartition("|")[2].strip() for row in done.stderr.splitlines() if row.startswith("import time:")}
    assert "cli.main" in modules  # the profile is read (a line that says nothing would pass the rest)
    assert modules & COMMAND_MODULES == set()
    assert heavy(modules) == []
    assert not any(name.split(".")[0] in OURS for name in modules)


def test_run_shows_its_first_frame_before_it_imports_the_pads(tmp_path: Path) -> None:
    """``ecarte-table run`` on the simulated table started again on its journal: the game is on the
    display (its first frame saved, ``--png``) before nfcpy, gpiozero and ecdsa are imported, which the
    pads, the buttons and the tags' signatures need once they open (a table restarts after the watchdog,
    a crash and every power cut: the players see it back first)."""
    probe = (
        "import json, os, sys\n"
        "frames, out, journal = sys.argv[1:4]\n"
        "def first_frame(event, args):\n"
        "    if event == 'open' and str(args[0]).startswith(frames) and 'w' in str(args[1]) and out:\n"
        "        with open(out, 'w') as f:\n"
        "            json.dump(sorted(sys.modules), f)\n"
        "        os._exit(0)\n"
        "sys.addaudithook(first_frame)\n"
        "from cli.main import main\n"
        "sys.exit(main(['run', '--journal', journal, '--png', frames, '--events', '-']))\n")
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    journal, seen = tmp_path / "journal.sqlite", tmp_path / "modules.json"
    for out in ("", str(seen)):  # a first run makes the journal; the second is the table started again
        done = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "frames"), out, str(journal)],
                              input="", capture_output=True, text=True, cwd=ROOT, env=env, timeout=HANG_S,
                              check=False)
        assert done.returncode == 0, done.stderr
    modules = set(json.loads(seen.read_text()))
    assert {"firmware_host.app", "firmware_host.screens.panel", "engine", "PIL.Image"} <= modules
    assert heavy(modules & {"nfc", "gpiozero", "ecdsa", "importlib.metadata"}) == []
    assert {"drivers.nfc.reader", "firmware_host.players.simtable"} & modules == set()


@pytest.mark.parametrize("command", sorted(name.removeprefix("cli.") for name in COMMAND_MODULES))
def test_a_command_imports_its_own_module_and_no_other_command(command: str) -> None:
    """The command line of ``command`` parsed (as ``ecarte-table COMMAND --help`` does before it prints):
    its module imported, no other command's."""
    modules = imported_by(f"from cli.main import parse_args\nparse_args([{command!r}, '--help'])")
    assert modules & COMMAND_MODULES == {f"cli.{command}"}


def test_the_run_command_imports_neither_the_hub_nor_the_enrolment() -> None:
    """``run`` parsed: nothing of the hub, the enrolment, the coach or the tags' signatures yet."""
    modules = imported_by("from cli.main import parse_args\nparse_args(['run', '--web'])")
    assert not {"venue.hub.scoreboard", "firmware_host.cards.enroll", "coach", "ecdsa", "networkx", "babel"} & modules
