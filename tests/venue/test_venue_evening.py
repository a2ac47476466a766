"""Watching a game on the page without shell tricks, in Chromium: ``run --web --pace``,
``demo --web`` and ``sim --web`` keep the page up until Ctrl-C, and its Games and Players tabs show
the players' names and a rubber's games; then the README's first evening end to end."""

from __future__ import annotations

import shlex
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import free_port, open_broker
from waiting import HANG_S, answers, wait_for

from catalogue import say

CLI = Path(sys.executable).parent / "ecarte-table"
ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPTS = ROOT / "tests" / "transcripts"
TIMEOUT_MS = 20_000


class Running:
    """An ``ecarte-table`` command left running, its standard error read as it comes."""

    def __init__(self, *args: str, stdin: str | None = None) -> None:
        self.process = subprocess.Popen([str(CLI), *args], cwd=ROOT, text=True, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.err: list[str] = []
        self.out: list[str] = []
        assert self.process.stdin is not None
        if stdin is not None:
            self.process.stdin.write(stdin)
        self.process.stdin.close()
        self.readers = [threading.Thread(target=lambda s=stream, i=into: i.extend(iter(s.readline, "")), daemon=True)
                        for stream, into in ((self.process.stderr, self.err), (self.process.stdout, self.out))]
        for reader in self.readers:
            reader.start()

    def _read_to_the_end(self) -> None:
        """The command has ended: every line it wrote is read (its pipes may still hold some)."""
        for reader in self.readers:
            reader.join(timeout=30)

    def wait_for_line(self, words: str, timeout: float = HANG_S) -> None:
        wait_for(lambda: any(words in line for line in self.err) or self.process.poll() is not None, words, timeout)
        if self.process.poll() is not None:
            self._read_to_the_end()
        assert any(words in line for line in self.err), (self.process.returncode, "".join(self.err))

    def wait_for_page(self, port: int, timeout: float = HANG_S) -> None:
        """Until the command's page answers on ``port`` (it failing first fails the test)."""
        url = f"http://127.0.0.1:{port}/api/state"
        wait_for(lambda: self.process.poll() is not None or answers(url), f"the page at {url}", timeout)
        assert self.process.poll() is None, (self.process.returncode, "".join(self.err))

    def interrupt(self) -> int:
        """Ctrl-C: the command ends by itself, cleanly."""
        self.process.send_signal(signal.SIGINT)
        status = self.process.wait(timeout=HANG_S)
        self._read_to_the_end()  # a traceback printed as it ended is seen
        assert "Traceback" not in "".join(self.err), "".join(self.err)
        return status


def test_run_plays_a_rubber_at_a_pace_and_the_page_stays_up(browser: Any, tmp_path: Path) -> None:
    port = free_port()
    rubber = str(TRANSCRIPTS / "classic_rubber.jsonl")
    table = Running("run", "--journal", str(tmp_path / "j.sqlite"), "--players", "Anne,Bruno",
                    "--web", f"127.0.0.1:{port}", "--pace", "0.05", "--events", rubber)
    try:
        table.wait_for_page(port)
        tab = browser.new_page()
        tab.goto(f"http://127.0.0.1:{port}")
        tab.wait_for_function("window.__state !== null", timeout=TIMEOUT_MS)
        assert table.process.poll() is None  # 36 lines at 0.05 s: still playing while the page opened
        tab.wait_for_function("window.__updates > 5", timeout=TIMEOUT_MS)  # it follows the game live
        table.wait_for_line("stays up at")  # every line read; all played once the rubber is won
        tab.wait_for_function("window.__state.view.phase === 'over' && window.__state.view.games.join() === '2,1'",
                              timeout=TIMEOUT_MS)
        assert "Anne" in tab.inner_text("#name-A")
        tab.click("nav button[data-tab=games]")
        tab.wait_for_selector("#gamelist tbody tr", timeout=TIMEOUT_MS)
        row = tab.inner_text("#gamelist tbody tr")
        assert "Anne – Bruno" in row and "rubber 2–1 (Anne 1 – 0, Bruno 0 – 1, Anne 1 – 0)" in row and "Anne" in row
        tab.click("#gamelist tbody tr a")
        tab.wait_for_function("document.querySelector('#record').textContent.includes('[Rubber \"A 2 B 1\"]')",
                              timeout=TIMEOUT_MS)
        tab.click("nav button[data-tab=stats]")
        tab.wait_for_selector("#statlist tbody tr", timeout=TIMEOUT_MS)
        rows = [r.split("\t")[:3] for r in tab.inner_text("#statlist tbody").splitlines()]
        assert rows == [["Anne", "3", "2"], ["Bruno", "3", "1"]]
        tab.close()
    finally:
        assert table.interrupt() == 0


def test_the_simulator_on_the_page(browser: Any) -> None:
    port = free_port()
    sim = Running("sim", "--seed", "4", "--web", f"127.0.0.1:{port}", stdin="deal\nB yes\nA no\n")
    try:
        sim.wait_for_line("stays up at")
        tab = browser.new_page()
        tab.goto(f"http://127.0.0.1:{port}")
        tab.wait_for_function("window.__state && window.__state.view.phase === 'play'", timeout=TIMEOUT_MS)
        assert tab.evaluate("window.__state.view.trump") is not None
        tab.close()
    finally:
        assert sim.interrupt() == 0


@pytest.mark.parametrize(("lang", "page"), [("fr", "la page de la table : "), ("de", "die Seite des Tisches: "),
                                           ("es", "la página de la mesa: ")])
def test_the_simulator_says_its_pages_address_in_its_language(tmp_path: Path, lang: str, page: str) -> None:
    """``sim --web`` printed "INFO venue.table.page: the table's page: http://..." in every language."""
    port = free_port()
    sim = Running("--language", lang, "sim", "--web", f"127.0.0.1:{port}", "--journal", str(tmp_path / "sim.sqlite"),
                  stdin="quit\n")
    try:
        sim.wait_for_line(say(lang, "sim.input_ended", url=f"http://127.0.0.1:{port}"))  # it lingers: Ctrl-C ends it
        assert any(f"{page}http://127.0.0.1:{port}" in line for line in sim.err), sim.err
    finally:
        assert sim.interrupt() == 0
    assert not any("the table's page" in line or line.startswith("INFO ") for line in sim.err), sim.err


def test_the_first_evening(browser: Any, tmp_path: Path) -> None:
    """The README's first evening, as a newcomer types it: the demo shown on the page, then the
    coach's review and the history, with the commands the demo itself prints."""
    port = free_port()
    journal = tmp_path / "demo.sqlite"
    demo = Running("demo", "--delay", "0", "--journal", str(journal), "--web", f"127.0.0.1:{port}")
    try:
        demo.wait_for_page(port)
        tab = browser.new_page()
        tab.goto(f"http://127.0.0.1:{port}")
        tab.wait_for_function("window.__state !== null", timeout=TIMEOUT_MS)
        demo.wait_for_line("the game is over; its page stays up at", timeout=120)
        tab.wait_for_function("document.querySelector('#prompt').textContent.includes('wins')", timeout=TIMEOUT_MS)
        assert "Anne" in tab.inner_text("#name-A") and "Bruno" in tab.inner_text("#name-B")
        tab.click("nav button[data-tab=games]")
        tab.wait_for_selector("#gamelist tbody tr", timeout=TIMEOUT_MS)
        assert "Anne – Bruno" in tab.inner_text("#gamelist tbody tr")
        tab.close()
    finally:
        assert demo.interrupt() == 0
    # the hints print the command as the demo was started (its path when the venv is not on PATH): run as printed
    said = {line.split(": ", 1)[0]: shlex.split(line.split(": ", 1)[1]) for line in demo.out
            if " --journal " in line and line.split(": ", 1)[0] in ("Review it with the coach", "All the demo's games")}
    review = subprocess.run([*said["Review it with the coach"], "--samples", "30"],
                            capture_output=True, text=True, timeout=120)
    assert review.returncode == 0 and review.stdout.startswith("game 1 hand "), review.stderr
    history = subprocess.run(said["All the demo's games"], capture_output=True, text=True,
                             timeout=HANG_S)
    assert history.returncode == 0 and "Anne – Bruno" in history.stdout and " wins " in history.stdout


def test_a_broker_that_cannot_be_reached_is_said_then_said_reached(caplog: Any) -> None:
    """``run --mqtt`` toward no broker says so at once and keeps trying; once a broker listens
    there, the table says it reached it (the command line's half: test_first_evening.py)."""
    import logging

    from venue.settings import MqttSettings
    from venue.table.mqtt import TablePublisher

    port = free_port()
    caplog.set_level(logging.INFO, logger="venue.table.mqtt")
    publisher = TablePublisher(MqttSettings(port=port, enabled=True, keepalive=5), table_name="t")
    publisher.start()
    try:
        wait_for(lambda: "cannot be reached" in caplog.text, "the broker said unreachable")
        with open_broker(port):
            assert publisher.connected.wait(40)
            wait_for(lambda: f"reached the broker 127.0.0.1:{port}" in caplog.text, "the broker said reached")
    finally:
        publisher.close()
