#!/usr/bin/env python3
"""A real kernel under the table: Debian trixie's own kernel under qemu, the table installed by
systemd/install.sh, its readers on ftdi_sio, its buttons on the GPIO character device, its OLED on i2c-dev.

    sudo python3 scripts/vm_test.py [--json REPORT] [--only CHECK ...] [--cuts N] [--keep]

The guest is made once and kept in /var/cache/ecarte-table-vm/ (ECARTE_VM_CACHE moves it), each
step keyed by a hash of its inputs: a Debian trixie root (debootstrap, with linux-image-amd64 and the
headers of that exact kernel); two modules Debian's kernel does not build, made out of tree from
trixie's linux-source-6.12 (scripts/vm/modules/: gpio-sim, and i2c-stub with a ``master_xfer`` that
keeps what it was sent to the panel's address); the wheelhouse (``pip wheel`` in the root, Python
3.13); the guest's own units (scripts/vm/guest/); then, for this checkout, the table installed by
``systemd/install.sh --wheelhouse`` in the root and an ext4 image of it (``mkfs.ext4 -d``), with the
kernel and initrd taken out of it. Each boot runs on a fresh qcow2 overlay of that image
(write-through: what the guest flushed is in the host's file when qemu is killed).

The guest boots under qemu-system-x86_64 (TCG; KVM where kvm_intel or kvm_amd is loaded) with six
FTDI adapters (qemu's usb-serial on qemu-xhci), each backed by the host pty of a simulated PN532 in
``ecarte-table chips`` on this machine; the table file names them by /dev/serial/by-path. A
virtio-serial port carries the harness's commands to an agent in the guest (scripts/vm/agent.py),
another the service's ``--json`` events out, each stamped with the host's clock as it arrives.

  boot          the unit READY at boot after systemd-modules-load, not restarted; its READY time
  readers       ftdi_sio bound every adapter, at 921,600 baud on the host's pty, the by-path names
                stable; cards laid from the host reach the referee (the figure: card to event)
  latency       the udev rule's FTDI latency timer applied right after install.sh (no reboot)
  buttons       a press made with gpio-sim's pull reaches the referee through lgpio and gpiozero;
                the doctor names the backend
  oled          the frames through i2c-dev: the bytes the patched i2c-stub kept, decoded by the
                project's SSD1306 model, equal the table's last drawn frame
  deviceallow   the unit's cgroup refuses a device it does not name (/dev/vda), allows /dev/i2c-0
  watchdog      SIGSTOP: WatchdogSec kills the service, it is restarted and every reader answers again
  powercut      SIGKILL to qemu at a random moment of a game, boot again: every event the table had
                printed (after its fsync) is in the journal, `journal check` ok, the game goes on
                (--cuts N times, each on the same disk)

Prints one line per check (``check NAME: ok|FAIL (seconds) detail``) and ``vm_test: N s (...)``;
exit 0 when every check passed, 1 when one failed, 77 when it cannot run here (one line says why).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent / "vm"
CACHE = Path(os.environ.get("ECARTE_VM_CACHE", "/var/cache/ecarte-table-vm"))
MIRROR = os.environ.get("ECARTE_BOOT_MIRROR", "http://deb.debian.org/debian")
RELEASE = "trixie"
LINUX_SOURCE = "linux-source-6.12"
# Debian's kernel and its headers (the out-of-tree modules), what install.sh would fetch (python3-dev,
# gcc, swig: lgpio's sdist on 3.13), i2c-tools and gpiod to look at the buses, curl for the page.
PACKAGES = ("linux-image-amd64", "linux-headers-amd64", "initramfs-tools", "make", "xz-utils", "systemd",
            "systemd-sysv", "udev", "dbus", "kmod", "python3", "python3-venv", "python3-dev", "gcc", "libc6-dev",
            "swig", "i2c-tools", "gpiod", "usbutils", "procps", "ca-certificates", "curl")
CHECKS = ("boot", "readers", "latency", "buttons", "oled", "deviceallow", "watchdog", "powercut")
CANNOT_RUN = 77
PADS = ("hand.A", "hand.B", "turnup", "discard", "play.A", "play.B")
XHCI_SLOT = 2  # the xhci controller's PCI slot (00:02.0): the by-path names say it
GUEST_REPO = "/root/ecarte-table"
GUEST_WHEELS = "/opt/ecarte-wheelhouse"
VENV = "/opt/ecarte-table/venv"
CLI = f"{VENV}/bin/ecarte-table"
JOURNAL = "/var/lib/ecarte-table/journal.sqlite"
FRAMES = "/var/lib/ecarte-table/frames"
STUB_LOG = "/sys/kernel/debug/i2c-stub/written"
AGENT_PORT = "ecarte.agent"
EVENTS_PORT = "ecarte.events"
HARNESS_FILES = ("scripts/vm_test.py", "tests/deploy/test_vm.py")
CUT_TRANSCRIPT = ROOT / "tests/transcripts/classic_faults.jsonl"


class CannotRun(Exception):
    """This machine cannot run the guest (not root, no qemu...): said in one line."""


class CheckFailed(Exception):
    pass


def say(message: str) -> None:
    print(f"vm_test: {message}", file=sys.stderr, flush=True)


def why_not() -> str | None:
    """Why this machine cannot run the harness, or None."""
    if os.geteuid() != 0:
        return "needs root (debootstrap, chroot)"
    for tool, package in (("debootstrap", "debootstrap"), ("qemu-system-x86_64", "qemu-system-x86"),
                          ("qemu-img", "qemu-utils"), ("mkfs.ext4", "e2fsprogs")):
        if shutil.which(tool) is None and not Path(f"/usr/sbin/{tool}").exists():
            return f"no {tool} (bash scripts/system-deps.sh vm: apt-get install {package})"
    return None


def accelerator() -> list[str]:
    """KVM where a real one is loaded (kvm_intel, kvm_amd); TCG otherwise (a nested PVM /dev/kvm
    cannot run a stock kernel: VM_NOTES). tb-size=256 keeps qemu near 1 GiB."""
    if Path("/dev/kvm").exists() and any(Path(f"/sys/module/{m}").exists() for m in ("kvm_intel", "kvm_amd")):
        return ["-accel", "kvm", "-cpu", "host"]
    return ["-accel", "tcg,thread=multi,tb-size=256", "-cpu", "max"]


def _run(command: list[str], *, timeout: float = 1800, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False, **kwargs)
    if done.returncode != 0:
        raise CheckFailed(f"{shlex.join(command)}: exit {done.returncode}: {(done.stderr or done.stdout)[-2000:]}")
    return done


def digest(*parts: object) -> str:
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, Path):
            for path in sorted(part.rglob("*")) if part.is_dir() else [part]:
                if path.is_file():
                    h.update(str(path.relative_to(part.parent)).encode() + b"\0" + path.read_bytes())
        else:
            h.update(repr(part).encode())
    return h.hexdigest()[:12]


@contextlib.contextmanager
def cache_lock(name: str) -> Iterator[None]:
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@contextlib.contextmanager
def chroot_mounts(root: Path) -> Iterator[None]:
    """/proc, /sys, /dev and the host's DNS in ``root`` while a chroot works in it."""
    mounted = []
    try:
        for source, target, options in (("proc", "proc", ["-t", "proc"]), ("sysfs", "sys", ["-t", "sysfs"]),
                                        ("/dev", "dev", ["--rbind"]), ("devpts", "dev/pts", ["-t", "devpts"])):
            if target == "dev/pts" and os.path.ismount(root / target):
                continue
            _run(["mount", *options, source, str(root / target)])
            mounted.append(root / target)
        resolv = root / "etc/resolv.conf"
        if resolv.is_symlink():
            resolv.unlink()
        shutil.copy2("/etc/resolv.conf", resolv)
        yield
    finally:
        for target in reversed(mounted):
            subprocess.run(["umount", "--recursive", "--lazy", str(target)], check=False, timeout=60)


