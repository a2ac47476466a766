"""What the drivers' tests share: the queue a device reports to, and waiting for a simulator's polls.

Driver tests import nothing of ``hardware`` or ``firmware_host`` (as ``drivers/`` itself may not):
a pad's card names come from a plain mapping, as a registry's ``card_for`` would give them.
"""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterator

import pytest

from drivers.device_events import DeviceEvent
from drivers.nfc.pn532sim import Pn532Simulator
from drivers.nfc.tty import RawTty


@pytest.fixture
def events() -> queue.Queue[DeviceEvent]:
    """The queue the devices under test put their events on."""
    return queue.Queue()


@pytest.fixture
def port(sim: Pn532Simulator) -> Iterator[RawTty]:
    """A raw serial transport to ``sim`` (frames written and read byte for byte)."""
    transport = RawTty(sim.path)
    yield transport
    transport.close()


@pytest.fixture
def wait_polls(wait_for: Callable[..., None]) -> Callable[[Pn532Simulator, int], None]:
    """``wait_polls(sim, count)``: wait until the reader has polled ``count`` more times (on an
    empty or unreadable pad: one more waiting command)."""

    def wait(sim: Pn532Simulator, count: int) -> None:
        if not sim.readable:
            start = sim.stats.commands
            wait_for(lambda: sim.stats.commands > start, "one more command", interval=0.002)
            return
        start = sim.polls
        wait_for(lambda: sim.polls >= start + count, f"{count} more polls", interval=0.002)

    return wait
