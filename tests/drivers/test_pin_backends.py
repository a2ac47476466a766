"""The buttons' pin backend on every Raspberry Pi: lgpio, through gpiozero's own factories and the
real lgpio library.

What runs here, and where it stops. The real ``lgpio`` module (its wheel links the lg C library in,
and imports on any Linux), rpi-lgpio's ``RPi.GPIO`` and gpiozero's real ``LGPIOFactory`` and
``RPiGPIOFactory`` are called; nothing of theirs is replaced. Off a Pi there is no
``/dev/gpiochip*`` (and this kernel has no gpio-sim module to make one), so they stop where a Pi's
kernel would answer: gpiozero first reads the board's revision, then lgpio opens the chip. As root
a test gives gpiozero a Pi 4's revision (a ``/proc/cpuinfo`` bind-mounted in a mount namespace of
its own) and rpi-lgpio its documented ``RPI_LGPIO_REVISION``, so each path goes on to lgpio's
``gpiochip_open``, whose real refusal the table words. How the buttons behave on pins is tested on
gpiozero's ``MockFactory`` (tests/drivers/test_seat_controls.py); on a Pi, the booted table.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import subprocess
import sys
import traceback
from pathlib import Path
from types import ModuleType

import pytest

from drivers.pin_backends import (
    BackendChoice,
    PinBackendError,
    Why,
    board_model,
    choose_backend,
    lgpio_work_dir,
    make_pin_factory,
)

ROOT = Path(__file__).resolve().parents[2]

MODELS = (
    "Raspberry Pi 3 Model B Rev 1.2",
    "Raspberry Pi 3 Model B Plus Rev 1.3",
    "Raspberry Pi 3 Model A Plus Rev 1.1",
    "Raspberry Pi Zero 2 W Rev 1.0",
    "Raspberry Pi 4 Model B Rev 1.5",
    "Raspberry Pi 400 Rev 1.0",
    "Raspberry Pi Compute Module 4 Rev 1.1",
    "Raspberry Pi 5 Model B Rev 1.0",
    "Raspberry Pi 500 Rev 1.0",
    "Raspberry Pi Compute Module 5 Rev 1.0",
)
"""The device tree's model strings (``/proc/device-tree/model``) of the boards a table may be built on."""

PI4_CPUINFO = "processor\t: 0\nmodel name\t: ARMv7 Processor rev 3 (v7l)\nHardware\t: BCM2835\nRevision\t: c03115\n"
"""A Pi 4 Model B 4 GB's ``/proc/cpuinfo``: gpiozero reads the board from its ``Revision`` (new-style
code c03115: type 0x11, a Pi 4B) when there is no ``/proc/device-tree/system/linux,revision``."""

needs_no_pi = pytest.mark.skipif(
    board_model() is not None or any(Path("/dev").glob("gpiochip*")) or importlib.util.find_spec("lgpio") is None,
    reason="lgpio is not installed (no wheel for this Python: the dev extra has it up to 3.12), or this board "
           "has GPIO chips, which the factories would open")


def _recording_importer(seen: list[str]):
    def importer(name: str) -> ModuleType:
        seen.append(name)
        return importlib.import_module(name)

    return importer


@pytest.mark.parametrize("model", MODELS)
def test_auto_is_lgpio_on_every_pi(model: str) -> None:
    assert choose_backend("auto", read_board=lambda: model) == BackendChoice("lgpio", Why.EVERY_PI, model)


@pytest.mark.parametrize("backend", ["lgpio", "rpigpio", "mock"])
def test_a_named_backend_is_taken_as_named(backend: str) -> None:
    choice = choose_backend(backend, read_board=lambda: "Raspberry Pi 4 Model B Rev 1.5")
    assert (choice.backend, choice.why) == (backend, Why.NAMED)


@needs_no_pi
@pytest.mark.parametrize("model", MODELS)
def test_auto_on_every_pi_goes_to_gpiozeros_lgpio_factory_and_never_to_rpigpio(model: str) -> None:
    """The real gpiozero ``LGPIOFactory`` on the real lgpio; off a Pi it stops at the board's revision,
    and the table says there is no Pi here."""
    seen: list[str] = []
    with pytest.raises(PinBackendError, match='backend = "mock"') as info:
        make_pin_factory("auto", read_board=lambda: model, importer=_recording_importer(seen))
    assert seen == ["lgpio", "gpiozero.pins.lgpio"]
    cause = info.value.__cause__
    assert cause is not None and type(cause).__name__ == "PinUnknownPi"
    frames = [frame.filename for frame in traceback.extract_tb(cause.__traceback__)]
    assert any(name.endswith(os.path.join("gpiozero", "pins", "lgpio.py")) for name in frames), frames