def chroot(root: Path, script: str, timeout: float = 3600) -> str:
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
           "HOME": "/root", "DEBIAN_FRONTEND": "noninteractive", "SYSTEMD_OFFLINE": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    return _run(["chroot", str(root), "/bin/sh", "-ec", script], timeout=timeout, env=env).stdout


# ---------------------------------------------------------------------------------------------
# the guest, made once


def stamps(base: Path) -> dict[str, str]:
    path = base / ".ecarte-vm-stamps"
    return json.loads(path.read_text()) if path.exists() else {}


def stamp(base: Path, step: str, key: str) -> None:
    done = stamps(base)
    done[step] = key
    (base / ".ecarte-vm-stamps").write_text(json.dumps(done, indent=1))


def kernel_version(base: Path) -> str:
    found = sorted(p.name.removeprefix("vmlinuz-") for p in (base / "boot").glob("vmlinuz-*"))
    if not found:
        raise CheckFailed(f"no kernel in {base}/boot")
    return found[-1]


def base_root() -> Path:
    """The cached trixie root, with every step done (each redone when its inputs change)."""
    base = CACHE / f"{RELEASE}-amd64"
    with cache_lock("root"):
        key = digest(RELEASE, PACKAGES)
        if stamps(base).get("debootstrap") != key:
            staging = CACHE / "staging-root"
            shutil.rmtree(staging, ignore_errors=True)
            shutil.rmtree(base, ignore_errors=True)
            debs = CACHE / "debs-amd64"
            debs.mkdir(parents=True, exist_ok=True)
            say(f"making the {RELEASE} root with debootstrap (once; kept in {base})")
            _run(["debootstrap", "--variant=minbase", "--arch=amd64", f"--cache-dir={debs}",
                  f"--include={','.join(PACKAGES)}", RELEASE, str(staging), MIRROR], timeout=3600)
            (staging / "etc/apt/sources.list").write_text(f"deb {MIRROR} {RELEASE} main\n")
            shutil.rmtree(staging / "var/cache/apt/archives", ignore_errors=True)
            (staging / "var/cache/apt/archives/partial").mkdir(parents=True)
            staging.rename(base)
            stamp(base, "debootstrap", key)
        steps: list[tuple[str, str, Callable[[Path], None]]] = [
            ("modules", digest(HERE / "modules", kernel_version(base)), build_modules),
            ("wheelhouse", digest(*wheel_inputs()), make_wheelhouse),
            ("guest", digest(HERE / "guest", HERE / "agent.py"), set_up_guest),
        ]
        for step, step_key, make in steps:
            if stamps(base).get(step) != step_key:
                started = time.monotonic()
                say(f"the guest's {step} (once for these inputs)")
                with chroot_mounts(base):
                    make(base)
                stamp(base, step, step_key)
                say(f"the guest's {step}: {time.monotonic() - started:.0f} s")
    return base


