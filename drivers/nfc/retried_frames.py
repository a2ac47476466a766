"""The PN532 frames nfcpy sends again, counted: a retried frame is no error for the players.

nfcpy's PN53x chipset logs a frame that failed (no ACK in time on a busy machine, a garbled answer)
at ERROR, and the pad sends it again at its next poll. :data:`RETRIED_FRAMES`, a filter on nfcpy's
loggers installed when this module is imported, counts them and takes them down to DEBUG;
:class:`CountingLog` counts them for one reader (:attr:`drivers.nfc.pn532_reader.NfcpyReader.frames`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from engine.message import Count, Phrase

RETRIED = ("input/output error while waiting for ack", "invalid frame start sequence", "missing ack frame",
           "frame data checksum error", "frame lenght checksum error", "frame lenght value mismatch")
"""What nfcpy's PN53x chipset logs for a frame that failed and that the pad sends again at its next
poll: no ACK in time (a busy machine), a garbled answer (nfcpy's own spelling of "length")."""


def is_retry(level: int, message: object) -> bool:
    """Whether nfcpy logged a retried frame (:data:`RETRIED`, above DEBUG)."""
    return level > logging.DEBUG and message in RETRIED


@dataclass(frozen=True, slots=True)
class Frames:
    """A reader's command frames: ``sent`` in all, of which ``retried`` failed and were sent again.

    >>> str(Frames(4_210, 12))
    '12 frames retried of 4,210'
    """

    sent: int = 0
    retried: int = 0

    def __add__(self, other: Frames) -> Frames:
        return Frames(self.sent + other.sent, self.retried + other.retried)

    def __str__(self) -> str:
        return f"{self.retried:,} frame{'' if self.retried == 1 else 's'} retried of {self.sent:,}"

    @property
    def words(self) -> Phrase:
        """The frames as a message of the catalogue and its values (``log.frames``, the numbers' digits
        grouped as the reader's language groups them): a console above the drivers says them in its
        language (:class:`catalogue.phrase.SaidFormatter`)::

            >>> Frames(4_210, 12).words
            Phrase(msgid='log.frames', values=(('n', 12), ('retried', Count(value=12)), ('sent', Count(value=4210))))
        """
        return Phrase.of("log.frames", n=self.retried, retried=Count(self.retried), sent=Count(self.sent))


class RetriedFrames(logging.Filter):
    """nfcpy's PN532 driver logs a frame that failed and will be sent again (a late ACK on a busy
    machine, a garbled answer) as an ERROR ("input/output error while waiting for ack"). A retried
    frame is not an error for the players: it is counted (:data:`RETRIED_FRAMES`, :func:`retried_frames`;
    each reader's own in
    :attr:`drivers.nfc.pn532_reader.NfcpyReader.frames`) and logged at DEBUG only; a reader that really goes
    offline is said once by the service."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if is_retry(record.levelno, record.getMessage()):
            self.count += 1
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        return True


RETRIED_FRAMES = RetriedFrames()
"""The one filter on nfcpy's PN53x loggers (installed when this module is imported)."""
for _name in ("nfc.clf.pn532", "nfc.clf.pn53x"):
    logging.getLogger(_name).addFilter(RETRIED_FRAMES)


def retried_frames() -> int:
    """PN532 frames sent again since the start (nfcpy's "waiting for ack" errors, counted)."""
    return RETRIED_FRAMES.count


class CountingLog(logging.LoggerAdapter[logging.Logger]):
    """The logger nfcpy's chipset of one reader logs through: its retried frames counted for that
    reader (then logged on as ever: :data:`RETRIED_FRAMES` takes them down to DEBUG)."""

    def __init__(self, logger: logging.Logger) -> None:
        super().__init__(logger, {})
        self.retried = 0

    def log(self, level: int, msg: object, *args: Any, **kwargs: Any) -> None:
        if is_retry(level, msg):
            self.retried += 1
        super().log(level, msg, *args, **kwargs)
