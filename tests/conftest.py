"""Shared test settings: an ERROR logged by our own code fails the test (STYLE.md).

A test that provokes an error log on purpose marks itself
``@pytest.mark.allow_error_log``. Third-party loggers (nfcpy logs every failed
reader command at ERROR) are not ours to judge.
"""

from __future__ import annotations

import logging

import pytest

OUR_PACKAGES = ("engine", "drivers", "hardware", "firmware_host")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "allow_error_log: the test logs an ERROR on purpose")


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
