"""install.sh's offline and hub options, its container-aware steps, and the hub's unit.
What they do on a booted Debian is checked by tests/deploy/test_booted_unit.py."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from waiting import HANG_S

from tests.systemd.test_systemd import parse_unit

ROOT = Path(__file__).resolve().parents[2]
INSTALL = ROOT / "systemd" / "install.sh"
HUB_UNIT = ROOT / "systemd" / "ecarte-hub.service"
TABLE_UNIT = ROOT / "systemd" / "ecarte-table.service"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")


def _dry_run(*options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(INSTALL), "--dry-run", "--prefix", "/srv/ecarte", *options],
                          capture_output=True, text=True, timeout=HANG_S, check=False)


def test_a_wheelhouse_installs_with_no_index(tmp_path: Path) -> None:
    (tmp_path / "pip-24.0-py3-none-any.whl").touch()
    done = _dry_run("--wheelhouse", str(tmp_path))
    assert done.returncode == 0, done.stderr
    installs = [line for line in done.stdout.splitlines() if "/srv/ecarte/venv/bin/pip install" in line]
    assert len(installs) == 2 and all(f"--no-index --find-links {tmp_path}" in line for line in installs), installs
    assert installs[-1].endswith(f"{ROOT}\\[pi\\]")


def test_a_wheelhouse_without_pip_skips_the_upgrade_and_says_so(tmp_path: Path) -> None:
    done = _dry_run("--wheelhouse", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert f"skipped: upgrading pip: no pip wheel in {tmp_path}" in done.stdout
    assert "install --quiet --upgrade pip" not in done.stdout.replace("--no-index", "")


def test_a_missing_wheelhouse_is_said_at_once(tmp_path: Path) -> None:
    done = _dry_run("--wheelhouse", str(tmp_path / "nowhere"))
    assert done.returncode == 2 and "--wheelhouse" in done.stderr and "no such directory" in done.stderr


def test_the_hub_is_installed_with_an_option() -> None:
    plain, hub = _dry_run(), _dry_run("--hub")
    assert plain.returncode == hub.returncode == 0, plain.stderr + hub.stderr
    assert "ecarte-hub" not in plain.stdout
    for step in ("systemctl enable ecarte-hub.service",
                 f"{ROOT}/systemd/ecarte-hub.service > /etc/systemd/system/ecarte-hub.service",
                 "install -d -o ecarte-hub -g ecarte-hub -m 0750 /var/lib/ecarte-hub"):
        assert step in hub.stdout, (step, hub.stdout)
    if not Path("/etc/ecarte-hub/venue.toml").exists():
        assert f"{ROOT}/systemd/venue.toml /etc/ecarte-hub/venue.toml" in hub.stdout


def test_debians_mosquitto_is_disabled_by_the_hub_where_systemd_runs_or_not() -> None:
    """Debian's mosquitto package enables its own mosquitto.service, in a chroot too (an image made offline:
    the arm64 VM's); install.sh --hub disables it wherever it is enabled (it used to only where systemd
    runs: the image's first boot then started Debian's broker on the hub's port), with --now where it runs."""
    systemctl = shutil.which("systemctl")
    if systemctl is None or subprocess.run([systemctl, "is-enabled", "--quiet", "mosquitto.service"],
                                           capture_output=True, timeout=HANG_S, check=False).returncode != 0:
        pytest.skip("Debian's mosquitto.service is not enabled here (scripts/system-deps.sh tests installs it)")
    done = _dry_run("--hub")
    assert done.returncode == 0, done.stderr
    running = Path("/run/systemd/system").is_dir()
    step = "+ systemctl disable --now mosquitto.service" if running else "+ systemctl disable mosquitto.service"
    assert step in done.stdout.splitlines(), done.stdout
    assert _dry_run().stdout.count("mosquitto") == 0


def test_no_udev_is_a_step_skipped_and_said() -> None:
    done = _dry_run()
    assert done.returncode == 0, done.stderr
    if (Path("/etc/udev/rules.d/99-ecarte-table.rules").exists()
            and (ROOT / "systemd/99-ecarte-table.rules").read_bytes()
            == Path("/etc/udev/rules.d/99-ecarte-table.rules").read_bytes()):
        pytest.skip("the rules are installed here already: nothing to reload")
    if Path("/run/udev/control").exists() and shutil.which("udevadm"):
        assert "udevadm control --reload-rules" in done.stdout
    else:
        assert "+ udevadm" not in done.stdout
        assert "skipped: udevadm: no udev running here" in done.stdout
        assert re.search(r"skipped \d+ step\(s\) that do not apply here:\n(==>   - .*\n)*==>   - udevadm", done.stdout)


