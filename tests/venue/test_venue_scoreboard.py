"""The venue's scoreboard in Chromium: each tile drawn alone (a state whose cards are not cards is
refused by the hub, and one that slipped by spoils only its own tile), a busy room drawn ten times a
second at most and only the tiles that change, a tile off the screen drawn when it scrolls into view,
and the director's disputed results."""

from __future__ import annotations

import json
import time
from typing import Any

from conftest import scoreboard, wait_for
from test_venue_results import SWISS, result

HOSTILE = [
    {"view": {"trick": [["A", ""]], "phase": "play"}},
    {"last_trick": {}, "view": {"phase": "play"}},
    {"view": {"trump": "", "phase": "play"}},
    {"view": {"trick": [["A", "ZZ"]], "phase": "play"}},
    {"last_trick": {"cards": {"A": "KS"}}, "view": {"phase": "play"}},
]
"""States that passed the hub's checks before and stopped the scoreboard from drawing any tile."""


def test_the_hub_refuses_a_state_whose_cards_are_not_cards() -> None:
    from venue.hub.room import Room

    room = Room("club")
    for i, state in enumerate(HOSTILE):
        assert room.take(f"ecarte/club/t{i}/state", json.dumps(state).encode(), 1.0) == []
    assert room.dropped == len(HOSTILE) and room.tables == {}
    good = {"view": {"trick": [["A", "KS"]], "trump": "TH", "phase": "play"},
            "last_trick": {"event": "trick", "cards": {"A": "7S", "B": "AD"}, "winner": "B", "leader": "A"}}
    assert room.take("ecarte/club/ok/state", json.dumps(good).encode(), 1.0)[0][0] == "table"


def test_the_scoreboard_draws_each_tile_alone(browser: Any) -> None:
    """Tiles of hostile states, as a retained state gives them to every browser that comes: each shows
    as unreadable and the tables around them are drawn (before, ``cardEl("")`` threw and none was)."""
    from venue.hub.room import Room, TableSeen
    from venue.hub.scoreboard import LiveRoom

    live = LiveRoom(Room("club"))
    good = json.dumps({"game": 1, "players": ["Ann", "Bob", ""], "t": 1.0,
                       "view": {"score": [3, 1], "phase": "play", "trick": [["A", "KS"]], "trump": "TH"}}).encode()
    live.take("ecarte/club/t0/state", good)
    live.take("ecarte/club/t9/state", good)
    for i, state in enumerate(HOSTILE, start=1):  # what the page could be sent by a hub that let them by
        live.room.tables[f"t{i}"] = TableSeen(f"t{i}", "online", state)
    with scoreboard(browser, live) as tab:
        tab.wait_for_selector("[data-table=t9] .ttrick svg.card[data-card=KS]", timeout=20_000)
        assert tab.get_attribute("[data-table=t0] .ttrump svg.card", "data-card") == "TH"
        for i in (1, 2, 5):  # the states whose drawing throws: a card "", a trick with no cards
            assert "unreadable" in tab.inner_text(f"[data-table=t{i}]")
        assert tab.inner_text("#count") == f"{len(HOSTILE) + 2} tables"


