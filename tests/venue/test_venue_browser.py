"""What a person sees, in a real headless Chromium (Debian's, through Playwright): the table's
page and the venue's scoreboard load, update live without reload, and show the right score."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import MOSQUITTO, feed, free_port, make_service, wait_for, whole_game

from firmware_host.service import TableService
from firmware_host.transcript import ButtonEvent
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


def test_the_scoreboard_follows_two_tables(browser: Any, tmp_path: Path) -> None:
    broker_port = free_port()
    # the hub's default broker where it is installed: its own Mosquitto (amqtt, the fallback, drops
    # connections under a burst like this one and is covered by test_venue_trust.py)
    settings = HubSettings(("127.0.0.1", 0), MqttSettings(port=broker_port, venue="club"),
                           "mosquitto" if MOSQUITTO else "embedded",
                           ("127.0.0.1", broker_port), Session("evening", ("A", "B")), ("t1", "t2"), tmp_path / "hub")
    app, live = build_hub(settings)
    server = ServerThread(app, "127.0.0.1", 0, name="hub")
    server.start()
    try:
        tab = browser.new_page(viewport={"width": 390, "height": 844})
        tab.goto(server.url)
        tab.wait_for_selector("#conn:text('live')", timeout=TIMEOUT_MS)
        finals = []
        for name, seed in (("t1", 4), ("t2", 11)):
            password = (tmp_path / "hub" / "secrets" / f"{name}.pass").read_text().strip()
            table = make_service(tmp_path / f"{name}.sqlite")
            publisher = TablePublisher(MqttSettings(port=broker_port, venue="club", table=name, enabled=True,
                                                    username=name, password=password), table_name=name,
                                       journal=Path(table.journal.path))
            publisher.start()
            assert publisher.connected.wait(20)
            table.outputs.append(publisher)
            for event in whole_game(seed):
                feed(table, event)
            finals.append(table.outputs[0].outcomes[-1].snapshot)  # type: ignore[attr-defined]
            feed(table, ButtonEvent("A", "yes"))  # next game
            # a table stays on while the hub reads (amqtt drops what a client sent just before it leaves)
            wait_for(lambda: len(live.room.results) == len(finals), "the game's result at the hub")
            publisher.close()
            table.journal.close()
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
