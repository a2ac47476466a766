"""Hostile input never kills the service or bricks the journal.

Every reproducer of the issue, through ``run --events`` and ``replay`` as a user runs
them; the service's loop in process for what needs a look inside (a line the referee
refuses, the reader's window); and a fuzz test (hypothesis) of both commands on
arbitrary JSON values and arbitrary bytes: exit status 0 or 2, never a traceback,
never a hang, and the journal still opens. ``ECARTE_FUZZ_EXAMPLES`` sets how many
streams each fuzz test tries (default 150; the README's figure is from a run with more).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import threading
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from waiting import HANG_S

from cli.main import main
from engine import NotationError
from firmware_host.feeder import feed_lines
from firmware_host.journal.store import REJECTED, Journal
from firmware_host.outputs import JsonLines
from firmware_host.referee.controller import Controller
from firmware_host.referee.snapshot import Outcome
from firmware_host.referee.transcript import MAX_LINE_BYTES, PhysicalEvent, Setup, TranscriptError, parse_line
from firmware_host.service import FEED_WINDOW, TableService, reporter
from tests.console import said_at_info

CLI = Path(sys.executable).parent / "ecarte-table"
TIMEOUT = HANG_S
EXAMPLES = int(os.environ.get("ECARTE_FUZZ_EXAMPLES", "150"))

HOSTILE = [
    '{"setup":{"options":{"rubber":2}}}',
    '{"setup":{"rules":"nope"}}',
    '{"setup":{"options":{"ranking":1}}}',
    '{"setup":{"options":{"name":1}}}',
    '{"setup":{"options":{"rubber":"x"}}}',
    '{"setup":{"options":{"target":"x"}}}',
    '{"zone":"hand.A","card":["KS"]}',
    '{"setup":{"tags":{"04AABBCCDDEEFF":["KS"]}}}',
    "[" * 1000 + "]" * 1000,
    '{"t": ' + "1" * 4301 + "}",
    '{"setup":{"rules":"\\ud800"}}',
]


def _cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(CLI), *args], input=stdin, capture_output=True, timeout=TIMEOUT, check=False)


@pytest.mark.parametrize("line", HOSTILE, ids=range(len(HOSTILE)))
def test_a_hostile_line_is_a_transcript_error(line: str) -> None:
    with pytest.raises(TranscriptError) as raised:
        parse_line(line, source="f", line_no=7)
    assert str(raised.value).startswith("f:7: ")
    assert len(str(raised.value)) < 300


@pytest.mark.parametrize("line", HOSTILE[:6] + HOSTILE[-1:], ids=range(7))
def test_a_bad_setup_line_does_not_crash_loop_the_service(tmp_path: Path, line: str) -> None:
    journal = tmp_path / "j.sqlite"
    first = _cli("run", "--journal", str(journal), "--events", "-", "--json", stdin=line.encode() + b"\n")
    assert first.returncode == 2
    assert b"Traceback" not in first.stderr
    said = [line for line in first.stderr.decode().splitlines() if not said_at_info("en", line)]  # the start's
    assert said[0].startswith("ecarte-table run: <stdin>:1: "), said
    again = _cli("run", "--journal", str(journal), "--events", "-", "--json", stdin=b"")
    assert again.returncode == 0, again.stderr
    assert b"Traceback" not in again.stderr


def test_every_hostile_line_is_reported_with_its_number_and_the_stream_goes_on(tmp_path: Path) -> None:
    good = '{"seat": "A", "button": "yes"}'  # a button that means nothing yet: a notice
    stream = "".join(line + "\n" for line in [*HOSTILE, good]).encode()
    source = tmp_path / "hostile.jsonl"
    source.write_bytes(stream)
    for args, stdin in ((("--events", str(source)), None), (("--events", "-"), stream)):
        ran = _cli("run", "--journal", str(tmp_path / f"j{len(args[1])}.sqlite"), *args, "--json", "--all-events",
                   stdin=stdin)
        assert ran.returncode == 2
        err = ran.stderr.decode()
        assert "Traceback" not in err
        name = str(source) if stdin is None else "<stdin>"
        for number in range(1, len(HOSTILE) + 1):
            assert f"{name}:{number}: " in err
        assert b'"event": "notice"' in ran.stdout  # the good line after them was refereed
    replayed = _cli("replay", str(source), "--json")
    assert replayed.returncode == 2
    assert b"Traceback" not in replayed.stderr
    assert replayed.stderr.decode().count(f"{source}:") == len(HOSTILE)


def test_binary_input_is_reported_and_the_service_exits(tmp_path: Path) -> None:
    binary = tmp_path / "binary.dat"
    binary.write_bytes(bytes(range(256)) * 40 + b"\n\xff\xfe\n")
    ran = _cli("run", "--journal", str(tmp_path / "j.sqlite"), "--events", str(binary))
    assert ran.returncode == 2
    assert b"Traceback" not in ran.stderr
    assert b"not UTF-8 text" in ran.stderr


def test_an_over_long_line_is_rejected_without_being_echoed(tmp_path: Path) -> None:
    source = tmp_path / "long.jsonl"
    source.write_bytes(b'{"zone": "hand.A", "card": "' + b"K" * (4 * MAX_LINE_BYTES) + b'"}\n'
                       + b'{"seat": "A", "button": "king"}\n')
    for command in (("replay", str(source)), ("run", "--journal", str(tmp_path / "j.sqlite"), "--events",
                                              str(source))):
        ran = _cli(*command)
        assert ran.returncode == 2
        said = b"".join(line for line in ran.stderr.splitlines(keepends=True) if not said_at_info("en", line))
        assert b"line too long" in said
        assert len(said) < 500  # (run's start and stop lines at INFO aside)


class _Lines(io.RawIOBase):
    """A stream of ``count`` transcript lines made as they are read (nothing held)."""

    def __init__(self, count: int) -> None:
        self.left = count
        self.pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        while len(self.pending) < len(buffer) and self.left:
            self.pending += b'{"zone": "hand.A", "card": "KS", "gone": true}\n' * min(self.left, 1000)
            self.left -= min(self.left, 1000)
        size = min(len(buffer), len(self.pending))
        buffer[:size] = self.pending[:size]
        self.pending = self.pending[size:]
        return size


def test_replay_reads_a_long_transcript_in_bounded_memory() -> None:
    from firmware_host.journal.replay import check_stream, stream_events

    tracemalloc.start()
    try:
        assert check_stream(io.BufferedReader(_Lines(50_000)), "big") == []
        count = sum(1 for _ in stream_events(io.BufferedReader(_Lines(50_000)), "big"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 50_000
    assert peak < 2_000_000  # bytes: a few lines at a time, not 50,000 events


def test_the_events_reader_stays_a_window_ahead_of_the_loop(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite") as journal:
        service = TableService(journal=journal, controller=Controller())
        reader = threading.Thread(target=feed_lines, args=(service, io.BufferedReader(_Lines(5_000)), "big"),
                                  daemon=True)
        reader.start()
        reader.join(timeout=2)  # not a measure: it blocks once its window is full
        assert reader.is_alive()
        assert service.queue.qsize() <= FEED_WINDOW
        service.run()  # until the reader's end
        reader.join(timeout=TIMEOUT)
        assert not reader.is_alive()
        assert journal.fed_lines() == 5_000


class _Refusing(Controller):
    """A referee that cannot take one kind of setup the transcript reader lets through."""

    def handle(self, event: PhysicalEvent) -> Outcome:
        if isinstance(event, Setup) and event.players == ("X", "Y", "Z"):
            raise NotationError("setup: this table seats no pool")
        return super().handle(event)


def test_a_line_the_referee_refuses_is_journaled_as_rejected_and_skipped_on_resume(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    lines = b'{"setup": {"players": ["X", "Y", "Z"]}}\n{"seat": "A", "button": "king"}\n'
    told: list[str] = []
    with Journal(path) as journal:
        service = TableService(journal=journal, controller=_Refusing(), report=reporter("en", told.append))
        threading.Thread(target=feed_lines, args=(service, io.BytesIO(lines), "f"), daemon=True).start()
        service.run()
        record = journal.current_game()
        assert record is not None and REJECTED in record.status
        assert journal.fed_lines() == 2
    assert len(told) == 1 and "this table seats no pool: line rejected" in told[0]
    out = io.StringIO()
    with Journal(path) as journal:
        service = TableService(journal=journal, controller=_Refusing(), outputs=[JsonLines(out)],
                               report=reporter("en", told.append))
        service.stop()
        service.run()  # the resume skips the rejected line: nothing refused twice
    assert len(told) == 1


# -- fuzzing ---------------------------------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)
_keys = st.sampled_from(["setup", "zone", "card", "uid", "gone", "seat", "button", "t", "rules", "dealer",
                         "target", "tags", "options", "players"])
_values = st.sampled_from(["hand.A", "play.B", "turnup", "KS", "7H", "A", "B", "yes", "king", "classic",
                           "04AABBCCDDEEFF", True, 5, -1, 0.5, None, [], {}]) | _json
_near = st.dictionaries(_keys, _values, max_size=4)  # lines close to real ones
_setup = st.builds(lambda body: {"setup": body}, st.dictionaries(
    st.sampled_from(["rules", "dealer", "target", "tags", "options", "players"]),
    _values | st.dictionaries(st.sampled_from(["rubber", "target", "doubling", "pool", "name", "ace_high"]),
                              _values, max_size=3),
    max_size=3))
_line = st.one_of(
    _json.map(lambda v: json.dumps(v).encode()),
    _near.map(lambda v: json.dumps(v).encode()),
    _setup.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=40).filter(lambda b: b"\n" not in b),
)
_stream = st.lists(_line, max_size=8).map(lambda lines: b"\n".join(lines) + b"\n") | st.binary(max_size=200)

_fuzz = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))


@contextlib.contextmanager
def _captured() -> Iterator[tuple[io.StringIO, io.StringIO]]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        yield out, err


@_fuzz
@given(_stream)
def test_fuzz_replay(tmp_path_factory: pytest.TempPathFactory, stream: bytes) -> None:
    source = tmp_path_factory.mktemp("fuzz") / "f.jsonl"
    source.write_bytes(stream)
    with _captured() as (_, err):
        code = main(["replay", str(source), "--json", "--all-events"])
    assert code in (0, 2), err.getvalue()
    assert "Traceback" not in err.getvalue()


@_fuzz
@given(_stream)
def test_fuzz_the_service_loop(tmp_path_factory: pytest.TempPathFactory, stream: bytes) -> None:
    """``run --events``'s path (reader thread, loop, journal, --json) without the devices."""
    path = tmp_path_factory.mktemp("fuzz") / "j.sqlite"
    told: list[str] = []
    out = io.StringIO()
    with Journal(path, lock=True) as journal:
        service = TableService(journal=journal, controller=Controller(), outputs=[JsonLines(out, everything=True)],
                               report=reporter("en", told.append))
        loop = threading.Thread(target=service.run, daemon=True)
        reader = threading.Thread(target=feed_lines, args=(service, io.BytesIO(stream), "f"), daemon=True)
        loop.start()
        reader.start()
        loop.join(timeout=TIMEOUT)
        assert not loop.is_alive(), "the service hangs"
        assert journal.fed_lines() == stream.count(b"\n") + (not stream.endswith(b"\n") and bool(stream))
    assert all(m.startswith("ecarte-table run: f:") for m in told)
    with Journal(path, lock=True) as journal:  # opens, whole, and resumes
        resumed = TableService(journal=journal, controller=Controller(), report=reporter("en", told.append))
        resumed.stop()
        resumed.run()


@settings(max_examples=max(3, EXAMPLES // 30), deadline=None, suppress_health_check=list(HealthCheck))
@given(_stream)
def test_fuzz_the_commands_themselves(tmp_path_factory: pytest.TempPathFactory, stream: bytes) -> None:
    journal = tmp_path_factory.mktemp("fuzz") / "j.sqlite"
    for args in (("replay", "-", "--json"), ("run", "--journal", str(journal), "--events", "-", "--json")):
        ran = _cli(*args, stdin=stream)
        assert ran.returncode in (0, 2), ran.stderr
        assert b"Traceback" not in ran.stderr
    status = _cli("journal", "check", "--journal", str(journal))
    assert status.returncode == 0, status.stdout
