"""The import direction (STYLE.md 'For this project' 1): ``engine/`` imports
nothing of ours and does no I/O; ``drivers/`` knows no rules and no wiring.

Checked on the source, by parsing every module's AST (imports inside functions
included), so a late import cannot slip through.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OURS = {"engine", "drivers", "hardware", "firmware_host"}
IO_MODULES = {
    "socket", "serial", "sqlite3", "threading", "multiprocessing", "asyncio", "subprocess",
    "time", "os", "io", "pathlib", "shutil", "tempfile", "glob", "select", "selectors", "signal",
    "logging", "urllib", "http", "ssl", "smtplib", "ftplib", "mmap", "fcntl", "termios", "pty",
    "tty", "ctypes", "usb", "nfc", "gpiozero", "luma", "PIL", "smbus2", "sdnotify", "random",
    "datetime", "sys", "builtins", "pickle", "shelve", "dbm", "json", "tomllib", "csv",
}
"""What a pure rules engine never needs: I/O, clocks, threads, global randomness
(``engine.random_play`` and ``engine.rollout`` take a ``random.Random`` from their caller and import
``random`` only for the type -- allowed below), and serialisation to files."""

ALLOWED_IN_ENGINE = {"engine/random_play.py": {"random"}, "engine/rollout.py": {"random"}}


def modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def imports(path: Path, root: Path = ROOT) -> set[str]:
    """Every module ``path`` imports, absolute names (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = path.relative_to(root).parent.parts
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                found.add(".".join([*base, node.module] if node.module else base))
            elif node.module:
                found.add(node.module)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
            "__import__", "import_module",
        ):
            for arg in node.args[:1]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.add(arg.value)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "open":
            found.add("builtins.open")
    return found


def top(name: str) -> str:
    return name.split(".")[0]


@pytest.mark.parametrize("path", modules("engine"), ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_imports_nothing_of_ours_and_no_io(path):
    rel = str(path.relative_to(ROOT))
    allowed = ALLOWED_IN_ENGINE.get(rel, set())
    names = imports(path)
    ours = {n for n in names if top(n) in OURS - {"engine"}}
    assert not ours, f"{rel} imports {sorted(ours)}: the engine must not know the table"
    io = {n for n in names if top(n) in IO_MODULES and top(n) not in allowed}
    assert not io, f"{rel} imports {sorted(io)}: the engine does no I/O"


@pytest.mark.parametrize("path", modules("drivers"), ids=lambda p: str(p.relative_to(ROOT)))
def test_drivers_know_no_rules_and_no_wiring(path):
    names = imports(path)
    bad = {n for n in names if top(n) in ("engine", "firmware_host")}
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_the_checker_sees_late_and_relative_imports(tmp_path):
    """The AST walk finds imports inside functions, relative ones, __import__ and open()."""
    probe = tmp_path / "engine" / "probe.py"
    probe.parent.mkdir()
    probe.write_text(
        "from . import cards\n"
        "from .game import apply\n"
        "def f():\n    import socket\n    from drivers.nfc import x\n    __import__('time')\n"
        "    open('f')\n",
        encoding="utf-8",
    )
    names = imports(probe, root=tmp_path)
    assert {"engine", "engine.game", "socket", "drivers.nfc", "time", "builtins.open"} <= names


def test_there_are_modules_to_check():
    assert len(modules("engine")) >= 10
    assert modules("drivers")
