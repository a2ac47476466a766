"""A write to the journal: all of it, or nothing of it."""

from __future__ import annotations

import contextlib
import sqlite3
from types import TracebackType
from typing import Protocol

from firmware_host.journal.store_errors import JournalWriteError


def write_error(path: str, error: sqlite3.Error) -> JournalWriteError:
    """The :class:`JournalWriteError` of a failed write: ``full`` only for SQLite's ``SQLITE_FULL``
    (a full disk, or a file at its size limit)."""
    code = getattr(error, "sqlite_errorcode", None)
    full = isinstance(code, int) and code & 0xFF == sqlite3.SQLITE_FULL
    from catalogue.phrase import Phrase

    why = Phrase.of("os.ENOSPC") if full else str(error)  # SQLite's own words for any other
    return JournalWriteError(Phrase.of("journal.cannot_write", path=path, why=why), full=full)


class Owner(Protocol):
    """What a transaction tells of its end: the journal that began it."""

    path: str

    @property
    def db(self) -> sqlite3.Connection: ...

    def _committed(self) -> None: ...

    def _rolled_back(self) -> None: ...


class Transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` on an error), telling ``journal`` which it was;
    an SQLite error becomes :class:`JournalWriteError` (nothing of the transaction was kept)."""

    def __init__(self, journal: Owner) -> None:
        self.journal = journal
        self.db = journal.db

    def __enter__(self) -> sqlite3.Connection:
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise write_error(self.journal.path, error) from error
        return self.db

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            try:
                self.db.execute("COMMIT")
            except sqlite3.Error as error:
                self.journal._rolled_back()
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
                raise write_error(self.journal.path, error) from error
            self.journal._committed()
            return
        self.journal._rolled_back()
        with contextlib.suppress(sqlite3.Error):
            self.db.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise write_error(self.journal.path, exc) from exc
