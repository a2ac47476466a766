"""Waiting for something the test cannot be told of: poll until it holds, fail naming it.

Written once for the whole suite; tests take it as the ``wait_for`` fixture (``tests/conftest.py``),
helpers outside a test (a class that runs a command, a broker client) import it from here.
Nothing is measured: the limits are generous, a failure is a failure, never a timing.
"""

from __future__ import annotations

import time
from collections.abc import Callable

HANG_S = 600.0
"""How long a test lets a command or a condition run before calling it a hang, in seconds: a limit
for a hang, never for speed (speed is for bench/), generous for a machine busy with other work
(a command that took 40 s alone once took over 60 s with the suite beside it on two cores)."""


def wait_for(condition: Callable[[], object], what: str = "a condition", timeout: float = HANG_S,
             interval: float = 0.01) -> None:
    """Poll ``condition`` every ``interval`` seconds until it is true (by default for as long as a hang
    takes: a condition that holds in a second alone may take a minute on a busy machine).

    :raises AssertionError: after ``timeout`` seconds, naming ``what``.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(interval)
    if condition():
        return
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")


def answers(url: str) -> bool:
    """Whether ``url`` answers an HTTP GET with 200 now (a page that is up), for :func:`wait_for`:
    a page is waited for where it is, never through a line of its command's log."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=5.0) as answer:
            return bool(answer.status == 200)
    except (urllib.error.URLError, OSError):
        return False
