#!/usr/bin/env python3
"""Boot the table as deployed: Debian under systemd-nspawn, installed by systemd/install.sh.

    sudo python3 scripts/boot_test.py [--release trixie|bookworm] [--arch amd64|arm64] [--json REPORT]
                                      [--keep] [--online] [--suite]

A Debian root of ``--release`` (trixie, today's Raspberry Pi OS base, with Python 3.13; bookworm, the
previous one, with Python 3.11) is made once with debootstrap and kept in
/var/cache/ecarte-table/<release>-<arch>/ (ECARTE_BOOT_CACHE moves it); each run boots a copy of it
with ``systemd-nspawn -b`` (no network but its own loopback), copies this checkout into it and runs
``systemd/install.sh --hub --wheelhouse`` there exactly as on a Pi, from a wheelhouse made on this
machine with ``pip wheel`` (kept in the cache too). Then, under the container's systemd:

  ready         the table's unit reaches READY (Type=notify) with the simulated table, [web] and [mqtt]
                on: the page answers, and the hub's unit (its own Mosquitto) sees both tables online
  kill9         kill -9 of the main process: restarted, the page back, `journal check` ok, nothing lost,
                every reader answering again (its PN532s in a chip host that outlives the service)
  watchdog      SIGSTOP: WatchdogSec kills it and it is restarted, every reader answering again
  hostile       1,100 half-open connections: the page still answers, the unit's log grows < 1 MB
  bad-table     a broken table file: exit 2, no restart, `systemctl status` says why in one line
  bad-journal   a damaged journal: the same
  security      systemd-analyze security <= 2.0 for each unit
  installed     the USB-serial drivers to load at boot (modules-load.d) and the unit ordered after them, the
                udev rules installed (and verified by `udevadm verify` where udev has it: trixie), lgpio and
                rpi-lgpio in the venv (lgpio built from its sdist where the release's Python has no wheel)

Prints one line per check (``check NAME: ok|FAIL (seconds) detail``) and ``boot_test: N s``; exit 0
when every check passed, 1 when one failed, 77 when it cannot run here (one line says why).
With ``--arch arm64`` the root is made with ``debootstrap --foreign`` and run through qemu-user-static
(binfmt_misc); add ``--suite`` to run the project's test suite inside it (docs/hardware.md).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import debian_root  # beside this script (its folder is on sys.path)
from debian_root import QEMU_USER, CannotRun, CheckFailed, binfmt_ready, checkout_files, host_arch
from debian_root import run as _run

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("ECARTE_BOOT_CACHE", "/var/cache/ecarte-table"))
MIRROR = os.environ.get("ECARTE_BOOT_MIRROR", "http://deb.debian.org/debian")
RELEASES = ("trixie", "bookworm")
"""The Debian releases the harness boots: Raspberry Pi OS's base today (trixie) and before it (bookworm)."""
# What a Raspberry Pi OS Lite image has that a minimal debootstrap lacks (systemd, dbus, CA
# certificates), the packages install.sh would otherwise fetch (swig: lgpio's sdist, Python 3.13 has no
# wheel), and mosquitto for --hub: the container needs no network at all.
PACKAGES = ("systemd", "systemd-sysv", "dbus", "ca-certificates", "python3", "python3-venv", "python3-dev",
            "gcc", "swig", "i2c-tools", "mosquitto", "procps", "curl")
CHECKS = ("ready", "kill9", "watchdog", "hostile", "bad-table", "bad-journal", "security", "installed")
CANNOT_RUN = 77
CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
GUEST_REPO = "/root/ecarte-table"
GUEST_WHEELS = "/mnt/wheelhouse"
VENV = "/opt/ecarte-table/venv"
CLI = f"{VENV}/bin/ecarte-table"
JOURNAL = "/var/lib/ecarte-table/journal.sqlite"
HOSTILE_CONNECTIONS = 1100
# The first table's PN532s live in a chip host of their own (drivers/nfc/pn532sim/chip_host.py), a unit
# apart that outlives the table's service as real chips do, keeping the serial rate it left them at.
CHIPS = "/run/ecarte-chips"
PADS = ("hand.A", "hand.B", "turnup", "discard", "play.A", "play.B")
CHIP_HOST_UNIT = f"""[Unit]
Description=Simulated PN532s for the booted-unit test (they outlive the table's service, as real chips do)
Before=ecarte-table.service

[Service]
User=ecarte
Group=ecarte
RuntimeDirectory=ecarte-chips
ExecStart={CLI} chips {CHIPS} --pads {",".join(PADS)}
"""
# the chip host's ports are ptys (a real table's are ttyUSB, which the unit allows already)
CHIP_PORTS_DROP_IN = "[Service]\nDeviceAllow=char-pts rw\n"


def say(message: str) -> None:
    print(f"boot_test: {message}", file=sys.stderr, flush=True)


def why_not(arch: str) -> str | None:
    """Why this machine cannot run the harness, or None."""
    if os.geteuid() != 0:
        return "needs root (debootstrap, systemd-nspawn)"
    for tool in ("debootstrap", "systemd-nspawn", "nsenter"):
        if shutil.which(tool) is None:
            return f"no {tool} (apt-get install debootstrap systemd-container util-linux)"
    if arch != host_arch():
        qemu = QEMU_USER.get(arch)
        if qemu is None or shutil.which(qemu) is None:
            return f"--arch {arch} needs qemu-user-static (apt-get install qemu-user-static binfmt-support)"
    return None


# ---------------------------------------------------------------------------------------------
# the cached root and the wheelhouse


