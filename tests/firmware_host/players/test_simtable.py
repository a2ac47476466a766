"""The simulated table (``firmware_host/players/simtable.py``): real pads on emulated PN532s, stacks
laid and lifted as people lay and lift them."""

from __future__ import annotations

import queue

import pytest

from drivers.device_events import DeviceEvent
from firmware_host.players.simtable import SimulatedTable, sim_uid
from hardware.table import simulated_table

WAIT = 15.0  # seconds: generous, for a loaded two-core machine


def test_simulated_table_stacks(wait_for) -> None:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    with SimulatedTable(simulated_table(), events=events, buttons=False, miss=0.0,
                        depth={"hand.A": 3}) as table:
        assert table.simulators["hand.A"].depth == 3 and table.simulators["hand.B"].depth == 2
        assert table.place_stack("hand.A", ["KS", "QH", "7C"]) == [sim_uid(c) for c in ("KS", "QH", "7C")]
        assert all(table.wait_seen("hand.A", card, timeout=WAIT) for card in ("KS", "QH", "7C"))
        table.place_stack("hand.B", ["8D", "9D", "TD"])  # depth 2: the top card unseen
        assert table.wait_seen("hand.B", "9D", timeout=WAIT)
        assert table.on_pad("hand.B") == ["8D", "9D", "TD"]
        assert not table.wait_seen("hand.B", "TD", timeout=0.3)
        assert table.lift_top("hand.A") == "7C"
        wait_for(lambda: sim_uid("7C") not in table.pads["hand.A"].present, "7C gone from hand.A")  # type: ignore[index]
        assert table.wait_seen("hand.A", "QH", timeout=WAIT)
        assert table.lift_all("hand.A") == ["KS", "QH"]
        assert table.lift_top("hand.A") is None
        assert table.wait_seen("hand.A", None, timeout=WAIT)
    with pytest.raises(ValueError, match="no simulated pad"):
        SimulatedTable(simulated_table(), events=events, buttons=False, depth={"centre": 3})
    with SimulatedTable(simulated_table(), events=events, buttons=False, depth=4) as table:
        assert {sim.depth for sim in table.simulators.values()} == {4}