def _in_a_pi4s_mount_namespace(tmp_path: Path, script: str) -> subprocess.CompletedProcess[str]:
    """``script`` run by this Python where ``/proc/cpuinfo`` is a Pi 4's (a private mount namespace)."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("a Pi's /proc/cpuinfo needs root and unshare (a mount namespace of the test's own)")
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(PI4_CPUINFO)
    code = tmp_path / "script.py"
    code.write_text(script)
    inner = f"mount --bind {cpuinfo} /proc/cpuinfo && exec {sys.executable} {code}"
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", inner],
                          capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)


@needs_no_pi
def test_lgpio_on_a_pi_whose_chip_does_not_open_says_what_to_check(tmp_path: Path) -> None:
    """gpiozero reads a Pi 4's revision, picks gpiochip0 and lgpio's C library tries to open it."""
    done = _in_a_pi4s_mount_namespace(tmp_path, """
from drivers.pin_backends import PinBackendError, make_pin_factory
try:
    make_pin_factory("auto", read_board=lambda: "Raspberry Pi 4 Model B Rev 1.5")
except PinBackendError as exc:
    print(type(exc.__cause__).__module__, type(exc.__cause__).__name__)
    print(exc)
""")
    assert done.returncode == 0, done.stderr
    cause, message = done.stdout.splitlines()[:2]
    assert cause == "lgpio error"
    assert "lgpio cannot open the GPIO chip ('can not open gpiochip')" in message
    assert "/dev/gpiochip*" in message and "`gpio` group" in message


def test_lgpio_gets_a_folder_it_can_write_when_the_current_one_is_not(tmp_path: Path) -> None:
    """lgpio makes its notification pipes (``.lgd-nfy*``) in ``LG_WD``, else in the current folder: the
    doctor run by hand as the service's user from a folder it cannot write failed its buttons on a real
    kernel (scripts/vm_test.py). A folder gone from under the process (which even root cannot write) stands
    for it: the factory gives lgpio a folder of its own, before lgpio loads."""
    gone = tmp_path / "gone"
    gone.mkdir()
    script = f"""
import os
os.chdir({str(gone)!r})
os.rmdir({str(gone)!r})
from drivers.pin_backends import PinBackendError, make_pin_factory
seen = []
def importer(name):
    seen.append(os.environ.get("LG_WD"))
    raise ImportError(name)
try:
    make_pin_factory("lgpio", importer=importer)
except PinBackendError:
    pass
print(seen[0] is not None and os.access(seen[0], os.W_OK), seen[0] != {str(gone)!r})
"""
    env = {k: v for k, v in os.environ.items() if k != "LG_WD"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)}, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]


def test_lgpio_keeps_the_current_folder_or_lg_wd_where_it_is_writable(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LG_WD", raising=False)
    monkeypatch.chdir(tmp_path)
    lgpio_work_dir()
    assert "LG_WD" not in os.environ
    monkeypatch.setenv("LG_WD", str(tmp_path / "elsewhere"))
    lgpio_work_dir()
    assert os.environ["LG_WD"] == str(tmp_path / "elsewhere")


@needs_no_pi
def test_rpigpio_names_run_on_lgpio_through_rpi_lgpio(tmp_path: Path) -> None:
    """gpiozero's ``RPiGPIOFactory`` on rpi-lgpio's RPi.GPIO (told it is on a Pi 4 the way it documents,
    ``RPI_LGPIO_REVISION``): not refused on a kernel since 6.6, it goes to lgpio's chip, whose refusal
    is worded."""
    if importlib.util.find_spec("RPi") is None:
        pytest.skip("rpi-lgpio is not installed (the dev extra has it up to Python 3.12)")
    script = """
from drivers.pin_backends import PinBackendError, make_pin_factory
import RPi.GPIO
print(RPi.GPIO.lgpio.__name__)
try:
    make_pin_factory("rpigpio", read_board=lambda: "Raspberry Pi 4 Model B Rev 1.5",
                     kernel=lambda: "6.12.25+rpt-rpi-v8")