def cache_lock(name: str) -> contextlib.AbstractContextManager[None]:
    return debian_root.cache_lock(CACHE, name)


def base_root(arch: str, release: str = RELEASES[0]) -> Path:
    """The cached Debian ``release`` root (made with debootstrap on first use)."""
    key = hashlib.sha256(f"{release} {arch} {' '.join(PACKAGES)}".encode()).hexdigest()[:12]
    base = CACHE / f"{release}-{arch}"
    stamp = base / ".ecarte-boot-stamp"
    with cache_lock(f"root-{release}-{arch}"):
        if stamp.exists() and stamp.read_text().strip() == key:
            return base
        staging = CACHE / f"staging-{release}-{arch}"
        shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(base, ignore_errors=True)
        debs = CACHE / f"debs-{arch}"
        debs.mkdir(parents=True, exist_ok=True)
        command = ["debootstrap", "--variant=minbase", f"--arch={arch}", f"--cache-dir={debs}",
                   f"--include={','.join(PACKAGES)}"]
        foreign = arch != host_arch()
        if foreign:
            binfmt_ready(arch)
            command.append("--foreign")
        say(f"making the {release} {arch} root with debootstrap (once; kept in {base})")
        started = time.monotonic()
        try:
            _run([*command, release, str(staging), MIRROR], timeout=3600)
            if foreign:
                qemu = shutil.which(QEMU_USER[arch])
                assert qemu is not None
                shutil.copy2(qemu, staging / "usr/bin" / Path(qemu).name)
                _run(["chroot", str(staging), "/debootstrap/debootstrap", "--second-stage"], timeout=3 * 3600)
        finally:  # what debootstrap mounted, also when it failed or was stopped
            for mounted in ("proc", "sys", "dev/pts"):
                if os.path.ismount(staging / mounted):
                    subprocess.run(["umount", "--lazy", str(staging / mounted)], check=False, timeout=60)
        # A Pi's image is set up once: these are the same for every run.
        (staging / "etc/hostname").write_text("ecarte-pi\n")
        (staging / "etc/apt/sources.list").write_text(f"deb {MIRROR} {release} main\n")
        # the Debian package starts a broker on 1883; install.sh --hub disables it as on a Pi, so leave it
        shutil.rmtree(staging / "var/cache/apt/archives", ignore_errors=True)
        (staging / "var/cache/apt/archives/partial").mkdir(parents=True)
        stamp_in = staging / ".ecarte-boot-stamp"
        stamp_in.write_text(key + "\n")
        staging.rename(base)
        say(f"the root is made in {time.monotonic() - started:.0f} s")
    return base


def guest_python(base: Path) -> str:
    """The release's Python (``python3.13``), from where its ``python3`` points."""
    return os.readlink(base / "usr/bin/python3").rsplit("/", 1)[-1]


