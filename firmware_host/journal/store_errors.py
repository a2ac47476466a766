"""The journal's errors: all are ``OSError`` (a file that cannot be used), each names the file."""

from __future__ import annotations

from typing import Any


class JournalError(OSError):
    """The journal cannot be opened or written (the message names the file; ``msgid`` and ``values``,
    where given, word it for a person: :meth:`firmware_host.errors.BadInput.of`)."""

    def __init__(self, message: str, *, msgid: str | None = None, **values: Any) -> None:
        super().__init__(message)
        self.msgid = msgid
        self.values = values


class JournalBusy(JournalError):
    """Another service holds the journal (the message says which process)."""


class JournalWriteError(JournalError):
    """A write failed (disk full, I/O error, the file locked by another): nothing of it was kept;
    it may be tried again. ``full``: the disk (or the file's size limit) is full, and only then."""

    def __init__(self, message: str, *, full: bool = False) -> None:
        super().__init__(message)
        self.full = full


class JournalDamaged(JournalError):
    """The journal is not what was written: ``problems`` says what is wrong, one line each."""

    def __init__(self, path: str, problems: list[str], *, opening: bool = False) -> None:
        self.problems = problems
        head = f"cannot open the journal {path}: it is damaged" if opening else f"the journal {path} is damaged"
        super().__init__(f"{head}: " + "; ".join(problems))
