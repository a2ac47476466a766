"""A write to the journal: all of it, or nothing of it."""

from __future__ import annotations

import contextlib
import sqlite3
from types import TracebackType
from typing import Protocol

from firmware_host.journal.store_errors import JournalWriteError


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
            raise JournalWriteError(f"cannot write the journal {self.journal.path}: {error}") from error
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
                raise JournalWriteError(f"cannot write the journal {self.journal.path}: {error}") from error
            self.journal._committed()
            return
        self.journal._rolled_back()
        with contextlib.suppress(sqlite3.Error):
            self.db.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise JournalWriteError(f"cannot write the journal {self.journal.path}: {exc}") from exc