def wheelhouse(arch: str, base: Path, release: str = RELEASES[0]) -> Path:
    """Wheels for the project's dependencies (``pip wheel``): the container installs from them with
    no index, as an offline Pi does (install.sh --wheelhouse). Made on this machine where it has the
    release's architecture and Python; otherwise (arm64, or trixie's Python 3.13 on a bookworm host)
    inside a copy of ``base`` (emulated for arm64) with the host's network, with the test tools
    too for arm64 (``--suite`` runs the suite from them)."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = pyproject["project"]
    build = list(pyproject.get("build-system", {}).get("requires", []))  # install.sh builds the checkout
    foreign = arch != host_arch()
    in_guest = foreign or guest_python(base) != f"python{sys.version_info.major}.{sys.version_info.minor}"
    extras = "pi,dev" if foreign else "pi"
    wanted = json.dumps([project["dependencies"], project["optional-dependencies"], build, arch, extras, release])
    key = hashlib.sha256(wanted.encode()).hexdigest()[:12]
    house = CACHE / f"wheelhouse-{release}-{arch}-{key}"
    with cache_lock(f"wheels-{release}-{arch}"):
        if (house / ".done").exists():
            return house
        for old in CACHE.glob(f"wheelhouse-{release}-{arch}-*"):  # made for other dependencies
            shutil.rmtree(old, ignore_errors=True)
        house.mkdir(parents=True)
        say(f"making the wheelhouse {house} with pip wheel")
        wanted_wheels = ["pip", "wheel", *build]
        with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
            if not in_guest:
                # a copy: pip builds the project in place, and the checkout is not ours to write
                copy = Path(tmp) / "src"
                copy_checkout(copy)
                _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--wheel-dir", str(house),
                      f"{copy}[{extras}]", *wanted_wheels], timeout=1800)
            else:
                overlay = mount_overlay(base, Path(tmp))
                root = Path(tmp) / "root"
                try:
                    if not overlay:
                        _run(["cp", "-a", "--reflink=auto", str(base), str(root)])
                    copy_checkout(root / "mnt/src")
                    if CA_BUNDLE.exists():
                        shutil.copy2(CA_BUNDLE, root / "etc/ssl/certs/ca-certificates.crt")
                    # bookworm's pip (23.0) without the wheel package builds an sdist with no
                    # pyproject.toml (RPi.GPIO, sdnotify, pydes) by `setup.py bdist_wheel`, which fails
                    script = ("python3 -m venv /tmp/pip && /tmp/pip/bin/pip install --quiet --upgrade pip wheel && "
                              "/tmp/pip/bin/pip wheel --quiet --wheel-dir /mnt/wheelhouse "
                              + shlex.join([f"/mnt/src[{extras}]", *wanted_wheels]))
                    # PYPI=1: lgpio's sdist (no wheel for 3.13) links its C library in, as install.sh's does
                    _run(["systemd-nspawn", "--quiet", "--register=no", "--keep-unit", "--console=pipe",
                          f"--directory={root}", f"--bind={house}:/mnt/wheelhouse", "--resolv-conf=copy-host",
                          "--setenv=PIP_DISABLE_PIP_VERSION_CHECK=1", "--setenv=PYPI=1", "/bin/sh", "-c", script],
                         timeout=3 * 3600, stdin=subprocess.DEVNULL)
                finally:
                    if overlay:
                        subprocess.run(["umount", "--lazy", str(root)], check=False, timeout=60)
        for ours in house.glob("ecarte_table-*.whl"):  # install.sh builds the checkout itself
            ours.unlink()
        (house / ".done").write_text("ok\n")
    return house


def copy_checkout(target: Path) -> None:
    for name in checkout_files():
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, destination)


def mount_overlay(base: Path, run_dir: Path) -> bool:
    """The run's root as an overlay on the cached one (instant; the cache is never written), or False."""
    for name in ("root", "upper", "work"):
        (run_dir / name).mkdir(exist_ok=True)
    done = subprocess.run(["mount", "-t", "overlay", "overlay", "-o",
                           f"lowerdir={base},upperdir={run_dir / 'upper'},workdir={run_dir / 'work'}",
                           str(run_dir / "root")], capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0:
        (run_dir / "root").rmdir()
        say(f"no overlay ({done.stderr.strip()}): copying the root")
    return done.returncode == 0


# ---------------------------------------------------------------------------------------------
# the container


@dataclass
class Machine:
    """A booted copy of the root; ``sh`` runs a command inside it (nsenter into its namespaces)."""

    root: Path
    arch: str
    online: bool = False
    binds: list[tuple[Path, str]] = field(default_factory=list)
    name: str = field(default_factory=lambda: f"ecarte-boot-{os.getpid()}")
    proc: subprocess.Popen[bytes] | None = None
    leader: int = 0
    console: Path | None = None

    def boot(self, timeout: float = 180) -> None:
        command = ["systemd-nspawn", "--boot", f"--directory={self.root}", f"--machine={self.name}",
                   "--register=no", "--keep-unit", "--console=read-only", "--resolv-conf=copy-host", "--timezone=off",
                   "--link-journal=no"]
        if not self.online:
            command.append("--private-network")
        for source, target in self.binds:
            command.append(f"--bind-ro={source}:{target}")
        self.console = self.root.parent / f"{self.root.name}.console.log"
        with self.console.open("wb") as out:
            self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise CheckFailed(f"systemd-nspawn exited {self.proc.returncode}: {self.console_tail()}")
            self.leader = self._find_leader()
            if self.leader:
                done = self.sh("systemctl is-system-running --wait", check=False,
                               timeout=max(5.0, deadline - time.monotonic()))
                if done.stdout.strip() in ("running", "degraded"):
                    if done.stdout.strip() == "degraded":
                        say("the container booted degraded: " + self.sh(
                            "systemctl --failed --no-legend --plain", check=False).stdout.strip().replace("\n", "; "))
                    return
            time.sleep(0.5)
        raise CheckFailed(f"the container did not boot in {timeout:.0f} s: {self.console_tail()}")

    def _find_leader(self) -> int:
        """The container's PID 1: the process under systemd-nspawn whose root is the container's."""
        assert self.proc is not None
        todo = [self.proc.pid]
        while todo:
            pid = todo.pop()
            with contextlib.suppress(OSError):
                children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
                for child in map(int, children):
                    status = Path(f"/proc/{child}/status").read_text()
                    nspid = re.search(r"^NSpid:\s+(.*)$", status, re.M)
                    if nspid and nspid.group(1).split()[-1] == "1":
                        return child
                    todo.append(child)
        return 0

    def console_tail(self) -> str:
        if self.console is None or not self.console.exists():
            return ""
        return self.console.read_bytes()[-1500:].decode(errors="replace")

    def sh(self, script: str, *, check: bool = True, timeout: float = 120, user: str | None = None,
           input: str | None = None) -> subprocess.CompletedProcess[str]:
        """Run ``script`` with sh inside the container (as root, or ``user``)."""
        inner = ["/bin/sh", "-c", script]
        if user is not None:
            inner = ["runuser", "-u", user, "--", *inner]
        command = ["nsenter", f"--target={self.leader}", "--all", "--root", "--wd",
                   "env", "-i", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                   "LANG=C.UTF-8", "HOME=/root", "SYSTEMD_PAGER=", "SYSTEMD_COLORS=0", *inner]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False, input=input)
        if check and done.returncode != 0:
            raise CheckFailed(f"`{script}` exited {done.returncode}: {(done.stderr or done.stdout).strip()[-1500:]}")
        return done

    def show(self, unit: str, *props: str) -> dict[str, str]:
        out = self.sh(f"systemctl show {unit} " + " ".join(f"-p {p}" for p in props)).stdout
        return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)

    def poweroff(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.proc.pid, signal.SIGTERM)  # nspawn asks the container's systemd to power off
        try:
            self.proc.wait(30 if self.arch == host_arch() else 120)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
        # nspawn killed before its container ended (seen under qemu): its PID 1, and so the whole PID
        # namespace, goes too (if that PID is still the container's, its root our copy)
        with contextlib.suppress(OSError):
            if self.leader and os.readlink(f"/proc/{self.leader}/root") == str(self.root.resolve()):
                os.kill(self.leader, signal.SIGKILL)


