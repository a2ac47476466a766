"""The simulator's port on this machine: its symlink in a private folder of the temporary directory, named
by the process that made it (the folders a killed process left are swept by the next simulator started),
and the rate its line runs at, as termios says it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import termios

FOLDER_PREFIX = "pn532sim-"
"""The simulators' folders (``/tmp/pn532sim-<pid>-<random>``, each holding a port's symlink)."""


def sweep_folders(directory: str | None = None) -> list[str]:
    """Remove the folders of simulators whose process is gone (killed before it could); those removed.

    A folder is known by its name, ``pn532sim-<pid>-...``: only a process that no longer exists
    loses its folders (another user's, or a live process's, are left alone).
    """
    base = directory or tempfile.gettempdir()
    removed: list[str] = []
    try:
        names = os.listdir(base)
    except OSError:
        return removed
    for name in names:
        pid_text = name[len(FOLDER_PREFIX):].split("-", 1)[0] if name.startswith(FOLDER_PREFIX) else ""
        if not pid_text.isdigit() or _alive(int(pid_text)):
            continue
        shutil.rmtree(os.path.join(base, name), ignore_errors=True)
        removed.append(name)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


_swept = False


def private_folder() -> str:
    """A new folder for a simulator's port (``/tmp/pn532sim-<pid>-<random>``); the first of a process
    sweeps what killed processes left first (:func:`sweep_folders`)."""
    global _swept
    if not _swept:  # once a process: what killed processes left
        _swept = True
        sweep_folders()
    return tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-")


def unlink(path: str) -> None:
    """Remove the port's symlink ``path`` (gone already: nothing to do)."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


_RATE_OF_SPEED = {
    getattr(termios, f"B{rate}"): rate
    for rate in (9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600)
}


def line_rate(fd: int) -> int | None:
    """The bits a second the terminal ``fd`` (either side of a pty) is set to, ``None`` if
    it cannot be told (closed, or a speed the PN532 does not have)."""
    try:
        return _RATE_OF_SPEED.get(termios.tcgetattr(fd)[5])
    except (termios.error, OSError):
        return None