def build_modules(base: Path) -> None:
    """gpio-sim and i2c-stub (with master_xfer) from trixie's linux-source-6.12, built against the
    headers of the root's own kernel, installed under /lib/modules/<version>/updates."""
    version = kernel_version(base)
    build = base / "root/vm-modules"
    shutil.rmtree(build, ignore_errors=True)
    build.mkdir(parents=True)
    chroot(base, f"apt-get update -qq && cd /root/vm-modules && apt-get download -qq {LINUX_SOURCE}", timeout=1800)
    deb = next(build.glob(f"{LINUX_SOURCE}_*.deb"))
    wanted = ["drivers/gpio/gpio-sim.c", "kernel/irq/irq_sim.c", "drivers/i2c/i2c-stub.c"]
    script = (f"dpkg-deb --fsys-tarfile {deb.name} | tar -xO ./usr/src/{LINUX_SOURCE}.tar.xz | "
              f"tar -xJ --strip-components=1 " + " ".join(f"{LINUX_SOURCE}/{w}" for w in wanted))
    chroot(base, f"cd /root/vm-modules && {script}", timeout=1800)
    for name in wanted:
        shutil.move(build / name, build / Path(name).name)
    shutil.move(build / "gpio-sim.c", build / "gpio-sim-main.c")
    for patch in sorted((HERE / "modules").glob("*.patch")):
        _run(["patch", "-p1", "-d", str(build), "-i", str(patch)])
    shutil.copy2(HERE / "modules/Kbuild", build / "Kbuild")
    chroot(base, f"make -C /usr/src/linux-headers-{version} M=/root/vm-modules modules && cd /root/vm-modules"
                 f" && install -D -m 0644 -t /lib/modules/{version}/updates/ecarte-vm gpio-sim.ko i2c-stub.ko"
                 f" && depmod -a {version}", timeout=1800)
    shutil.rmtree(build, ignore_errors=True)