def test_print_unit_with_hub_prints_the_hubs_unit() -> None:
    done = subprocess.run(["bash", str(INSTALL), "--print-unit", "--hub", "--prefix", "/srv/ecarte"],
                          capture_output=True, text=True, timeout=HANG_S, check=True)
    assert "ExecStart=/srv/ecarte/venv/bin/ecarte-table hub /etc/ecarte-hub/venue.toml" in done.stdout


def test_the_hub_unit_is_hardened_as_the_tables() -> None:
    hub, table = parse_unit(HUB_UNIT.read_text()), parse_unit(TABLE_UNIT.read_text())
    for key in ("NoNewPrivileges", "ProtectSystem", "ProtectHome", "PrivateTmp", "ProtectKernelTunables",
                "ProtectKernelModules", "ProtectControlGroups", "RestrictNamespaces", "RestrictSUIDSGID",
                "LockPersonality", "SystemCallArchitectures", "CapabilityBoundingSet", "RestartPreventExitStatus",
                "UMask", "ProtectProc", "RemoveIPC", "PrivateMounts"):
        assert hub["Service"][key][-1] == table["Service"][key][-1], key
    assert hub["Service"]["RestrictAddressFamilies"] == ["AF_UNIX AF_INET AF_INET6"]
    assert hub["Service"]["PrivateDevices"] == ["yes"] and "DeviceAllow" not in hub["Service"]
    assert hub["Service"]["StateDirectory"] == ["ecarte-hub"] and hub["Service"]["User"] == ["ecarte-hub"]
    for unit in (hub, table):
        assert int(unit["Service"]["LimitNOFILE"][-1]) > 1100  # the hostile client's 1,100 connections fit


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_the_hub_units_exposure_is_at_most_2(tmp_path: Path) -> None:
    copy = tmp_path / "ecarte-hub.service"
    copy.write_text(HUB_UNIT.read_text(encoding="utf-8"), encoding="utf-8")
    done = subprocess.run(["systemd-analyze", "security", "--offline=yes", "--no-pager", str(copy)],
                          capture_output=True, text=True, timeout=120, check=False)
    score = re.search(r"Overall exposure level for ecarte-hub\.service: (\d+\.\d)", done.stdout + done.stderr)
    if score is None and "offline" in done.stderr:
        pytest.skip("this systemd-analyze cannot score a unit file offline")
    assert score is not None, done.stdout + done.stderr
    assert float(score.group(1)) <= 2.0


def test_the_installed_venue_file_is_a_working_one(tmp_path: Path) -> None:
    from venue.hub.broker import mosquitto_path
    from venue.hub.hub_settings import load_hub_settings

    if mosquitto_path() is None:
        pytest.skip("no mosquitto (scripts/system-deps.sh tests installs it)")
    settings = load_hub_settings(ROOT / "systemd" / "venue.toml")
    assert settings.mode == "mosquitto" and settings.state == Path("/var/lib/ecarte-hub")
    assert settings.listen == ("127.0.0.1", 8090) and settings.tables == ("table",)


# -- what a maker's real readers and OLED need: drivers at boot, the FTDI latency, I2C at 400 kHz -----------


MODULES = ROOT / "systemd" / "ecarte-table-modules.conf"
RULES = ROOT / "systemd" / "99-ecarte-table.rules"


def test_the_usb_serial_drivers_are_loaded_at_boot_before_the_unit() -> None:
    """The unit's DeviceAllow=char-ttyUSB is resolved when it starts: usbserial must be loaded by then."""
    listed = [line.strip() for line in MODULES.read_text(encoding="utf-8").splitlines()
              if line.strip() and not line.startswith("#")]
    assert listed == ["cp210x", "ftdi_sio", "ch341", "cdc_acm"]  # cdc_acm: ttyACM's class, char-ttyACM
    unit = parse_unit(TABLE_UNIT.read_text(encoding="utf-8"))
    assert "systemd-modules-load.service" in " ".join(unit["Unit"]["After"]).split()
    assert "char-ttyUSB rw" in unit["Service"]["DeviceAllow"] and "char-ttyACM rw" in unit["Service"]["DeviceAllow"]
    done = _dry_run()
    assert done.returncode == 0, done.stderr
    if not (Path("/etc/modules-load.d/ecarte-table.conf").exists()
            and Path("/etc/modules-load.d/ecarte-table.conf").read_bytes() == MODULES.read_bytes()):
        assert f"install -D -m 0644 {MODULES} /etc/modules-load.d/ecarte-table.conf" in done.stdout


def test_an_ftdi_adapters_latency_timer_is_set_to_1_ms() -> None:
    rules = [line for line in RULES.read_text(encoding="utf-8").splitlines() if "latency_timer" in line
             and not line.startswith("#")]
    assert rules == ['ACTION=="add", SUBSYSTEM=="usb-serial", DRIVER=="ftdi_sio", ATTR{latency_timer}="1"']


