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


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _dealt_snapshot() -> object:
    from firmware_host.referee.controller import Controller
    from firmware_host.referee.transcript import Setup

    table = Controller()
    table.handle(Setup(rules="classic", dealer="B", players=("Marguerite", "Jean")))
    return table.snapshot()


def test_an_idle_table_dims_then_darkens_its_displays_and_the_next_event_lights_them() -> None:
    from drivers.display.i2c_sim import FakeI2CBus
    from drivers.display.oled import LIT_CONTRAST, open_display
    from firmware_host.screens.chooser import render, screen_for
    from firmware_host.screens.panel import Panel, Rest

    clock, bus = _Clock(), FakeI2CBus("sh1106")
    rest = Rest(dim_after=300.0, blank_after=900.0, dim_contrast=0x04)
    snapshot = _dealt_snapshot()
    with Panel([open_display("sh1106", bus=bus)], rest=rest, clock=clock) as panel:
        panel.show(snapshot)  # type: ignore[arg-type]
        shown = render(screen_for(snapshot))  # type: ignore[arg-type]
        clock.now += 299.0
        assert panel.rest() == "lit" and bus.chip.contrast == LIT_CONTRAST
        clock.now += 1.0
        assert panel.rest() == "dim" and bus.chip.contrast == 0x04 and bus.panel() == shown
        clock.now += 600.0
        assert panel.rest() == "dark" and not bus.chip.display_on and bus.panel().getbbox() is None
        bus.mark()
        panel.show(snapshot)  # type: ignore[arg-type]  # an event: the same screen, lit again
        assert bus.chip.display_on and bus.chip.contrast == LIT_CONTRAST and bus.panel() == shown
        assert bus.bytes_since_mark < 10  # two commands: no frame sent again (the RAM kept it)
        clock.now += 299.0
        assert panel.rest() == "lit"  # the idle time started again at the event


def test_the_panel_rests_on_its_own_thread() -> None:
    from waiting import wait_for

    from drivers.display.i2c_sim import FakeI2CBus
    from drivers.display.oled import open_display
    from firmware_host.screens.panel import Panel, Rest

    bus = FakeI2CBus("ssd1306")
    with Panel([open_display("ssd1306", bus=bus)], rest=Rest(dim_after=0.05, blank_after=0.1)) as panel:
        panel.message(["idle"])
        wait_for(lambda: not bus.chip.display_on, "the panel dark")
        assert panel.resting == "dark"


@pytest.mark.parametrize("lang", ["en", "fr", "it", "de", "es"])
def test_a_display_gone_dark_is_said_in_the_consoles_language(lang: str, caplog: pytest.LogCaptureFixture) -> None:
    """The INFO line a maker reads on ``run``'s console when the displays go dark, as a console in ``lang``
    prints it (:class:`catalogue.phrase.SaidFormatter`)."""
    import logging

    import catalogue
    from catalogue.phrase import SaidFormatter
    from drivers.display.i2c_sim import FakeI2CBus
    from drivers.display.oled import open_display
    from firmware_host.screens.panel import Panel, Rest

    clock = _Clock()
    with caplog.at_level(logging.INFO, logger="firmware_host.screens.panel"), \
            Panel([open_display("sh1106", bus=FakeI2CBus("sh1106"))], rest=Rest(dim_after=300.0, blank_after=900.0),
                  clock=clock) as panel:
        panel.show(_dealt_snapshot())  # type: ignore[arg-type]
        clock.now += 900.0
        assert panel.rest() == "dark"
    record = next(r for r in caplog.records if "dark" in r.getMessage())
    assert SaidFormatter(lang).format(record) == catalogue.say(lang, "log.display_dark", seconds="900")
