"""A serial reader's port that will not open names its real cause: the user's groups (EACCES, the
node's mode) or a unit's device policy (EPERM, the kernel's device cgroup), never one for the other.

Both refusals are the kernel's own: a pseudo-terminal opened by a user its mode keeps out, and by a
process in a device cgroup that refuses its class (tests/device_cgroup.py), as systemd's
``DevicePolicy=closed`` does to a ``ttyUSB`` port whose driver loaded after the unit started.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from device_cgroup import refusing
from waiting import HANG_S

ROOT = Path(__file__).resolve().parents[2]
OPEN_READER = """
import sys
from drivers.device_errors import DevicePermissionError
from drivers.nfc.pn532_reader import NfcpyReader
try:
    NfcpyReader(sys.argv[1])
except DevicePermissionError as exc:
    print(exc.errno)
    print(exc.strerror)
"""


@pytest.fixture
def port() -> Iterator[str]:
    """A pseudo-terminal's slave path (root:tty, mode 0620): a serial port with nothing on it."""
    master, slave = os.openpty()
    try:
        yield os.ttyname(slave)
    finally:
        os.close(slave)
        os.close(master)


def _open_reader(path: str, preexec: object = None, wrapper: tuple[str, ...] = ()) -> tuple[int, str]:
    done = subprocess.run([*wrapper, sys.executable, "-c", OPEN_READER, path], capture_output=True, text=True,
                          timeout=HANG_S, cwd=ROOT, preexec_fn=preexec, check=False)  # type: ignore[arg-type]
    assert done.returncode == 0 and done.stdout, done.stdout + done.stderr
    code, message = done.stdout.split("\n", 1)
    return int(code), message.strip()


def test_a_port_the_device_policy_refuses_is_not_blamed_on_a_group(port: str) -> None:
    with refusing(os.major(os.stat(port).st_rdev)) as enter:
        code, message = _open_reader(port, enter)
    assert code == errno.EPERM
    assert "device policy" in message and "/etc/modules-load.d/ecarte-table.conf" in message
    assert "dialout" not in message


def test_a_port_its_mode_refuses_is_the_dialout_group(port: str) -> None:
    """The port another user's alone (mode 0600), opened by root without the capability to pass over
    a file's mode: the EACCES a user outside ``dialout`` meets."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("opening the port as one its mode keeps out needs root and setpriv")
    os.chown(port, 65534, 65534)
    os.chmod(port, 0o600)
    code, message = _open_reader(port, wrapper=("setpriv", "--bounding-set=-dac_override,-dac_read_search"))
    assert code == errno.EACCES
    assert "add the user to the dialout group" in message
