"""What the deploy tests share (test_booted_unit.py, test_vm.py): a harness of ``scripts/`` loaded as a
module of its own name, and one run of it to the JSON report it writes, skipped in one line where it
cannot run (its exit status CANNOT_RUN) and failed with what it said where it wrote no report."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load(name: str) -> ModuleType:
    """``scripts/<name>.py`` as the module ``name``."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def report(harness: ModuleType, what: str, args: list[str], out: Path, timeout: float) -> dict[str, Any]:
    """The harness run with ``args`` and ``--json out``: its report, with the end of what it printed."""
    script = Path(harness.__file__ or "")
    done = subprocess.run([sys.executable, str(script), *args, "--json", str(out)],
                          capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode == harness.CANNOT_RUN:
        pytest.skip(f"{what}: {done.stdout.strip()}")
    if not out.exists():
        pytest.fail(f"{script.name} wrote no report (exit {done.returncode}):\n{done.stdout}\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(out.read_text())
    result["output"] = done.stdout + done.stderr[-3000:]
    return result


def assert_check(report: dict[str, Any], check: str, *, no_setup: str, not_run: str) -> None:
    """``check`` passed in the report: failed with ``no_setup`` where the harness could not set up, with
    ``not_run`` where the check did not run, else with the check's own words."""
    results = {r["name"]: r for r in report["checks"]}
    if "setup" in results:
        pytest.fail(f"{no_setup}: {results['setup']['detail']}\n{report['output']}")
    if check not in results:
        pytest.fail(f"{check} {not_run}:\n{report['output']}")
    assert results[check]["ok"], results[check]["detail"]
