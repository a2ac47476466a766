"""The seam between a pad and its reader: what a :class:`~drivers.nfc.pad.Pad` needs of a reader
(:class:`Reader`), what a poll asks of the tags it lists (:class:`Inquiry`), and what a failing reader
raises (:data:`READER_ERRORS`, :class:`TagWriteError`).

The real reader is :class:`drivers.nfc.pn532_reader.NfcpyReader` (a PN532 on nfcpy); the tests' is
:class:`drivers.nfc.mock_reader.MockReader`.
"""

from __future__ import annotations

import termios
from typing import Protocol

import nfc.clf
import nfc.clf.pn53x

from drivers.device_errors import DriverError
from drivers.nfc.originality import TagFacts


class TagWriteError(DriverError, OSError):
    """A tag could not be written (gone from the pad, read-only, too small)."""


class Inquiry(Protocol):
    """What a poll asks of the tags it lists (:meth:`drivers.nfc.pn532_reader.NfcpyReader.poll`'s
    ``ask``): which to ask for their originality (``READ_SIG``, ``GET_VERSION`` if no signature came)
    while the listing holds them, and who hears each answer."""

    def wants(self, uid: str) -> bool:
        """Whether to ask tag ``uid`` (just listed) now."""

    def answered(self, uid: str, facts: TagFacts) -> bool:
        """Tag ``uid`` answered ``facts`` (called on the polling thread while the poll holds the
        reader: it must not use the reader); whether they were taken (else
        :meth:`Reader.read_facts` gives them until the next poll)."""


class AskEvery:
    """An :class:`Inquiry` that asks every tag a poll lists, once, and keeps what each answered
    (``facts``): the probe's cards in play, the reselection bench and its tests. A pad asks only the
    tags new on it; this asks those laid before too, so that a stack's first target, which the chip
    halted to find the second, is selected again at every poll that lists it."""

    def __init__(self) -> None:
        self.facts: dict[str, TagFacts] = {}

    def wants(self, uid: str) -> bool:
        return uid not in self.facts

    def answered(self, uid: str, facts: TagFacts) -> bool:
        self.facts[uid] = facts
        return True


class Reader(Protocol):
    """What a pad needs from its reader (one PN532, say)."""

    def poll(self, wait: float = 0.0, *, ask: Inquiry | None = None) -> tuple[str, ...]:
        """The UIDs (upper-case hex) of every tag the reader can read, in the order listed.

        With ``wait`` > 0 and nothing on the reader, wait up to that many
        seconds for a tag to come. ``ask``: which tags to ask for their
        ``GET_VERSION`` and ``READ_SIG`` while the poll holds them, and who hears
        the answers (a reader may ignore it; :meth:`read_facts` then asks the tag itself).
        """

    def interrupt(self) -> None:
        """Make a poll that is waiting return ``None`` soon (any thread)."""

    def read_text(self, uid: str) -> str | None:
        """The NDEF text record of card ``uid``, or ``None`` if it has none."""

    def write_text(self, uid: str, text: str, *, password: bytes | None = None) -> None:
        """Write an NDEF text record to card ``uid`` (authenticating first with ``password``)."""

    def read_facts(self, uid: str) -> TagFacts | None:
        """Card ``uid``'s ``GET_VERSION`` and ``READ_SIG`` answers, ``None`` if it did not answer
        (the answers the last poll got, if it asked the card: ``ask``)."""

    def close(self) -> None:
        """Let the reader go. Safe to call twice."""


READER_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    termios.error,
    nfc.clf.Error,
    nfc.clf.pn53x.Chipset.Error,
    DriverError,
)
"""What a failing reader raises (I/O errors, nfcpy and PN532 errors)."""