def wheel_inputs() -> tuple[object, ...]:
    import tomllib
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return (pyproject["project"]["dependencies"], pyproject["project"]["optional-dependencies"]["pi"],
            pyproject.get("build-system", {}).get("requires", []))


def make_wheelhouse(base: Path) -> None:
    """Wheels of the project's dependencies for the root's Python (3.13), made in the root with the
    host's network (PYPI=1: lgpio's sdist links its C library in, as install.sh's does)."""
    deps, pi, build = wheel_inputs()
    house = base / GUEST_WHEELS.lstrip("/")
    shutil.rmtree(house, ignore_errors=True)
    house.mkdir(parents=True)
    if Path("/etc/ssl/certs/ca-certificates.crt").exists():
        shutil.copy2("/etc/ssl/certs/ca-certificates.crt", base / "etc/ssl/certs/ca-certificates.crt")
    wanted = [*deps, *pi, *build, "pip", "wheel"]  # type: ignore[misc]
    chroot(base, "rm -rf /tmp/pip && python3 -m venv /tmp/pip && /tmp/pip/bin/pip install --quiet --upgrade pip wheel"
                 f" && PYPI=1 /tmp/pip/bin/pip wheel --quiet --wheel-dir {GUEST_WHEELS} {shlex.join(wanted)}"
                 " && rm -rf /tmp/pip", timeout=3600)


def set_up_guest(base: Path) -> None:
    """What this machine's guest is beyond Debian: its disk, its agent, the simulated buses."""
    (base / "etc/hostname").write_text("ecarte-vm\n")
    (base / "etc/fstab").write_text("/dev/vda / ext4 rw,errors=remount-ro 0 1\n")
    guest = HERE / "guest"
    for path in sorted(guest.rglob("*")):
        if path.is_file():
            target = base / path.relative_to(guest)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    lib = base / "usr/local/lib/ecarte-vm"
    lib.mkdir(parents=True, exist_ok=True)
    shutil.copy2(HERE / "agent.py", lib / "agent.py")
    # no login on the console, no password: the agent is the way in; the root's password is emptied
    chroot(base, "passwd -d root >/dev/null; systemctl enable ecarte-vm-agent.service ecarte-vm-gpio.service"
                 " >/dev/null 2>&1; systemctl mask serial-getty@ttyS0.service getty@tty1.service >/dev/null 2>&1;"
                 " systemctl set-default multi-user.target >/dev/null 2>&1; true")


def checkout_files() -> list[str]:
    done = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                          capture_output=True, check=True, timeout=60)
    return sorted(name for name in done.stdout.decode().split("\0") if name and (ROOT / name).is_file())


@dataclass(frozen=True)
class Image:
    disk: Path
    kernel: Path
    initrd: Path


def table_image(base: Path) -> tuple[Image, dict[str, float]]:
    """This checkout installed by install.sh in (an overlay of) the root, as an ext4 image."""
    files = checkout_files()
    h = hashlib.sha256(json.dumps(stamps(base), sort_keys=True).encode())
    h.update((vm_table_file() + DROP_IN).encode())
    for name in files:
        if name not in HARNESS_FILES:  # what they put in the image is hashed above
            h.update(name.encode() + b"\0" + (ROOT / name).read_bytes())
    key = h.hexdigest()[:12]
    out = CACHE / f"image-{key}"
    figures: dict[str, float] = {}
    with cache_lock("image"):
        if (out / ".done").exists():
            return Image(out / "disk.img", out / "vmlinuz", out / "initrd.img"), figures
        for old in CACHE.glob("image-*"):
            if old.is_dir():
                shutil.rmtree(old, ignore_errors=True)
        out.mkdir()
        with tempfile.TemporaryDirectory(dir=CACHE, prefix="layer-") as tmp:
            layer = Path(tmp)
            for name in ("merged", "upper", "work"):
                (layer / name).mkdir()
            merged = layer / "merged"
            _run(["mount", "-t", "overlay", "overlay", "-o",
                  f"lowerdir={base},upperdir={layer / 'upper'},workdir={layer / 'work'}", str(merged)])
            try:
                for name in files:
                    target = merged / GUEST_REPO.lstrip("/") / name
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(ROOT / name, target)
                started = time.monotonic()
                with chroot_mounts(merged):
                    log = chroot(merged, f"cd {GUEST_REPO} && bash systemd/install.sh --wheelhouse {GUEST_WHEELS}")
                figures["install_chroot_s"] = time.monotonic() - started
                (out / "install.log").write_text(log)
                configure_table(merged)
                started = time.monotonic()
                version = kernel_version(merged)
                shutil.copy2(merged / f"boot/vmlinuz-{version}", out / "vmlinuz")
                shutil.copy2(merged / f"boot/initrd.img-{version}", out / "initrd.img")
                _run(["mkfs.ext4", "-q", "-F", "-L", "ecarte", "-d", str(merged), str(out / "disk.img"), "6G"])
                figures["mkfs_s"] = time.monotonic() - started
            finally:
                subprocess.run(["umount", "--lazy", str(merged)], check=False, timeout=60)
        (out / ".done").write_text("ok\n")
    return Image(out / "disk.img", out / "vmlinuz", out / "initrd.img"), figures


