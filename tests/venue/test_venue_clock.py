"""A Pi has no real-time clock: it boots with the last saved time and jumps when NTP answers.
A journal written with the wall clock hours ahead, or stepped back mid-game, is
shown as its order and the monotonic clock say: every hand of a finished game with
``reveal_delay = 0`` (was: ``"hands": []``, ``Result "*"``, ``/api/stats`` empty and no
``games/<n>`` until the clock caught up), and none before its delay (was: at once, when the
clock had been behind).

The wall clock is stepped at the seam the journal has for it (``Journal(clock=...)``: the
``t`` of each row, as a Pi's clock would have written it); the page, ``/api/stats`` and the
MQTT ``games/<n>`` are read as they are served, through the real app and a real broker.
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

import pytest
from conftest import open_broker, wait_for, whole_game
from starlette.testclient import TestClient
from test_venue_mqtt import Watcher

from firmware_host.journal.store import Journal
from firmware_host.referee.controller import Controller
from firmware_host.referee.transcript import ButtonEvent
from firmware_host.service import TableService
from venue.settings import MqttSettings, WebSettings
from venue.table.mqtt import TablePublisher
from venue.table.page import LiveTable, table_app
from venue.table.page_history import JournalHistory
from venue.table.public import PublicFeed

HOURS = 3 * 3600.0


class SteppedClock:
    """The wall clock of a Pi without a real-time clock: ``offset`` seconds off, stepped at will."""

    def __init__(self, offset: float) -> None:
        self.offset = offset

    def __call__(self) -> float:
        return time.time() + self.offset


def _journal(path: Path, start: float, mid_game: float) -> int:
    """A whole game written with the wall clock ``start`` seconds off, stepped to ``mid_game``
    halfway; then the next game begun (game 1 is over, not the one in play). Its hands."""
    clock = SteppedClock(start)
    events = [*whole_game(4), ButtonEvent("A", "yes")]
    with Journal(path, lock=True, clock=clock) as journal:
        service = TableService(journal=journal, controller=Controller())
        service.resume()
        for index, event in enumerate(events):
            if index == len(events) // 2:
                clock.offset = mid_game
            service.put_physical(event)
            service.handle(service.queue.get_nowait())
    played = JournalHistory(path).game(1)
    assert played is not None and played.winner is not None
    return len(played.hands)


def _page(path: Path, delay: float) -> TestClient:
    history = JournalHistory(path, table="T", reveal_delay=delay)
    return TestClient(table_app(LiveTable(PublicFeed(table="T", reveal_delay=delay)), history=history,
                                settings=WebSettings(reveal_delay=delay)))


@pytest.mark.parametrize(("start", "mid_game"), [(HOURS, 2 * HOURS), (HOURS, -HOURS), (-HOURS, HOURS)],
                         ids=["ahead, further ahead", "ahead, then behind", "behind, then ahead"])
def test_a_finished_game_is_shown_whatever_the_clock_wrote(tmp_path: Path, start: float, mid_game: float) -> None:
    path = tmp_path / "j.sqlite"
    hands = _journal(path, start, mid_game)
    with _page(path, delay=0.0) as client:
        game = client.get("/api/games/1").json()
        assert len(game["hands"]) == hands, game["tags"]
        assert game["tags"]["Result"] != "*" and game["tags"]["Winner"] in ("A", "B")
        assert '[Result "*"]' not in client.get("/api/games/1/record").text
        stats = client.get("/api/stats").json()
        assert {row["player"] for row in stats} == {"A", "B"} and sum(row["hands"] for row in stats) == 2 * hands


@pytest.mark.parametrize(("start", "mid_game"), [(-HOURS, -2 * HOURS), (HOURS, -HOURS)],
                         ids=["behind, further behind", "ahead, then behind"])
def test_no_hand_is_shown_before_its_delay_whatever_the_clock_wrote(
    tmp_path: Path, start: float, mid_game: float,
) -> None:
    path = tmp_path / "j.sqlite"
    hands = _journal(path, start, mid_game)
    with _page(path, delay=600.0) as client:  # the game was written seconds ago
        assert client.get("/api/games/1").json()["hands"] == []
        assert client.get("/api/stats").json() == []
    history = JournalHistory(path, table="T", reveal_delay=600.0)
    log = history.log(1, now=time.monotonic() + 601.0)  # 601 s later on the monotonic clock
    assert log is not None and len(log.hands) == hands
    assert sum(row["hands"] for row in history.stats(now=time.monotonic() + 601.0)) == 2 * hands


def _games_topic(path: Path, delay: float, wait: float) -> bytes | None:
    with open_broker() as broker:
        settings = MqttSettings(port=broker.port, venue="club", table="t1", enabled=True, reveal_delay=delay)
        with TablePublisher(settings, table_name="Table 1", journal=path) as publisher:
            watcher = Watcher(settings)
            try:
                wait_for(publisher.connected.is_set, "the table's connection")
                deadline = time.monotonic() + wait
                while watcher.last("ecarte/club/t1/games/1") is None and time.monotonic() < deadline:
                    time.sleep(0.05)
                return watcher.last("ecarte/club/t1/games/1")
            finally:
                watcher.close()


def test_games_are_resent_whatever_the_clock_wrote(tmp_path: Path) -> None:
    """The resend on (re)connecting held back a game written with the clock ahead until the clock caught up."""
    path = tmp_path / "j.sqlite"
    hands = _journal(path, HOURS, 2 * HOURS)
    payload = _games_topic(path, delay=0.0, wait=20.0)
    assert payload is not None, "games/1 never sent"
    assert len(json.loads(payload)["hands"]) == hands


def test_games_are_not_resent_before_their_delay_whatever_the_clock_wrote(tmp_path: Path) -> None:
    """Written with the clock behind, a game was resent at once, before its last hand's delay."""
    path = tmp_path / "j.sqlite"
    _journal(path, -HOURS, -2 * HOURS)
    assert _games_topic(path, delay=600.0, wait=3.0) is None


