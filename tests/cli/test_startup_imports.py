"""What a command imports before it does its work: its own module and what it uses, never every
command's. A table restarts after the watchdog, a crash and every power cut, and pays its imports
each time (``bench/instructions.py --startup`` counts them); these tests check the imports themselves,
in a fresh interpreter, so they do not drift with the machine as a time would.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG_S

ROOT = Path(__file__).resolve().parents[2]

COMMAND_MODULES = {"cli.run", "cli.hub", "cli.demo", "cli.sim", "cli.replay", "cli.enroll", "cli.doctor", "cli.export",
                   "cli.history", "cli.review", "cli.deck", "cli.journal", "cli.chips"}
HEAVY = ("starlette", "uvicorn", "paho", "networkx", "babel", "ecdsa", "PIL", "nfc", "luma", "gpiozero", "sqlite3",
         "importlib.metadata", "logging", "typing")
"""What ``--help`` and ``--version`` have no use for: the web, MQTT, the coach's graphs, Babel, the tags'
signatures, images, the NFC and display drivers, the journal, and the standard library's heaviest."""


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
    assert not any(name.split(".")[0] in ("engine", "hardware", "drivers", "venue", "coach") for name in modules)


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
