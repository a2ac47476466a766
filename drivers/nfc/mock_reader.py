"""A reader that lists what a test lays on it: no port, no pty, no thread.

What gpiozero's ``MockFactory`` is to a button, :class:`MockReader` is to a pad: it
stands at the :class:`~drivers.nfc.reader.Reader` seam, so the pad's own logic
(:class:`~drivers.nfc.pad_contents.PadContents`: debounce, stacks, identification;
:class:`~drivers.nfc.pad.Pad`: back-off) is tested on its own. Nothing of the PN532 is
modelled here: the end-to-end tests run nfcpy against :mod:`drivers.nfc.pn532sim`.

    >>> reader = MockReader()
    >>> reader.lay("04A224B2C31D80", text="ecarte:KS")
    >>> reader.poll(), reader.read_text("04A224B2C31D80")
    (('04A224B2C31D80',), 'ecarte:KS')
"""

from __future__ import annotations

import errno
from typing import TYPE_CHECKING

from drivers.nfc.originality import TagFacts

if TYPE_CHECKING:
    from drivers.nfc.reader import Inquiry


class MockReader:
    """Lists the tags laid on it, bottom first (as many as its ``depth`` reads).

    :param depth: how many tags of the stack it lists, counted from the bottom.
    """

    def __init__(self, *, depth: int = 10) -> None:
        self.depth = depth
        self.stack: list[str] = []
        """UIDs on the reader, bottom first."""
        self.texts: dict[str, str] = {}
        """UID → its NDEF text record."""
        self.facts: dict[str, TagFacts | None] = {}
        """UID → what it answers to ``read_facts`` (absent: no answer)."""
        self.polls = 0
        """Polls answered so far."""
        self.text_reads: list[str] = []
        """UIDs whose NDEF record was read, in order."""
        self.closed = False
        self._failing = 0

    def lay(self, *uids: str, text: str | None = None) -> None:
        """Lay tags on top of the stack (with ``text``: each carries that NDEF text)."""
        for uid in uids:
            if uid not in self.stack:
                self.stack.append(uid)
            if text is not None:
                self.texts[uid] = text

    def lift(self, *uids: str) -> None:
        """Take tags off, wherever they lie (all of them when none is named)."""
        self.stack = [uid for uid in self.stack if uids and uid not in uids]

    def fail(self, polls: int = 1) -> None:
        """Make the next ``polls`` polls raise ``OSError(EIO)``, as a reader that stops answering."""
        self._failing += polls

    def poll(self, wait: float = 0.0, *, ask: Inquiry | None = None) -> tuple[str, ...]:
        """The UIDs the reader lists now (``wait`` is ignored: it never blocks; ``ask`` too:
        :meth:`read_facts` answers at any time)."""
        if self._failing:
            self._failing -= 1
            raise OSError(errno.EIO, "mock reader: no answer")
        self.polls += 1
        return tuple(self.stack[: self.depth])

    def interrupt(self) -> None:
        """Nothing waits: nothing to interrupt."""

    def read_text(self, uid: str) -> str | None:
        self.text_reads.append(uid)
        return self.texts.get(uid) if uid in self.stack else None

    def write_text(self, uid: str, text: str, *, password: bytes | None = None) -> None:
        self.texts[uid] = text

    def read_facts(self, uid: str) -> TagFacts | None:
        return self.facts.get(uid)

    def close(self) -> None:
        self.closed = True


class MockReaders:
    """A pad's ``open_reader``: one :class:`MockReader` per path, made at first use.

    :param fail_opens: how many opens fail (``OSError(ENOENT)``) before they succeed.
    """

    def __init__(self, *, fail_opens: int = 0) -> None:
        self.readers: dict[str, MockReader] = {}
        self.opens = 0
        self.fail_opens = fail_opens

    def __call__(self, path: str) -> MockReader:
        self.opens += 1
        if self.fail_opens > 0:
            self.fail_opens -= 1
            raise OSError(errno.ENOENT, f"mock reader {path}: not there")
        return self.reader(path)

    def reader(self, path: str) -> MockReader:
        """The reader at ``path`` (made now if it is new)."""
        return self.readers.setdefault(path, MockReader())
