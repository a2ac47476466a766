"""Each seat's buttons (``yes``, ``no``, ``king``), its LED and an optional buzzer.

The buttons are gpiozero input devices wired from a BCM pin to ground (the
Pi's internal pull-up holds the pin high; a press pulls it low). The pin
factory is injected keyword-only, so the same class drives real pins (lgpio on
a Pi 5, RPi.GPIO on older boards) and gpiozero's ``MockFactory`` in tests and
on the simulated table::

    >>> from gpiozero.pins.mock import MockFactory
    >>> seen = []
    >>> with SeatControls({"A": SeatPins(yes=5, no=6, king=13, led=12)},
    ...              pin_factory=MockFactory(), on_press=seen.append) as buttons:
    ...     buttons.pin("A", "yes").drive_low()
    ...     buttons.pin("A", "yes").drive_high()
    ...     buttons.led_on("A")
    ...     buttons.is_lit("A")
    True
    >>> [(event.seat, event.button) for event in seen]
    [('A', 'yes')]

Debouncing is ours, not the backend's: gpiozero's mock pins ignore
``bounce_time`` and the backends disagree on what it means, so every backend
gets ``bounce_time=None`` and :class:`Debouncer` decides which edges are
presses. A press only ever enqueues a :class:`drivers.device_events.ButtonPressed`;
the controller thread decides what it means.
"""

from __future__ import annotations

import difflib
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from drivers.closing import Closing
from drivers.device_events import ButtonPressed
from drivers.pin_backends import GpioError

if TYPE_CHECKING:
    from gpiozero import Factory

__all__ = [  # the factory SeatControls runs on, and its errors: drivers.pin_backends
    "BUTTON_NAMES", "DEFAULT_DEBOUNCE", "HOLD_S", "LISTEN", "LISTEN_LONG", "Debouncer", "GpioError", "PinSetupError",
    "SeatControls", "SeatControlsClosedError", "SeatPins", "UnknownSeatError",
]

logger = logging.getLogger(__name__)

BUTTON_NAMES: tuple[str, ...] = ("yes", "no", "king")
"""The buttons every seat has, in the order they sit on the table."""

LISTEN = "listen"
"""The optional fourth button (a seat's ``listen`` pin): a press is reported as ``listen`` when
it is released, or as :data:`LISTEN_LONG` when it was held :data:`HOLD_S` or longer."""
LISTEN_LONG = "listen_long"
HOLD_S = 0.8
"""Seconds a ``listen`` press must be held to count as a long press."""


DEFAULT_DEBOUNCE = 0.05
"""Seconds after a press or a release during which further presses are bounces."""


class PinSetupError(GpioError, RuntimeError):
    """A pin could not be claimed (in use, invalid for this board, no access)."""


class UnknownSeatError(GpioError, LookupError):
    """A seat or device name the buttons were not built with."""


class SeatControlsClosedError(GpioError, RuntimeError):
    """An LED or buzzer was used after :meth:`SeatControls.close`."""


@dataclass(frozen=True, slots=True)
class SeatPins:
    """One seat's BCM pin numbers: three buttons, an LED, an optional buzzer and ``listen`` button
    (the table file's ``[buttons.A]``, :class:`hardware.table_config.ButtonsConfig`, holds these)."""

    yes: int
    no: int
    king: int
    led: int
    buzzer: int | None = None
    listen: int | None = None


class Debouncer:
    """Lock-out debounce for one button, on times in seconds.

    A press counts when neither a press nor a release edge came in the
    ``window`` seconds before it; every edge, counted or not, restarts the
    window, so a contact that chatters for a while still counts once.

    >>> d = Debouncer(0.05)
    >>> [d.press(0.0), d.release(0.001), d.press(0.002), d.release(0.2), d.press(0.3)]
    [True, None, False, None, True]

    :raises ValueError: for a negative window.
    """

    def __init__(self, window: float) -> None:
        if window < 0:
            raise ValueError(f"debounce window must be >= 0 seconds, not {window!r}")
        self.window = window
        self._last_edge = float("-inf")

    def press(self, t: float) -> bool:
        """A falling edge at ``t`` seconds: return whether it is a new press."""
        counts = t - self._last_edge >= self.window
        self._last_edge = t
        return counts

    def release(self, t: float) -> None:
        """A rising edge at ``t`` seconds: it only restarts the window."""
        self._last_edge = t


