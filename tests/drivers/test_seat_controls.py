"""The seats' buttons, LEDs and buzzers on gpiozero's mock pins."""

from __future__ import annotations

import itertools
import queue
import time
from types import ModuleType

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given
from hypothesis import strategies as st

from drivers.device_errors import DriverError
from drivers.device_events import ButtonPressed
from drivers.pin_backends import PinBackendError, UnknownBackendError, backend_for_board, board_model, make_pin_factory
from drivers.seat_controls import (
    BUTTON_NAMES,
    Debouncer,
    PinSetupError,
    SeatControls,
    SeatControlsClosedError,
    SeatPins,
    UnknownSeatError,
)

SEATS = {
    "A": SeatPins(yes=5, no=6, king=13, led=12, buzzer=24),
    "B": SeatPins(yes=17, no=27, king=22, led=23),
}


class FakeClock:
    """A monotonic clock the test moves by hand (seconds)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def factory() -> MockFactory:
    return MockFactory()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def tap(buttons: SeatControls, seat: str, button: str) -> None:
    pin = buttons.pin(seat, button)
    pin.drive_low()
    pin.drive_high()


@pytest.mark.parametrize("seat", ["A", "B"])
@pytest.mark.parametrize("button", BUTTON_NAMES)
def test_press_becomes_one_event(factory: MockFactory, seat: str, button: str) -> None:
    seen: list[ButtonPressed] = []
    with SeatControls(SEATS, pin_factory=factory, on_press=seen.append) as buttons:
        pin = buttons.pin(seat, button)
        pin.drive_low()
        assert buttons.is_pressed(seat, button)
        pin.drive_high()
        assert not buttons.is_pressed(seat, button)
    assert [(e.seat, e.button) for e in seen] == [(seat, button)]
    assert seen[0].t > 0


def test_events_go_on_a_queue(factory: MockFactory, clock: FakeClock) -> None:
    events: queue.Queue[ButtonPressed] = queue.Queue()
    with SeatControls(SEATS, pin_factory=factory, on_press=events, clock=clock) as buttons:
        tap(buttons, "B", "king")
    assert events.get_nowait() == ButtonPressed("B", "king", 100.0)
    assert events.empty()


def test_bouncing_pin_gives_one_event_real_clock(factory: MockFactory) -> None:
    seen: list[ButtonPressed] = []
    with SeatControls(SEATS, pin_factory=factory, on_press=seen.append, debounce=0.05) as buttons:
        pin = buttons.pin("A", "yes")
        # A contact that chatters for a few microseconds on press and on release.
        for _ in range(5):
            pin.drive_low()
            pin.drive_high()
        pin.drive_low()
        for _ in range(5):
            pin.drive_high()
            pin.drive_low()
        pin.drive_high()
        assert len(seen) == 1
        time.sleep(0.08)
        tap(buttons, "A", "yes")
    assert [(e.seat, e.button) for e in seen] == [("A", "yes")] * 2


def test_bouncing_with_fake_clock(factory: MockFactory, clock: FakeClock) -> None:
    seen: list[ButtonPressed] = []
    with SeatControls(
        SEATS, pin_factory=factory, on_press=seen.append, debounce=0.05, clock=clock
    ) as buttons:
        pin = buttons.pin("A", "no")
        for step in range(6):  # edges 4 ms apart: one press
            clock.now += 0.004
            (pin.drive_low if step % 2 == 0 else pin.drive_high)()
        clock.now += 0.030  # a second press 30 ms after the release: a bounce
        pin.drive_low()
        clock.now += 0.2
        pin.drive_high()
        clock.now += 0.051  # 51 ms after the release: a real press
        pin.drive_low()
        # The other buttons have their own windows.
        tap(buttons, "A", "yes")
    assert [(e.button, round(e.t, 3)) for e in seen] == [
        ("no", 100.004),
        ("no", 100.305),
        ("yes", 100.305),
    ]


@given(st.lists(st.floats(min_value=0.0, max_value=0.2), min_size=1, max_size=30))
def test_debouncer_never_counts_two_presses_within_the_window(gaps: list[float]) -> None:
    debouncer = Debouncer(0.05)
    t = 0.0
    counted: list[float] = []
    pressed = False
    for gap in gaps:
        t += gap
        if pressed:
            debouncer.release(t)
        elif debouncer.press(t):
            counted.append(t)
        pressed = not pressed
    assert all(b - a >= 0.05 for a, b in itertools.pairwise(counted))
    assert counted[:1] == [gaps[0]]  # the first press always counts


def test_zero_debounce_counts_every_press(factory: MockFactory) -> None:
    seen: list[ButtonPressed] = []
    with SeatControls(SEATS, pin_factory=factory, on_press=seen.append, debounce=0) as buttons:
        for _ in range(3):
            tap(buttons, "B", "yes")
    assert len(seen) == 3


def test_led_on_off_blink(factory: MockFactory) -> None:
    with SeatControls(SEATS, pin_factory=factory, on_press=lambda e: None) as buttons:
        led = buttons.pin("B", "led")
        assert not buttons.is_lit("B") and not led.state
        buttons.led_on("B")
        assert buttons.is_lit("B") and led.state
        assert not buttons.is_lit("A")
        buttons.led_off("B")
        assert not led.state
        led.clear_states()
        buttons.blink("A", on_time=0.01, off_time=0.01, n=2)
        deadline = time.monotonic() + 2
        a_led = buttons.pin("A", "led")
        while len(a_led.states) < 5 and time.monotonic() < deadline:
            time.sleep(0.005)
        assert [s.state for s in a_led.states][1:5] == [True, False, True, False]
        buttons.led_on("A")
        buttons.leds_off()
        assert not buttons.is_lit("A")


def test_buzzer_is_optional(factory: MockFactory) -> None:
    with SeatControls(SEATS, pin_factory=factory, on_press=lambda e: None) as buttons:
        assert buttons.has_buzzer("A") and not buttons.has_buzzer("B")
        assert buttons.beep("B") is False
        assert buttons.beep("A", on_time=0.01, off_time=0.01, n=1) is True
        with pytest.raises(UnknownSeatError):
            buttons.beep("C")


def test_close_twice_releases_pins(factory: MockFactory) -> None:
    seen: list[ButtonPressed] = []
    buttons = SeatControls(SEATS, pin_factory=factory, on_press=seen.append)
    pin = buttons.pin("A", "yes")
    buttons.led_on("A")
    buttons.close()
    buttons.close()
    assert buttons.closed
    pin.drive_low()
    assert seen == []
    with pytest.raises(SeatControlsClosedError):
        buttons.led_on("A")
    # The pins are free again: a new set of buttons can claim them.
    with SeatControls(SEATS, pin_factory=factory, on_press=seen.append) as again:
        tap(again, "A", "yes")
    assert len(seen) == 1


def test_unknown_seat_suggests(factory: MockFactory) -> None:
    with SeatControls(SEATS, pin_factory=factory, on_press=lambda e: None) as buttons:
        with pytest.raises(UnknownSeatError, match=r"did you mean 'A\.yes'"):
            buttons.pin("A", "yse")
        with pytest.raises(LookupError):
            buttons.led_on("C")


def test_pin_used_twice_is_refused(factory: MockFactory) -> None:
    with pytest.raises(ValueError, match=r"GPIO5 is both A\.yes and B\.no"):
        SeatControls(
            {"A": SEATS["A"], "B": SeatPins(yes=17, no=5, king=22, led=23)},
            pin_factory=factory,
            on_press=lambda e: None,
        )


def test_pin_in_use_elsewhere_releases_what_was_claimed(factory: MockFactory) -> None:
    from gpiozero import LED

    squatter = LED(23, pin_factory=factory)  # B's LED pin, taken by someone else
    with pytest.raises(PinSetupError, match="GPIO23") as info:
        SeatControls(SEATS, pin_factory=factory, on_press=lambda e: None)
    assert isinstance(info.value, DriverError) and isinstance(info.value, RuntimeError)
    squatter.close()
    with SeatControls(SEATS, pin_factory=factory, on_press=lambda e: None):
        pass


def test_a_failing_sink_is_logged_not_raised(
    factory: MockFactory, caplog: pytest.LogCaptureFixture
) -> None:
    full: queue.Queue[ButtonPressed] = queue.Queue(maxsize=1)
    with SeatControls(SEATS, pin_factory=factory, on_press=full, debounce=0) as buttons:
        tap(buttons, "A", "yes")
        tap(buttons, "A", "yes")
    assert full.qsize() == 1
    assert "could not be delivered" in caplog.text
    caplog.clear()  # the ERROR was expected


# -- pin factory selection ----------------------------------------------------


def test_mock_backend() -> None:
    assert isinstance(make_pin_factory("mock"), MockFactory)


def test_unknown_backend_suggests() -> None:
    with pytest.raises(UnknownBackendError, match="did you mean 'lgpio'"):
        make_pin_factory("lgpoi")


@pytest.mark.parametrize(
    "model",
    [
        "Raspberry Pi 5 Model B Rev 1.0",
        "Raspberry Pi 500 Rev 1.0",
        "Raspberry Pi Compute Module 5 Rev 1.0",
        "Raspberry Pi 4 Model B Rev 1.4",
        "Raspberry Pi 3 Model B Plus Rev 1.3",
        "Raspberry Pi Zero 2 W Rev 1.0",
    ],
)
def test_backend_for_board_is_lgpio_on_every_pi(model: str) -> None:
    assert backend_for_board(model) == "lgpio"


@pytest.mark.parametrize("model", [None, "Generic x86 PC", "Pine64 RockPro64"])
def test_auto_off_a_pi_says_use_mock(model: str | None) -> None:
    with pytest.raises(PinBackendError, match='backend = "mock"'):
        make_pin_factory("auto", read_board=lambda: model)


def test_board_model_reads_device_tree(tmp_path) -> None:
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\x00")
    assert board_model(paths=(tmp_path / "missing", model)) == "Raspberry Pi 5 Model B Rev 1.0"


def _importer(**behaviour: BaseException | ModuleType):
    def importer(name: str) -> ModuleType:
        outcome = behaviour.get(name.replace(".", "_"))
        if isinstance(outcome, BaseException):
            raise outcome
        if outcome is None:
            raise ImportError(f"No module named {name!r}")
        return outcome

    return importer


def test_rpigpio_off_a_pi_raises_our_error() -> None:
    importer = _importer(RPi_GPIO=RuntimeError("This module can only be run on a Raspberry Pi!"))
    with pytest.raises(PinBackendError, match='backend = "lgpio"') as info:
        make_pin_factory("rpigpio", importer=importer, read_board=lambda: None)
    assert isinstance(info.value.__cause__, RuntimeError)


def test_rpigpio_on_a_pi5_says_lgpio() -> None:
    importer = _importer(RPi_GPIO=RuntimeError("Cannot determine SOC peripheral base address"))
    with pytest.raises(PinBackendError, match=r"Raspberry Pi 5 Model B.*lgpio"):
        make_pin_factory(
            "rpigpio", importer=importer, read_board=lambda: "Raspberry Pi 5 Model B Rev 1.0"
        )


def test_missing_lgpio_says_pip_install() -> None:
    with pytest.raises(PinBackendError, match="pip install lgpio"):
        make_pin_factory("lgpio", importer=_importer())
    with pytest.raises(PinBackendError, match="pip install lgpio"):
        make_pin_factory(
            "auto", importer=_importer(), read_board=lambda: "Raspberry Pi 5 Model B Rev 1.0"
        )


def test_auto_on_an_old_pi_uses_lgpio_and_never_loads_rpigpio() -> None:
    sentinel = object()
    fake_pins = ModuleType("gpiozero.pins.lgpio")
    fake_pins.LGPIOFactory = lambda: sentinel  # type: ignore[attr-defined]
    # RPi.GPIO installed too: auto does not take it
    importer = _importer(lgpio=ModuleType("lgpio"), gpiozero_pins_lgpio=fake_pins, RPi_GPIO=RuntimeError("loaded"))
    factory = make_pin_factory(
        "auto", importer=importer, read_board=lambda: "Raspberry Pi 3 Model B Plus Rev 1.3"
    )
    assert factory is sentinel


def test_lgpio_without_gpiochip_access_says_which_group() -> None:
    def refuse() -> object:
        raise OSError(13, "Permission denied")

    fake_pins = ModuleType("gpiozero.pins.lgpio")
    fake_pins.LGPIOFactory = refuse  # type: ignore[attr-defined]
    importer = _importer(lgpio=ModuleType("lgpio"), gpiozero_pins_lgpio=fake_pins)
    with pytest.raises(PinBackendError, match="`gpio` group"):
        make_pin_factory("lgpio", importer=importer)


def test_simulate_press_on_mock_pins(factory: MockFactory, clock: FakeClock) -> None:
    seen: list[ButtonPressed] = []
    with SeatControls(SEATS, pin_factory=factory, on_press=seen.append, clock=clock) as buttons:
        buttons.simulate_press("A", "king")
        buttons.simulate_press("A", "king")  # same instant: a bounce
        clock.now += 0.1
        buttons.simulate_press("A", "king")
        with pytest.raises(UnknownSeatError):
            buttons.simulate_press("A", "queen")
    assert [e.t for e in seen] == [100.0, 100.1]