@pytest.mark.skipif(shutil.which("udevadm") is None, reason="no udevadm")
def test_udevadm_verify_passes_the_rules() -> None:
    done = subprocess.run(["udevadm", "verify", "--resolve-names=never", str(RULES)], capture_output=True,
                          text=True, timeout=HANG_S, check=False)
    if "verify" in done.stderr and done.returncode != 0 and "Unknown command" in done.stderr:
        pytest.skip("this udevadm (systemd < 254) has no verify: the booted trixie unit runs it")
    assert done.returncode == 0, done.stdout + done.stderr


def _configure_boot(config: Path) -> subprocess.CompletedProcess[str]:
    """install.sh --configure-boot --dry-run on ``config``, then the config.txt edits it printed, run."""
    done = subprocess.run(["bash", str(INSTALL), "--dry-run", "--prefix", "/srv/ecarte", "--configure-boot"],
                          capture_output=True, text=True, timeout=HANG_S, check=False,
                          env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "ECARTE_BOOT_CONFIG": str(config)})
    assert done.returncode == 0, done.stderr
    for line in done.stdout.splitlines():
        if line.startswith("+ sed -i") and line.endswith(str(config)):
            subprocess.run(["bash", "-c", line.removeprefix("+ ")], check=True, timeout=HANG_S)
    return done


@pytest.mark.parametrize("before", [
    "dtparam=audio=on\n[cm5]\ndtoverlay=dwc2,dr_mode=host\n",  # the last section is not [all]
    "dtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=100000\n[all]\n",
])
def test_configure_boot_sets_i2c_to_400_khz_once(tmp_path: Path, before: str) -> None:
    config = tmp_path / "config.txt"
    config.write_text(before)
    _configure_boot(config)
    after = config.read_text()
    assert after.count("dtparam=i2c_arm_baudrate=") == 1
    lines = after.splitlines()
    speed = lines.index("dtparam=i2c_arm_baudrate=400000")
    sections = [line for line in lines[:speed] if line.startswith("[")]
    assert sections in ([], ["[all]"]) or sections[-1] == "[all]", after
    again = _configure_boot(config)
    assert config.read_text() == after and "I2C is at 400 kHz already" in again.stdout


@pytest.mark.parametrize("info", ["RPi.GPIO-0.7.1.dist-info", "rpi_gpio-0.7.1.dist-info", "RPi.GPIO-0.7.0.egg-info"])
def test_an_upgraded_table_loses_rpi_gpio_before_rpi_lgpio_goes_in(tmp_path: Path, info: str) -> None:
    """rpi-lgpio and RPi.GPIO are the same RPi package: the original goes first, and rpi-lgpio is put
    back whole after (the uninstall took the files they share)."""
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    (site / info).mkdir(parents=True)
    (site / "rpi_lgpio-0.6.dist-info").mkdir()
    done = subprocess.run(["bash", str(INSTALL), "--dry-run", "--prefix", str(tmp_path)],
                          capture_output=True, text=True, timeout=HANG_S, check=False)
    assert done.returncode == 0, done.stderr
    pip = [line for line in done.stdout.splitlines() if f"{tmp_path}/venv/bin/pip" in line]
    out, project = pip.index(next(line for line in pip if "uninstall --yes --quiet RPi.GPIO" in line)), \
        pip.index(next(line for line in pip if line.endswith(f"{ROOT}\\[pi\\]")))
    back = pip.index(next(line for line in pip if "--force-reinstall --no-deps rpi-lgpio\\>=0.6" in line))
    assert out < project < back


def test_a_fresh_table_has_no_rpi_gpio_to_lose(tmp_path: Path) -> None:
    (tmp_path / "venv" / "lib" / "python3.11" / "site-packages" / "rpi_lgpio-0.6.dist-info").mkdir(parents=True)
    done = subprocess.run(["bash", str(INSTALL), "--dry-run", "--prefix", str(tmp_path)],
                          capture_output=True, text=True, timeout=HANG_S, check=False)
    assert done.returncode == 0, done.stderr
    assert "uninstall" not in done.stdout and "--force-reinstall" not in done.stdout


@pytest.mark.parametrize("kernel", ["ttyACM[0-9]*", "ttyUSB[0-9]*"])
def test_modem_manager_leaves_the_pads_ports_alone(kernel: str) -> None:
    """ModemManager sends AT commands to a new ttyACM (and some ttyUSB) port to see if it is a modem."""
    lines = [line for line in RULES.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    assert f'SUBSYSTEM=="tty", KERNEL=="{kernel}", ENV{{ID_MM_DEVICE_IGNORE}}="1"' in lines
