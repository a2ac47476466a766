"""The test suite shaped like the code (gpiozero's layout): driver tests see only ``drivers``, tests
are named by what they test (not by the issue that asked for them), and waiting is written once.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
WAITERS = re.compile(r"^def (wait_for|wait_until|_wait|wait)\(", re.M)
"""A module-level polling helper (a helper class's own ``wait_for``, reading a stream, is its own)."""
ISSUE = re.compile(r"\bissue\s*\d+", re.I)
UNCLOSED_DB = re.compile(r"\bwith\s+sqlite3\.connect\(")
"""``with sqlite3.connect(...) as db``: the block commits, but does not close; the connection and its
descriptors wait for the cyclic GC (300 polls of a journal left 68 open, and a test worker once held 1,224,
past select's 1024). ``with contextlib.closing(sqlite3.connect(...)) as db, db:`` commits and closes."""


def _imported(source: str) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def above_drivers(source: str) -> set[str]:
    """What ``source`` imports of the packages above ``drivers`` (late imports included)."""
    return {name for name in _imported(source) if name.split(".")[0] in ("hardware", "firmware_host", "venue", "cli")}


def naming_an_issue(source: str) -> list[str]:
    """The file's docstrings and comments that name an issue (``issue 9, part 2``)."""
    found = [doc for node in ast.walk(ast.parse(source))
             if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef)
             and (doc := ast.get_docstring(node)) and ISSUE.search(doc)]
    comments = [line.strip() for line in source.splitlines() if "#" in line and ISSUE.search(line.split("#", 1)[1])]
    return found + comments


def test_driver_tests_import_nothing_above_the_drivers() -> None:
    bad = {p.name: sorted(above_drivers(p.read_text())) for p in (TESTS / "drivers").glob("*.py")}
    assert {name: found for name, found in bad.items() if found} == {}


def test_no_test_names_an_issue() -> None:
    files = [p for p in TESTS.rglob("*.py") if p != Path(__file__)]
    assert [p.name for p in files if ISSUE.search(p.stem)] == []
    named = {str(p.relative_to(TESTS)): naming_an_issue(p.read_text()) for p in files}
    assert {path: found for path, found in named.items() if found} == {}


def test_waiting_is_written_once() -> None:
    """``tests/waiting.py`` polls; everything else takes its ``wait_for`` (fixture or import)."""
    copies = [str(p.relative_to(TESTS)) for p in TESTS.rglob("*.py")
              if p.name != "waiting.py" and WAITERS.search(p.read_text().replace("def wait_for() ->", ""))]
    assert copies == []


def test_no_sqlite_connection_is_left_to_the_gc() -> None:
    files = [p for p in [*ROOT.glob("*/**/*.py")] if ".venv" not in p.parts and p != Path(__file__)]
    assert [str(p.relative_to(ROOT)) for p in files if UNCLOSED_DB.search(p.read_text())] == []


def test_the_checks_can_fail() -> None:
    assert above_drivers("from hardware.tag_registry import TagRegistry\ndef f():\n    import firmware_host.app\n") == {
        "hardware.tag_registry", "firmware_host.app"}
    assert above_drivers("from drivers.nfc.pad import Pad\n") == set()
    assert naming_an_issue('"""A kill at any instant (issue 9, part 2)."""\n') == [
        "A kill at any instant (issue 9, part 2)."]
    assert naming_an_issue("# -- issue 23 §4: locks\nx = 1\n") == ["# -- issue 23 §4: locks"]
    assert WAITERS.search("def wait_until(condition, timeout=1.0):\n    pass\n")
    assert UNCLOSED_DB.search("    with sqlite3.connect(path) as db:\n")
    assert not UNCLOSED_DB.search("    with contextlib.closing(sqlite3.connect(path)) as db, db:\n")
