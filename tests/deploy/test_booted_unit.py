"""The shipped units under a real systemd: ``scripts/boot_test.py`` boots Debian trixie (today's
Raspberry Pi OS base, Python 3.13) and bookworm (the one before, Python 3.11), each in a
systemd-nspawn container, installs this checkout with ``systemd/install.sh --hub --wheelhouse``
and checks each behaviour below. Root, debootstrap and systemd-nspawn are needed (CI has them:
``scripts/system-deps.sh tests``); elsewhere the tests skip with one line. Select them with
``-m boot``; ``ECARTE_BOOT_TEST=0`` skips them; ``ECARTE_BOOT_REPORT=FILE`` keeps the harness's
report (``FILE`` with the release before its suffix: ``report-trixie.json``). The first run makes
each release's Debian root and wheelhouse (kept in /var/cache/ecarte-table);
docs/hardware.md says what each check proves and how long it takes."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "boot_test.py"

pytestmark = pytest.mark.boot


def _harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("boot_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("boot_test", module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


HARNESS = _harness()


@pytest.fixture(scope="module", params=HARNESS.RELEASES)
def report(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    release: str = request.param
    if os.environ.get("ECARTE_BOOT_TEST") == "0":
        pytest.skip("the booted unit: ECARTE_BOOT_TEST=0")
    reason = HARNESS.why_not(HARNESS.host_arch())
    if reason is not None:
        pytest.skip(f"the booted unit: {reason}")
    out = tmp_path_factory.mktemp(f"boot-{release}") / "report.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "--release", release, "--json", str(out)],
                          capture_output=True, text=True, timeout=3600, check=False)
    if done.returncode == HARNESS.CANNOT_RUN:
        pytest.skip(f"the booted unit: {done.stdout.strip()}")
    if not out.exists():
        pytest.fail(f"boot_test.py wrote no report (exit {done.returncode}):\n{done.stdout}\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(out.read_text())
    keep = os.environ.get("ECARTE_BOOT_REPORT")  # CI may keep the figures: each check's time and words
    if keep:
        kept = Path(keep)
        kept.with_name(f"{kept.stem}-{release}{kept.suffix}").write_text(out.read_text())
    result["output"] = done.stdout + done.stderr[-3000:]
    return result


@pytest.mark.parametrize("check", HARNESS.CHECKS)
def test_booted_unit(report: dict[str, Any], check: str) -> None:
    results = {r["name"]: r for r in report["checks"]}
    if "setup" in results:
        pytest.fail(f"the container could not be set up: {results['setup']['detail']}\n{report['output']}")
    if check not in results:
        pytest.fail(f"{check} did not run (the unit never became ready):\n{report['output']}")
    assert results[check]["ok"], results[check]["detail"]
