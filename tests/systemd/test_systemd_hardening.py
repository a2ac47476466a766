"""The unit where install.sh puts the table, the address families readers need, and its
exposure score."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from waiting import HANG_S

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "ecarte-table.service"
INSTALL = ROOT / "systemd" / "install.sh"


def _rendered(prefix: str) -> str:
    return subprocess.run(["bash", str(INSTALL), "--print-unit", "--prefix", prefix], capture_output=True,
                          text=True, timeout=HANG_S, check=True).stdout


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
@pytest.mark.parametrize("prefix", ["/srv/ecarte", "/srv/ecarte/"])
def test_the_unit_points_where_install_put_the_venv(prefix: str) -> None:
    unit = _rendered(prefix)
    assert "ExecStart=/srv/ecarte/venv/bin/ecarte-table run " in unit
    assert "Documentation=file:/srv/ecarte/docs/hardware.md" in unit
    assert "/opt/ecarte-table" not in unit
    assert _rendered("/opt/ecarte-table") == UNIT.read_text(encoding="utf-8")


def test_readers_page_and_feed_may_open_their_sockets_and_nothing_else() -> None:
    # usb: readers need AF_NETLINK, [web] and [mqtt] IPv4/IPv6 (without them the page never listened,
    # the feed's socketpair failed); nothing else (AF_PACKET...)
    families = re.search(r"^RestrictAddressFamilies=(.*)$", UNIT.read_text(), re.M)
    assert families is not None and families.group(1).split() == ["AF_UNIX", "AF_NETLINK", "AF_INET", "AF_INET6"]


def test_bad_input_is_not_restarted_in_a_loop() -> None:
    assert re.search(r"^RestartPreventExitStatus=2$", UNIT.read_text(), re.M)


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_exposure_score_is_at_most_2(tmp_path: Path) -> None:
    copy = tmp_path / "ecarte-table.service"
    copy.write_text(UNIT.read_text(encoding="utf-8"), encoding="utf-8")
    done = subprocess.run(["systemd-analyze", "security", "--offline=yes", "--no-pager", str(copy)],
                          capture_output=True, text=True, timeout=120, check=False)
    score = re.search(r"Overall exposure level for ecarte-table\.service: (\d+\.\d)", done.stdout + done.stderr)
    if score is None and "offline" in done.stderr:
        pytest.skip("this systemd-analyze cannot score a unit file offline")
    assert score is not None, done.stdout + done.stderr
    assert float(score.group(1)) <= 2.0
