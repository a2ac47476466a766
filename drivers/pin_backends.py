"""Which gpiozero pin factory drives the seats' pins: the backends, and the board that picks one.

``auto`` picks lgpio (gpiozero's ``LGPIOFactory``) on every Raspberry Pi, from the device
tree's model string:

- on a Pi 5 the original RPi.GPIO (0.7.1) cannot drive the RP1 chip at all;
- on a Pi 3, 4 and Zero 2 W it still reads and writes pins, but its edge detection fails
  on Raspberry Pi OS kernels since 6.6 ("RuntimeError: Failed to add edge detection":
  gpiozero issues #1131 on a Zero 2 W and #1136 on a Pi 4, raspberrypi/linux #6037: the
  kernel no longer puts the main GPIO controller at global GPIO 0, which RPi.GPIO's sysfs
  edges assume). gpiozero's ``Button`` needs edges, so the table would fail at start.

lgpio talks to ``/dev/gpiochip*`` (the kernel's GPIO character device), which every model
has. ``rpigpio`` stays for code that wants RPi.GPIO's names: with ``rpi-lgpio`` installed
(the ``pi`` extra installs it, never the original) they run on lgpio too; the original
RPi.GPIO 0.7.1 on a kernel since 6.6 is refused with what to install. ``mock`` is
gpiozero's ``MockFactory`` (tests, the simulated table). The seat controls
(:mod:`drivers.seat_controls`) take the factory this module makes; the doctor says
which backend was chosen, and why (:func:`choose_backend`).
"""

from __future__ import annotations

import difflib
import enum
import importlib
import logging
import os
import platform
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
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
# chip, which the original RPi.GPIO cannot drive at all.
_PI5_MODEL = re.compile(r"^Raspberry Pi (5|500|Compute Module 5)\b")

EDGELESS_KERNEL = (6, 6)
"""The first Raspberry Pi OS kernel on which the original RPi.GPIO (0.7.1) cannot add edge
detection (raspberrypi/linux #6037, gpiozero #1131 and #1136)."""


class Why(enum.Enum):
    """Why a backend was chosen (the doctor words it: ``doctor.backend_why.<value>``)."""

    NAMED = "named"
    """The table file names it (``[buttons] backend``)."""
    EVERY_PI = "every_pi"
    """``auto`` on a Raspberry Pi: lgpio on every model (the module's docstring says why)."""


@dataclass(frozen=True, slots=True)
class BackendChoice:
    """The pin backend a table gets: one of :data:`BACKENDS` but ``auto``, why, and on which board.

    ``model`` is the device tree's model string (``None`` off a Pi, or when the backend was
    named and the board not read).
    """

    backend: str
    why: Why
    model: str | None = None


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
    """The pin backend that drives this board's GPIO: ``lgpio``, on every Raspberry Pi.

    >>> backend_for_board("Raspberry Pi 5 Model B Rev 1.0")
    'lgpio'
    >>> backend_for_board("Raspberry Pi 4 Model B Rev 1.5")
    'lgpio'

    :raises PinBackendError: when ``model`` is not a Raspberry Pi.
    """
    if model is None or not model.startswith("Raspberry Pi"):
        where = f"a {model!r}" if model else "a machine without /proc/device-tree/model"
        raise PinBackendError(
            f"this is {where}, not a Raspberry Pi, so there are no GPIO buttons: "
            'set [buttons] backend = "mock" in the table file to simulate them'
        )
    return "lgpio"


def choose_backend(backend: str = "auto", *, read_board: Callable[[], str | None] = board_model) -> BackendChoice:
    """The backend ``backend`` (one of :data:`BACKENDS`) comes to on this board, and why.

    >>> choose_backend("auto", read_board=lambda: "Raspberry Pi Zero 2 W Rev 1.0")
    BackendChoice(backend='lgpio', why=<Why.EVERY_PI: 'every_pi'>, model='Raspberry Pi Zero 2 W Rev 1.0')
    >>> choose_backend("mock").backend
    'mock'

    :raises UnknownBackendError: for a name not in :data:`BACKENDS`.
    :raises PinBackendError: ``auto`` off a Raspberry Pi.
    """
    if backend not in BACKENDS:
        close = difflib.get_close_matches(backend, BACKENDS, n=1)
        hint = f": did you mean {close[0]!r}?" if close else f" (one of {', '.join(BACKENDS)})"
        raise UnknownBackendError(f"unknown pin backend {backend!r}{hint}")
    if backend == "mock":
        return BackendChoice("mock", Why.NAMED)
    model = read_board()
    if backend != "auto":
        return BackendChoice(backend, Why.NAMED, model)
    return BackendChoice(backend_for_board(model), Why.EVERY_PI, model)


