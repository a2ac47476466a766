#!/usr/bin/env python3
"""A real kernel under the table: Debian trixie's own kernel under qemu, the table installed by
systemd/install.sh, its readers on ftdi_sio, its buttons on the GPIO character device, its OLED on i2c-dev.

    sudo python3 scripts/vm_test.py [--arch amd64|arm64] [--json REPORT] [--only CHECK ...] [--cuts N] [--keep]

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

  hub           (arm64) the venue's hub unit, installed by ``install.sh --hub``, started: active, no restart,
                its own Mosquitto, the scoreboard answering

``--arch arm64`` (issue 47, item 6) makes the same guest for the Pi's architecture: ``debootstrap --foreign``,
its second stage and every chroot step (the modules, the wheelhouse with lgpio built for aarch64 and
CPython 3.13, install.sh) emulated by qemu-user-static (binfmt_misc), booted by qemu-system-aarch64 ``-M virt``
(cortex-a72, TCG): boot to watchdog and the hub, no power cuts. Its cold build takes over an hour on
this machine: run it by hand, not in CI (docs/hardware.md).

Prints one line per check (``check NAME: ok|FAIL (seconds) detail``) and ``vm_test: N s (...)``;
exit 0 when every check passed, 1 when one failed, 77 when it cannot run here (one line says why).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import platform
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
import debian_root  # beside this script (its folder is on sys.path)
from debian_root import QEMU_USER, CannotRun, CheckFailed, binfmt_ready, checkout_files, host_arch
from debian_root import run as _run

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent / "vm"
CACHE = Path(os.environ.get("ECARTE_VM_CACHE", "/var/cache/ecarte-table-vm"))
MIRROR = os.environ.get("ECARTE_BOOT_MIRROR", "http://deb.debian.org/debian")
RELEASE = "trixie"
LINUX_SOURCE = "linux-source-6.12"
# Debian's kernel and its headers (the out-of-tree modules), what install.sh would fetch (python3-dev,
# gcc, swig: lgpio's sdist on 3.13), i2c-tools and gpiod to look at the buses, curl for the page.
GUEST_PACKAGES = ("initramfs-tools", "make", "xz-utils", "systemd", "systemd-sysv", "udev", "dbus", "kmod", "python3",
                  "python3-venv", "python3-dev", "gcc", "libc6-dev", "swig", "i2c-tools", "gpiod", "usbutils", "procps",
                  "ca-certificates", "curl")
# arm64's headers are installed by the modules' step, pinned to the kernel's exact ABI (its root is made under
# emulation: debootstrap's second stage runs in qemu-user)
KERNEL_PACKAGES = {"amd64": ("linux-image-amd64", "linux-headers-amd64"), "arm64": ("linux-image-arm64",)}
PACKAGES = (*KERNEL_PACKAGES["amd64"], *GUEST_PACKAGES)
CHECKS = ("boot", "readers", "latency", "buttons", "oled", "deviceallow", "doctor", "watchdog", "powercut")
# arm64 (issue 47, item 6): checks 1-4 on the Pi's architecture, and the venue's hub unit started on its kernel
ARM64_CHECKS = ("boot", "readers", "latency", "buttons", "oled", "deviceallow", "doctor", "watchdog", "hub")
ALL_CHECKS = (*CHECKS, "hub")
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


@dataclass(frozen=True)
class Guest:
    """What differs between the architectures' guests: qemu and its machine, the CPU under TCG, the console,
    the by-path name of the xhci controller's PCI function (in slot XHCI_SLOT), the host that can use KVM."""

    arch: str
    qemu: str
    machine: tuple[str, ...]
    cpu: str
    console: str
    xhci_path: str
    native: str
    append: str  # the kernel's command line beyond the root and the console


GUESTS = {
    "amd64": Guest("amd64", "qemu-system-x86_64", ("-M", "q35"), "max", "ttyS0", f"pci-0000:00:{XHCI_SLOT:02x}.0",
                   "x86_64", "modprobe.blacklist=i2c_i801"),
    # virt's PCIe host bridge is a platform device at its ECAM (0x4010000000); cortex-a72 (a Pi 4's core):
    # TCG's `max` emulates pointer authentication, which costs more than a cortex-a72's whole pipeline
    "arm64": Guest("arm64", "qemu-system-aarch64", ("-M", "virt"), "cortex-a72", "ttyAMA0",
                   f"platform-4010000000.pcie-pci-0000:00:{XHCI_SLOT:02x}.0", "aarch64",
                   # virt's own GPIO controller (a PL061, built into Debian's kernel) would be gpiochip0 and
                   # gpio-sim gpiochip1: left unprobed, gpio-sim is gpiochip0, as a Pi's header is
                   "initcall_blacklist=pl061_gpio_driver_init"),
}


def checks(arch: str) -> tuple[str, ...]:
    return ARM64_CHECKS if arch == "arm64" else CHECKS


def say(message: str) -> None:
    print(f"vm_test: {message}", file=sys.stderr, flush=True)


def why_not(arch: str = "amd64") -> str | None:
    """Why this machine cannot run the harness for ``arch``, or None."""
    if os.geteuid() != 0:
        return "needs root (debootstrap, chroot)"
    tools = [("debootstrap", "debootstrap"), ("qemu-img", "qemu-utils"), ("mkfs.ext4", "e2fsprogs"),
             (GUESTS[arch].qemu, "qemu-system-arm" if arch == "arm64" else "qemu-system-x86")]
    if arch != host_arch():  # the root is made and installed in chroots: emulated by qemu-user
        tools.append((QEMU_USER[arch], "qemu-user-static binfmt-support"))
    for tool, package in tools:
        if shutil.which(tool) is None and not Path(f"/usr/sbin/{tool}").exists():
            return f"no {tool} (bash scripts/system-deps.sh vm: apt-get install {package})"
    return None


def accelerator(arch: str = "amd64") -> list[str]:
    """KVM where a real one is loaded for this architecture (kvm_intel, kvm_amd; an arm64 host's kvm); TCG
    otherwise (a nested PVM /dev/kvm cannot run a stock kernel: VM_NOTES). tb-size=256 keeps qemu near 1 GiB."""
    guest = GUESTS[arch]
    real = ("kvm_intel", "kvm_amd") if arch == "amd64" else ("kvm",)
    if (platform.machine() == guest.native and Path("/dev/kvm").exists()
            and any(Path(f"/sys/module/{m}").exists() for m in real)):
        return ["-accel", "kvm", "-cpu", "host"]
    return ["-accel", "tcg,thread=multi,tb-size=256", "-cpu", guest.cpu]


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


def cache_lock(name: str) -> contextlib.AbstractContextManager[None]:
    return debian_root.cache_lock(CACHE, name)


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
        for point in reversed(mounted):
            subprocess.run(["umount", "--recursive", "--lazy", str(point)], check=False, timeout=60)