def by_path(index: int) -> str:
    """The stable name udev gives the adapter on the xhci's port ``index + 1`` (USB 2 ports 1-8)."""
    return f"/dev/serial/by-path/pci-0000:00:{XHCI_SLOT:02x}.0-usb-0:{index + 1}:1.0-port0"


def vm_table_file() -> str:
    """The reference table (the one install.sh installs), its pads named by /dev/serial/by-path,
    its OLED on the stub's bus 0 (an SSD1306), lgpio named, the simulated pack enrolled."""
    text = (ROOT / "hardware/tables/reference.toml").read_text(encoding="utf-8")
    for index, pad in enumerate(PADS):
        quoted = f'"{pad}"' if "." in pad else pad
        text = re.sub(rf'^{re.escape(quoted)} = "tty:USB{index}:pn532"$', f'{quoted} = "{by_path(index)}"', text,
                      flags=re.M)
    text = re.sub(r'^backend = "auto".*$', 'backend = "lgpio"', text, flags=re.M)
    text = re.sub(r"^bus = 1 .*$", "bus = 0", text, flags=re.M)
    text = re.sub(r'^chip = "sh1106".*$', 'chip = "ssd1306"', text, flags=re.M)
    text = re.sub(r'^sight = "partial"', 'sight = "full"', text, flags=re.M)
    text = text.replace("[tags]\n", '[tags]\ntrusted_key = "test"\n', 1)
    return text


def configure_table(root: Path) -> None:
    """The VM's table file, its tags, and the unit's drop-in: events out on the events port."""
    sys.path.insert(0, str(ROOT))
    from drivers.nfc.pn532sim.tag_signer import sim_signer
    from engine.cards import CARDS
    from firmware_host.players.simtable import sim_uid
    from hardware.tag_registry import TagRegistry
    sign = sim_signer()
    registry = TagRegistry()
    for card in CARDS:
        uid = sim_uid(str(card))
        registry.add(uid, str(card), 1, origin="genuine", signature=sign(bytes.fromhex(uid)).hex().upper())
    registry.save(root / "var/lib/ecarte-table/tags.json")
    (root / "etc/ecarte-table/table.toml").write_text(vm_table_file(), encoding="utf-8")
    drop_in = root / "etc/systemd/system/ecarte-table.service.d/vm.conf"
    drop_in.parent.mkdir(parents=True, exist_ok=True)
    drop_in.write_text(DROP_IN)
    chroot(root, "chown -R ecarte:ecarte /var/lib/ecarte-table")


DROP_IN = f"""# The VM test's: the events (--json) out on a virtio-serial port the host reads, every frame kept
# (--png), and a Pi 4's /proc/cpuinfo for gpiozero's board (the unit's own sandbox otherwise).
[Service]
ExecStart=
ExecStart={CLI} run /etc/ecarte-table/table.toml --journal {JOURNAL} --json --all-events --png {FRAMES}
StandardOutput=file:/dev/virtio-ports/{EVENTS_PORT}
StandardError=journal
DeviceAllow=char-virtio-portsdev w
BindReadOnlyPaths=/usr/local/lib/ecarte-vm/cpuinfo:/proc/cpuinfo
"""


