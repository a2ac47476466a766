"""Which gpiozero pin factory drives the seats' pins: the backends, and the board that picks one.

``auto`` picks lgpio on a Pi 5 (RPi.GPIO cannot drive its RP1 chip) and RPi.GPIO on
older boards, from the device tree's model string; ``mock`` is gpiozero's
``MockFactory`` (tests, the simulated table). The seat controls
(:mod:`drivers.seat_controls`) take the factory this module makes.
"""

from __future__ import annotations

import difflib
import importlib
import logging
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from drivers.device_errors import DriverError

if TYPE_CHECKING:
    from gpiozero import Factory

logger = logging.getLogger(__name__)


BACKENDS: tuple[str, ...] = ("auto", "lgpio", "rpigpio", "mock")
"""Pin backends a table file may name (``[buttons] backend``)."""


MODEL_PATHS: tuple[Path, ...] = (
    Path("/proc/device-tree/model"),
    Path("/sys/firmware/devicetree/base/model"),
)
"""Where Linux on a Raspberry Pi names the board (NUL-terminated ASCII)."""


# The Pi 5 family (Pi 5, Pi 500, Compute Module 5) has its GPIO behind the RP1
# chip, which RPi.GPIO cannot drive; everything older works with RPi.GPIO.
_PI5_MODEL = re.compile(r"^Raspberry Pi (5|500|Compute Module 5)\b")


class GpioError(DriverError):
    """Root of the errors raised by the buttons, LEDs and buzzers."""


class PinBackendError(GpioError, RuntimeError):
    """No GPIO backend can run here; the message says what to install or set."""


class UnknownBackendError(GpioError, ValueError):
    """A backend name that is not one of :data:`BACKENDS`."""


def board_model(*, paths: tuple[Path, ...] = MODEL_PATHS) -> str | None:
    """The board's model string from the device tree, or ``None`` off a Pi.

    >>> board_model(paths=(Path("/nonexistent/model"),)) is None
    True
    """
    for path in paths:
        try:
            raw = path.read_bytes()
        except OSError:
            continue
        return raw.rstrip(b"\x00").decode("ascii", "replace").strip()
    return None


def backend_for_board(model: str | None) -> str:
    """The pin backend that drives this board's GPIO: ``lgpio`` or ``rpigpio``.

    >>> backend_for_board("Raspberry Pi 5 Model B Rev 1.0")
    'lgpio'
    >>> backend_for_board("Raspberry Pi 4 Model B Rev 1.5")
    'rpigpio'

    :raises PinBackendError: when ``model`` is not a Raspberry Pi.
    """
    if model is None or not model.startswith("Raspberry Pi"):
        where = f"a {model!r}" if model else "a machine without /proc/device-tree/model"
        raise PinBackendError(
            f"this is {where}, not a Raspberry Pi, so there are no GPIO buttons: "
            'set [buttons] backend = "mock" in the table file to simulate them'
        )
    return "lgpio" if _PI5_MODEL.match(model) else "rpigpio"


def make_pin_factory(
    backend: str = "auto",
    *,
    read_board: Callable[[], str | None] = board_model,
    importer: Callable[[str], ModuleType] = importlib.import_module,
) -> Factory:
    """Build the gpiozero pin factory for ``backend`` (one of :data:`BACKENDS`).

    ``auto`` reads the board model: lgpio on the Pi 5 family, RPi.GPIO on
    older Pis (lgpio if RPi.GPIO is not installed). ``mock`` is gpiozero's
    ``MockFactory``, for tests and the simulated table. The caller owns the
    factory and closes it after the devices built on it.

    :raises UnknownBackendError: for a name not in :data:`BACKENDS`.
    :raises PinBackendError: when the backend's library is missing or cannot
        run on this board; the message says what to install or set.
    """
    if backend not in BACKENDS:
        close = difflib.get_close_matches(backend, BACKENDS, n=1)
        hint = f": did you mean {close[0]!r}?" if close else f" (one of {', '.join(BACKENDS)})"
        raise UnknownBackendError(f"unknown pin backend {backend!r}{hint}")
    if backend == "mock":
        from gpiozero.pins.mock import MockFactory

        return MockFactory()
    if backend == "lgpio":
        return _lgpio_factory(importer)
    if backend == "rpigpio":
        return _rpigpio_factory(importer, model=read_board())
    model = read_board()
    chosen = backend_for_board(model)
    logger.info("board %r: using the %s pin backend", model, chosen)
    if chosen == "lgpio":
        return _lgpio_factory(importer)
    try:
        return _rpigpio_factory(importer, model=model)
    except PinBackendError as rpi_error:
        if not isinstance(rpi_error.__cause__, ImportError):
            raise
        logger.info("RPi.GPIO is not installed; trying lgpio")
        return _lgpio_factory(importer)


def _lgpio_factory(importer: Callable[[str], ModuleType]) -> Factory:
    try:
        lgpio = importer("lgpio")
    except ImportError as exc:
        raise PinBackendError(
            "the lgpio backend needs the lgpio module: `pip install lgpio` in the table's "
            "virtualenv (or `sudo apt install python3-lgpio` and a venv made with "
            "--system-site-packages)"
        ) from exc
    lgpio_errors: tuple[type[BaseException], ...] = (OSError, RuntimeError)
    if isinstance(getattr(lgpio, "error", None), type):
        lgpio_errors += (lgpio.error,)
    try:
        module = importer("gpiozero.pins.lgpio")
        factory: Factory = module.LGPIOFactory()
    except lgpio_errors as exc:
        raise PinBackendError(
            f"lgpio cannot open the GPIO chip ({exc}): check that /dev/gpiochip* exists "
            "and that this user is in the `gpio` group (`sudo usermod -aG gpio $USER`, "
            "then log in again)"
        ) from exc
    return factory


def _rpigpio_factory(importer: Callable[[str], ModuleType], *, model: str | None) -> Factory:
    try:
        importer("RPi.GPIO")
    except ImportError as exc:
        raise PinBackendError(
            "the rpigpio backend needs RPi.GPIO: `pip install RPi.GPIO` in the table's "
            "virtualenv (on a Pi 5 use backend = \"lgpio\" instead)"
        ) from exc
    except RuntimeError as exc:
        # RPi.GPIO refuses at import time off a Pi, and on a Pi 5 it cannot
        # find the peripheral base: both are RuntimeError, not ImportError.
        board = model or "this board"
        raise PinBackendError(
            f"RPi.GPIO cannot run on {board} ({exc}): on a Raspberry Pi 5 set "
            '[buttons] backend = "lgpio" (`pip install lgpio`); off a Pi set '
            'backend = "mock"'
        ) from exc
    try:
        module = importer("gpiozero.pins.rpigpio")
        factory: Factory = module.RPiGPIOFactory()
    except (OSError, RuntimeError) as exc:
        raise PinBackendError(
            f"RPi.GPIO cannot open the GPIO ({exc}): check that /dev/gpiomem exists and "
            "that this user is in the `gpio` group"
        ) from exc
    return factory