def test_a_busy_room_is_drawn_ten_times_a_second_at_most_and_only_the_tiles_that_change(browser: Any) -> None:
    """A room at full pace (256 tables, 850 states a second) kept a phone's page busy drawing: each state
    drew its tile again, up to 60 frames a second. A state that changes nothing the tile shows (a card
    dealt to a hand) leaves the tile as it is, and the room is drawn ten times a second at most."""
    from venue.hub.room import Room
    from venue.hub.scoreboard import LiveRoom

    def state(score: list[int], hand_sizes: list[int]) -> bytes:
        return json.dumps({"game": 1, "players": ["Ann", "Bob"], "t": 1.0, "view": {
            "score": score, "phase": "play", "trick": [["A", "KS"]], "trump": "TH", "hand_sizes": hand_sizes}}).encode()

    live = LiveRoom(Room("club"))
    live.take("ecarte/club/t0/state", state([0, 0], [5, 5]))
    with scoreboard(browser, live) as tab:
        tab.wait_for_selector("[data-table=t0] .ttrick svg.card[data-card=KS]", timeout=20_000)
        wait_for(lambda: live.loop is not None, "the server's loop")
        loop = live.loop
        assert loop is not None

        def send(table: str, payload: bytes) -> None:
            loop.call_soon_threadsafe(live.take, f"ecarte/club/{table}/state", payload)

        tab.evaluate("document.querySelector('[data-table=t0]').dataset.mark = 'first'")
        send("t0", state([0, 0], [4, 5]))  # a card left A's hand: what the tile shows is the same
        send("t1", state([0, 0], [5, 5]))
        tab.wait_for_selector("[data-table=t1]", timeout=20_000)
        assert tab.evaluate("window.__updates") == 3
        assert tab.get_attribute("[data-table=t0]", "data-mark") == "first"  # the same tile, not drawn again
        send("t0", state([1, 0], [4, 5]))
        tab.wait_for_function("document.querySelector('[data-table=t0] .tscore').textContent === '1 – 0'",
                              timeout=20_000)
        assert tab.get_attribute("[data-table=t0]", "data-mark") is None  # the score changed: drawn again

        frames = tab.evaluate("window.__frames")
        began = time.monotonic()
        for n in range(2, 102):  # a state every 10 ms, each changing the tile
            send("t0", state([n, 0], [4, 5]))
            time.sleep(0.01)
        tab.wait_for_function("document.querySelector('[data-table=t0] .tscore').textContent === '101 – 0'",
                              timeout=20_000)
        elapsed = time.monotonic() - began
        drawn = tab.evaluate("window.__frames") - frames
        assert tab.evaluate("window.__updates") == 104
        assert 1 <= drawn <= elapsed / 0.1 + 2, (drawn, elapsed)


def test_the_director_sees_a_disputed_result(browser: Any) -> None:
    from venue.hub.room import Room
    from venue.hub.scoreboard import LiveRoom
    from venue.hub.session import Session

    live = LiveRoom(Room("club", Session("Tuesday", SWISS, system="swiss", planned=3), ("table-1", "table-2")))
    live.take("ecarte/club/table-1/games/7", result("table-1", 7, ("Eve", "Bob")))
    with scoreboard(browser, live) as tab:
        tab.wait_for_function("window.__standings !== null", timeout=20_000)
        tab.click("nav button[data-tab=standings]")
        text = tab.inner_text("#rounds")
        assert "1 disputed result" in text and "table-1 game 7: Eve – Bob 5–2: not counted" in text
        assert "Ranking · Tuesday · 0 games" in tab.inner_text("#session")


def test_a_tile_off_the_screen_waits_and_is_drawn_when_it_scrolls_into_view(browser: Any) -> None:
    """A phone shows a few tiles of a room of many: a table far below the screen is not drawn again at
    each of its states (before, every tile of the room was), and shows its latest when scrolled to."""
    from venue.hub.room import Room
    from venue.hub.scoreboard import LiveRoom

    def state(score: list[int]) -> bytes:
        return json.dumps({"game": 1, "players": ["Ann", "Bob"], "t": 1.0,
                           "view": {"score": score, "phase": "play", "trick": [], "trump": "TH"}}).encode()

    live = LiveRoom(Room("club"))
    for i in range(80):
        live.take(f"ecarte/club/t{i}/state", state([0, 0]))
    with scoreboard(browser, live, viewport={"width": 390, "height": 844}) as tab:
        tab.wait_for_selector("[data-table=t79] .tscore", timeout=20_000)
        wait_for(lambda: live.loop is not None, "the server's loop")
        loop = live.loop
        assert loop is not None
        tab.evaluate("document.querySelector('[data-table=t79]').dataset.mark = 'far'")
        for table, score in (("t79", [1, 0]), ("t79", [2, 0]), ("t0", [1, 0])):
            loop.call_soon_threadsafe(live.take, f"ecarte/club/{table}/state", state(score))
        tab.wait_for_function("document.querySelector('[data-table=t0] .tscore').textContent === '1 – 0'",
                              timeout=20_000)  # in view: drawn, in the frame that had t79's states or after
        assert tab.evaluate("window.__updates") == 83
        assert tab.get_attribute("[data-table=t79]", "data-mark") == "far"  # not drawn again off the screen
        assert tab.text_content("[data-table=t79] .tscore") == "0 – 0"
        tab.eval_on_selector("[data-table=t79]", "e => e.scrollIntoView()")
        tab.wait_for_function("document.querySelector('[data-table=t79] .tscore').textContent === '2 – 0'",
                              timeout=20_000)  # its latest, once in view
        assert tab.get_attribute("[data-table=t79]", "data-mark") is None