def chroot(root: Path, script: str, timeout: float = 3600) -> str:
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
           "HOME": "/root", "DEBIAN_FRONTEND": "noninteractive", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
           "SYSTEMD_OFFLINE": "1"}  # systemctl as in a chroot (this machine's PID 1 may be no systemd)
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


def base_root(arch: str = "amd64") -> Path:
    """The cached trixie root of ``arch``, with every step done (each redone when its inputs change). A foreign
    architecture's (arm64 on this machine) is made with ``debootstrap --foreign`` and its second stage, and
    every later step, in chroots emulated by qemu-user (binfmt_misc)."""
    base = CACHE / f"{RELEASE}-{arch}"
    foreign = arch != host_arch()
    # amd64's lock and keys are the ones its cache was made with
    with cache_lock("root" if arch == "amd64" else f"root-{arch}"):
        if foreign:
            binfmt_ready(arch)
        wanted = (*KERNEL_PACKAGES[arch], *GUEST_PACKAGES)
        key = digest(RELEASE, PACKAGES) if arch == "amd64" else digest(RELEASE, wanted, arch)
        if stamps(base).get("debootstrap") != key:
            staging = CACHE / ("staging-root" if arch == "amd64" else f"staging-root-{arch}")
            shutil.rmtree(staging, ignore_errors=True)
            shutil.rmtree(base, ignore_errors=True)
            debs = CACHE / f"debs-{arch}"
            debs.mkdir(parents=True, exist_ok=True)
            say(f"making the {RELEASE} {arch} root with debootstrap (once; kept in {base})")
            started = time.monotonic()
            _run(["debootstrap", "--variant=minbase", f"--arch={arch}", f"--cache-dir={debs}",
                  f"--include={','.join(wanted)}", *(["--foreign"] if foreign else []), RELEASE, str(staging),
                  MIRROR], timeout=3600)
            if foreign:
                say(f"debootstrap's first stage: {time.monotonic() - started:.0f} s; its second under qemu-user")
                whole = trim_packages_index(staging)
                _run(["chroot", str(staging), "/debootstrap/debootstrap", "--second-stage"], timeout=3 * 3600)
                for index, text in whole.items():  # apt-get update keeps a cut index its InRelease still names
                    index.write_text(text, encoding="utf-8", errors="surrogateescape")
                for mounted in ("proc", "sys", "dev/pts"):
                    if os.path.ismount(staging / mounted):
                        subprocess.run(["umount", "--lazy", str(staging / mounted)], check=False, timeout=60)
            say(f"debootstrap: {time.monotonic() - started:.0f} s")
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


def trim_packages_index(staging: Path) -> dict[Path, str]:
    """The Packages index a foreign first stage left, cut to the stanzas of the packages it chose
    (debootstrap/debpaths). The second stage resolves each pre-dependency with perl over the whole index
    (56 MB for trixie's arm64 main), emulated by qemu-user: on 2026-12-06, under a load of 9 to 19, 38 min
    went by at 84 of 206 packages; cut then, the other 122 took 24 min. The whole indexes, to put back."""
    whole = {}
    chosen = {line.split()[0] for line in (staging / "debootstrap/debpaths").read_text().splitlines() if line.strip()}
    for index in (staging / "var/lib/apt/lists").glob("*_Packages"):
        text = whole[index] = index.read_text(encoding="utf-8", errors="surrogateescape")
        kept = [stanza for stanza in text.split("\n\n")
                if stanza.startswith("Package: ") and stanza.split("\n", 1)[0].removeprefix("Package: ") in chosen]
        cut = index.with_name(index.name + ".cut")
        cut.write_text("\n\n".join(kept) + "\n\n", encoding="utf-8", errors="surrogateescape")
        cut.rename(index)
    return whole


def build_modules(base: Path) -> None:
    """gpio-sim and i2c-stub (with master_xfer) from trixie's linux-source-6.12, built against the
    headers of the root's own kernel, installed under /lib/modules/<version>/updates."""
    version = kernel_version(base)
    build = base / "root/vm-modules"
    shutil.rmtree(build, ignore_errors=True)
    build.mkdir(parents=True)
    # the headers of this very kernel (already there on amd64: debootstrap installed them with it)
    chroot(base, f"apt-get update -qq && apt-get install -y -qq --no-install-recommends linux-headers-{version} "
                 f">/dev/null && cd /root/vm-modules && apt-get download -qq {LINUX_SOURCE}", timeout=3600)
    deb = next(build.glob(f"{LINUX_SOURCE}_*.deb"))
    wanted = ["drivers/gpio/gpio-sim.c", "kernel/irq/irq_sim.c", "drivers/i2c/i2c-stub.c"]
    # on this machine, not in the root: under qemu-user the source's whole xz would be decompressed emulated
    script = (f"dpkg-deb --fsys-tarfile {deb.name} | tar -xO ./usr/src/{LINUX_SOURCE}.tar.xz | "
              f"tar -xJ --strip-components=1 " + " ".join(f"{LINUX_SOURCE}/{w}" for w in wanted))
    _run(["/bin/sh", "-ec", script], cwd=build, timeout=1800)
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


@dataclass(frozen=True)
class Image:
    disk: Path
    kernel: Path
    initrd: Path
    arch: str = "amd64"


def table_image(base: Path, arch: str = "amd64") -> tuple[Image, dict[str, float]]:
    """This checkout installed by install.sh in (an overlay of) the root, as an ext4 image. arm64's with the
    venue's hub too (``--hub``; its unit left disabled: the hub check starts it)."""
    files = checkout_files()
    hub = arch == "arm64"
    h = hashlib.sha256(json.dumps(stamps(base), sort_keys=True).encode())
    h.update((vm_table_file(arch) + DROP_IN).encode())
    for name in files:
        if name not in HARNESS_FILES:  # what they put in the image is hashed above
            h.update(name.encode() + b"\0" + (ROOT / name).read_bytes())
    key = h.hexdigest()[:12]
    out = CACHE / f"image-{key}"
    figures: dict[str, float] = {}
    with cache_lock("image" if arch == "amd64" else f"image-{arch}"):
        if (out / ".done").exists():
            return Image(out / "disk.img", out / "vmlinuz", out / "initrd.img", arch), figures
        for old in CACHE.glob("image-*"):  # other checkouts' (3 h old: no run still boots them)
            if old.is_dir() and time.time() - old.stat().st_mtime > 3 * 3600:
                shutil.rmtree(old, ignore_errors=True)
        out.mkdir(exist_ok=True)  # a run stopped while it made the image left it without .done
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
                    log = chroot(merged, f"cd {GUEST_REPO} && bash systemd/install.sh --wheelhouse {GUEST_WHEELS}"
                                         + (" --hub && systemctl disable ecarte-hub.service" if hub else ""))
                figures["install_chroot_s"] = time.monotonic() - started
                (out / "install.log").write_text(log)
                configure_table(merged, arch)
                started = time.monotonic()
                version = kernel_version(merged)
                shutil.copy2(merged / f"boot/vmlinuz-{version}", out / "vmlinuz")
                shutil.copy2(merged / f"boot/initrd.img-{version}", out / "initrd.img")
                _run(["mkfs.ext4", "-q", "-F", "-L", "ecarte", "-d", str(merged), str(out / "disk.img"), "6G"])
                figures["mkfs_s"] = time.monotonic() - started
            finally:
                subprocess.run(["umount", "--lazy", str(merged)], check=False, timeout=60)
        (out / ".done").write_text("ok\n")
    return Image(out / "disk.img", out / "vmlinuz", out / "initrd.img", arch), figures


