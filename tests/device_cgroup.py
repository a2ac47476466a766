"""A device cgroup that refuses one class of character devices: what a unit's ``DevicePolicy=closed``
does to a node its ``DeviceAllow=`` did not resolve when it started (``char-ttyUSB`` names nothing
until the USB-serial driver has registered ``ttyUSB`` in ``/proc/devices``).

The kernel's devices controller answers such an ``open()`` with EPERM, where a node's mode answers
EACCES (security/device_cgroup.c; systemd's ``DeviceAllow=`` is that controller, by a BPF program on
cgroup v2). Making one needs root and the cgroup v1 devices hierarchy; elsewhere the tests skip.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

DEVICES = Path("/sys/fs/cgroup/devices")


@contextlib.contextmanager
def refusing(major: int) -> Iterator[Callable[[], None]]:
    """A cgroup whose processes may not open character devices of ``major``; yields what a child
    runs before its program (``subprocess.run(..., preexec_fn=...)``) to be in it.

    :raises pytest.skip.Exception: not root, or no cgroup v1 devices controller.
    """
    if os.geteuid() != 0 or not (DEVICES / "devices.deny").exists():
        pytest.skip("a device cgroup needs root and the cgroup v1 devices controller")
    group = DEVICES / f"ecarte-test-{uuid.uuid4().hex[:12]}"
    group.mkdir()
    try:
        (group / "devices.deny").write_text(f"c {major}:* rwm\n")

        def enter() -> None:
            (group / "cgroup.procs").write_text(f"{os.getpid()}\n")

        yield enter
    finally:
        group.rmdir()  # its processes have ended: the test waited for them
