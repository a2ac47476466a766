"""The screenshots of docs/web.md, taken in Debian's Chromium: the table's page on a phone (360 px)
during a hand under way, and after a fault proven late (tests/transcripts/partial/late_yes.jsonl).

    .venv/bin/python scripts/web_screenshots.py [OUT_DIR]   # default: docs/
"""

from __future__ import annotations

import dataclasses
import random
import shutil
import sys
import tempfile
from pathlib import Path

import engine
from firmware_host.journal.store import Journal
from firmware_host.players.builtin import game_transcript
from firmware_host.referee import Controller, Outcome, PhysicalEvent, Setup, TableSnapshot, read_transcript
from firmware_host.service import TableService
from venue.settings import WebSettings
from venue.table.page import TablePage

ROOT = Path(__file__).resolve().parent.parent
LATE_FAULT = ROOT / "tests" / "transcripts" / "partial" / "late_yes.jsonl"


class _Last:
    """A service output that keeps the last snapshot."""

    snapshot: TableSnapshot | None = None
    count = 0

    def publish(self, outcome: Outcome) -> None:
        self.snapshot = outcome.snapshot
        self.count += 1


def _service(folder: Path) -> TableService:
    service = TableService(journal=Journal(folder / "journal.sqlite"), controller=Controller(), outputs=[_Last()])
    service.resume()
    return service


def _feed(service: TableService, event: PhysicalEvent) -> TableSnapshot:
    service.put_physical(event)
    service.handle(service.queue.get_nowait())
    last = service.outputs[0]
    assert isinstance(last, _Last) and last.snapshot is not None
    return last.snapshot


def _named(setup: Setup) -> Setup:
    return dataclasses.replace(setup, players=("Anne", "Bruno", ""))


def hand_under_way(service: TableService) -> None:
    """Seed 11's game: into its second hand, three tricks played and a card on a play pad."""
    events = game_transcript(engine.new_game("classic", dealer="A"), random.Random(11), faults=True)
    setup = events[0]
    assert isinstance(setup, Setup)
    for event in [_named(setup), *events[1:]]:
        snapshot = _feed(service, event)
        if snapshot.hand_no >= 2 and sum(snapshot.view.tricks) == 3 and len(snapshot.view.trick) == 1:
            return


def late_fault(service: TableService) -> None:
    """The partial-sight example: a fault at trick 1 proven at trick 4; B must choose."""
    for n, (_, event) in enumerate(read_transcript(LATE_FAULT.read_text().splitlines())):
        if _feed(service, _named(event) if n == 0 and isinstance(event, Setup) else event).warning:
            return


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    out = Path(argv[0]) if argv else ROOT / "docs"
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
        for name, play, table in (("web-hand.png", hand_under_way, "Club table 3"),
                                  ("web-late-fault.png", late_fault, "Club table 5")):
            with tempfile.TemporaryDirectory() as folder:
                service = _service(Path(folder))
                with TablePage(WebSettings(port=0), table=table, language="en") as page:
                    service.outputs.append(page)
                    last = service.outputs[0]
                    assert isinstance(last, _Last)
                    base = last.count
                    play(service)
                    tab = browser.new_page(viewport={"width": 360, "height": 760}, device_scale_factor=2)
                    tab.goto(page.url)
                    tab.wait_for_function(f"window.__state && window.__state.seq >= {last.count - base}")
                    tab.wait_for_selector("#conn[data-conn='live']")
                    tab.screenshot(path=str(out / name))
                    tab.close()
                service.journal.close()
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