def by_path(index: int, arch: str = "amd64") -> str:
    """The stable name udev gives the adapter on the xhci's port ``index + 1`` (USB 2 ports 1-8)."""
    return f"/dev/serial/by-path/{GUESTS[arch].xhci_path}-usb-0:{index + 1}:1.0-port0"


def vm_table_file(arch: str = "amd64") -> str:
    """The reference table (the one install.sh installs), its pads named by /dev/serial/by-path,
    its OLED on the stub's bus 0 (an SSD1306), lgpio named, the simulated pack enrolled."""
    text = (ROOT / "hardware/tables/reference.toml").read_text(encoding="utf-8")
    for index, pad in enumerate(PADS):
        quoted = f'"{pad}"' if "." in pad else pad
        # whatever the shipped file names (its by-path names are a Pi 4's ports): the guest's own ports
        text, named = re.subn(rf'^{re.escape(quoted)} = "[^"\n]*"$', f'{quoted} = "{by_path(index, arch)}"', text,
                              flags=re.M)
        if named != 1:
            raise ValueError(f"the reference table file names pad {pad} {named} times, not once")
    text = re.sub(r'^backend = "auto".*$', 'backend = "lgpio"', text, flags=re.M)
    text = re.sub(r"^bus = 1 .*$", "bus = 0", text, flags=re.M)
    text = re.sub(r'^chip = "sh1106".*$', 'chip = "ssd1306"', text, flags=re.M)
    text = re.sub(r'^sight = "partial"', 'sight = "full"', text, flags=re.M)
    text = text.replace("[tags]\n", '[tags]\ntrusted_key = "test"\n', 1)
    return text


