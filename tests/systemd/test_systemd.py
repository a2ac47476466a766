"""The systemd unit, the udev rules and install.sh: parsed, verified, dry-run."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from waiting import HANG_S

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "ecarte-table.service"
INSTALL = ROOT / "systemd" / "install.sh"
RULES = ROOT / "systemd" / "99-ecarte-table.rules"
EXEC_START = (
    "/opt/ecarte-table/venv/bin/ecarte-table run /etc/ecarte-table/table.toml "
    "--journal /var/lib/ecarte-table/journal.sqlite"
)


def parse_unit(text: str) -> dict[str, dict[str, list[str]]]:
    """A unit file as {section: {key: [values...]}}; keys may repeat (DeviceAllow=)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        if current is None or "=" not in line:
            raise ValueError(f"line {number}: not a key=value line in a section: {line!r}")
        key, value = line.split("=", 1)
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


@pytest.fixture(scope="module")
def unit() -> dict[str, dict[str, list[str]]]:
    return parse_unit(UNIT.read_text(encoding="utf-8"))


def one(unit: dict[str, dict[str, list[str]]], section: str, key: str) -> str:
    values = unit[section].get(key)
    if not values:
        raise LookupError(f"[{section}] {key}= is missing")
    return values[-1]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("Type", "notify"),
        ("NotifyAccess", "main"),
        ("Restart", "on-failure"),
        ("User", "ecarte"),
        ("NoNewPrivileges", "yes"),
        ("ProtectSystem", "strict"),
        ("StateDirectory", "ecarte-table"),
        ("PrivateTmp", "yes"),
        ("ProtectHome", "yes"),
        ("ProtectKernelTunables", "yes"),
        ("RestrictAddressFamilies", "AF_UNIX AF_NETLINK AF_INET AF_INET6"),
        ("DevicePolicy", "closed"),
        ("ExecStart", EXEC_START),
    ],
)
def test_required_directives(unit: dict[str, dict[str, list[str]]], key: str, value: str) -> None:
    assert one(unit, "Service", key) == value


def test_watchdog_is_set(unit: dict[str, dict[str, list[str]]]) -> None:
    match = re.fullmatch(r"(\d+)(s|min)?", one(unit, "Service", "WatchdogSec"))
    assert match and int(match[1]) > 0


def test_groups_for_the_devices(unit: dict[str, dict[str, list[str]]]) -> None:
    groups = one(unit, "Service", "SupplementaryGroups").split()
    assert set(groups) == {"i2c", "gpio", "dialout"}


def test_devices_allowed(unit: dict[str, dict[str, list[str]]]) -> None:
    allowed = [value.split()[0] for value in unit["Service"]["DeviceAllow"]]
    for device in (
        "char-i2c", "char-gpiochip", "/dev/gpiomem", "char-ttyUSB", "char-ttyAMA", "/dev/serial0",
    ):
        assert device in allowed, device
    for value in unit["Service"]["DeviceAllow"]:
        assert value.split()[1:] == ["rw"], value
    assert "PrivateDevices" not in unit["Service"]  # it would hide the readers


def test_journal_is_in_the_state_directory(unit: dict[str, dict[str, list[str]]]) -> None:
    journal = one(unit, "Service", "ExecStart").split("--journal ")[1].split()[0]
    state = "/var/lib/" + one(unit, "Service", "StateDirectory")
    assert journal.startswith(state + "/")  # ProtectSystem=strict: nowhere else is writable


@pytest.mark.parametrize("name", ["ecarte-table.service", "ecarte-hub.service"])
def test_the_units_start_up_lines_reach_the_journal(name: str) -> None:
    """A normal start says its few lines at INFO (WARNING is for what is wrong): the unit's command
    logs at INFO without a ``-v``, and its standard error is journald's (systemd's default)."""
    import logging

    from cli.main import log_level, parse_args

    service = parse_unit((ROOT / "systemd" / name).read_text(encoding="utf-8"))["Service"]
    command = one({"Service": service}, "Service", "ExecStart").split()
    assert command[0].endswith("/ecarte-table")
    assert log_level(parse_args(command[1:])) == logging.INFO
    assert "StandardError" not in service and "StandardOutput" not in service


