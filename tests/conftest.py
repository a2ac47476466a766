"""Shared test settings: an ERROR logged by our own code fails the test (STYLE.md).

A test that provokes an error log on purpose marks itself
``@pytest.mark.allow_error_log``. Third-party loggers (nfcpy logs every failed
reader command at ERROR) are not ours to judge.
"""

from __future__ import annotations

import logging
import os

import pytest

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


_TMP = pytest.StashKey[str]()


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
