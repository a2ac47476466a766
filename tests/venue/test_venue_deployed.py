"""The table's outputs as deployed meet a hostile host and a hostile client:
an output that cannot start says so in one line (exit 2), and a page flooded with connections
that never finish their headers still answers a normal client, with a log that stays small.

Each failure is real: IP sockets refused by a seccomp filter as systemd's
``RestrictAddressFamilies=`` installs it (``tests/no_ip.py``), a port already bound, a
descriptor limit set with ``setrlimit`` as systemd's ``LimitNOFILE=`` sets it.
"""

from __future__ import annotations

import contextlib
import resource
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import free_port
from waiting import HANG_S, answers, wait_for

CLI = Path(sys.executable).parent / "ecarte-table"
NO_IP = Path(__file__).resolve().parents[1] / "no_ip.py"
TIMEOUT = HANG_S


def _no_ip(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, str(NO_IP), str(CLI), *args], capture_output=True, text=True,
                          timeout=TIMEOUT, check=False, stdin=subprocess.DEVNULL)
    if done.returncode == 125:
        pytest.skip(done.stderr.strip())
    return done


def _one_line_refusal(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr[-3000:])
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    lines = [line for line in done.stderr.splitlines() if line.startswith("ecarte-table run:")]
    assert len(lines) == 1, done.stderr[-3000:]
    for word in words:
        assert word in lines[0], lines[0]


def test_mqtt_with_ip_sockets_forbidden_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """Was: a traceback from paho's socketpair (Errno 97), exit 1, and systemd's restarts until the start limit."""
    done = _no_ip("run", "--journal", str(tmp_path / "j.sqlite"), "--events", "/dev/null", "--mqtt", "127.0.0.1:1883")
    _one_line_refusal(done, "MQTT", "Address family not supported")


def test_a_page_with_ip_sockets_forbidden_is_said_never_announced(tmp_path: Path) -> None:
    """Was: `the table's page: http://127.0.0.1:8080` in the log, and nothing listening."""
    port = free_port()
    done = _no_ip("run", "--journal", str(tmp_path / "j.sqlite"), "--events", "/dev/null",
                  "--web", f"127.0.0.1:{port}")
    _one_line_refusal(done, "page cannot listen", "Address family not supported")
    assert "the table's page:" not in done.stderr


def test_a_page_on_a_port_already_bound_is_said_never_announced(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([str(CLI), "run", "--journal", str(tmp_path / "j.sqlite"), "--events", "/dev/null",
                               "--web", f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=TIMEOUT,
                              check=False)
    _one_line_refusal(done, "page cannot listen", f"127.0.0.1:{port}", "in use")
    assert "the table's page:" not in done.stderr


def _answer(url: str, timeout: float = 5.0) -> int:
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return int(answer.status)


def _room_for_a_flood() -> None:
    """This process may open the flood's 1,100 connections (the server under test gets 1,024)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1_300:
        pytest.skip(f"this test opens 1,100 connections: the descriptor limit here is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1_300) if hard == resource.RLIM_INFINITY
                                                else min(hard, max(soft, 1_300)), hard))


def _as_systemd() -> None:  # systemd's default soft limit, the unit's LimitNOFILE unset
    resource.setrlimit(resource.RLIMIT_NOFILE, (1_024, 1_024))


def _flooded(proc: subprocess.Popen[bytes], log: Path, url: str) -> int:
    """1,100 connections that begin their headers and never finish them, held 15 s, while a normal
    client asks ``url``: it is answered, and still at the end; the log's size then."""
    port = int(url.split("/")[2].rsplit(":", 1)[1])
    assert _answer(url) == 200
    flood: list[socket.socket] = []
    try:
        for _ in range(1_100):
            conn = socket.socket()
            conn.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                conn.connect(("127.0.0.1", port))
            flood.append(conn)
        time.sleep(1.0)
        for conn in flood:  # the headers begun, never finished
            with contextlib.suppress(OSError):
                conn.send(b"GET /api/state HTTP/1.1\r\nHost: x\r\n")
        answered = False
        deadline = time.monotonic() + 30.0
        while not answered and time.monotonic() < deadline:
            try:
                answered = _answer(url) == 200
            except OSError:
                time.sleep(0.5)
        held = time.monotonic()
        time.sleep(max(0.0, 15.0 - (held - deadline + 30.0)))  # the flood held 15 s in all
        size = log.stat().st_size
        assert answered, log.read_text(errors="replace")[-3000:]
        assert _answer(url) == 200  # and still, with the flood open
        assert proc.poll() is None
    finally:
        for conn in flood:
            conn.close()
    return size


def _ended(proc: subprocess.Popen[bytes]) -> None:
    """Stopped as systemd stops it (SIGTERM), its input closed first: ``run --events -`` keeps its page
    up once its input has ended, so waiting for it to end on its own lasts the whole limit."""
    if proc.stdin is not None:
        proc.stdin.close()
    if proc.poll() is None:
        proc.terminate()
    try:
        proc.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _holds_through_a_flood(command: list[str], url: str, log: Path, **popen: Any) -> None:
    """``command`` started as systemd would (1,024 descriptors), its page at ``url`` flooded
    (:func:`_flooded`): it answers throughout, its log stays under 20 KB, with no traceback."""
    _room_for_a_flood()
    with open(log, "wb") as sink:
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=sink, preexec_fn=_as_systemd, **popen)
    try:
        wait_for(lambda: proc.poll() is not None or answers(url), "the page", TIMEOUT)
        assert proc.poll() is None, log.read_text()[-3000:]
        size = _flooded(proc, log, url)
    finally:
        _ended(proc)
    text = log.read_text(errors="replace")
    assert size < 20_000, f"the log grew to {size:,} bytes: {text[:2000]}"
    assert "Traceback" not in text, text[:3000]


def test_a_flood_of_half_open_connections_neither_stops_the_page_nor_fills_the_log(tmp_path: Path) -> None:
    """Was, with `ulimit -n 1024`: 1,100 connections that never finish their headers took every
    descriptor, `/api/state` stopped answering for good, the log grew 228 MB in 50 s."""
    url = f"http://127.0.0.1:{free_port()}/api/state"
    _holds_through_a_flood([str(CLI), "run", "--journal", str(tmp_path / "j.sqlite"), "--events", "-",
                            "--web", url.split("/")[2]], url, tmp_path / "log", stdin=subprocess.PIPE)


def test_a_flood_of_half_open_connections_neither_stops_the_scoreboard_nor_fills_the_log(tmp_path: Path) -> None:
    """The venue's hub serves its scoreboard through the same guard as the table's page: was, under
    `ulimit -n 1024`, a scoreboard no phone could reach while the flood lasted."""
    from venue.hub.broker import mosquitto_path

    if mosquitto_path() is None:
        pytest.skip("Mosquitto is not installed: `apt-get install -y mosquitto`")
    port, broker = free_port(), free_port()
    venue = tmp_path / "venue.toml"
    venue.write_text(f'[hub]\nvenue = "club"\nlisten = "127.0.0.1:{port}"\n[broker]\nmode = "mosquitto"\n'
                     f'listen = "127.0.0.1:{broker}"\n[tables]\nnames = ["t1"]\n')
    _holds_through_a_flood([str(CLI), "hub", str(venue)], f"http://127.0.0.1:{port}/api/tables", tmp_path / "log",
                           cwd=tmp_path, stdin=subprocess.DEVNULL)
