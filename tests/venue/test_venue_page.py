"""The table's page through Starlette's TestClient: the APIs, the token, the table file's sections."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import feed, whole_game
from starlette.testclient import TestClient

from firmware_host.referee.transcript import ButtonEvent, PhysicalEvent, Setup
from firmware_host.service import TableService
from venue.settings import SettingsError, WebSettings, parse_sections
from venue.table.page import LiveTable, table_app
from venue.table.page_history import JournalHistory
from venue.table.public import PublicFeed


def played(service: TableService) -> LiveTable:
    live = LiveTable(PublicFeed(table="T"))
    for event in whole_game(4):
        feed(service, event)
    for outcome in service.outputs[0].outcomes:  # type: ignore[attr-defined]
        live.feed.take(outcome, now=0.0)
    return live


def test_the_page_and_its_apis(service: TableService) -> None:
    live = played(service)
    history = JournalHistory(Path(service.journal.path), table="T")
    with TestClient(table_app(live, history=history, settings=WebSettings())) as client:
        page = client.get("/")
        assert page.status_code == 200 and "viewport" in page.text and "/static/table.js" in page.text
        assert client.get("/static/table.js").status_code == 200
        state = client.get("/api/state").json()
        assert state["winner"] in ("A", "B") and state["view"]["phase"] == "over"
        games = client.get("/api/games").json()
        assert games[0]["winner"] == state["winner"] and games[0]["score"]["A"] == state["view"]["score"][0]
        game = client.get(f"/api/games/{games[0]['game']}").json()
        assert game["tags"]["Winner"] == state["winner"] and len(game["hands"]) == games[0]["hands"]
        record = client.get(f"/api/games/{games[0]['game']}/record")
        assert record.headers["content-type"].startswith("text/plain") and '[Hand "1"]' in record.text
        stats = client.get("/api/stats").json()
        assert {r["player"] for r in stats} == {"A", "B"} and sum(r["wins"] for r in stats) == 1
        assert client.get("/api/games/99").status_code == 404


def test_changes_need_the_token(service: TableService) -> None:
    queued: list[PhysicalEvent] = []
    live = played(service)
    settings = WebSettings(token="sesame")
    with TestClient(table_app(live, history=None, settings=settings, control=queued.append)) as client:
        body = {"players": ["Ann", "Bob"], "rules": "french", "target": 7}
        assert client.post("/api/setup", json=body).status_code == 401
        assert client.post("/api/setup", json=body, headers={"Authorization": "Bearer nope"}).status_code == 401
        good = {"Authorization": "Bearer sesame"}
        assert client.post("/api/setup", json=body, headers=good).status_code == 202
        assert client.post("/api/setup", json={"players": "Ann"}, headers=good).status_code == 400
        assert client.post("/api/new-game", headers=good).status_code == 202
    assert queued == [Setup(rules="french", target=7, players=("Ann", "Bob", "")), ButtonEvent("A", "yes")]
    with TestClient(table_app(live, history=None, settings=WebSettings(), control=queued.append)) as client:
        assert client.post("/api/new-game", headers={"Authorization": "Bearer x"}).status_code == 403


def test_every_endpoint_that_changes_the_table_is_behind_the_guard(service: TableService) -> None:
    """Each POST of the page asks for the token, then for a table it may change, before it reads a byte."""
    queued: list[PhysicalEvent] = []
    live = played(service)
    locked = table_app(live, history=None, settings=WebSettings(token="sesame"), control=queued.append)
    posts = [r.path for r in locked.routes if "POST" in (getattr(r, "methods", None) or ())]
    assert sorted(posts) == ["/api/new-game", "/api/setup"]
    good = {"Authorization": "Bearer sesame"}
    with TestClient(locked) as client:
        assert all(client.post(path, content=b"{").status_code == 401 for path in posts)
    with TestClient(table_app(live, history=None, settings=WebSettings(), control=queued.append)) as client:
        assert all(client.post(path, content=b"{", headers=good).status_code == 403 for path in posts)
    with TestClient(table_app(live, history=None, settings=WebSettings(token="sesame"))) as client:
        assert all(client.post(path, content=b"{", headers=good).status_code == 503 for path in posts)
    assert queued == []


def test_sections_of_the_table_file() -> None:
    web, mqtt = parse_sections({"web": {"listen": "[::1]:9000", "token": "t"},
                                "mqtt": {"venue": "club", "username": "u", "password": "p", "tls": True}},
                               table_name="Table 3")
    assert (web.host, web.port, web.token) == ("::1", 9000, "t")
    assert mqtt.enabled and mqtt.table == "table-3" and mqtt.base_topic == "ecarte/club/table-3" and mqtt.tls
    with pytest.raises(SettingsError) as err:
        parse_sections({"web": {"listen": "x:99999", "colour": 1}, "mqtt": {"venue": "a/b", "port": "x"}},
                       table_name="T")
    text = str(err.value)
    assert "web.listen" in text and "web.colour" in text and "mqtt.venue" in text and "mqtt.port" in text


def test_a_table_file_with_web_and_mqtt_loads(tmp_path: Path) -> None:
    from hardware.table import load_table, shipped_table_path

    text = shipped_table_path("simulated").read_text() + '\n[web]\nlisten = "127.0.0.1:0"\n[mqtt]\nvenue = "v"\n'
    path = tmp_path / "t.toml"
    path.write_text(text)
    assert load_table(path).name == "Simulated table"


def test_the_page_speaks_the_table_files_language(tmp_path: Path) -> None:
    """``run --web`` gives the page the table's ``[table] language``."""
    import contextlib

    import httpx

    from hardware.table import load_table, shipped_table_path
    from venue.table.wiring import VenueOutputs

    text = shipped_table_path("simulated").read_text().replace("[table]\n", '[table]\nlanguage = "fr"\n', 1)
    path = tmp_path / "t.toml"
    path.write_text(text + '\n[web]\nenabled = true\nlisten = "127.0.0.1:0"\n')
    with contextlib.ExitStack() as stack:
        (page,) = VenueOutputs(str(path)).open(load_table(path), tmp_path / "j.sqlite", lambda event: None, stack)
        words = httpx.get(page.url + "/api/words").json()
    assert words["lang"] == "fr" and words["ranks"]["K"] == "R" and words["words"]["trump"] == "atout"