def configure_table(root: Path, arch: str = "amd64") -> None:
    """The VM's table file, its tags, and the unit's drop-in: events out on the events port."""
    sys.path.insert(0, str(ROOT))
    from drivers.device_events import Origin
    from drivers.nfc.pn532sim.tag_signer import sim_signer
    from engine.cards import CARDS
    from firmware_host.players.simtable import sim_uid
    from hardware.tag_registry import TagRegistry
    sign = sim_signer()
    registry = TagRegistry()
    for card in CARDS:
        uid = sim_uid(str(card))
        registry.add(uid, str(card), 1, origin=Origin.GENUINE, signature=sign(bytes.fromhex(uid)).hex().upper())
    registry.save(root / "var/lib/ecarte-table/tags.json")
    (root / "etc/ecarte-table/table.toml").write_text(vm_table_file(arch), encoding="utf-8")
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
# TCG on a shared machine is several times slower than a Pi: six readers opened took 50-110 s where
# the unit allows a Pi 60 s (a start that timed out was restarted, and the boot check saw it)
TimeoutStartSec=300s
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
            said = self.proc.stderr.read() if self.proc.stderr else ""
            raise CheckFailed(f"the chip host did not start: {line} {said}")

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
        guest = GUESTS[self.image.arch]
        qemu = [guest.qemu, *guest.machine, *accelerator(guest.arch), "-m", "1024", "-smp", "2", "-nodefaults",
                "-display", "none", "-no-reboot", "-nic", "none",
                "-kernel", str(self.image.kernel), "-initrd", str(self.image.initrd),
                "-append", f"root=/dev/vda rw console={guest.console} panic=-1 quiet {guest.append}",
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


# ---------------------------------------------------------------------------------------------
# the checks


@dataclass
class Result:
    name: str
    ok: bool
    seconds: float
    detail: str


@dataclass
class Run:
    """What the checks share: the machine, the chip host, the game's state, the figures."""

    machine: Machine
    chips: Chips
    figures: dict[str, float] = field(default_factory=dict)
    dealer: str = ""
    boot_s: float = 0.0


def _events(run: Run, mark: int, event: str, timeout: float, **match: str) -> tuple[float, dict[str, Any]]:
    found: list[tuple[float, dict[str, Any]]] = []

    def seen() -> bool:
        found[:] = [(at, e) for at, e in run.machine.events_since(mark) if e.get("event") == event
                    and all(e.get(k) == v for k, v in match.items())]
        return bool(found)

    try:
        wait_for(f"the referee's {event!r} event", seen, timeout, every=0.05)
    except CheckFailed as exc:
        said = [line for _, line in run.machine.events[mark:]][-8:]
        raise CheckFailed(f"{exc}: the events since: {said}\n{unit_log(run.machine)[-2000:]}") from None
    return found[0]


def check_boot(run: Run) -> str:
    """The unit enabled by install.sh is READY at boot, after systemd-modules-load, with no restart."""
    m = run.machine
    wait_for("ecarte-table active", lambda: show(m, "ecarte-table", "ActiveState")["ActiveState"] == "active",
             300, every=2)
    table = show(m, "ecarte-table", "NRestarts", "ExecMainStartTimestampMonotonic", "ActiveEnterTimestampMonotonic")
    modules = show(m, "systemd-modules-load", "ActiveState", "ActiveEnterTimestampMonotonic")
    loaded = m.sh("cat /proc/modules | cut -d' ' -f1").stdout.split()
    log = unit_log(m)
    problems = []
    if table["NRestarts"] != "0":
        problems.append(f"restarted {table['NRestarts']} times")
    if modules["ActiveState"] != "active":
        problems.append(f"systemd-modules-load is {modules['ActiveState']}")
    if int(table["ExecMainStartTimestampMonotonic"]) <= int(modules["ActiveEnterTimestampMonotonic"]):
        problems.append("started before systemd-modules-load was done")
    missing = {"ftdi_sio", "cp210x", "ch341", "i2c_dev", "i2c_stub", "gpio_sim"} - set(loaded)
    if missing:
        problems.append(f"modules not loaded: {sorted(missing)}")
    for bad in ("Traceback", "left out"):
        if bad in log:
            problems.append(f"{bad!r} in its log")
    if problems:
        raise CheckFailed("; ".join(problems) + "\n" + log[-2500:])
    ready = int(table["ActiveEnterTimestampMonotonic"]) / 1e6
    after = ready - int(modules["ActiveEnterTimestampMonotonic"]) / 1e6
    run.figures["ready_after_kernel_s"] = ready
    run.figures["ready_after_modules_load_s"] = after
    return (f"READY {ready:.1f} s after the kernel started, {after:.1f} s after systemd-modules-load "
            f"(ftdi_sio, cp210x, ch341, i2c-dev, i2c-stub, gpio-sim loaded), NRestarts 0, no traceback")


def check_readers(run: Run) -> str:
    """ftdi_sio holds every adapter, the by-path names are the ports', the chips at 921,600, and a card
    laid on the host's pad reaches the referee."""
    m, chips = run.machine, run.chips
    drivers = m.sh("for d in /sys/bus/usb-serial/devices/ttyUSB*; do basename $(readlink -f $d/driver); done").stdout
    if drivers.split() != ["ftdi_sio"] * len(PADS):
        raise CheckFailed(f"the adapters' drivers: {drivers.split()}")
    for index, _pad in enumerate(PADS):
        props = m.sh(f"udevadm info -q property -n {shlex.quote(by_path(index, m.image.arch))}", check=False)
        serial = re.search(r"^ID_SERIAL_SHORT=(\S+)$", props.stdout, re.M)
        if props.returncode != 0 or serial is None or serial.group(1) != f"ECARTE{index}":
            raise CheckFailed(f"{by_path(index, m.image.arch)} is not the adapter on port {index + 1}: "
                              f"{props.stdout or props.stderr}")
    wait_for("every chip moved to 921,600 on the host's pty",
             lambda: all(s["chip_baud"] == 921600 and s["line_baud"] == 921600 for s in chips.states().values()), 60)
    mark = len(m.events)
    chips.place("hand.A", ["7H", "8H", "9H"])
    chips.place("hand.B", ["7D", "8D", "9D"])
    _, dealer = _events(run, mark, "dealer", 60)
    run.dealer = str(dealer["seat"])
    chips.place("hand.A", ["TH", "JH"])
    chips.place("hand.B", ["TD", "JD"])
    time.sleep(3)  # the hands read whole before the turn-up
    mark = len(m.events)
    laid = time.monotonic()
    chips.place("turnup", ["7C"])
    at, _ = _events(run, mark, "trump", 30, card="7C")
    run.figures["card_to_referee_ftdi_s"] = at - laid
    return (f"ftdi_sio on ttyUSB0-5, /dev/serial/by-path/...usb-0:N:1.0-port0 is port N's adapter, every chip at "
            f"921,600 on the host's pty; the deal read, dealer {run.dealer}; the turn-up 7C laid on the host "
            f"reached the referee in {at - laid:.3f} s")


def check_latency(run: Run) -> str:
    """install.sh run again on a machine whose adapters are plugged in: the FTDI rule's latency timer
    (1 ms) is applied at once, not at the next boot (udevadm trigger --action=add)."""
    m = run.machine
    timers = "cat /sys/bus/usb-serial/devices/ttyUSB*/latency_timer"
    m.sh("rm -f /etc/udev/rules.d/99-ecarte-table.rules && udevadm control --reload-rules && "
         "for f in /sys/bus/usb-serial/devices/ttyUSB*/latency_timer; do echo 16 > $f; done")  # a real FT232's 16 ms
    before = m.sh(timers).stdout.split()
    started = time.monotonic()
    done = m.sh(f"cd {GUEST_REPO} && bash systemd/install.sh --wheelhouse {GUEST_WHEELS}", check=False, timeout=1800)
    run.figures["install_in_guest_s"] = time.monotonic() - started
    if done.returncode != 0:
        raise CheckFailed(f"install.sh exited {done.returncode}: {(done.stdout + done.stderr)[-2000:]}")
    m.sh("udevadm settle --timeout=30", check=False)
    after = m.sh(timers).stdout.split()
    if after != ["1"] * len(PADS):
        raise CheckFailed(f"the latency timers after install.sh: {after} (before: {before}); install.sh said:\n"
                          + "\n".join(line for line in done.stdout.splitlines() if "udev" in line))
    return (f"latency_timer {' '.join(before)} -> {' '.join(after)} right after install.sh "
            f"(install.sh in the guest: {run.figures['install_in_guest_s']:.0f} s)")


def _pull(run: Run, pin: int, level: str) -> None:
    run.machine.sh(f"echo pull-{level} > $(ls -d /sys/devices/platform/gpio-sim.*/gpiochip*/sim_gpio{pin})/pull")


def _pin(seat: str, button: str) -> int:
    import tomllib
    table = tomllib.loads(vm_table_file())
    return int(table["buttons"][seat][button])


def check_buttons(run: Run) -> str:
    """The elder's `no` pressed with gpio-sim's pull (the line to ground, as a button does) reaches the
    referee through the GPIO character device, lgpio and gpiozero: he stands."""
    if not run.dealer:
        raise CheckFailed("no deal: the readers check did not run")
    elder = "A" if run.dealer == "B" else "B"
    pin = _pin(elder, "no")
    consumer = run.machine.sh("gpioinfo -c gpiochip0 2>/dev/null || gpioinfo gpiochip0", check=False).stdout
    line = next((ln for ln in consumer.splitlines() if re.search(rf"line\s+{pin}:", ln)), "")
    if "input" not in line or "consumer=" not in line:
        raise CheckFailed(f"line {pin} is not held as an input by the table: {line!r}")
    trip = time.monotonic()
    run.machine.sh("true")  # the agent's own round trip, within the figure below
    run.figures["agent_round_trip_s"] = time.monotonic() - trip
    mark = len(run.machine.events)
    pressed = time.monotonic()
    _pull(run, pin, "down")
    at, bid = _events(run, mark, "bid", 30, seat=elder)
    _pull(run, pin, "up")
    run.figures["button_to_referee_s"] = at - pressed
    if bid.get("bid") != "stand":
        raise CheckFailed(f"the elder's `no` became {bid}")
    _events(run, mark, "play_begins", 30)
    return (f"GPIO{pin} ({elder}'s no, {line.strip()}) pulled down: '{elder} stands' reached the referee in "
            f"{at - pressed:.3f} s (the agent's round trip of {run.figures['agent_round_trip_s']:.3f} s within it), "
            "play begins")


def decode_panel(record: bytes, address: int = 0x3C, chip: str = "ssd1306") -> tuple[Any, int, int]:
    """The glass the stub's record of writes shows (the project's SSD1306 model), the writes and bytes."""
    sys.path.insert(0, str(ROOT))
    from drivers.display.i2c_sim import ControllerChip
    model = ControllerChip(chip)
    offset = writes = sent = 0
    while offset + 3 <= len(record):
        length = record[offset] | record[offset + 1] << 8
        addr = record[offset + 2]
        payload = record[offset + 3:offset + 3 + length]
        offset += 3 + length
        if addr == address:
            model.transfer(bytes(payload))
            writes += 1
            sent += len(payload)
    return model.panel(), writes, sent


def check_oled(run: Run) -> str:
    """What crossed i2c-dev to 0x3c, decoded by the SSD1306 model, is the frame the table drew last."""
    import base64
    import io

    from PIL import Image as PILImage
    m = run.machine
    wait_for("ecarte-table active", lambda: show(m, "ecarte-table", "ActiveState")["ActiveState"] == "active",
             300, every=2)
    log = unit_log(m)
    if "display" in log and "left out" in log:
        said = [line for line in log.splitlines() if "left out" in line]
        raise CheckFailed(f"the table left its display out: {said[-1][:300]}")

    def snapshot() -> tuple[str, bytes]:
        last = m.sh(f"ls {FRAMES} | sort | tail -1").stdout.strip()
        record = base64.b64decode(m.sh(f"base64 -w0 {STUB_LOG}").stdout)
        return last, record

    state: list[tuple[str, bytes]] = []

    def settled() -> bool:
        state.append(snapshot())
        return len(state) >= 2 and state[-1] == state[-2] and bool(state[-1][0])

    wait_for("the panel's frames settled", settled, 60, every=2)
    last, record = state[-1]
    png = base64.b64decode(m.sh(f"base64 -w0 {FRAMES}/{last}").stdout)
    drawn = PILImage.open(io.BytesIO(png)).convert("1")
    glass, writes, sent = decode_panel(record)
    frames = int(last.removeprefix("frame-").removesuffix(".png"))
    run.figures["i2c_bytes"] = sent
    run.figures["i2c_frames"] = frames
    if sent == 0:
        raise CheckFailed("nothing crossed i2c-dev to 0x3c")
    if glass.tobytes() != drawn.tobytes():
        diff = sum(a != b for a, b in zip(glass.tobytes(), drawn.tobytes(), strict=True))
        raise CheckFailed(f"the glass decoded from {sent} bytes differs from {last} in {diff} bytes of 1,024")
    lit = sum(bin(b).count("1") for b in glass.tobytes())
    # frames through i2c-dev: luma at its own pace, 20 full frames to the stub's bus
    timed = m.sh(f"{VENV}/bin/python -c \"import time\nfrom luma.core.interface.serial import i2c\n"
                 "from luma.oled.device import ssd1306\nfrom PIL import Image\nd = ssd1306(i2c(port=0, address=0x3C))\n"
                 "img = Image.new('1', (128, 64), 1)\nt = time.monotonic()\nfor _ in range(20): d.display(img)\n"
                 "print(time.monotonic() - t)\"", check=False, timeout=300)
    if timed.returncode == 0:
        run.figures["i2c_frame_s"] = float(timed.stdout.split()[-1]) / 20
    return (f"{writes} writes, {sent} bytes to 0x3c through i2c-dev for {frames} frames; the glass decoded from them "
            f"({lit} pixels lit) is {last}, the table's last frame"
            + (f"; a full frame through i2c-dev in {run.figures['i2c_frame_s'] * 1000:.1f} ms" if timed.returncode == 0
               else f" (timing frames failed: {timed.stderr.strip()[-300:]})"))


def use_debians_stub(m: Machine) -> str:
    """Debian's own i2c-stub (SMBus only) in the place of the patched one, the unit started again on it: what
    the oled check sees on a kernel whose stub cannot carry luma's I2C_RDWR frames (``--i2c-stub debian``)."""
    done = m.sh("systemctl stop ecarte-table && modprobe -r i2c_stub && "
                "module=$(find /lib/modules/$(uname -r)/kernel -name 'i2c-stub.ko*') && "
                "insmod $module chip_addr=0x3c && systemctl start ecarte-table; "
                "echo $module; i2cdetect -F 0 | grep -i 'I2C '", check=False, timeout=600)
    return " ".join(done.stdout.split())


def check_deviceallow(run: Run) -> str:
    """A process in the unit's cgroup opens what the unit names (/dev/i2c-0, /dev/ttyUSB0, /dev/gpiochip0)
    and is refused what it does not (/dev/vda, the disk), by the cgroup's device filter, as root."""
    probe = ("import sys\nfor path in sys.argv[1:]:\n    try:\n        open(path, 'rb', buffering=0).close()\n"
             "        print(path, 'opened')\n    except OSError as e:\n        print(path, e.strerror)\n")
    cgroup = m_cgroup = run.machine.sh("systemctl show -p ControlGroup --value ecarte-table").stdout.strip()
    out = run.machine.sh(f"echo $$ > /sys/fs/cgroup{m_cgroup}/cgroup.procs && exec python3 -c {shlex.quote(probe)} "
                         "/dev/i2c-0 /dev/gpiochip0 /dev/vda", timeout=60).stdout
    said = dict(line.split(" ", 1) for line in out.strip().splitlines())
    if said.get("/dev/vda") != "Operation not permitted":
        raise CheckFailed(f"/dev/vda from the unit's cgroup {cgroup}: {said.get('/dev/vda')}")
    for allowed in ("/dev/i2c-0", "/dev/gpiochip0"):
        if said.get(allowed) != "opened":
            raise CheckFailed(f"{allowed} from the unit's cgroup: {said.get(allowed)}")
    return f"in {cgroup}, as root: /dev/i2c-0 and /dev/gpiochip0 open, /dev/vda 'Operation not permitted'"


def check_doctor(run: Run) -> str:
    """The doctor, as the unit's user on the Pi's cpuinfo, from a folder it cannot write, names the buttons'
    backend (lgpio) and finds the readers, the display and the buttons (the service stopped meanwhile: the
    readers are its)."""
    m = run.machine
    m.sh("systemctl stop ecarte-table")
    try:
        # from a folder the user cannot write, as `sudo -u ecarte ... doctor` from a maker's home (lgpio
        # made its notification pipes in the current folder: the buttons failed there before issue 47)
        done = m.sh("systemd-run --quiet --wait --pipe -p User=ecarte -p SupplementaryGroups='i2c gpio dialout' "
                    "-p WorkingDirectory=/ "
                    "-p BindReadOnlyPaths=/usr/local/lib/ecarte-vm/cpuinfo:/proc/cpuinfo "
                    f"{CLI} doctor /etc/ecarte-table/table.toml", check=False, timeout=300)
    finally:
        m.sh("systemctl start ecarte-table", check=False, timeout=200)
    report = done.stdout + done.stderr
    if "lgpio, as the table file names it" not in report or "LGPIOFactory" not in report or done.returncode != 0:
        raise CheckFailed(f"the doctor does not name the backend:\n{report[-2500:]}")
    line = next(ln for ln in report.splitlines() if "LGPIOFactory" in ln)
    return f"doctor: {line.strip()[:200]} (exit {done.returncode})"


def every_reader_answers(run: Run, timeout: float = 120) -> None:
    before = {pad: s["commands"] for pad, s in run.chips.states().items()}
    wait_for("every reader answering again",
             lambda: all(s["commands"] > before[pad] + 2 for pad, s in run.chips.states().items()), timeout)


def check_watchdog(run: Run) -> str:
    m = run.machine
    state = show(m, "ecarte-table", "MainPID", "NRestarts", "ActiveState")
    if state["ActiveState"] != "active":
        raise CheckFailed(f"the unit is not active before the check: {state}")
    cursor = m.sh("journalctl -n 0 --show-cursor --no-pager").stdout.split("cursor: ")[-1].strip()
    started = time.monotonic()
    m.sh(f"kill -STOP {state['MainPID']}")
    found: dict[str, str] = {}

    def again() -> bool:
        found.update(show(m, "ecarte-table", "MainPID", "NRestarts", "ActiveState", "SubState"))
        return (found["ActiveState"] == "active" and found["MainPID"] not in ("0", state["MainPID"])
                and int(found["NRestarts"]) > int(state["NRestarts"]))

    wait_for("ecarte-table restarted by its watchdog", again, 240, every=2)
    took = time.monotonic() - started
    said = m.sh(f"journalctl --no-pager -o cat --after-cursor={shlex.quote(cursor)} | grep -i watchdog",
                check=False).stdout.strip().splitlines()
    if not said:
        raise CheckFailed("restarted, but systemd's log says nothing of its watchdog")
    every_reader_answers(run)
    run.figures["watchdog_restart_s"] = took
    return (f"stopped pid {state['MainPID']}: '{said[0]}', READY again as {found['MainPID']} after {took:.0f} s, "
            "every reader answering")


def check_hub(run: Run) -> str:
    """The venue's hub (installed by ``install.sh --hub``, its unit left disabled in the image) started on the
    guest's own kernel: active with no restart, running its own Mosquitto as ecarte-hub, its scoreboard
    answering; Debian's own mosquitto.service neither enabled nor running (``install.sh --hub`` disables it, in
    an image made offline too). Under qemu-user (boot_test.py --arch arm64) the same unit failed with
    "unavailable resources"."""
    m = run.machine
    started = time.monotonic()
    m.sh("systemctl start ecarte-hub", check=False, timeout=300)
    state: dict[str, str] = {}

    def up() -> bool:
        state.update(show(m, "ecarte-hub", "ActiveState", "SubState", "Result", "NRestarts", "MainPID"))
        if state["ActiveState"] != "active":
            return False
        code = m.sh("curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8090/", check=False).stdout.strip()
        return code not in ("", "000")

    try:
        wait_for("the hub's scoreboard answering", up, 300, every=2)
    except CheckFailed as exc:
        raise CheckFailed(f"{exc}: {state}\n{unit_log(m, 'ecarte-hub')[-2500:]}") from None
    took = time.monotonic() - started
    broker = m.sh("pgrep -a -u ecarte-hub mosquitto", check=False).stdout.strip()
    debian = show(m, "mosquitto", "ActiveState", "UnitFileState")
    problems = []
    if state["NRestarts"] != "0":
        problems.append(f"restarted {state['NRestarts']} times")
    if not broker:
        problems.append("no Mosquitto of the hub's")
    if debian.get("UnitFileState") == "enabled" or debian.get("ActiveState") == "active":
        problems.append(f"Debian's mosquitto.service is {debian.get('UnitFileState')} and "
                        f"{debian.get('ActiveState')}: install.sh --hub leaves the broker to the hub")
    if problems:
        raise CheckFailed("; ".join(problems) + f" (Debian's mosquitto.service: {debian})\n"
                          + unit_log(m, "ecarte-hub")[-2500:])
    run.figures["hub_start_s"] = took
    return (f"ecarte-hub active (MemoryDenyWriteExecute=yes, PrivateDevices=yes, ProcSubset=pid) as pid "
            f"{state['MainPID']}, NRestarts 0, its broker '{broker.splitlines()[0][:120]}', the scoreboard answering "
            f"{took:.0f} s after the start; Debian's mosquitto.service {debian.get('UnitFileState')}, "
            f"{debian.get('ActiveState')}")


CUTS = "/root/cuts"
CUT_TABLE = f"{CUTS}/table.toml"


def _game_events(text: str) -> list[str]:
    """The events (JSON lines with an "event") of a `run --json` or `replay --json` output, normalised."""
    found = []
    for line in text.splitlines():
        with contextlib.suppress(ValueError):
            value = json.loads(line)
            if isinstance(value, dict) and "event" in value:
                found.append(json.dumps(value, sort_keys=True))
    return found


def expected_game() -> list[str]:
    """The uncut game: the transcript replayed on this machine."""
    cli = Path(sys.executable).parent / "ecarte-table"
    done = _run([str(cli), "replay", str(CUT_TRANSCRIPT), "--json"], timeout=300, cwd=ROOT)
    return _game_events(done.stdout)


@dataclass
class Cut:
    index: int
    after_s: float
    acknowledged: int
    journal_lines: int
    ok: bool
    detail: str
    lost: int = 0  # acknowledged events not in the journal after the cut


NO_SYNC = "ECARTE_JOURNAL_UNSAFE_NO_SYNC"  # firmware_host.journal.store_schema's test-only switch


def start_game(m: Machine, index: int, lines: list[str], pace: float, sync: bool = True) -> None:
    """The cut game started in the background, its events out on the events port. The port opens for one
    process at a time (virtio_console's ``port_fops_open`` answers EBUSY to a second), so the table's own
    unit is made sure to be stopped first; the game's stderr is opened before its stdout, so that a port
    that cannot be opened is said in the game's .err file. ``sync=False``: its journal waits for the disk
    nowhere (the journal's test-only switch), to show that the cut check finds what a cut then loses."""
    journal = f"{CUTS}/cut-{index}.sqlite"
    m.sh(f"install -m 0644 /dev/stdin {CUTS}/game-{index}.jsonl", input="\n".join(lines) + "\n")
    m.sh("systemctl stop ecarte-table >/dev/null 2>&1; true")
    unsafe = "" if sync else f"env {NO_SYNC}=1 "
    m.sh(f"nohup {unsafe}{CLI} run {CUT_TABLE} --journal {journal} --events {CUTS}/game-{index}.jsonl --pace {pace} "
         f"--json 2>{CUTS}/game-{index}.err > /dev/virtio-ports/{EVENTS_PORT} < /dev/null & "
         f"echo $! > {CUTS}/game-{index}.pid")


def wait_for_game(m: Machine, index: int, mark: int, timeout: float = 300) -> None:
    """Until the cut game's first event reaches the host; a game that ends first, or never speaks, is said
    with its stderr and the state of the table's unit (what held the events port)."""
    started = time.monotonic()
    checked = started
    while time.monotonic() - started < timeout:
        if _game_events("\n".join(line for _, line in m.events[mark:])):
            return
        if time.monotonic() - checked > 5:
            checked = time.monotonic()
            if m.sh(f"kill -0 $(cat {CUTS}/game-{index}.pid)", check=False).returncode != 0:
                break
        time.sleep(0.1)
    said = m.sh(f"cat {CUTS}/game-{index}.err; systemctl is-active ecarte-table; "
                "for p in /proc/[0-9]*; do ls -l $p/fd 2>/dev/null | grep -q vport && "
                "echo \"port held by $p: $(tr '\\0' ' ' < $p/cmdline)\"; done", check=False)
    raise CheckFailed(f"the cut game #{index + 1} gave no event within {time.monotonic() - started:.0f} s: "
                      f"{(said.stdout + said.stderr).strip()[-1500:]}")


def _journal_events(m: Machine, index: int, journal: str) -> list[str]:
    """The events of the games a journal holds: exported, and replayed in the guest."""
    exported = m.sh(f"{CLI} export --journal {journal} -o {CUTS}/cut-{index}.export.jsonl && "
                    f"{CLI} replay {CUTS}/cut-{index}.export.jsonl --json", check=False, timeout=300)
    return _game_events(exported.stdout)


def after_cut(m: Machine, index: int, lines: list[str], acknowledged: list[str],
              expected: list[str]) -> tuple[int, int, str]:
    """The cut journal checked, every acknowledged event found in it, then the game played on to its end;
    the journal's lines at the cut, how many acknowledged events it lost, and what is wrong ('' when
    nothing)."""
    journal = f"{CUTS}/cut-{index}.sqlite"
    exists = m.sh(f"test -e {journal}", check=False).returncode == 0
    if not exists:
        return 0, len(acknowledged), ("" if not acknowledged else
                                      f"no journal, but {len(acknowledged)} events acknowledged")
    check = m.sh(f"{CLI} journal check --journal {journal}", check=False, timeout=300)
    if check.returncode != 0:
        # what it still holds, counted after `journal salvage` (every whole game it can read)
        salvage = m.sh(f"{CLI} journal salvage --journal {journal}", check=False, timeout=300)
        found = _journal_events(m, index, journal) if salvage.returncode == 0 else []
        lost = [e for e in acknowledged if e not in found]
        return -1, len(lost), (f"journal check: exit {check.returncode}: {(check.stdout + check.stderr)[-800:]}; "
                               f"salvaged (exit {salvage.returncode}): {len(lost)} of {len(acknowledged)} "
                               "acknowledged events not in it")
    status = json.loads(m.sh(f"{CLI} journal status --json --journal {journal}", timeout=300).stdout)
    held = int(status["lines"])
    found = _journal_events(m, index, journal) if status.get("games") else []
    lost = [e for e in acknowledged if e not in found]
    if lost:
        return held, len(lost), (f"{len(lost)} of {len(acknowledged)} acknowledged events not in the journal: "
                                 f"{lost[:3]}")
    rest = lines[held:]
    m.sh(f"install -m 0644 /dev/stdin {CUTS}/rest-{index}.jsonl", input="\n".join(rest) + "\n")
    on = m.sh(f"{CLI} run {CUT_TABLE} --journal {journal} --events {CUTS}/rest-{index}.jsonl --json", check=False,
              timeout=600)
    if on.returncode != 0:
        return held, 0, f"the game did not go on: exit {on.returncode}: {on.stderr[-800:]}"
    final = m.sh(f"{CLI} export --journal {journal} -o {CUTS}/final-{index}.jsonl && "
                 f"{CLI} replay {CUTS}/final-{index}.jsonl --json", check=False, timeout=300)
    if _game_events(final.stdout) != expected:
        return held, 0, (f"the game played on is not the uncut game: {len(_game_events(final.stdout))} events, "
                      f"{len(expected)} expected")
    return held, 0, ""


def power_cuts(image: Image, run_dir: Path, count: int, seed: int, pace: float = 0.15,
               sync: bool = True) -> tuple[list[Cut], dict[str, float]]:
    """``count`` power cuts, each at a random moment of a game of its own on the same disk (``sync=False``:
    the games' journals wait for the disk nowhere)."""
    rng = random.Random(seed)
    lines = CUT_TRANSCRIPT.read_text(encoding="utf-8").splitlines()
    expected = expected_game()
    figures: dict[str, float] = {}
    cut_dir = run_dir / "cuts"
    cut_dir.mkdir()
    machine = Machine(image, cut_dir, new_overlay(image, cut_dir / "disk.qcow2"), None)
    cuts: list[Cut] = []
    boots: list[float] = []
    try:
        boots.append(machine.boot())
        # the table's own unit has no readers here: the cut game runs on the simulated table, as root
        # synced: a cut moments after the disable could leave the unit enabled on the disk, and a unit started
        # at the next boot holds the events port the cut game writes to (start_game stops it again anyway)
        machine.sh("systemctl disable --now ecarte-table >/dev/null 2>&1; sync; "
                   f"mkdir -p {CUTS} && sed -e 's/^sight = \"partial\"/sight = \"full\"/' "
                   f"{VENV}/lib/python3*/site-packages/hardware/tables/simulated.toml > {CUT_TABLE} "
                   f"|| cp {GUEST_REPO}/hardware/tables/simulated.toml {CUT_TABLE}; sync", timeout=120)
        # the table file synced too: a cut before ext4's commit left it empty (a real cut's effect on
        # the harness's own file: "the table needs a [pads] section", the next game never started)
        for index in range(count):
            mark = len(machine.events)
            start_game(machine, index, lines, pace, sync)
            wait_for_game(machine, index, mark)
            after = rng.uniform(0, len(lines) * pace * 0.8)
            time.sleep(after)
            machine.cut()
            acknowledged = _game_events("\n".join(line for _, line in machine.events[mark:]))
            boots.append(machine.boot())
            held, lost, wrong = after_cut(machine, index, lines, acknowledged, expected)
            cut = Cut(index, after, len(acknowledged), held, not wrong, wrong or "ok", lost)
            cuts.append(cut)
            say(f"cut {index + 1}/{count}: {after:.1f} s after the first event, {len(acknowledged)} events "
                f"acknowledged, {held} lines in the journal: {cut.detail}")
    finally:
        machine.poweroff()
    figures["cut_boot_mean_s"] = sum(boots) / len(boots)
    return cuts, figures


def check_powercut(run_dir: Path, image: Image, count: int, seed: int, figures: dict[str, float],
                   sync: bool = True) -> str:
    cuts, cut_figures = power_cuts(image, run_dir, count, seed, sync=sync)
    figures.update(cut_figures)
    figures["cuts"] = len(cuts)
    figures["cuts_acknowledged_events"] = sum(c.acknowledged for c in cuts)
    figures["cuts_lost_events"] = sum(c.lost for c in cuts)
    (run_dir / "cuts.json").write_text(json.dumps([c.__dict__ for c in cuts], indent=1))
    failed = [c for c in cuts if not c.ok]
    summary = "; ".join(f"#{c.index + 1} at {c.after_s:.1f} s: {c.acknowledged} acked, {c.journal_lines} lines"
                        for c in cuts)
    if failed:
        raise CheckFailed(f"{len(failed)} of {len(cuts)} cuts lost or broke something: "
                          + "; ".join(f"#{c.index + 1}: {c.detail}" for c in failed) + f" ({summary})")
    return (f"{len(cuts)} cuts, {figures['cuts_acknowledged_events']:.0f} acknowledged events, none lost; "
            f"journal check ok and the game played on to the uncut game's end each time ({summary})")


CHECK_FUNCTIONS: dict[str, Callable[[Run], str]] = {
    "boot": check_boot, "readers": check_readers, "latency": check_latency, "buttons": check_buttons,
    "oled": check_oled, "deviceallow": check_deviceallow, "doctor": check_doctor, "watchdog": check_watchdog,
    "hub": check_hub,
}


def project_python(argv: list[str]) -> str | None:
    """What keeps this Python from running the harness ('' when nothing): the host's side (the chips, the
    table file's tags, the panel's decoder, the uncut game) is the project's own code, with nfcpy and luma.
    A Python without them (``sudo python3`` where they are in the checkout's .venv) is swapped for the
    checkout's .venv at once, not 15 minutes later when the image is configured (arm64's, 2026-12-06)."""
    try:
        import luma.core  # noqa: F401
        import nfc  # noqa: F401
    except ImportError as exc:
        venv = ROOT / ".venv" / "bin" / "python"
        if venv.exists() and Path(sys.executable).absolute() != venv.absolute():
            with contextlib.suppress(OSError):  # it cannot be run: said below
                os.execv(str(venv), [str(venv), str(Path(__file__).resolve()), *argv])
        return (f"{exc}: run it with the project's Python (.venv/bin/python, made by `bash scripts/setup.sh "
                f"tests`), not {sys.executable}")
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--json", type=Path, help="write every check's result and the figures to this file")
    parser.add_argument("--arch", choices=tuple(GUESTS), default="amd64",
                        help="the guest's architecture (arm64: under TCG, checks 1-4 and the hub, no power cuts)")
    parser.add_argument("--only", action="append", choices=ALL_CHECKS, help="run only these checks")
    parser.add_argument("--i2c-stub", choices=("patched", "debian"), default="patched",
                        help="debian: Debian's own (SMBus only) i2c-stub swapped in after the boot, the unit started "
                             "again on it (the oled check then fails: the table leaves its display out)")
    parser.add_argument("--cuts", type=int, default=3, help="power cuts (default %(default)s; 0: none)")
    parser.add_argument("--no-journal-sync", action="store_true",
                        help="TEST ONLY: the cut games' journals wait for the disk nowhere "
                             f"({NO_SYNC}=1): the powercut check must then find acknowledged events lost")
    parser.add_argument("--seed", type=int, default=None, help="the cuts' random moments (default: from the time)")
    parser.add_argument("--keep", action="store_true", help="keep the run's folder (overlays, console logs)")
    args = parser.parse_args(argv)
    if args.i2c_stub == "debian" and args.arch != "amd64":
        parser.error(f"--i2c-stub debian: Debian's {args.arch} kernel has no i2c-stub of its own")
    wrong = project_python(sys.argv[1:] if argv is None else argv)
    if wrong:
        print(f"vm_test: {wrong}", file=sys.stderr)
        return 2
    started = time.monotonic()
    reason = why_not(args.arch)
    if reason is not None:
        print(f"vm_test: cannot run here: {reason}")
        return CANNOT_RUN
    wanted = [c for c in checks(args.arch)
              if (not args.only or c in args.only) and (c != "powercut" or args.cuts > 0)]
    seed = args.seed if args.seed is not None else int(time.time())
    results: list[Result] = []
    figures: dict[str, float] = {}
    run_dir: Path | None = None
    chips: Chips | None = None
    machine: Machine | None = None

    def record(name: str, work: Callable[[], str]) -> bool:
        t = time.monotonic()
        try:
            detail, ok = work(), True
        except (CheckFailed, TimeoutError, subprocess.TimeoutExpired, ValueError, KeyError, OSError) as exc:
            detail, ok = str(exc), False
        results.append(Result(name, ok, time.monotonic() - t, detail))
        print(f"check {name}: {'ok' if ok else 'FAIL'} ({time.monotonic() - t:.0f} s) {detail}", flush=True)
        return ok

    try:
        t = time.monotonic()
        base = base_root(args.arch)
        figures["guest_s"] = time.monotonic() - t
        t = time.monotonic()
        image, image_figures = table_image(base, args.arch)
        figures.update(image_figures)
        figures["image_s"] = time.monotonic() - t
        run_dir = Path(tempfile.mkdtemp(prefix="run-", dir=CACHE))
        in_table = [c for c in wanted if c != "powercut"]
        if in_table:
            chips = Chips(run_dir / "chips")
            machine = Machine(image, run_dir, new_overlay(image, run_dir / "disk.qcow2"), chips)
            figures["boot_to_agent_s"] = machine.boot()
            if args.i2c_stub == "debian":
                say(f"Debian's i2c-stub swapped in: {use_debians_stub(machine)}")
            run = Run(machine, chips, figures)
            for name in in_table:
                record(name, lambda check=CHECK_FUNCTIONS[name]: check(run))  # type: ignore[misc]
            machine.poweroff()
            chips.close()
        if "powercut" in wanted:
            record("powercut", lambda: check_powercut(run_dir, image, args.cuts, seed, figures,
                                                      sync=not args.no_journal_sync))
    except CannotRun as exc:
        print(f"vm_test: cannot run here: {exc}")
        return CANNOT_RUN
    except (CheckFailed, TimeoutError, subprocess.TimeoutExpired, OSError) as exc:
        results.append(Result("setup", False, time.monotonic() - started, str(exc)))
        print(f"check setup: FAIL {exc}", flush=True)
    finally:
        if machine is not None:
            machine.poweroff()
        if chips is not None:
            chips.close()
        if run_dir is not None:
            if args.keep:
                say(f"the run's folder is kept in {run_dir}")
            else:
                shutil.rmtree(run_dir, ignore_errors=True)
        figures["total_s"] = time.monotonic() - started
        print(f"vm_test: {figures['total_s']:.0f} s (" + ", ".join(f"{k} {v:.3g}" for k, v in figures.items()
                                                               if k != "total_s") + ")", flush=True)
        if args.json is not None:
            args.json.write_text(json.dumps({"figures": figures, "seed": seed, "arch": args.arch,
                                             "journal_sync": not args.no_journal_sync,
                                             "accelerator": accelerator(args.arch)[1],
                                             "checks": [r.__dict__ for r in results]}, indent=1))
    return 0 if results and all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
