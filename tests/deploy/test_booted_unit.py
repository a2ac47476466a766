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

import os
from pathlib import Path
from typing import Any

import harness_script
import pytest

pytestmark = pytest.mark.boot

HARNESS = harness_script.load("boot_test")


@pytest.fixture(scope="module", params=HARNESS.RELEASES)
def report(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    release: str = request.param
    if os.environ.get("ECARTE_BOOT_TEST") == "0":
        pytest.skip("the booted unit: ECARTE_BOOT_TEST=0")
    reason = HARNESS.why_not(HARNESS.host_arch())
    if reason is not None:
        pytest.skip(f"the booted unit: {reason}")
    out = tmp_path_factory.mktemp(f"boot-{release}") / "report.json"
    result = harness_script.report(HARNESS, "the booted unit", ["--release", release], out, timeout=3600)
    keep = os.environ.get("ECARTE_BOOT_REPORT")  # CI may keep the figures: each check's time and words
    if keep:
        kept = Path(keep)
        kept.with_name(f"{kept.stem}-{release}{kept.suffix}").write_text(out.read_text())
    return result


@pytest.mark.parametrize("check", HARNESS.CHECKS)
def test_booted_unit(report: dict[str, Any], check: str) -> None:
    harness_script.assert_check(report, check, no_setup="the container could not be set up",
                                not_run="did not run (the unit never became ready)")