_OPENED: list[str] = []
_COUNTING: list[bool] = []


def _count_connections(event: str, args: tuple[object, ...]) -> None:
    if event == "sqlite3.connect" and _COUNTING:
        _OPENED.append(str(args[0]))


sys.addaudithook(_count_connections)  # Python's own audit event: every SQLite database opened, by anyone


def _aged(journal: Path, seconds: float) -> None:
    """The journal's files as a journal last written ``seconds`` ago leaves them."""
    then = time.time() - seconds
    for file in (journal, journal.with_name(journal.name + "-wal")):
        if file.exists():
            os.utime(file, (then, then))


def test_the_history_endpoints_read_an_unchanged_journal_once(service: TableService) -> None:
    live = played(service)
    journal = Path(service.journal.path)
    history = JournalHistory(journal, table="T")
    _aged(journal, 60)
    with TestClient(table_app(live, history=history, settings=WebSettings())) as client:
        first = [client.get(path).json() for path in ("/api/games", "/api/games/1", "/api/stats")]
        _OPENED.clear()
        _COUNTING.append(True)
        try:
            for _ in range(10):  # viewers looping over the history
                again = [client.get(path).json() for path in ("/api/games", "/api/games/1", "/api/stats")]
                assert again == first
                assert '[Hand "1"]' in client.get("/api/games/1/record").text
        finally:
            _COUNTING.clear()
        assert _OPENED == []  # 40 requests, the journal unchanged: not opened once
        # a game ended during the page's life appears
        feed(service, ButtonEvent("A", "yes"))  # next game
        for event in whole_game(4):
            feed(service, event)
        games = client.get("/api/games").json()
        assert [g["game"] for g in games] == [2, 1] and games[0]["winner"] in ("A", "B")
        assert client.get("/api/games/2").json()["tags"]["Winner"] == games[0]["winner"]


def test_viewers_asking_at_once_after_a_line_make_one_read_of_it(service: TableService) -> None:
    played(service)
    journal = Path(service.journal.path)
    alone, crowd = JournalHistory(journal, table="T"), JournalHistory(journal, table="T")
    alone.games(), crowd.games()
    feed(service, ButtonEvent("A", "yes"))  # a line journaled: the next game begins
    _aged(journal, 60)
    _OPENED.clear()
    _COUNTING.append(True)
    try:
        expected = [g.summary() for g in alone.games()]
        once = len(_OPENED)  # what one viewer's request reads: the listing, the games whose lines changed
        _OPENED.clear()
        start = threading.Barrier(12)
        answers: list[list[dict[str, object]]] = []

        def viewer() -> None:
            start.wait()
            answers.append([g.summary() for g in crowd.games()])

        threads = [threading.Thread(target=viewer) for _ in range(12)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        _COUNTING.clear()
    assert answers == [expected] * 12 and once >= 2
    assert len(_OPENED) == once  # twelve viewers at once: each change read once, not once a viewer