# ---------------------------------------------------------------------------------------------
# what the harness writes in the container


def table_file(name: str, port: int, *, web: bool = True, mqtt: bool = True) -> str:
    """The simulated table (full sight, as the transcripts are written), with [web] and [mqtt]."""
    text = (ROOT / "hardware/tables/simulated.toml").read_text(encoding="utf-8")
    text = re.sub(r'^sight = "partial"', 'sight = "full"', text, flags=re.M)
    text = text.replace('name = "Simulated table"', f'name = "{name}"')
    if web:
        text += f'\n[web]\nenabled = true\nlisten = "127.0.0.1:{port}"\n'
    if mqtt:
        text += (f'\n[mqtt]\nvenue = "club"\ntable = "{name}"\nusername = "{name}"\n'
                 f'password_file = "{name}.pass"\nhost = "127.0.0.1"\nport = 1883\n')
    return text


def on_chip_host(table: str) -> str:
    """A table file whose pads are the chip host's ports, as a real table's are /dev/ttyUSBn."""
    for pad in PADS:
        quoted = f'"{pad}"' if "." in pad else pad
        table = table.replace(f'{quoted} = "sim"\n', f'{quoted} = "{CHIPS}/pn532-{pad}"\n')
    return table


def setup_chip_host(machine: Machine) -> None:
    """The chip host's unit, started before the table's service, and the table's access to its ports."""
    write(machine, "/etc/systemd/system/ecarte-chips.service", CHIP_HOST_UNIT)
    write(machine, "/etc/systemd/system/ecarte-table.service.d/chip-ports.conf", CHIP_PORTS_DROP_IN)
    machine.sh("systemctl daemon-reload && systemctl start ecarte-chips")
    wait_for("the chip host serving", lambda: set(chip_states(machine)) == set(PADS), 60)


def chip_states(machine: Machine) -> dict[str, dict[str, Any]]:
    """Each chip's state (``polls``, ``chip_baud``...) from the chip host's control socket."""
    request = shlex.quote(json.dumps({"op": "states"}))
    done = machine.sh(f"{CLI} chips {CHIPS} --ask {request}", check=False)
    if done.returncode != 0:
        raise CheckFailed(f"the chip host does not answer: {done.stderr.strip()}")
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def every_reader_answers(machine: Machine, timeout: float = 60) -> None:
    """Wait until every chip has understood more commands since now (the restarted service opened every
    reader and polls it: on an empty pad a poll waits for a card and is sent again every 0.25 s)."""
    before = {pad: state["commands"] for pad, state in chip_states(machine).items()}
    try:
        wait_for("every reader answering again",
                 lambda: all(state["commands"] > before[pad] + 2 for pad, state in chip_states(machine).items()),
                 timeout)
    except CheckFailed as exc:
        raise CheckFailed(f"{exc}: the chips {chip_states(machine)}\n"
                          f"{unit_log(machine, 'ecarte-table')[-2500:]}") from None


VENUE = """[hub]
venue = "club"
listen = "127.0.0.1:8090"
state = "/var/lib/ecarte-hub"

[broker]
mode = "mosquitto"
listen = "127.0.0.1:1883"

[tables]
names = ["table-1", "table-2"]
"""

HOSTILE = r"""
import resource, socket, sys, time
n = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_NOFILE, (n + 200, n + 200))
held = []
refused = 0
for _ in range(n):
    s = socket.socket()
    s.settimeout(2)
    try:
        s.connect(("127.0.0.1", 8080))
        s.sendall(b"GET /api/state HTTP/1.1\r\nHost: table\r\nX-Slow: ")  # the headers never end
        held.append(s)
    except OSError:
        refused += 1
        s.close()
print(len(held), refused, flush=True)
time.sleep(float(sys.argv[2]))
"""


def write(machine: Machine, path: str, text: str, mode: str = "0644", owner: str = "root:root") -> None:
    machine.sh(f"install -D -m {mode} -o {owner.split(':')[0]} -g {owner.split(':')[1]} /dev/stdin {shlex.quote(path)}",
               input=text)


