"""The journal's lock file and its seal.

The service holds the lock file beside the journal (``journal.sqlite.lock``) while it runs
(``flock``); the *seal* written at its start records after every write the journal's last row,
its link, how many rows and how many input lines it holds, so that a journal that lost rows
(a ``-wal`` removed after a kill, a copy of an older file) is seen.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path

from catalogue.phrase import Phrase, log_said, os_words
from firmware_host.journal.store_errors import JournalBusy, JournalError

logger = logging.getLogger(__name__)

_SEAL_BYTES = 160  # the seal is rewritten in place, padded to this size


@dataclass(frozen=True, slots=True)
class Seal:
    """What the lock file says of the journal: its last row (and that row's link), how many
    rows and input lines it holds, who wrote it."""

    rows: int
    lines: int
    pid: int
    since: float
    count: int | None = None
    link: int | None = None


def lock_path(path: str) -> Path:
    """The lock file (and seal) of the journal at ``path``: beside the file itself (a symlink's
    target), whatever path names it."""
    return Path(os.path.realpath(path) + ".lock")


def read_seal(path: str) -> Seal | None:
    """The seal beside the journal at ``path``, or None (none yet, or unreadable)."""
    try:
        data = json.loads(lock_path(path).read_bytes().decode().strip("\0") or "null")
        return Seal(int(data["rows"]), int(data["lines"]), int(data["pid"]), float(data["since"]),
                    None if data.get("count") is None else int(data["count"]),
                    None if data.get("link") is None else int(data["link"]))
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def write_seal(fd: int, seal: Seal) -> None:
    """Write ``seal`` in place at the start of the lock file ``fd`` (a failure is logged: the seal
    helps find damage; the journal is what counts)."""
    body = {"pid": seal.pid, "since": seal.since, "rows": seal.rows, "lines": seal.lines, "count": seal.count,
            "link": seal.link}
    data = json.dumps(body).encode().ljust(_SEAL_BYTES - 1) + b"\n"
    try:
        os.pwrite(fd, data, 0)
    except OSError as exc:
        log_said(logger, logging.WARNING, Phrase.of("log.seal", why=os_words(exc)))


def lock_file(path: str) -> int:
    """Hold the journal's database file itself (``flock`` on its inode, whatever path, symlink or
    hard link names it) for this process; the fd. SQLite's own locks are POSIX record locks, which
    an ``flock`` neither takes nor waits for.

    :raises JournalBusy: when another process holds it.
    """
    return _flock(path, path, os.O_NONBLOCK, "journal.cannot_open")


def hold(path: str, *, file: bool = True) -> tuple[int | None, int]:
    """Hold the journal at ``path`` for this process: its database file (:func:`lock_file`; not
    ``file``: none) and its lock file (:func:`take_lock`); both fds. Neither is held when it fails.

    :raises JournalBusy: when another process holds either.
    """
    held = lock_file(path) if file else None
    try:
        return held, take_lock(path)
    except BaseException:
        if held is not None:
            os.close(held)
        raise


def _busy(path: str) -> JournalBusy:
    seal = read_seal(path)
    since = time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(seal.since)) if seal is not None else ""
    return JournalBusy(Phrase.of("journal.busy", path=path, who=Phrase.of("journal.process", pid=seal.pid, since=since)
                                 if seal is not None else Phrase.of("journal.another_process")))


def take_lock(path: str) -> int:
    """Hold the journal at ``path`` for this process (``flock`` on its lock file); the file's fd.

    :raises JournalBusy: naming the process that holds it.
    """
    return _flock(lock_path(path), path, 0, "journal.cannot_open_lock")


def _flock(file: str | os.PathLike[str], journal: str, flags: int, cannot_open: str) -> int:
    """Open ``file`` (created if need be) and hold an exclusive ``flock`` on it; the fd (``cannot_open``:
    the message id that says the file could not be opened: the journal's, its lock's).

    :raises JournalBusy: naming the process that holds ``journal``.
    :raises JournalError: when the file cannot be opened or locked.
    """
    try:
        fd = os.open(file, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | flags, 0o640)
    except OSError as exc:
        raise JournalError(Phrase.of(cannot_open, path=str(file), reason=exc)) from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise _busy(journal) from None
    except OSError as exc:
        os.close(fd)
        raise JournalError(Phrase.of("journal.cannot_lock", path=journal, reason=exc)) from exc
    return fd
