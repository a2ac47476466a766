"""The table on a real kernel: ``scripts/vm_test.py`` boots Debian trixie's own kernel under qemu
(TCG where no real KVM is), with the table installed by ``systemd/install.sh``, its six readers on
qemu's FTDI adapters (ftdi_sio) backed by simulated PN532s on this machine, its buttons on gpio-sim
(the GPIO character device), its OLED on a patched i2c-stub (i2c-dev), and checks each behaviour
below; then cuts the power (SIGKILL to qemu) at random moments of games. Root, qemu and debootstrap
are needed (``bash scripts/system-deps.sh vm``); elsewhere the tests skip with one line. They take
minutes, not seconds: they are not in the suite's time (``-m vm``, CI runs them as a step of their
own: ``ECARTE_VM_TEST=1 .venv/bin/python -m pytest -m vm tests/deploy/test_vm.py``). Without
``ECARTE_VM_TEST=1`` they skip. ``ECARTE_VM_CUTS`` sets the power cuts (3),
``ECARTE_VM_REPORT=FILE`` keeps the harness's report. ``ECARTE_VM_ARCH=arm64`` runs the arm64 guest
instead (under TCG, about an hour cold and half an hour warm: run by hand, when the kernel modules, the
install or the units change, never in CI): checks 1-4 and the venue's hub, no power cuts. The first run
makes the guest (kept in /var/cache/ecarte-table-vm); docs/hardware.md says what each check proves and
what it costs."""

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
SCRIPT = ROOT / "scripts" / "vm_test.py"

pytestmark = pytest.mark.vm


def _harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("vm_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("vm_test", module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


HARNESS = _harness()
ARCH = os.environ.get("ECARTE_VM_ARCH", "amd64")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if os.environ.get("ECARTE_VM_TEST") != "1":
        pytest.skip("the table on a real kernel: a CI step of its own (ECARTE_VM_TEST=1)")
    out = tmp_path_factory.mktemp("vm") / "report.json"
    cuts = os.environ.get("ECARTE_VM_CUTS", "3")
    if ARCH not in HARNESS.GUESTS:
        pytest.fail(f"ECARTE_VM_ARCH={ARCH}: the harness has {sorted(HARNESS.GUESTS)}")
    reason = HARNESS.why_not(ARCH)
    if reason is not None:
        pytest.skip(f"the table on a real kernel ({ARCH}): {reason}")
    done = subprocess.run([sys.executable, str(SCRIPT), "--arch", ARCH, "--json", str(out), "--cuts", cuts],
                          capture_output=True, text=True, timeout=3 * 3600, check=False)
    if done.returncode == HARNESS.CANNOT_RUN:
        pytest.skip(f"the table on a real kernel: {done.stdout.strip()}")
    if not out.exists():
        pytest.fail(f"vm_test.py wrote no report (exit {done.returncode}):\n{done.stdout}\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(out.read_text())
    keep = os.environ.get("ECARTE_VM_REPORT")
    if keep:
        Path(keep).write_text(out.read_text())
    result["output"] = done.stdout + done.stderr[-3000:]
    return result


@pytest.mark.parametrize("check", HARNESS.checks(ARCH))
def test_vm(report: dict[str, Any], check: str) -> None:
    results = {r["name"]: r for r in report["checks"]}
    if "setup" in results:
        pytest.fail(f"the guest could not be made or booted: {results['setup']['detail']}\n{report['output']}")
    if check not in results:
        pytest.fail(f"{check} did not run:\n{report['output']}")
    assert results[check]["ok"], results[check]["detail"]