# ---------------------------------------------------------------------------------------------
# the chips on the host, the machine


class Chips:
    """``ecarte-table chips`` on this machine: six simulated PN532s, each on a host pty."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        cli = Path(sys.executable).parent / "ecarte-table"
        command = [str(cli)] if cli.exists() else [sys.executable, "-m", "cli"]
        self.proc = subprocess.Popen([*command, "chips", str(directory), "--pads", ",".join(PADS), "--depth", "5"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().strip()
        if line != "ready":
            raise CheckFailed(f"the chip host did not start: {line} {self.proc.stderr.read() if self.proc.stderr else ''}")

    def path(self, pad: str) -> str:
        return os.path.realpath(self.directory / f"pn532-{pad}")

    def ask(self, request: dict[str, Any]) -> Any:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(10)
            sock.connect(str(self.directory / "control"))
            sock.sendall(json.dumps(request).encode() + b"\n")
            with sock.makefile("rb") as answers:
                answer = json.loads(answers.readline())
        if "error" in answer:
            raise CheckFailed(f"the chip host: {answer['error']}")
        return answer["ok"]

    def place(self, pad: str, cards: list[str]) -> None:
        from firmware_host.players.simtable import sim_uid
        self.ask({"op": "place", "pad": pad, "uids": [sim_uid(c) for c in cards]})

    def states(self) -> dict[str, dict[str, Any]]:
        return self.ask({"op": "states"})  # type: ignore[no-any-return]

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


@dataclass
class Machine:
    """The guest under qemu on ``disk`` (a qcow2 overlay); ``sh`` runs a command in it through its agent."""

    image: Image
    run_dir: Path
    disk: Path
    chips: Chips | None
    proc: subprocess.Popen[bytes] | None = None
    agent: socket.socket | None = None
    events: list[tuple[float, str]] = field(default_factory=list)
    booted_at: float = 0.0
    _agent_buffer: bytes = b""
    _next_id: int = 0
    _events_thread: threading.Thread | None = None

    def command(self) -> list[str]:
        qemu = ["qemu-system-x86_64", "-M", "q35", *accelerator(), "-m", "1024", "-smp", "2", "-nodefaults",
                "-display", "none", "-no-reboot", "-nic", "none",
                "-kernel", str(self.image.kernel), "-initrd", str(self.image.initrd),
                "-append", "root=/dev/vda rw console=ttyS0 panic=-1 quiet modprobe.blacklist=i2c_i801",
                "-drive", f"file={self.disk},if=virtio,format=qcow2,cache=writethrough",
                "-serial", f"file:{self.run_dir / 'console.log'}",
                "-device", "virtio-serial-pci",
                "-chardev", f"socket,id=agent,path={self.run_dir / 'agent.sock'},server=on,wait=off",
                "-device", f"virtserialport,chardev=agent,name={AGENT_PORT}",
                "-chardev", f"socket,id=events,path={self.run_dir / 'events.sock'},server=on,wait=off",
                "-device", f"virtserialport,chardev=events,name={EVENTS_PORT}"]
        if self.chips is not None:
            qemu += ["-device", f"qemu-xhci,id=xhci,p2=8,p3=8,addr={XHCI_SLOT:#x}"]
            for index, pad in enumerate(PADS):
                qemu += ["-chardev", f"serial,id=pad{index},path={self.chips.path(pad)}",
                         "-device", f"usb-serial,bus=xhci.0,port={index + 1},chardev=pad{index},"
                                    f"serial=ECARTE{index}"]
        return qemu

    def boot(self, timeout: float = 600) -> float:
        """Start qemu and wait for the agent; the seconds it took."""
        for sock in ("agent.sock", "events.sock"):
            with contextlib.suppress(FileNotFoundError):
                (self.run_dir / sock).unlink()
        started = time.monotonic()
        self.booted_at = time.time()
        with (self.run_dir / "qemu.log").open("ab") as log:
            self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                         start_new_session=True)
        deadline = started + timeout
        while not (self.run_dir / "events.sock").exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise CheckFailed(f"qemu exited {self.proc.returncode}: {self.tail('qemu.log')}")
            time.sleep(0.1)
        events = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        events.connect(str(self.run_dir / "events.sock"))
        self._events_thread = threading.Thread(target=self._read_events, args=(events,), daemon=True)
        self._events_thread.start()
        self.agent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.agent.connect(str(self.run_dir / "agent.sock"))
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                raise CheckFailed(f"the guest's agent never answered: {self.tail('console.log')}")
            with contextlib.suppress(TimeoutError, CheckFailed):
                if self.sh("echo up", timeout=min(left, 5), agent_wait=min(left, 5)).stdout.strip() == "up":
                    return time.monotonic() - started

    def _read_events(self, sock: socket.socket) -> None:
        buffer = b""
        with sock:
            while True:
                try:
                    chunk = sock.recv(65536)
                except OSError:
                    return
                if not chunk:
                    return
                now = time.monotonic()
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    self.events.append((now, line.decode(errors="replace")))

    def sh(self, script: str, *, check: bool = True, timeout: float = 120, input: str = "",
           agent_wait: float | None = None) -> Done:
        """Run ``script`` as root in the guest."""
        assert self.agent is not None
        self._next_id += 1
        ident = self._next_id
        request = {"id": ident, "sh": script, "timeout": timeout, "input": input}
        self.agent.sendall(json.dumps(request).encode() + b"\n")
        deadline = time.monotonic() + (agent_wait if agent_wait is not None else timeout + 30)
        while True:
            while b"\n" in self._agent_buffer:
                line, self._agent_buffer = self._agent_buffer.split(b"\n", 1)
                with contextlib.suppress(ValueError):
                    answer = json.loads(line)
                    if answer.get("id") == ident:
                        done = Done(answer["rc"], answer["out"], answer["err"])
                        if check and done.returncode != 0:
                            raise CheckFailed(f"`{script}` exited {done.returncode}: "
                                              f"{(done.stderr or done.stdout).strip()[-1500:]}")
                        return done
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"the guest did not answer `{script}` in time")
            self.agent.settimeout(left)
            try:
                chunk = self.agent.recv(65536)
            except TimeoutError:
                raise TimeoutError(f"the guest did not answer `{script}` in time") from None
            if not chunk:
                raise CheckFailed("the guest's agent closed its port")
            self._agent_buffer += chunk

    def tail(self, name: str, size: int = 2500) -> str:
        path = self.run_dir / name
        return path.read_bytes()[-size:].decode(errors="replace") if path.exists() else ""

    def events_since(self, mark: int) -> list[tuple[float, dict[str, Any]]]:
        found = []
        for at, line in self.events[mark:]:
            with contextlib.suppress(ValueError):
                value = json.loads(line)
                if isinstance(value, dict):
                    found.append((at, value))
        return found

    def cut(self) -> None:
        """The power cut: SIGKILL to qemu (its write-through disk keeps what the guest flushed)."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(30)
        if self.agent is not None:
            self.agent.close()
            self.agent = None

    def poweroff(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(CheckFailed, TimeoutError, OSError):
            self.sh("systemctl --no-block poweroff", timeout=10, agent_wait=10)
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.cut()
        if self.agent is not None:
            self.agent.close()
            self.agent = None


def new_overlay(image: Image, path: Path) -> Path:
    _run(["qemu-img", "create", "-q", "-f", "qcow2", "-b", str(image.disk), "-F", "raw", str(path)])
    return path


def wait_for(what: str, condition: Callable[[], bool], timeout: float, every: float = 0.5) -> float:
    started = time.monotonic()
    last: Exception | None = None
    while time.monotonic() - started < timeout:
        try:
            if condition():
                return time.monotonic() - started
        except (CheckFailed, ValueError, KeyError, TimeoutError) as exc:
            last = exc
        time.sleep(every)
    raise CheckFailed(f"{what}: not within {timeout:.0f} s" + (f" ({last})" if last else ""))


def show(machine: Machine, unit: str, *props: str) -> dict[str, str]:
    out = machine.sh(f"systemctl show {unit} " + " ".join(f"-p {p}" for p in props)).stdout
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def unit_log(machine: Machine, unit: str = "ecarte-table") -> str:
    return machine.sh(f"journalctl -b -u {unit} -o cat --no-pager", check=False).stdout