def make_pin_factory(
    backend: str | BackendChoice = "auto",
    *,
    read_board: Callable[[], str | None] = board_model,
    importer: Callable[[str], ModuleType] = importlib.import_module,
    kernel: Callable[[], str] = platform.release,
) -> Factory:
    """Build the gpiozero pin factory for ``backend`` (one of :data:`BACKENDS`, or a choice
    :func:`choose_backend` made).

    ``auto`` is lgpio on every Raspberry Pi. ``rpigpio`` is gpiozero's RPi.GPIO
    factory, on rpi-lgpio's RPi.GPIO (lgpio underneath); the original RPi.GPIO is
    refused on a kernel (``kernel()``, ``uname -r``) since 6.6, where its edge
    detection fails. ``mock`` is gpiozero's ``MockFactory``, for tests and the
    simulated table. The caller owns the factory and closes it after the devices
    built on it.

    :raises UnknownBackendError: for a name not in :data:`BACKENDS`.
    :raises PinBackendError: when the backend's library is missing or cannot
        run on this board; the message says what to install or set.
    """
    choice = backend if isinstance(backend, BackendChoice) else choose_backend(backend, read_board=read_board)
    if choice.why is Why.EVERY_PI:
        logger.info("board %r: the %s pin backend (lgpio on every Pi)", choice.model, choice.backend)
    if choice.backend == "mock":
        from gpiozero.pins.mock import MockFactory

        return MockFactory()
    if choice.backend == "lgpio":
        return _lgpio_factory(importer)
    return _rpigpio_factory(importer, model=choice.model, kernel=kernel())


def lgpio_work_dir() -> None:
    """Give lgpio a folder it can write its notification pipes in (``.lgd-nfy*``): ``LG_WD``, else it
    takes the current one, which a user running the doctor by hand may not write (``sudo -u ecarte
    ecarte-table doctor`` from a home: on a real kernel the buttons failed with "No such file or
    directory: '.lgd-nfy-3'", scripts/vm_test.py's doctor check). There, a private folder of its own.
    The service runs in its state directory, which it writes."""
    if os.environ.get("LG_WD"):
        return
    try:
        if os.access(os.getcwd(), os.W_OK | os.X_OK):
            return
    except OSError:  # the current folder is gone, or cannot be named
        pass
    os.environ["LG_WD"] = tempfile.mkdtemp(prefix="ecarte-lgpio-")


def _lgpio_factory(importer: Callable[[str], ModuleType]) -> Factory:
    lgpio_work_dir()  # read by lgpio's C library as it loads
    try:
        lgpio = importer("lgpio")
    except ImportError as exc:
        raise PinBackendError(
            "the lgpio backend needs the lgpio module: `pip install lgpio` in the table's "
            "virtualenv (systemd/install.sh does; on Python 3.13 pip builds it: "
            "`sudo apt install swig gcc python3-dev`, then `PYPI=1 pip install lgpio`)"
        ) from exc
    refusals: tuple[type[BaseException], ...] = (OSError, RuntimeError, *_lgpio_errors(lgpio))
    try:
        module = importer("gpiozero.pins.lgpio")
        factory: Factory = module.LGPIOFactory()
    except refusals as exc:
        if type(exc).__name__ == "PinUnknownPi":  # gpiozero reads the board's revision before the chip
            raise PinBackendError(
                f"gpiozero finds no Raspberry Pi here ({exc}), so there are no GPIO buttons: "
                'set [buttons] backend = "mock" in the table file to simulate them'
            ) from exc
        raise PinBackendError(
            f"lgpio cannot open the GPIO chip ({exc}): check that /dev/gpiochip* exists "
            "and that this user is in the `gpio` group (`sudo usermod -aG gpio $USER`, "
            "then log in again)"
        ) from exc
    return factory


def _lgpio_errors(lgpio: object) -> tuple[type[BaseException], ...]:
    """lgpio's own exception (``lgpio.error``: "can not open gpiochip"), where the module has one."""
    error = getattr(lgpio, "error", None)
    return (error,) if isinstance(error, type) and issubclass(error, BaseException) else ()


def kernel_version(release: str) -> tuple[int, int]:
    """``uname -r``'s major and minor numbers (``(0, 0)`` when it names none).

    >>> kernel_version("6.6.51+rpt-rpi-v8"), kernel_version("6.1.0-rpi7-rpi-v8"), kernel_version("?")
    ((6, 6), (6, 1), (0, 0))
    """
    found = re.match(r"(\d+)\.(\d+)", release)
    return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


def _rpigpio_factory(importer: Callable[[str], ModuleType], *, model: str | None, kernel: str) -> Factory:
    try:
        gpio = importer("RPi.GPIO")
    except ImportError as exc:
        raise PinBackendError(
            "the rpigpio backend needs RPi.GPIO's names: `pip install rpi-lgpio` in the table's "
            'virtualenv (RPi.GPIO on lgpio), or set [buttons] backend = "auto"'
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
    # rpi-lgpio's RPi.GPIO runs on lgpio (and imports it); the original drives the chip itself
    if not isinstance(getattr(gpio, "lgpio", None), ModuleType) and kernel_version(kernel) >= EDGELESS_KERNEL:
        raise PinBackendError(
            f"RPi.GPIO {getattr(gpio, 'VERSION', '?')} cannot detect the buttons' edges on kernel {kernel} "
            "(since 6.6: 'Failed to add edge detection'): set [buttons] backend = \"auto\" (lgpio), or "
            "replace it with its lgpio shim in the table's virtualenv: `pip uninstall RPi.GPIO; "
            "pip install rpi-lgpio`"
        )
    refusals: tuple[type[BaseException], ...] = (OSError, RuntimeError, *_lgpio_errors(getattr(gpio, "lgpio", None)))
    try:
        module = importer("gpiozero.pins.rpigpio")
        factory: Factory = module.RPiGPIOFactory()
    except refusals as exc:
        raise PinBackendError(
            f"RPi.GPIO cannot open the GPIO ({exc}): check that /dev/gpiomem exists and "
            "that this user is in the `gpio` group"
        ) from exc
    return factory
