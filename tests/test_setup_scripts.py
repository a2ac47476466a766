"""scripts/setup.sh installs what each purpose needs: the demo only the table's Python packages,
the tests also (as root, with apt-get) the browser and the broker. Run here on a copy of the
scripts, as root in name only: ``id`` and ``apt-get`` are stand-ins on a PATH that holds no
browser, and the venv is already installed (its stamp is newer than pyproject.toml)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG_S

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("cli", "catalogue", "coach", "drivers", "engine", "firmware_host", "hardware", "venue")


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "scripts", repo / "scripts")
    shutil.copy(ROOT / "pyproject.toml", repo / "pyproject.toml")
    for package in PACKAGES:
        (repo / package).mkdir()
        (repo / package / "__init__.py").write_text(f'"""The {package} package."""\n')
    (repo / ".venv" / "bin").mkdir(parents=True)
    (repo / ".venv" / "bin" / "python").symlink_to(sys.executable)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "cat", "dirname"):
        found = shutil.which(tool)
        assert found is not None
        (bin_dir / tool).symlink_to(found)
    (bin_dir / "id").write_text("#!/bin/sh\necho 0\n")
    (bin_dir / "apt-get").write_text(f'#!/bin/sh\necho "$*" >> {tmp_path / "apt.log"}\n')
    for fake in ("id", "apt-get"):
        (bin_dir / fake).chmod(0o755)
    return repo


def _setup(repo: Path, *args: str, stamp: str) -> subprocess.CompletedProcess[str]:
    stamp_file = repo / ".venv" / ".installed"
    stamp_file.write_text(stamp + "\n")
    later = (repo / "pyproject.toml").stat().st_mtime + 10
    os.utime(stamp_file, (later, later))
    env = {"PATH": str(repo.parent / "bin"), "HOME": str(repo.parent)}
    return subprocess.run(["bash", "scripts/setup.sh", *args], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=HANG_S, executable=shutil.which("bash"))


def test_the_demo_installs_no_system_package_and_says_what_it_skipped(copy: Path) -> None:
    done = _setup(copy, "demo", stamp="base")
    assert done.returncode == 0, done.stderr
    assert not (copy.parent / "apt.log").exists()
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "skipped: chromium" in lines[0] and "openssl" in lines[0]
    assert "bash scripts/setup.sh tests" in lines[0]
    assert "demo" in (copy / "scripts" / "demo.sh").read_text().split("bash scripts/setup.sh", 1)[1].split("\n")[0]


def test_the_tests_install_the_browser_and_the_broker_as_root(copy: Path) -> None:
    done = _setup(copy, stamp="dev")
    assert done.returncode == 0, done.stderr
    calls = (copy.parent / "apt.log").read_text().splitlines()
    assert calls[0].startswith("update")
    assert calls[1].startswith("install") and "chromium" in calls[1].split() and "openssl" in calls[1].split()
    assert "systemd-container" in calls[1].split()  # no systemd-nspawn on the PATH: tests/deploy's container
    assert "setup.sh tests" in (copy / "scripts" / "test.sh").read_text()


def test_an_unknown_purpose_is_refused(copy: Path) -> None:
    done = _setup(copy, "everything", stamp="dev")
    assert done.returncode == 2 and "usage: bash scripts/setup.sh [tests|demo|venue]" in done.stderr


def _deps(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": str(repo.parent / "bin"), "HOME": str(repo.parent)}
    return subprocess.run(["bash", "scripts/system-deps.sh", *args], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=HANG_S, executable=shutil.which("bash"))


def test_a_table_file_that_asks_for_a_voice_gets_espeak(copy: Path) -> None:
    (copy.parent / "bin" / "python3").symlink_to(os.path.realpath(sys.executable))  # not a pyenv shim
    speaking, silent = copy / "speaking.toml", copy / "silent.toml"
    speaking.write_text('[voice]\nenabled = true\ndevice = "default"\n')
    silent.write_text('[voice]\nenabled = false\n')
    assert _deps(copy, str(silent)).returncode == 0
    assert not (copy.parent / "apt.log").exists()
    done = _deps(copy, str(speaking))
    assert done.returncode == 0, done.stderr
    calls = (copy.parent / "apt.log").read_text().splitlines()
    assert calls[-1].startswith("install") and {"espeak-ng", "alsa-utils"} <= set(calls[-1].split())
    assert _deps(copy, str(copy / "missing.toml")).returncode == 2


def test_the_tests_install_espeak(copy: Path) -> None:
    done = _deps(copy, "--missing", "tests")
    assert "espeak-ng" in done.stdout.split() and "alsa-utils" in done.stdout.split()


@pytest.mark.parametrize("root", [True, False], ids=["root", "user"])
def test_the_venue_installs_mosquitto_as_root_and_says_it_otherwise(copy: Path, root: bool) -> None:
    """``setup.sh venue`` on a machine without Mosquitto (hidden here in a mount namespace of its own):
    as root it installs it with apt-get; otherwise it says what to install, and why, and installs nothing."""
    mosquitto, unshare = shutil.which("mosquitto") or "/usr/sbin/mosquitto", shutil.which("unshare")
    hide = f"{shutil.which('mount') or '/bin/mount'} --bind /dev/null {mosquitto}"
    if not os.path.exists(mosquitto) or unshare is None or subprocess.run(
            [unshare, "-rm", "sh", "-c", hide], capture_output=True, check=False).returncode != 0:
        pytest.skip("needs Mosquitto to hide and a mount namespace (util-linux's unshare -rm)")
    if not root:
        (copy.parent / "bin" / "id").write_text("#!/bin/sh\necho 1000\n")
    stamp_file = copy / ".venv" / ".installed"
    stamp_file.write_text("base\n")
    later = (copy / "pyproject.toml").stat().st_mtime + 10
    os.utime(stamp_file, (later, later))
    env = {"PATH": str(copy.parent / "bin"), "HOME": str(copy.parent)}
    done = subprocess.run([unshare, "-rm", "/bin/sh", "-c", f'{hide} && exec bash scripts/setup.sh venue'],
                          cwd=copy, env=env, capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode == 0, done.stderr
    if root:
        calls = (copy.parent / "apt.log").read_text().splitlines()
        assert calls[-1].startswith("install") and calls[-1].split()[-1:] == ["mosquitto"], calls
    else:
        assert not (copy.parent / "apt.log").exists()
        assert "sudo apt-get install -y mosquitto" in done.stderr and "its own broker" in done.stderr, done.stderr


def test_the_checkout_s_modules_are_compiled_as_a_wheel_s_are(copy: Path) -> None:
    """An editable install compiles nothing: where bytecode is never written (``PYTHONDONTWRITEBYTECODE``)
    every start compiled the command line and the catalogue again (``--version``: 180 M instructions against
    130 M). The setup writes each package's bytecode, checked by the source's hash (PEP 552: flags 3), so
    a copy of the checkout keeps it."""
    done = _setup(copy, "demo", stamp="base")
    assert done.returncode == 0, done.stderr
    tag = sys.implementation.cache_tag
    for package in PACKAGES:
        pyc = (copy / package / "__pycache__" / f"__init__.{tag}.pyc").read_bytes()
        assert int.from_bytes(pyc[4:8], "little") == 3, package  # checked hash
