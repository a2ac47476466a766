"""What the two harnesses that install the table in a Debian root share (scripts/boot_test.py, the booted
unit under systemd-nspawn; scripts/vm_test.py, the table on a real kernel under qemu): their two failures,
a command that must succeed, one maker at a time of a cached thing, the checkout's files, and qemu-user
for a root of another architecture. Both import it from beside them (their own folder is on sys.path)."""

from __future__ import annotations

import contextlib
import fcntl
import platform
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
QEMU_USER = {"arm64": "qemu-aarch64-static"}


class CannotRun(Exception):
    """This machine cannot run the harness (not root, no debootstrap, no qemu...): said in one line."""


class CheckFailed(Exception):
    pass


def host_arch() -> str:
    """This machine's architecture in Debian's words."""
    return {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())


def run(command: list[str], *, timeout: float = 1800, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """``command`` run to its end; a failure is a CheckFailed with its exit status and the end of what it said."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False, **kwargs)
    if done.returncode != 0:
        raise CheckFailed(f"{shlex.join(command)}: exit {done.returncode}: {(done.stderr or done.stdout)[-2000:]}")
    return done


@contextlib.contextmanager
def cache_lock(cache: Path, name: str) -> Iterator[None]:
    """One run at a time makes a cached thing (runs of other sessions wait for it, then use it)."""
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def binfmt_ready(arch: str) -> None:
    """qemu-user registered with binfmt_misc for a foreign architecture (mounted and enabled if need be)."""
    name = {"arm64": "qemu-aarch64"}[arch]
    misc = Path("/proc/sys/fs/binfmt_misc")
    if not (misc / "register").exists():
        run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(misc)])
    if not (misc / name).exists() and shutil.which("update-binfmts"):
        run(["update-binfmts", "--enable", name])
    if not (misc / name).exists():
        raise CannotRun(f"binfmt_misc has no {name} (apt-get install qemu-user-static binfmt-support)")


def checkout_files() -> list[str]:
    """The checkout's files, sorted (tracked, and new ones not ignored): what a `git clone` or an `scp -r`
    brings."""
    try:
        done = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                              capture_output=True, check=True, timeout=60)
        return sorted(name for name in done.stdout.decode().split("\0") if name and (ROOT / name).is_file())
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", ".venv", "__pycache__", ".mypy_cache", ".ruff_cache", "build"}
        return sorted(str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
                      if p.is_file() and not skip.intersection(p.relative_to(ROOT).parts))