def test_the_hub_stops_its_own_broker() -> None:
    """systemd's stop sent SIGTERM to the broker too (KillMode=control-group): it could stop before the
    hub, which then said it had stopped and restarted it. The hub alone is told; it stops the broker."""
    hub = parse_unit((ROOT / "systemd" / "ecarte-hub.service").read_text(encoding="utf-8"))
    assert one(hub, "Service", "KillMode") == "mixed"


def test_install_section(unit: dict[str, dict[str, list[str]]]) -> None:
    assert one(unit, "Install", "WantedBy") == "multi-user.target"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_systemd_analyze_verify(tmp_path: Path) -> None:
    # The real binary only exists on an installed table: verify a copy that
    # starts an existing one with the same arguments.
    true = shutil.which("true") or "/bin/true"
    text = UNIT.read_text(encoding="utf-8").replace(
        "ExecStart=/opt/ecarte-table/venv/bin/ecarte-table", f"ExecStart={true}"
    )
    copy = tmp_path / "ecarte-table.service"
    copy.write_text(text, encoding="utf-8")
    result = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(copy)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    ours = [line for line in (result.stdout + result.stderr).splitlines()
            if "ecarte-table" in line]
    assert result.returncode == 0 and not ours, result.stdout + result.stderr


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_install_script_parses() -> None:
    subprocess.run(["bash", "-n", str(INSTALL)], check=True, timeout=HANG_S)
    assert os.access(INSTALL, os.X_OK)


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_install_dry_run_changes_nothing(tmp_path: Path) -> None:
    prefix = tmp_path / "opt"
    result = subprocess.run(
        ["bash", str(INSTALL), "--dry-run", "--prefix", str(prefix)],
        capture_output=True, text=True, timeout=HANG_S, check=False,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert not prefix.exists()
    for step in (
        "usermod --append --groups i2c\\,gpio\\,dialout ecarte",
        f"{prefix}/venv/bin/pip install --quiet --upgrade {ROOT}\\[pi\\]",
        "systemctl enable ecarte-table.service",
        f"s#/opt/ecarte-table#{prefix}#g {ROOT}/systemd/ecarte-table.service > /etc/systemd/system/",
    ):
        assert step in out, (step, out)
    if not Path("/etc/ecarte-table/table.toml").exists():
        assert f"{ROOT}/hardware/tables/reference.toml /etc/ecarte-table/table.toml" in out
    else:
        assert "keeping /etc/ecarte-table/table.toml" in out


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_install_rejects_unknown_options() -> None:
    result = subprocess.run(
        ["bash", str(INSTALL), "--frobnicate"], capture_output=True, text=True, timeout=HANG_S,
        check=False,
    )
    assert result.returncode == 2 and "unknown option" in result.stderr


def test_udev_rules_lines_are_well_formed() -> None:
    for number, line in enumerate(RULES.read_text(encoding="utf-8").splitlines(), 1):
        text = line.lstrip("#").strip() if "SYMLINK" in line else line.strip()
        if not text or text.startswith("#"):
            continue
        for pair in (part.strip() for part in text.split(",")):
            assert re.fullmatch(r'[A-Z]+(\{[A-Za-z_]+\})?(==|=|\+=)"[^"]*"', pair), (number, pair)


def test_the_rules_reload_as_install_sh_does() -> None:
    """Every `udevadm trigger` the rules file tells a maker to run, and install.sh's, sends "add": the FTDI
    latency rule is ACTION=="add", and a plain trigger sends "change" (adapters already plugged in
    kept a 16 ms timer until a reboot)."""
    assert 'ACTION=="add"' in RULES.read_text(encoding="utf-8")
    for path in (RULES, INSTALL):
        triggers = [line for line in path.read_text(encoding="utf-8").splitlines() if "udevadm trigger" in line]
        assert triggers, path
        for line in triggers:
            assert "--action=add" in line, (path.name, line)