# ---------------------------------------------------------------------------
# The buttons themselves

PressSink = Callable[[ButtonPressed], object]


class SeatControls(Closing):
    """The buttons, LEDs and buzzers of every seat, on one injected pin factory.

    ``seats`` maps a seat (``"A"``, ``"B"``) to its pins. ``on_press`` is
    called with a :class:`ButtonPressed` for every debounced press, on the
    backend's callback thread; pass ``queue.put_nowait`` (or a queue itself)
    so the callback only enqueues. ``debounce`` is in seconds; ``clock``
    returns seconds (monotonic) and stamps the events.

    :raises ValueError: for a button or LED pin used twice, or a negative debounce.
    :raises PinSetupError: when the backend refuses a pin (in use, not on this
        board); whatever was already claimed is released first.
    """

    def __init__(
        self,
        seats: Mapping[str, SeatPins],
        *,
        pin_factory: Factory,
        on_press: PressSink | Any,
        debounce: float = DEFAULT_DEBOUNCE,
        clock: Callable[[], float] = time.monotonic,
        hold: float = HOLD_S,
    ) -> None:
        if debounce < 0:
            raise ValueError(f"debounce must be >= 0 seconds, not {debounce!r}")
        put = getattr(on_press, "put_nowait", None)
        self._sink: PressSink = put if callable(put) else on_press
        if not callable(self._sink):
            raise TypeError("on_press must be a callable or a queue")
        self._factory = pin_factory
        self._clock = clock
        self._debounce = debounce
        self._hold = hold
        self._held_since: dict[str, float] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._inputs: dict[tuple[str, str], Any] = {}
        self._debouncers: dict[tuple[str, str], Debouncer] = {}
        self._leds: dict[str, Any] = {}
        self._buzzers: dict[str, Any] = {}
        _check_distinct_pins(seats)
        try:
            self._build(seats)
        except BaseException:
            self.close()
            raise

    def _build(self, seats: Mapping[str, SeatPins]) -> None:
        from gpiozero import LED, Buzzer, DigitalInputDevice, GPIOZeroError

        for seat, pins in seats.items():
            listen = (LISTEN,) if pins.listen is not None else ()
            for button in (*BUTTON_NAMES, *listen):
                pin = getattr(pins, button)
                what = f"seat {seat}'s {button} button"
                device = _claim(
                    what,
                    pin,
                    GPIOZeroError,
                    partial(DigitalInputDevice, pin, pull_up=True, bounce_time=None, pin_factory=self._factory),
                )
                self._inputs[seat, button] = device
                self._debouncers[seat, button] = Debouncer(self._debounce)
                device.when_activated = partial(self._edge, seat, button, True)
                device.when_deactivated = partial(self._edge, seat, button, False)
            self._leds[seat] = _claim(
                f"seat {seat}'s LED",
                pins.led,
                GPIOZeroError,
                partial(LED, pins.led, pin_factory=self._factory),
            )
            if pins.buzzer is not None:
                self._buzzers[seat] = _claim(
                    f"seat {seat}'s buzzer",
                    pins.buzzer,
                    GPIOZeroError,
                    partial(Buzzer, pins.buzzer, pin_factory=self._factory),
                )
            logger.debug(
                "seat %s: yes=GPIO%d no=GPIO%d king=GPIO%d led=GPIO%d buzzer=%s",
                seat, pins.yes, pins.no, pins.king, pins.led, pins.buzzer,
            )

    def _edge(self, seat: str, button: str, pressed: bool) -> None:
        t = self._clock()
        with self._lock:
            if self._closed:
                return
            debouncer = self._debouncers[seat, button]
            if not pressed:
                debouncer.release(t)
                since = self._held_since.pop(seat, None) if button == LISTEN else None
                if since is None:
                    return
                # the listen button says on release how long it was held
                button = LISTEN_LONG if t - since >= self._hold else LISTEN
            else:
                counts = debouncer.press(t)
                if counts and button == LISTEN:
                    self._held_since[seat] = t
                    return
        if pressed and not counts:
            logger.debug("seat %s %s: bounce at %.3f s ignored", seat, button, t)
            return
        logger.debug("seat %s pressed %s at %.3f s", seat, button, t)
        try:
            self._sink(ButtonPressed(seat, button, t))
        except Exception:
            # The callback runs on the backend's thread: an exception there
            # would vanish or kill the thread, so it is logged instead.
            logger.exception("seat %s %s: the press could not be delivered", seat, button)

    # -- reading ---------------------------------------------------------------

    @property
    def seats(self) -> tuple[str, ...]:
        """The seats, in the order they were given."""
        return tuple(self._leds)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def is_pressed(self, seat: str, button: str) -> bool:
        """Whether the button is held down right now (raw pin level, not debounced).

        :raises UnknownSeatError: for a seat or button these buttons do not have.
        """
        device = self._device(self._inputs, (seat, button), f"{seat}.{button}")
        return bool(device.is_active)

    def is_lit(self, seat: str) -> bool:
        """Whether the seat's LED is on (or in the on phase of a blink).

        :raises UnknownSeatError: for a seat these buttons do not have.
        """
        return bool(self._device(self._leds, seat, seat).is_lit)

    def pin(self, seat: str, name: str) -> Any:
        """The backend pin of ``name`` (a button, ``led`` or ``buzzer``) at ``seat``.

        On the mock backend this is a ``MockPin``: ``drive_low()`` presses a
        button, ``drive_high()`` releases it, ``state`` reads an LED.

        :raises UnknownSeatError: for a seat or device these buttons do not have.
        """
        if name == "led":
            return self._device(self._leds, seat, f"{seat}.led").pin
        if name == "buzzer":
            return self._device(self._buzzers, seat, f"{seat}.buzzer").pin
        return self._device(self._inputs, (seat, name), f"{seat}.{name}").pin

    def simulate_press(self, seat: str, button: str) -> None:
        """Press and release a button on the mock backend (simulated table, demos).

        The press goes through the debounce like a real one: two simulated
        presses of one button less than ``debounce`` seconds apart count once.

        :raises UnknownSeatError: for a seat or button these buttons do not have.
        :raises GpioError: when the pins are not mock pins.
        """
        self.simulate_hold(seat, button, 0.0)

    def simulate_hold(self, seat: str, button: str, seconds: float) -> None:
        """Hold a button down ``seconds`` on the mock backend, then release it (a long press).

        :raises UnknownSeatError: for a seat or button these buttons do not have.
        :raises GpioError: when the pins are not mock pins.
        """
        pin = self.pin(seat, button)
        if not (callable(getattr(pin, "drive_low", None))
                and callable(getattr(pin, "drive_high", None))):
            raise GpioError(f"{seat}.{button} is a real pin: only mock pins can be pressed")
        pin.drive_low()
        if seconds:
            time.sleep(seconds)
        pin.drive_high()

    # -- LEDs and buzzer -------------------------------------------------------

    def led_on(self, seat: str) -> None:
        """Light the seat's LED (stops a blink).

        :raises UnknownSeatError: for an unknown seat.
        :raises SeatControlsClosedError: after :meth:`close`.
        """
        self._output(self._leds, seat, "LED").on()

    def led_off(self, seat: str) -> None:
        """Put the seat's LED out (stops a blink).

        :raises UnknownSeatError: for an unknown seat.
        :raises SeatControlsClosedError: after :meth:`close`.
        """
        self._output(self._leds, seat, "LED").off()

    def leds_off(self) -> None:
        """Put every seat's LED out.

        :raises SeatControlsClosedError: after :meth:`close`.
        """
        for seat in self._leds:
            self.led_off(seat)

    def blink(
        self, seat: str, *, on_time: float = 0.25, off_time: float = 0.25, n: int | None = None
    ) -> None:
        """Blink the seat's LED in the background: ``on_time`` and ``off_time`` in
        seconds, ``n`` times or until :meth:`led_on` / :meth:`led_off`.

        :raises UnknownSeatError: for an unknown seat.
        :raises SeatControlsClosedError: after :meth:`close`.
        """
        self._output(self._leds, seat, "LED").blink(
            on_time=on_time, off_time=off_time, n=n, background=True
        )

    def has_buzzer(self, seat: str) -> bool:
        """Whether the seat has a buzzer."""
        return seat in self._buzzers

    def beep(
        self, seat: str, *, on_time: float = 0.1, off_time: float = 0.1, n: int = 1
    ) -> bool:
        """Sound the seat's buzzer ``n`` times in the background (times in seconds).

        Returns ``False`` (and does nothing) when the seat has no buzzer.

        :raises UnknownSeatError: for an unknown seat.
        :raises SeatControlsClosedError: after :meth:`close`.
        """
        if seat not in self._leds:
            raise UnknownSeatError(_unknown(seat, self._leds))
        if seat not in self._buzzers:
            return False
        self._output(self._buzzers, seat, "buzzer").beep(
            on_time=on_time, off_time=off_time, n=n, background=True
        )
        return True

    # -- life cycle ------------------------------------------------------------

    def close(self) -> None:
        """Put the LEDs and buzzers out and release every pin. Safe to call twice.

        The pin factory is the caller's: it is not closed.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
        for device in self._all_devices():
            try:
                device.close()
            except Exception:
                # One pin failing to release must not keep the others claimed.
                logger.warning("could not release %r", device, exc_info=True)
        self._inputs.clear()
        self._leds.clear()
        self._buzzers.clear()

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"seats={list(self._leds)}"
        return f"<SeatControls {state} debounce={self._debounce}s>"

    # -- helpers ---------------------------------------------------------------

    def _all_devices(self) -> Iterator[Any]:
        yield from self._buzzers.values()
        yield from self._leds.values()
        yield from self._inputs.values()

    def _device(self, table: Mapping[Any, Any], key: Any, label: str) -> Any:
        if self._closed:
            raise SeatControlsClosedError(f"{label}: the buttons are closed")
        try:
            return table[key]
        except KeyError:
            raise UnknownSeatError(_unknown(label, [_label(k) for k in table])) from None

    def _output(self, table: Mapping[str, Any], seat: str, what: str) -> Any:
        if self._closed:
            raise SeatControlsClosedError(f"seat {seat}'s {what}: the buttons are closed")
        try:
            return table[seat]
        except KeyError:
            raise UnknownSeatError(_unknown(seat, list(self._leds))) from None


def _label(key: Any) -> str:
    return ".".join(key) if isinstance(key, tuple) else str(key)


def _unknown(name: str, known: Any) -> str:
    names = [str(k) for k in known]
    close = difflib.get_close_matches(name, names, n=1)
    hint = f": did you mean {close[0]!r}?" if close else f" (known: {', '.join(names)})"
    return f"unknown {name!r}{hint}"


def _claim(what: str, pin: int, errors: type[BaseException], build: Callable[[], Any]) -> Any:
    try:
        return build()
    except (errors, OSError) as exc:
        raise PinSetupError(f"cannot claim GPIO{pin} for {what}: {exc}") from exc


def _check_distinct_pins(seats: Mapping[str, SeatPins]) -> None:
    used: dict[int, str] = {}
    for seat, pins in seats.items():
        for name in (*BUTTON_NAMES, "led", "buzzer", LISTEN):
            pin = getattr(pins, name, None)
            if pin is None:
                continue
            if pin in used:
                raise ValueError(f"GPIO{pin} is both {used[pin]} and {seat}.{name}")
            used[pin] = f"{seat}.{name}"
