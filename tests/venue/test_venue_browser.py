"""What a person sees, in a real headless Chromium (Debian's, through Playwright): the table's
page and the venue's scoreboard load, update live without reload, and show the right score."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import feed, free_port, whole_game

from firmware_host.referee.transcript import ButtonEvent
from firmware_host.service import TableService
from venue.hub import HubSettings, Session, build_hub
from venue.mqtt import TablePublisher
from venue.page import ServerThread, TablePage
from venue.settings import MqttSettings, WebSettings

TIMEOUT_MS = 20_000


def test_the_table_page_follows_a_game(browser: Any, service: TableService, tmp_path: Path) -> None:
    with TablePage(WebSettings(port=0), table="Table 1", journal=Path(service.journal.path)) as page:
        service.outputs.append(page)
        service.resume()
        tab = browser.new_page(viewport={"width": 390, "height": 844})  # a phone
        tab.goto(page.url)
        tab.wait_for_function("window.__state !== null", timeout=TIMEOUT_MS)
        tab.evaluate("window.__marker = 'no reload'")
        events = whole_game(4)
        for event in events[: len(events) // 2]:
            feed(service, event)
        tab.wait_for_function("document.querySelector('#trick, #lasttrick') && window.__updates > 10",
                              timeout=TIMEOUT_MS)
        for event in events[len(events) // 2:]:
            feed(service, event)
        final = service.outputs[0].outcomes[-1].snapshot  # type: ignore[attr-defined]
        score = f"{final.view.score[0]}-{final.view.score[1]}"
        tab.wait_for_function(f"document.querySelector('#score').dataset.score === '{score}'", timeout=TIMEOUT_MS)
        assert tab.evaluate("window.__marker") == "no reload"
        assert "wins" in tab.inner_text("#prompt")
        tab.click("nav button[data-tab=hands]")
        assert "hand 1" in tab.inner_text("#handlist")
        tab.click("nav button[data-tab=games]")
        tab.wait_for_selector("#gamelist tbody tr", timeout=TIMEOUT_MS)
        tab.click("#gamelist tbody tr a")
        tab.wait_for_function("document.querySelector('#record').textContent.includes('[Hand')", timeout=TIMEOUT_MS)
        tab.click("nav button[data-tab=stats]")
        tab.wait_for_selector("#statlist tbody tr", timeout=TIMEOUT_MS)
        tab.screenshot(path=str(tmp_path / "table.png"), full_page=True)
        tab.close()


def test_the_scoreboard_follows_two_tables(browser: Any, service: TableService, tmp_path: Path) -> None:
    broker_port = free_port()
    settings = HubSettings(("127.0.0.1", 0), MqttSettings(port=broker_port, venue="club"), True,
                           ("127.0.0.1", broker_port), Session("evening", ("A", "B")))
    app, _live = build_hub(settings)
    server = ServerThread(app, "127.0.0.1", 0, name="hub")
    server.start()
    try:
        tab = browser.new_page(viewport={"width": 390, "height": 844})
        tab.goto(server.url)
        tab.wait_for_selector("#conn:text('live')", timeout=TIMEOUT_MS)
        finals = []
        for name, seed in (("t1", 4), ("t2", 11)):
            publisher = TablePublisher(MqttSettings(port=broker_port, venue="club", table=name, enabled=True),
                                       table_name=name)
            publisher.start()
            assert publisher.connected.wait(20)
            service.outputs[1:] = [publisher]
            for event in whole_game(seed):
                feed(service, event)
            finals.append(service.outputs[0].outcomes[-1].snapshot)  # type: ignore[attr-defined]
            feed(service, ButtonEvent("A", "yes"))  # next game
            publisher.close()
        for name, _final in zip(("t1", "t2"), finals, strict=True):
            # the table went on to a new game (0-0); its result stays in the standings
            tab.wait_for_selector(f"tr[data-table={name}]", timeout=TIMEOUT_MS)
        tab.wait_for_function("window.__standings && window.__standings.games === 2", timeout=TIMEOUT_MS)
        wins = {r["player"]: r["wins"] for r in tab.evaluate("window.__standings.ranking")}
        assert wins == {"A": sum(f.winner == "A" for f in finals), "B": sum(f.winner == "B" for f in finals)}
        tab.click("nav button[data-tab=standings]")
        assert "round 1" in tab.inner_text("#rounds")
        tab.screenshot(path=str(tmp_path / "hub.png"), full_page=True)
        tab.close()
    finally:
        server.close()
