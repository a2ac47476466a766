"""Fixtures for the venue's tests: whole games, a table service with outputs, brokers, Chromium."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from waiting import HANG_S, wait_for

import engine
from firmware_host.journal.store import Journal
from firmware_host.players.builtin import game_transcript
from firmware_host.referee.controller import Controller
from firmware_host.referee.snapshot import Outcome
from firmware_host.referee.transcript import PhysicalEvent
from firmware_host.service import TableService

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
MOSQUITTO = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if os.path.exists("/usr/sbin/mosquitto") else None)
WAIT_S = HANG_S  # a hang's limit: a wait ends as soon as what it waits for comes


@contextlib.contextmanager
def scoreboard(browser: Any, live: Any, **page: Any) -> Iterator[Any]:
    """The hub's scoreboard of ``live`` (a :class:`venue.hub.scoreboard.LiveRoom`) served on a free port and open in a
    new tab of ``browser`` (``page``: its options, a viewport); the tab and the server closed after."""
    from venue.hub.scoreboard import hub_app
    from venue.table.page import ServerThread

    server = ServerThread(hub_app(live), "127.0.0.1", 0, name="hub")
    server.start()
    try:
        tab = browser.new_page(**page)
        tab.goto(server.url)
        yield tab
        tab.close()
    finally:
        server.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def whole_game(seed: int = 4, rules: str = "classic", faults: bool = True) -> list[PhysicalEvent]:
    return game_transcript(engine.new_game(rules, dealer="A"), random.Random(seed), faults=faults)


def feed(service: TableService, event: PhysicalEvent) -> None:
    """Referee one physical event now, on this thread (as the service's loop would)."""
    service.put_physical(event)
    service.handle(service.queue.get_nowait())


class Recorder:
    """A service output that keeps every outcome (first in the list: it sees each before the others)."""

    def __init__(self) -> None:
        self.outcomes: list[Outcome] = []

    def publish(self, outcome: Outcome) -> None:
        self.outcomes.append(outcome)


def make_service(path: Path) -> TableService:
    """A table service on a journal at ``path``, its first output a :class:`Recorder` (close its journal)."""
    svc = TableService(journal=Journal(path), controller=Controller(), outputs=[Recorder()])
    svc.resume()
    return svc


@pytest.fixture
def service(tmp_path: Path) -> Iterator[TableService]:
    svc = make_service(tmp_path / "journal.sqlite")
    yield svc
    svc.journal.close()


@pytest.fixture
def chromium() -> str:
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed: `apt-get install -y chromium` "
                    "(scripts/setup.sh does it when run as root)")
    return CHROMIUM


@pytest.fixture
def browser(chromium: str) -> Iterator[object]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def mosquitto() -> Iterator[dict[str, object]]:
    """A real Mosquitto on 127.0.0.1 with a password file and a TLS listener (a CA made here)."""
    if MOSQUITTO is None:
        pytest.skip("Mosquitto is not installed: `apt-get install -y mosquitto` (scripts/setup.sh does it as root)")
    # run as root, mosquitto drops to its own user: its files go where that user can read them
    tmp_path = Path(tempfile.mkdtemp(prefix="ecarte-mosquitto-"))
    tmp_path.chmod(0o755)
    passwd = tmp_path / "passwd"
    subprocess.run(["mosquitto_passwd", "-b", "-c", str(passwd), "table", "s3cret"], check=True,
                   capture_output=True)
    certs = _make_certs(tmp_path)
    port, tls_port = free_port(), free_port()
    conf = tmp_path / "mosquitto.conf"
    conf.write_text(
        "persistence false\nper_listener_settings false\nallow_anonymous false\n"
        f"password_file {passwd}\n"
        f"listener {port} 127.0.0.1\n"
        f"listener {tls_port} 127.0.0.1\ncafile {certs['ca']}\ncertfile {certs['cert']}\nkeyfile {certs['key']}\n"
    )
    for path in tmp_path.iterdir():
        path.chmod(0o755 if path.is_dir() else 0o644)
    proc = subprocess.Popen([MOSQUITTO, "-c", str(conf)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        def listening() -> bool:
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", tls_port)) == 0
        try:
            wait_for(listening, "mosquitto to listen")
        except AssertionError:
            proc.terminate()
            raise AssertionError(proc.communicate(timeout=10)[0].decode()) from None
        yield {"port": port, "tls_port": tls_port, "ca": certs["ca"], "username": "table", "password": "s3cret"}
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(tmp_path, ignore_errors=True)


class open_broker:  # a context manager, named like open()
    """A real Mosquitto on ``127.0.0.1:port`` (0: a free port) open to anyone, nothing kept on disk:
    the broker a table's own tests publish to (``with open_broker() as broker: broker.port``).
    Skips the test where Mosquitto is not installed."""

    def __init__(self, port: int = 0) -> None:
        if MOSQUITTO is None:
            pytest.skip("Mosquitto is not installed: `apt-get install -y mosquitto` (scripts/setup.sh does it as root)")
        self.port = port or free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="ecarte-open-mosquitto-"))
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> open_broker:
        assert MOSQUITTO is not None
        conf = self.folder / "mosquitto.conf"
        conf.write_text(f"persistence false\nlistener {self.port} 127.0.0.1\nallow_anonymous true\n")
        self.folder.chmod(0o755)
        conf.chmod(0o644)
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(conf)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

        def listening() -> bool:
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", self.port)) == 0

        try:
            wait_for(listening, "mosquitto to listen")
        except AssertionError:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None
        shutil.rmtree(self.folder, ignore_errors=True)


def _make_certs(folder: Path) -> dict[str, str]:
    ca_key, ca, key, csr, cert = (folder / n for n in ("ca.key", "ca.pem", "server.key", "server.csr", "server.pem"))
    ext = folder / "ext.cnf"
    ext.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    run = lambda *a: subprocess.run(a, check=True, capture_output=True)  # noqa: E731
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test CA",
        "-keyout", str(ca_key), "-out", str(ca))
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", str(key),
        "-out", str(csr))
    run("openssl", "x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
        "-days", "2", "-out", str(cert), "-extfile", str(ext))
    return {"ca": str(ca), "cert": str(cert), "key": str(key)}