def _earlier_boot(path: Path) -> None:
    """The journal as a table finds it after a reboot: its rows written in another boot of the machine."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE meta SET value = value + 1 WHERE key = 'boot'")


def _sent_after_reboot(path: Path, clock_is_set: bool) -> bytes | None:
    with open_broker() as broker:
        settings = MqttSettings(port=broker.port, venue="club", table="t1", enabled=True)
        watcher = Watcher(settings)
        try:
            with TablePublisher(settings, table_name="Table 1", journal=path,
                                clock_is_set=lambda: clock_is_set) as publisher:
                wait_for(publisher.connected.is_set, "the table's connection")
                wait_for(lambda: 1 in publisher._games_sent, "game 1 looked at")
                time.sleep(1.0)  # what it sends goes out within this
                return watcher.last("ecarte/club/t1/games/1")
        finally:
            watcher.close()


@pytest.mark.parametrize("clock_is_set", [True, False], ids=["NTP answered", "before NTP"])
def test_a_reboot_resends_no_game_of_last_week(tmp_path: Path, clock_is_set: bool) -> None:
    """A table switched on at the club: every game its journal kept (up to 200) was sent again, its
    rows of an earlier boot taken as written when this boot began. A game of an earlier boot that
    ended a week ago by the wall clock is not resent, whether NTP has answered or not."""
    path = tmp_path / "j.sqlite"
    _journal(path, -7 * 24 * 3600.0, -7 * 24 * 3600.0)
    _earlier_boot(path)
    assert _sent_after_reboot(path, clock_is_set) is None


def test_a_reboot_resends_tonights_games_once_the_clock_is_set(tmp_path: Path) -> None:
    """A game of an earlier boot that ended an hour ago (a table restarted tonight) is resent once the
    clock is set, and not before: before NTP answers the wall clock cannot tell tonight from last week."""
    path = tmp_path / "j.sqlite"
    _journal(path, -3600.0, -3600.0)
    _earlier_boot(path)
    assert _sent_after_reboot(path, clock_is_set=True) is not None
    assert _sent_after_reboot(path, clock_is_set=False) is None
