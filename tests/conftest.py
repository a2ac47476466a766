"""Shared test settings: an ERROR logged by our own code fails the test (shared/STYLE.md).

A test that provokes an error log on purpose marks itself
``@pytest.mark.allow_error_log``. Third-party loggers (nfcpy logs every failed
reader command at ERROR) are not ours to judge.

Tests touch nothing of the person running them: the suite runs with a ``HOME`` and an
``XDG_STATE_HOME`` of its own (for this process and every command it starts), each test with
its own again (:func:`_own_state_directory`), and the session fails if the real state
directory (``~/.local/state/ecarte-table``: journal, registry, deck checks) changed.

Shared fixtures live here, for every test directory (gpiozero's layout): ``wait_for`` (poll until
a condition holds), an emulated PN532 (``sim``) and a raw transport to it (``port``), the queue a
device reports to (``events``) and ``wait_polls``. (A helper a test imports is a plain module beside
it, like ``tests/drivers/pn532_commands.py``: pytest loads each folder's ``conftest`` under that one
name, so ``from conftest import`` finds whichever was loaded last.)
"""

from __future__ import annotations

import logging
import os
import queue
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from waiting import wait_for as _wait_for

if TYPE_CHECKING:
    from drivers.device_events import DeviceEvent
    from drivers.nfc.pn532sim import Pn532Simulator
    from drivers.nfc.tty import RawTty

OUR_PACKAGES = ("engine", "drivers", "hardware", "firmware_host")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "allow_error_log: the test logs an ERROR on purpose")
    # the suite's temporary files (simulators' folders, journals...) in a folder of its own,
    # for this process and the commands it starts: what it leaves behind is seen at the end
    import tempfile

    if not hasattr(config, "workerinput"):
        private = tempfile.mkdtemp(prefix="ecarte-tests-")
        os.chmod(private, 0o755)  # a broker run as its own user (mosquitto) reads its files below it
        os.environ["TMPDIR"] = private
        tempfile.tempdir = private
        config.stash[_TMP] = private
        real = _state_directory()
        config.stash[_REAL_STATE] = (real, _listing(real))
        _private_home(Path(private) / "session")


_TMP = pytest.StashKey[str]()
_REAL_STATE = pytest.StashKey[tuple[Path, dict[str, tuple[int, int]]]]()


def _state_directory() -> Path:
    """The table's state directory as the code finds it (:func:`firmware_host.journal.store.default_journal`)."""
    from firmware_host.journal.store import default_journal

    return default_journal().parent


def _listing(directory: Path) -> dict[str, tuple[int, int]]:
    """Every file below ``directory``: its size and modification time (ns)."""
    if not directory.is_dir():
        return {}
    return {str(p.relative_to(directory)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(directory.rglob("*")) if p.is_file()}


def _private_home(root: Path) -> None:
    """``HOME`` and ``XDG_STATE_HOME`` under ``root``, for this process and the commands it starts."""
    (root / "home").mkdir(parents=True, exist_ok=True)
    (root / "state").mkdir(parents=True, exist_ok=True)
    os.environ["HOME"] = str(root / "home")
    os.environ["XDG_STATE_HOME"] = str(root / "state")
    os.environ.pop("STATE_DIRECTORY", None)  # systemd's, when the suite runs under a unit


@pytest.fixture(autouse=True)
def _own_state_directory(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test its own ``HOME`` and ``XDG_STATE_HOME`` (its own journal, registry, deck checks):
    what one test leaves there no other test sees. Returns the state directory."""
    root = tmp_path_factory.mktemp("home")
    for name in ("home", "state"):
        (root / name).mkdir()
    monkeypatch.setenv("HOME", str(root / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(root / "state"))
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    return root / "state"


@pytest.fixture
def sim() -> Iterator[Pn532Simulator]:
    """An emulated PN532 on a pty (the real nfcpy driver talks to it), closed after the test."""
    from drivers.nfc.pn532sim import Pn532Simulator

    with Pn532Simulator() as simulator:
        yield simulator


@pytest.fixture
def port(sim: Pn532Simulator) -> Iterator[RawTty]:
    """A raw serial transport to ``sim`` (frames written and read byte for byte)."""
    from drivers.nfc.tty import RawTty

    transport = RawTty(sim.path)
    yield transport
    transport.release()


@pytest.fixture
def events() -> queue.Queue[DeviceEvent]:
    """The queue the devices under test put their events on."""
    return queue.Queue()


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


@pytest.fixture
def wait_for() -> Callable[..., None]:
    """``wait_for(condition, what, timeout=HANG_S, interval=0.01)``: poll ``condition`` every
    ``interval`` seconds until it is true; after ``timeout`` seconds fail, naming ``what``."""
    return _wait_for  # the one implementation, tests/waiting.py (helpers outside a test import it there)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The suite leaves no simulator's folder behind: each simulator removes its own
    when it closes or its process exits, and the folders of a process killed outright are
    removed by the next simulator started (here: the sweep a new one would do)."""
    import gc
    import shutil

    from drivers.nfc.pn532sim import FOLDER_PREFIX, sweep_folders

    private = session.config.stash.get(_TMP, None)
    if private is None:
        return
    real, before = session.config.stash[_REAL_STATE]
    after = _listing(real)
    if after != before:
        changed = sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        print(f"\nthe suite changed the real state directory {real}: {', '.join(changed[:10])}")
    gc.collect()  # simulators no test holds any more: their finalizers remove their folders
    sweep_folders(private)
    left = sorted(name for name in os.listdir(private) if name.startswith(FOLDER_PREFIX))
    if left:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        print(f"\nthe suite left {len(left)} simulator folder(s) in {private}: {', '.join(left[:10])}")
    shutil.rmtree(private, ignore_errors=True)


@pytest.fixture(autouse=True)
def _no_error_logs(request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture):  # type: ignore[no-untyped-def]
    yield
    if request.node.get_closest_marker("allow_error_log"):
        return
    errors = [
        r for r in caplog.get_records("call")
        if r.levelno >= logging.ERROR and r.name.split(".")[0] in OUR_PACKAGES
    ]
    if errors:
        lines = "\n".join(f"{r.name}: {r.getMessage()}" for r in errors)
        pytest.fail(f"ERROR logged during the test:\n{lines}", pytrace=False)


# -- hypothesis profiles (the engine's property tests scale their example counts by the
# loaded profile: HYPOTHESIS_PROFILE=engine-thorough runs ten times as many games) --------


def _register_hypothesis_profiles() -> None:
    import os

    from hypothesis import settings

    settings.register_profile("engine-quick", max_examples=20, deadline=None)
    settings.register_profile("engine-thorough", max_examples=1000, deadline=None)
    profile = os.environ.get("HYPOTHESIS_PROFILE")
    if profile:
        settings.load_profile(profile)


_register_hypothesis_profiles()
