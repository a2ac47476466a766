"""Each tag's originality, asked when it arrives and remembered while it lies there, for every pad of a table.

The pads share one :class:`OriginalityCheck`: the first pad that sees a tag asks it for its
``READ_SIG`` and, unless that gave a signature, its ``GET_VERSION``, while the listing that found
it holds it (:meth:`drivers.nfc.pn532_reader.NfcpyReader.poll`; else
:meth:`~drivers.nfc.pn532_reader.NfcpyReader.read_facts`), and hands the answers to ``judge``
(:func:`hardware.ntag_signature.judge` with the table's trusted key); the verdict :attr:`Origin.GENUINE` is
remembered by UID while the tag stays on the pad: the pad that sees it leave calls
:meth:`OriginalityCheck.forget` with its UID, so the next arrival of that UID (the genuine card
laid again, or a clone of it) is asked again. The pads report the verdict (``Sighting.origin``);
they do not act on it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from drivers.device_events import Origin

logger = logging.getLogger(__name__)

@dataclass(frozen=True, slots=True)
class TagFacts:
    """What a tag answered about itself: ``GET_VERSION`` (8 bytes; ``None``: no answer, or a NAK,
    or not asked because ``READ_SIG`` gave a signature that is not zeros) and ``READ_SIG`` (the
    32-byte originality signature; ``None``: no answer)."""

    version: bytes | None
    signature: bytes | None


class OriginalityCheck:
    """UID → originality verdict, asked once and remembered until forgotten; thread-safe.

    :param judge: ``judge(uid, facts)`` → the verdict; ``facts`` is ``None`` for a tag that
        did not answer (see :func:`hardware.ntag_signature.judge`).
    :param attempts: tries at a tag that does not answer (it left, couples badly, its answers came
        garbled) before the log says so (at INFO) and it is asked less often: then once every
        ``backoff`` + 1 polls (silence is no verdict: it is asked for as long as it lies there, but a
        dead sticker must not slow the pad's polls, each ask costing the reader's retries).
    :param backoff: polls skipped between two asks of a tag that did not answer ``attempts`` times.
    :param remember: remember ``genuine`` verdicts while the tag stays (the pads forget a tag
        that left); ``False``: ask at every arrival on every pad, even of a tag still lying on
        another pad. Other verdicts are never remembered: a genuine tag
        whose UID a copy shares is not refused for the rest of the session.
    :raises ValueError: ``attempts`` below 1.
    """

    def __init__(
        self, judge: Callable[[str, TagFacts | None], Origin], *, attempts: int = 3, remember: bool = True,
        backoff: int = 4,
    ) -> None:
        if attempts < 1:
            raise ValueError(f"attempts must be >= 1, not {attempts}")
        self._judge = judge
        self._attempts = attempts
        self._remember = remember
        self._lock = threading.Lock()
        self._verdicts: dict[str, Origin] = {}
        self._failures: dict[str, int] = {}
        self._backoff = backoff
        self._skipped: dict[str, int] = {}  # UID → polls skipped since it was last asked

    def verdict(self, uid: str) -> Origin | None:
        """The remembered verdict on tag ``uid``, ``None`` if none is remembered."""
        with self._lock:
            return self._verdicts.get(uid)

    def due(self, uid: str) -> bool:
        """Whether tag ``uid`` is to be asked at this poll: not once it failed ``attempts`` times, but
        every ``backoff`` + 1 polls (:meth:`check` counts the polls skipped)."""
        with self._lock:
            return self._failures.get(uid, 0) < self._attempts or self._skipped.get(uid, 0) >= self._backoff

    def check(self, uid: str, read: Callable[[], TagFacts | None]) -> Origin | None:
        """The verdict on tag ``uid``: remembered, or asked with ``read`` now.

        :returns: the verdict; ``None`` when the tag gave no valid answer (ask again at the next
            poll: a tag that does not answer is neither refused nor accepted, it waits for evidence).
        :raises OSError: as ``read`` (the reader failed).
        """
        with self._lock:
            known = self._verdicts.get(uid)
        if known is not None:
            return known
        if not self.due(uid):
            with self._lock:
                self._skipped[uid] = self._skipped.get(uid, 0) + 1
            return None  # not asked at this poll: it did not answer the last times
        with self._lock:
            self._skipped.pop(uid, None)
        facts = read()
        with self._lock:
            if facts is None:
                failures = self._failures[uid] = self._failures.get(uid, 0) + 1
                if failures == self._attempts:
                    logger.info("tag %s: no valid answer after %d tries (asked again)", uid, failures)
                return None
            self._failures.pop(uid, None)
            verdict = self._judge(uid, facts)
            if self._remember and verdict == Origin.GENUINE:
                self._verdicts[uid] = verdict
        logger.info("tag %s: %s", uid, verdict)
        return verdict

    def forget(self, uid: str | None = None) -> None:
        """Forget tag ``uid`` (it left the pad: whatever arrives next with its UID is asked
        again), or every tag (``None``: a new session)."""
        with self._lock:
            if uid is None:
                self._verdicts.clear()
                self._failures.clear()
                self._skipped.clear()
            else:
                self._verdicts.pop(uid, None)
                self._failures.pop(uid, None)
                self._skipped.pop(uid, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._verdicts)