except PinBackendError as exc:
    print(type(exc.__cause__).__module__, type(exc.__cause__).__name__)
    print(exc)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "RPI_LGPIO_REVISION": "c03115"}, check=False)
    assert done.returncode == 0, done.stderr
    shim, cause, message = done.stdout.splitlines()[:3]
    assert shim == "lgpio" and cause == "lgpio error"
    assert "RPi.GPIO cannot open the GPIO ('can not open gpiochip')" in message


def test_rpi_lgpio_is_the_rpigpio_names_installed() -> None:
    """The ``pi`` and ``dev`` extras install rpi-lgpio, never the original RPi.GPIO, whose edges fail."""
    from importlib.metadata import PackageNotFoundError, distribution

    with pytest.raises(PackageNotFoundError):
        distribution("RPi.GPIO")
    if sys.version_info < (3, 13):  # the dev extra's rpi-lgpio and lgpio stop at 3.12 (no lgpio wheel)
        assert distribution("rpi-lgpio").read_text("top_level.txt") in (None, "RPi\n")


def _original_rpigpio() -> ModuleType:
    """What the original RPi.GPIO 0.7.1 shows of itself: its version, and no lgpio underneath."""
    module = ModuleType("RPi.GPIO")
    module.VERSION = "0.7.1"  # type: ignore[attr-defined]
    return module


@pytest.mark.parametrize("kernel", ["6.6.20+rpt-rpi-v8", "6.12.25+rpt-rpi-2712", "7.0.1"])
def test_the_original_rpigpio_is_refused_on_kernels_since_6_6(kernel: str) -> None:
    def importer(name: str) -> ModuleType:
        if name == "RPi.GPIO":
            return _original_rpigpio()
        raise AssertionError(f"{name} loaded after RPi.GPIO was found unable to detect edges")

    with pytest.raises(PinBackendError, match="Failed to add edge detection") as info:
        make_pin_factory("rpigpio", importer=importer, read_board=lambda: "Raspberry Pi 4 Model B Rev 1.5",
                         kernel=lambda: kernel)
    assert "pip install rpi-lgpio" in str(info.value) and f"kernel {kernel}" in str(info.value)


def test_the_original_rpigpio_still_runs_on_an_older_kernel() -> None:
    sentinel = object()
    pins = ModuleType("gpiozero.pins.rpigpio")
    pins.RPiGPIOFactory = lambda: sentinel  # type: ignore[attr-defined]
    modules = {"RPi.GPIO": _original_rpigpio(), "gpiozero.pins.rpigpio": pins}
    factory = make_pin_factory("rpigpio", importer=modules.__getitem__, kernel=lambda: "6.1.21-v8+",
                               read_board=lambda: "Raspberry Pi 3 Model B Plus Rev 1.3")
    assert factory is sentinel


PI_5_REVISION = 0xC04170  # (revision & 0xff0) >> 4 == 0x17: a Pi 5 (the revision codes' type field)


def test_the_gpiozero_required_opens_a_pi_5s_header_where_its_kernel_puts_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a Pi 5 since kernel 6.6.45 the header's GPIOs are gpiochip0 (raspberrypi/linux pull 6144, no
    gpiochip4 left); gpiozero before 2.0.1.post3 opened gpiochip4 (gpiozero #1166)."""
    import tomllib

    import lgpio
    from gpiozero.pins.lgpio import LGPIOFactory
    from packaging.requirements import Requirement

    listed = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    gpiozero = next(Requirement(line) for line in listed if line.startswith("gpiozero"))
    assert not gpiozero.specifier.contains("2.0.1") and gpiozero.specifier.contains("2.0.1.post3")
    opened: list[int] = []
    monkeypatch.setattr(LGPIOFactory, "_get_revision", lambda self: PI_5_REVISION)
    monkeypatch.setattr(lgpio, "gpiochip_open", lambda chip: opened.append(chip) or 1)
    monkeypatch.setattr(lgpio, "gpiochip_close", lambda handle: None)
    real_exists = os.path.exists
    monkeypatch.setattr(os.path, "exists", lambda path: False if path == "/dev/gpiochip4" else real_exists(path))
    LGPIOFactory().close()
    assert opened == [0]
