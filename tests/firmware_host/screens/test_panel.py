"""The panel (``firmware_host/screens/panel.py``): the table's displays, opened from its table file."""

from __future__ import annotations

import dataclasses

import pytest

from drivers.device_errors import DeviceNotFoundError


def test_a_table_whose_display_is_missing_referees_on_without_it(caplog: pytest.LogCaptureFixture) -> None:
    from firmware_host.screens.panel import open_panel
    from hardware.table import DisplayConfig, simulated_table

    table = simulated_table()
    missing = DisplayConfig(bus=97, address=0x3C, chip="ssd1306")
    broken = dataclasses.replace(table, displays=(*table.displays, missing))
    with pytest.raises(DeviceNotFoundError):
        open_panel(broken)
    with open_panel(broken, tolerant=True) as panel:
        assert len(panel.displays) == 1  # the simulated one
    assert "left out" in caplog.text and "/dev/i2c-97" in caplog.text