def page(machine: Machine, port: int = 8080, path: str = "/api/state", timeout: float = 10) -> dict[str, Any]:
    done = machine.sh(f"curl -sS --fail --max-time {timeout} http://127.0.0.1:{port}{path}", check=False,
                      timeout=timeout + 10)
    if done.returncode != 0:
        raise CheckFailed(f"the page on :{port}{path} does not answer: {done.stderr.strip()}")
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def wait_for(what: str, condition: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except (CheckFailed, ValueError, KeyError) as exc:
            last = exc
        time.sleep(0.5)
    raise CheckFailed(f"{what}: not within {timeout:.0f} s" + (f" ({last})" if last else ""))


def unit_log(machine: Machine, unit: str, since: str = "") -> str:
    cursor = f"--after-cursor={shlex.quote(since)}" if since else ""
    return machine.sh(f"journalctl -u {unit} -o cat --no-pager {cursor}", check=False).stdout


def log_cursor(machine: Machine) -> str:
    out = machine.sh("journalctl -n 0 --show-cursor --no-pager", check=False).stdout
    found = re.search(r"-- cursor: (\S+)", out)
    return found.group(1) if found else ""


def log_bytes(machine: Machine, unit: str) -> int:
    return int(machine.sh(f"journalctl -u {unit} -o cat --no-pager | wc -c").stdout.strip())


def running(machine: Machine, unit: str) -> dict[str, str]:
    state = machine.show(unit, "ActiveState", "SubState", "MainPID", "NRestarts", "ExecMainStatus", "Result")
    return state


# ---------------------------------------------------------------------------------------------
# the checks


@dataclass
class Result:
    name: str
    ok: bool
    seconds: float
    detail: str


def install(machine: Machine, wheels: Path | None) -> float:
    started = time.monotonic()
    option = f"--wheelhouse {GUEST_WHEELS}" if wheels is not None else ""
    done = machine.sh(f"cd {GUEST_REPO} && bash systemd/install.sh --hub {option}", check=False, timeout=3600)
    (machine.root.parent / f"{machine.root.name}.install.log").write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        raise CheckFailed(f"install.sh exited {done.returncode}: {(done.stdout + done.stderr)[-2000:]}")
    for line in done.stdout.splitlines():
        if "skip" in line:
            say(f"install.sh: {line.removeprefix('==> ')}")
    return time.monotonic() - started


def setup_venue(machine: Machine) -> None:
    """The hub (its Mosquitto), two tables publishing to it: ecarte-table and a second unit made from it."""
    write(machine, "/etc/ecarte-hub/venue.toml", VENUE)
    machine.sh("systemctl restart ecarte-hub")
    try:
        wait_for("the hub writes the tables' passwords",
                 lambda: machine.sh("test -s /var/lib/ecarte-hub/secrets/table-2.pass", check=False).returncode == 0,
                 60)
    except CheckFailed as exc:
        hub = running(machine, "ecarte-hub")
        raise CheckFailed(f"{exc}: {hub}\n{unit_log(machine, 'ecarte-hub')[-2500:]}") from None
    for name in ("table-1", "table-2"):
        machine.sh(f"install -m 0640 -o root -g ecarte /var/lib/ecarte-hub/secrets/{name}.pass "
                   f"/etc/ecarte-table/{name}.pass")
    setup_chip_host(machine)
    write(machine, "/etc/ecarte-table/table.toml", on_chip_host(table_file("table-1", 8080)))
    write(machine, "/etc/ecarte-table/table-2.toml", table_file("table-2", 8081))
    # a second table on the same machine: the installed unit, on its own table file and journal
    machine.sh("sed -e 's#/etc/ecarte-table/table.toml#/etc/ecarte-table/table-2.toml#' "
               "-e 's#journal.sqlite#journal-2.sqlite#' /etc/systemd/system/ecarte-table.service "
               "> /etc/systemd/system/ecarte-table-2.service && systemctl daemon-reload")
    # half a game in the journal, fed before the service starts (by the same command, as its user)
    lines = (ROOT / "tests/transcripts/classic_rubber.jsonl").read_text(encoding="utf-8").splitlines()[:20]
    write(machine, "/etc/ecarte-table/seed.toml", table_file("table-1", 0, web=False, mqtt=False))
    write(machine, "/etc/ecarte-table/seed.jsonl", "\n".join(lines) + "\n")
    machine.sh(f"{CLI} run /etc/ecarte-table/seed.toml --journal {JOURNAL} --events /etc/ecarte-table/seed.jsonl",
               user="ecarte", timeout=120)


def check_ready(machine: Machine) -> str:
    for unit in ("ecarte-table", "ecarte-table-2"):
        done = machine.sh(f"systemctl start {unit}", check=False, timeout=90)  # Type=notify: returns at READY=1
        state = running(machine, unit)
        if done.returncode != 0 or state["ActiveState"] != "active":
            raise CheckFailed(f"{unit} is {state}: {unit_log(machine, unit)[-1500:]}")
    snapshot = page(machine)
    page(machine, 8081)
    if "Traceback" in unit_log(machine, "ecarte-table"):
        raise CheckFailed("a traceback in the unit's log: " + unit_log(machine, "ecarte-table")[-1500:])
    # a normal start says its few lines at INFO (WARNING is for what is wrong): journald keeps them. The
    # table's service words its own in its table file's language (English here: the simulated table names
    # none), with no level before them (catalogue.phrase.SaidFormatter: a warning keeps "WARNING logger:")
    for unit, line in (("ecarte-table", "the table's page: http://"),
                       ("ecarte-hub", "INFO venue.hub.scoreboard: the venue's scoreboard: http://")):
        if not any(said.startswith(line) for said in unit_log(machine, unit).splitlines()):
            raise CheckFailed(f"no {line!r} in {unit}'s journal: " + unit_log(machine, unit)[-1500:])

    def both_online() -> bool:
        tables = page(machine, 8090, "/api/tables")["tables"]
        seen = {t["table"]: t["availability"] for t in tables}
        return seen.get("table-1") == "online" and seen.get("table-2") == "online"

    wait_for("the hub sees table-1 and table-2 online through its Mosquitto", both_online, 30)
    hub = running(machine, "ecarte-hub")
    mosquitto = machine.sh("pgrep -u ecarte-hub -x mosquitto", check=False).stdout.split()
    if not mosquitto:
        raise CheckFailed("the hub's Mosquitto is not running as ecarte-hub")
    return (f"both tables READY, page :8080 and :8081 answer (game {snapshot.get('game')}), "
            f"hub {hub['ActiveState']} with Mosquitto pid {mosquitto[0]}, both tables online on it")


def _journal_status(machine: Machine, path: str = JOURNAL) -> dict[str, object]:
    out = machine.sh(f"{CLI} journal status --json --journal {path}", user="ecarte").stdout
    status = json.loads(out)
    return {k: status[k] for k in ("lines", "games", "rows", "last_game")}


def _same_game(before: dict[str, Any], after: dict[str, Any]) -> bool:
    keys = ("game", "hand", "view", "players")
    return all(before.get(k) == after.get(k) for k in keys)


def _restarted(machine: Machine, unit: str, old_pid: str, restarts: int, timeout: float) -> dict[str, str]:
    found: dict[str, str] = {}

    def again() -> bool:
        found.update(running(machine, unit))
        return (found["ActiveState"] == "active" and found["SubState"] == "running"
                and found["MainPID"] not in ("0", old_pid) and int(found["NRestarts"]) > restarts)

    wait_for(f"{unit} restarted", again, timeout)
    return found


def check_kill9(machine: Machine) -> str:
    before_state = page(machine)
    before_journal = _journal_status(machine)
    state = running(machine, "ecarte-table")
    machine.sh(f"kill -9 {state['MainPID']}")
    left = sorted({chip["chip_baud"] for chip in chip_states(machine).values()})
    after = _restarted(machine, "ecarte-table", state["MainPID"], int(state["NRestarts"]), 30)
    wait_for("the page back", lambda: bool(page(machine)), 20)
    every_reader_answers(machine)
    after_state = page(machine)
    check = machine.sh(f"{CLI} journal check --journal {JOURNAL}", user="ecarte", check=False)
    if check.returncode != 0:
        raise CheckFailed(f"journal check: {check.stdout}{check.stderr}")
    after_journal = _journal_status(machine)
    if after_journal != before_journal:
        raise CheckFailed(f"the journal was {before_journal}, is {after_journal}")
    if not _same_game(before_state, after_state):
        raise CheckFailed(f"the page showed {before_state}, shows {after_state}")
    return (f"pid {state['MainPID']} -> {after['MainPID']} (NRestarts {after['NRestarts']}), page back, "
            f"journal check ok, journal {after_journal} as before, the same game on the page, "
            f"the chips left at {left} baud and every reader answering again")


def check_watchdog(machine: Machine) -> str:
    state = running(machine, "ecarte-table")
    cursor = log_cursor(machine)
    started = time.monotonic()
    machine.sh(f"kill -STOP {state['MainPID']}")
    after = _restarted(machine, "ecarte-table", state["MainPID"], int(state["NRestarts"]), 90)
    took = time.monotonic() - started
    said = machine.sh(f"journalctl --no-pager -o cat --after-cursor={shlex.quote(cursor)} | grep -i watchdog",
                      check=False).stdout.strip().splitlines()
    if not said:
        raise CheckFailed("restarted, but systemd's log says nothing of its watchdog")
    wait_for("the page back", lambda: bool(page(machine)), 20)
    every_reader_answers(machine)
    return (f"stopped pid {state['MainPID']}, '{said[0]}', restarted as {after['MainPID']} after {took:.0f} s, "
            "every reader answering again")


def check_hostile(machine: Machine) -> str:
    before = log_bytes(machine, "ecarte-table")
    pid_before = running(machine, "ecarte-table")["MainPID"]
    write(machine, "/root/hostile.py", HOSTILE)
    hostile = subprocess.Popen(
        ["nsenter", f"--target={machine.leader}", "--all", "--root", "--wd", "python3", "/root/hostile.py",
         str(HOSTILE_CONNECTIONS), "40"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert hostile.stdout is not None
        held, refused = (int(x) for x in hostile.stdout.readline().split())
        started = time.monotonic()
        page(machine, timeout=15)
        answered = time.monotonic() - started
        time.sleep(5)
        page(machine, timeout=15)
    finally:
        hostile.kill()
        hostile.wait(10)
    time.sleep(3)
    page(machine, timeout=15)
    grown = log_bytes(machine, "ecarte-table") - before
    state = running(machine, "ecarte-table")
    if state["MainPID"] != pid_before:
        raise CheckFailed(f"the service was restarted meanwhile ({pid_before} -> {state['MainPID']})")
    if grown >= 1_000_000:
        raise CheckFailed(f"the unit's log grew by {grown} bytes")
    return (f"{held} connections held ({refused} refused), the page answered in {answered:.2f} s, "
            f"the unit's log grew by {grown} bytes")


def _refused(machine: Machine, unit: str, damage: str, repair: str, expect: str) -> str:
    machine.sh(f"systemctl stop {unit}")
    machine.sh(damage)
    cursor = log_cursor(machine)
    try:
        machine.sh(f"systemctl start {unit}", check=False, timeout=90)
        time.sleep(6)  # RestartSec=3s twice over: a restart would have happened
        state = running(machine, unit)
        status = machine.sh(f"systemctl status {unit} --no-pager -n 10 -l", check=False).stdout
        after = f"--after-cursor={shlex.quote(cursor)}"
        log = machine.sh(f"journalctl -u {unit} -o cat --no-pager {after}", check=False).stdout
        # what the service itself said (systemd's own lines are tagged "systemd")
        entries = machine.sh(f"journalctl -u {unit} -o json --no-pager {after}", check=False).stdout
        own = [str(e.get("MESSAGE")) for e in map(json.loads, entries.splitlines())
               if e.get("SYSLOG_IDENTIFIER") != "systemd"]
    finally:
        machine.sh(repair)
        machine.sh(f"systemctl reset-failed {unit}; systemctl start {unit}", check=False, timeout=90)
    problems = []
    if state["ExecMainStatus"] != "2":
        problems.append(f"exit status {state['ExecMainStatus']}, not 2")
    # a start asked for by hand sets NRestarts to 0: any other value is systemd restarting it
    if state["ActiveState"] != "failed" or state["NRestarts"] != "0":
        problems.append(f"{state['ActiveState']} with NRestarts {state['NRestarts']}")
    if "Traceback" in log:
        problems.append("a traceback")
    # one line, or a headline and the problems it counts ("table.toml: 2 problems:" + two lines)
    counted = re.search(r": (\d+) problems?:$", own[0]) if own else None
    lines = 1 + (int(counted.group(1)) if counted else 0)
    if not own or len(own) != lines or expect not in own[0] or any(line.strip() not in status for line in own):
        problems.append(f"not the reason saying {expect!r} in {lines} line(s) in systemctl status: {own}")
    if problems:
        raise CheckFailed("; ".join(problems) + f"\n--- status:\n{status}\n--- log:\n{log[-1500:]}")
    again = running(machine, unit)
    if again["ActiveState"] != "active":
        raise CheckFailed(f"not started again once repaired: {again}")
    return f"exit 2, not restarted; systemctl status says: {' / '.join(line.strip() for line in own)[:200]!r}"


def check_bad_table(machine: Machine) -> str:
    return _refused(machine, "ecarte-table",
                    "cp -p /etc/ecarte-table/table.toml /root/table.good && "
                    "sed -i 's/^target = 5/target = \"five\"/' /etc/ecarte-table/table.toml",
                    "cp -p /root/table.good /etc/ecarte-table/table.toml", "table.toml")


def check_bad_journal(machine: Machine) -> str:
    return _refused(machine, "ecarte-table",
                    f"cp -p {JOURNAL} /root/journal.good && "
                    f"printf 'this is no database at all, the SD card lost it....' | "
                    f"dd of={JOURNAL} bs=1 seek=0 conv=notrunc status=none",
                    f"cp -p /root/journal.good {JOURNAL}", "journal")


def check_security(machine: Machine) -> str:
    scores = {}
    for unit in ("ecarte-table.service", "ecarte-hub.service"):
        out = machine.sh(f"systemd-analyze security --no-pager {unit}", check=False).stdout
        found = re.search(r"Overall exposure level for \S+: (\d+\.\d)", out)
        if found is None:
            raise CheckFailed(f"systemd-analyze security {unit}: {out[-800:]}")
        scores[unit] = float(found.group(1))
    worse = {u: s for u, s in scores.items() if s > 2.0}
    if worse:
        raise CheckFailed(f"exposure above 2.0: {worse}")
    return ", ".join(f"{u} {s}" for u, s in scores.items())


GPIO_LIBRARIES = """
import importlib.metadata as metadata, sys
import lgpio  # its C library linked in: it imports with no GPIO chip
names = {d.metadata["Name"].lower() for d in metadata.distributions()}
print(sys.version.split()[0], metadata.version("lgpio"), metadata.version("rpi-lgpio"), "rpi.gpio" in names)
"""


def check_installed(machine: Machine) -> str:
    """What install.sh puts beside the unit for real readers: the drivers loaded at boot, the udev rules,
    the GPIO libraries (the container has no USB adapter nor GPIO chip: their presence and syntax)."""
    modules = machine.sh("cat /etc/modules-load.d/ecarte-table.conf").stdout
    listed = [line.strip() for line in modules.splitlines() if line.strip() and not line.startswith("#")]
    if listed != ["cp210x", "ftdi_sio", "ch341", "cdc_acm"]:
        raise CheckFailed(f"/etc/modules-load.d/ecarte-table.conf loads {listed}")
    after = machine.show("ecarte-table", "After")["After"].split()
    if "systemd-modules-load.service" not in after:
        raise CheckFailed(f"the unit is not ordered after systemd-modules-load.service: {after}")
    rules = "/etc/udev/rules.d/99-ecarte-table.rules"
    if 'ATTR{latency_timer}="1"' not in machine.sh(f"cat {rules}").stdout:
        raise CheckFailed(f"{rules} does not set the FTDI latency timer")
    udev = machine.sh("udevadm --version").stdout.strip()
    if machine.sh("udevadm verify --help", check=False).returncode == 0:
        verified = machine.sh(f"udevadm verify {rules} 2>&1", check=False)
        if verified.returncode != 0:
            raise CheckFailed(f"udevadm verify {rules}: {verified.stdout.strip()}")
        udev_said = f"udevadm verify (udev {udev}) passes {rules}"
    else:
        udev_said = f"{rules} installed (udev {udev} has no verify)"
    write(machine, "/root/gpio_libraries.py", GPIO_LIBRARIES)
    gpio = machine.sh(f"{VENV}/bin/python /root/gpio_libraries.py")
    python, lgpio, rpi_lgpio, original = gpio.stdout.split(maxsplit=3)
    if original.strip() != "False":
        raise CheckFailed(f"the original RPi.GPIO is installed beside rpi-lgpio: {original}")
    return (f"modules-load.d: cp210x ftdi_sio ch341 cdc_acm, the unit after systemd-modules-load.service; {udev_said}; "
            f"Python {python}: lgpio {lgpio} imports, rpi-lgpio {rpi_lgpio}, no RPi.GPIO")


CHECK_FUNCTIONS: dict[str, Callable[[Machine], str]] = {
    "ready": check_ready, "kill9": check_kill9, "watchdog": check_watchdog, "hostile": check_hostile,
    "bad-table": check_bad_table, "bad-journal": check_bad_journal, "security": check_security,
    "installed": check_installed,
}
assert tuple(CHECK_FUNCTIONS) == CHECKS


def run_suite(machine: Machine, paths: list[str], wheels: bool) -> str:
    """The project's test suite inside the container (for --arch arm64): its own venv with the test
    tools, from the wheelhouse (or the index with --online); the booted-unit tests left out."""
    started = time.monotonic()
    source = f"--no-index --find-links {GUEST_WHEELS}" if wheels else ""
    machine.sh(f"cd {GUEST_REPO} && python3 -m venv .venv && .venv/bin/pip install --quiet {source} -e '.[dev]'",
               timeout=3 * 3600)
    installed = time.monotonic() - started
    done = machine.sh(f"cd {GUEST_REPO} && XDG_STATE_HOME=/tmp/state .venv/bin/python -m pytest -q "
                      f"-p no:cacheprovider --ignore=tests/deploy {shlex.join(paths)} 2>&1 | tail -25",
                      check=False, timeout=8 * 3600)
    return (f"venv {installed:.0f} s, pytest {time.monotonic() - started - installed:.0f} s:\n"
            + done.stdout.strip()[-3000:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--release", default=RELEASES[0], choices=RELEASES,
                        help="the Debian release to boot (default %(default)s, today's Raspberry Pi OS base)")
    parser.add_argument("--arch", default=host_arch(), help="amd64 (this machine) or arm64 (under qemu)")
    parser.add_argument("--json", type=Path, help="write every check's result to this file")
    parser.add_argument("--keep", action="store_true", help="keep the container's copy (its path is said)")
    parser.add_argument("--online", action="store_true",
                        help="give the container the host's network and install from the index, not a wheelhouse")
    parser.add_argument("--suite", nargs="*", metavar="PATH",
                        help="also run the test suite inside the container (or these test paths)")
    parser.add_argument("--only", action="append", choices=CHECKS, help="run only these checks (ready always runs)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    reason = why_not(args.arch)
    if reason is not None:
        print(f"boot_test: cannot run here: {reason}")
        return CANNOT_RUN
    results: list[Result] = []
    figures: dict[str, float] = {}
    machine: Machine | None = None
    run_dir: Path | None = None
    overlay = False
    try:
        t = time.monotonic()
        base = base_root(args.arch, args.release)
        figures["root_s"] = time.monotonic() - t
        t = time.monotonic()
        online = args.online
        wheels = None if online else wheelhouse(args.arch, base, args.release)
        figures["wheelhouse_s"] = time.monotonic() - t
        t = time.monotonic()
        run_dir = Path(tempfile.mkdtemp(prefix=f"run-{args.arch}-", dir=CACHE))
        root = run_dir / "root"
        overlay = mount_overlay(base, run_dir)
        if not overlay:
            _run(["cp", "-a", "--reflink=auto", str(base), str(root)])
        if CA_BUNDLE.exists():  # the host's CA bundle: the container reaches what the host reaches
            shutil.copy2(CA_BUNDLE, root / "etc/ssl/certs/ca-certificates.crt")
        copy_checkout(root / GUEST_REPO.lstrip("/"))
        figures["copy_s"] = time.monotonic() - t
        machine = Machine(root, args.arch, online=online, binds=[(wheels, GUEST_WHEELS)] if wheels else [])
        t = time.monotonic()
        machine.boot(timeout=600 if args.arch != host_arch() else 120)
        figures["boot_s"] = time.monotonic() - t
        figures["install_s"] = install(machine, wheels)
        say(f"installed by install.sh in {figures['install_s']:.0f} s")
        setup_venue(machine)
        for name in CHECKS:
            if args.only and name != "ready" and name not in args.only:
                continue
            t = time.monotonic()
            try:
                detail = CHECK_FUNCTIONS[name](machine)
                ok = True
            except (CheckFailed, subprocess.TimeoutExpired, ValueError, KeyError) as exc:
                detail, ok = str(exc), False
            result = Result(name, ok, time.monotonic() - t, detail)
            results.append(result)
            print(f"check {name}: {'ok' if ok else 'FAIL'} ({result.seconds:.0f} s) {detail}", flush=True)
            if name == "ready" and not ok:
                break
        if args.suite is not None:
            print(f"suite: {run_suite(machine, args.suite, wheels is not None)}", flush=True)
    except CannotRun as exc:
        print(f"boot_test: cannot run here: {exc}")
        return CANNOT_RUN
    except (CheckFailed, subprocess.TimeoutExpired, OSError) as exc:
        results.append(Result("setup", False, time.monotonic() - started, str(exc)))
        print(f"check setup: FAIL {exc}", flush=True)
    finally:
        if machine is not None:
            machine.poweroff()
        if run_dir is not None:
            if args.keep:
                say(f"the container's copy is kept in {run_dir}")
            else:
                if overlay:
                    subprocess.run(["umount", "--lazy", str(run_dir / "root")], check=False, timeout=60)
                shutil.rmtree(run_dir, ignore_errors=True)
        figures["total_s"] = time.monotonic() - started
        print(f"boot_test: {figures['total_s']:.0f} s ("
              + ", ".join(f"{k.removesuffix('_s')} {v:.0f} s" for k, v in figures.items() if k != "total_s")
              + ")", flush=True)
        if args.json is not None:
            args.json.write_text(json.dumps({"arch": args.arch, "release": args.release, "figures": figures,
                                             "checks": [r.__dict__ for r in results]}, indent=1))
    return 0 if results and all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
