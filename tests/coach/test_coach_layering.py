"""The coach is pure: it imports the engine and nothing of the table, and does no I/O."""

from __future__ import annotations

import ast
from pathlib import Path

COACH = Path(__file__).resolve().parents[2] / "coach"
FORBIDDEN = {"firmware_host", "drivers", "hardware", "os", "io", "subprocess", "socket", "pathlib", "sqlite3"}


def test_coach_imports_only_the_engine() -> None:
    for path in COACH.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN, f"{path.name} imports {name}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id != "open", f"{path.name} opens a file"
