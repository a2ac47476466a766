"""Under load the demo printed about 100 ``ERROR nfc.clf.pn532 … waiting for ack`` lines
for frames nfcpy then sent again. A retried frame is not an error: counted, logged at DEBUG."""

from __future__ import annotations

import logging

import pytest

from drivers.nfc.reader import retried_frames


@pytest.mark.parametrize("name", ["nfc.clf.pn532", "nfc.clf.pn53x"])
def test_a_retried_frame_is_counted_not_logged_as_an_error(caplog: pytest.LogCaptureFixture, name: str) -> None:
    before = retried_frames()
    with caplog.at_level(logging.INFO):
        logging.getLogger(name).error("input/output error while waiting for ack")  # as nfcpy's pn53x.py says it
        logging.getLogger(name).error("the reader's firmware is wrong")  # any other error still shows
    assert retried_frames() == before + 1
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == [
        "the reader's firmware is wrong"]


def test_with_debug_on_the_retry_is_still_there_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="nfc.clf.pn532"):
        logging.getLogger("nfc.clf.pn532").error("missing ack frame")
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [("DEBUG", "missing ack frame")]
