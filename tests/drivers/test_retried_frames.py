"""Under load the demo printed about 100 ``ERROR nfc.clf.pn532 … waiting for ack`` lines
for frames nfcpy then sent again. A retried frame is not an error: counted, logged at DEBUG, and
each pad's count said when the pads stop."""

from __future__ import annotations

import logging
import queue
from collections.abc import Callable

import pytest

from drivers.device_events import DeviceEvent, ReaderStatus
from drivers.nfc.pad import PadSet, PadTiming
from drivers.nfc.pn532sim import Pn532Simulator
from drivers.nfc.retried_frames import retried_frames

KS = "04A224B2C31D80"


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


def test_each_pads_retried_frames_are_counted_and_said_once_it_stops(
    sim: Pn532Simulator, events: queue.Queue[DeviceEvent], wait_for: Callable[..., None],
    wait_polls: Callable[[Pn532Simulator, int], None], caplog: pytest.LogCaptureFixture,
) -> None:
    """The retried frames were counted for the whole program and shown nowhere. Each pad counts its
    own (a frame without its ACK in time, a garbled answer), and when the pads stop one line at INFO
    says them all, where a maker looks (``journalctl -u ecarte-table``): "pad turnup: 4 frames retried
    of 130"."""
    timing = PadTiming(poll_interval=0.005, fault_limit=3)  # two failures in a row: retried, not offline
    caplog.set_level(logging.INFO)
    with Pn532Simulator() as quiet:
        pads = PadSet({"turnup": sim.path, "discard": quiet.path}, events=events, timing=timing)
        with pads:
            sim.place(KS)
            wait_for(lambda: KS in pads["turnup"].present and pads["discard"].online, "the card read")
            sim.ignore_commands(2)  # no ACK: nfcpy's "input/output error while waiting for ack"
            wait_for(lambda: pads["turnup"].frames.retried == 2, "the two frames without an ACK counted")
            wait_polls(sim, 3)  # a good poll between: two failures in a row, never three (offline)
            sim.corrupt_answers(2)  # a wrong data checksum: nfcpy's "frame data checksum error"
            wait_for(lambda: pads["turnup"].frames.retried == 4, "the two garbled answers counted")
            wait_polls(sim, 3)
            assert KS in pads["turnup"].present  # the card never left
        injected = sim.stats.dropped + sim.stats.corrupted
        turnup, discard = pads["turnup"].frames, pads["discard"].frames
        assert (injected, turnup.retried, discard.retried) == (4, 4, 0)
        assert (turnup.sent, discard.sent) == (sim.stats.commands, quiet.stats.commands)
    said = [r for r in caplog.records if r.name == "drivers.nfc.pad" and r.levelno == logging.INFO]
    assert [r.getMessage() for r in said] == [f"pad turnup: 4 frames retried of {turnup.sent:,}; "
                                              f"pad discard: 0 frames retried of {discard.sent:,}"]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
    assert not [e for e in list(events.queue) if isinstance(e, ReaderStatus) and not e.online]
