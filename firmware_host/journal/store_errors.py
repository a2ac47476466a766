"""The journal's errors: all are ``OSError`` (a file that cannot be used), each names the file."""

from __future__ import annotations

from catalogue.phrase import Joined, Phrase, english


class JournalError(OSError):
    """The journal cannot be opened or written: its ``words`` name the file (a
    :class:`~catalogue.phrase.Phrase`, said in a person's language by
    :meth:`firmware_host.errors.BadInput.of`, its English the message; or the message alone)."""

    def __init__(self, words: Phrase | str) -> None:
        super().__init__(english(words))
        self.words = words


class JournalBusy(JournalError):
    """Another service holds the journal (the message says which process)."""


class JournalWriteError(JournalError):
    """A write failed (disk full, I/O error, the file locked by another): nothing of it was kept;
    it may be tried again. ``full``: the disk (or the file's size limit) is full, and only then."""

    def __init__(self, words: Phrase | str, *, full: bool = False) -> None:
        super().__init__(words)
        self.full = full


def write_words(exc: JournalWriteError) -> Phrase | str:
    """A failed write in words (``journal.cannot_write``: the file, and why: a full disk said as the
    catalogue says it, another SQLite error in SQLite's own words), for a console in its language."""
    return exc.words


class JournalDamaged(JournalError):
    """The journal is not what was written: ``problems`` says what is wrong, one line each. Said in a
    person's language (its :attr:`words`) with the command that saves what can be read: after a power cut
    this is the first thing a club reads."""

    def __init__(self, path: str, problems: list[str], *, opening: bool = False) -> None:
        self.problems = problems
        self.path = str(path)
        self.opening = opening
        head = f"cannot open the journal {path}: it is damaged" if opening else f"the journal {path} is damaged"
        super().__init__(f"{head}: " + "; ".join(problems))

    @property
    def words(self) -> Phrase:
        """What is wrong, that nothing was changed, and the salvage command."""
        from firmware_host.errors import invoked_as

        why = Joined(tuple(problem_words(problem) for problem in self.problems), "; ")
        head = Phrase.of("journal.damaged_open" if self.opening else "journal.damaged_found", path=self.path, why=why)
        return Phrase.of("error.journal_damaged", why=head, path=self.path, command=invoked_as())

    @words.setter
    def words(self, _: Phrase | str) -> None:
        """The words are made from the problems (:class:`JournalError` sets its own)."""


_SQLITE = {"file is not a database": "journal.not_sqlite", "database disk image is malformed": "journal.malformed"}
"""SQLite's words for a file it cannot read (``sqlite3.DatabaseError``) → the catalogue's."""


def problem_words(problem: str) -> Phrase | str:
    """One of the journal's problems in words: SQLite's refusal (a file that is no database, a database
    malformed); a row's problem as the journal words it (its numbers and names)."""
    if problem.startswith("SQLite: "):
        reason = problem.removeprefix("SQLite: ")
        msgid = _SQLITE.get(reason)
        return Phrase.of(msgid) if msgid is not None else Phrase.of("journal.sqlite", reason=reason)
    return problem
