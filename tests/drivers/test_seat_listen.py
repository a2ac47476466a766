"""The optional ``listen`` button: a press says ``listen`` on release, a long press ``listen_long``."""

from __future__ import annotations

from gpiozero.pins.mock import MockFactory

from drivers.device_events import ButtonPressed
from drivers.seat_controls import LISTEN, LISTEN_LONG, SeatControls, SeatPins


def test_listen_is_told_on_release_short_or_long() -> None:
    seen: list[ButtonPressed] = []
    pins = SeatPins(yes=5, no=6, king=13, led=12, listen=19)
    with SeatControls({"A": pins}, pin_factory=MockFactory(), on_press=seen.append, debounce=0.0,
                      hold=0.05) as buttons:
        pin = buttons.pin("A", LISTEN)
        pin.drive_low()
        assert seen == []  # nothing until it is released: the press may be long
        pin.drive_high()
        buttons.simulate_hold("A", LISTEN, 0.1)
        buttons.simulate_press("A", "yes")
    assert [(e.seat, e.button) for e in seen] == [("A", LISTEN), ("A", LISTEN_LONG), ("A", "yes")]


def test_a_seat_without_a_listen_pin_has_no_listen_button() -> None:
    import pytest

    from drivers.seat_controls import UnknownSeatError

    with SeatControls({"A": SeatPins(yes=5, no=6, king=13, led=12)}, pin_factory=MockFactory(),
                      on_press=lambda e: None) as buttons, pytest.raises(UnknownSeatError):
        buttons.pin("A", LISTEN)
