"""Results that belong to this evening: a result counts for a round only if it
ended after that round was paired, at the table the round seated it at; anything else is listed as
disputed, with why, for the director. A retained result of yesterday, an afternoon's game that an
honest table republishes when it reconnects, a result posted for a pair before the round that pairs
them: each used to fill a pairing of the evening. Through the hub's own Mosquitto and, for the
director's list, Chromium."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import MOSQUITTO
from test_venue_results import SWISS, result
from test_venue_trust import Hub, hub_factory, publish, secret, venue_file
from waiting import wait_for

from venue.hub.evening import Evening
from venue.hub.hub_settings import load_hub_settings
from venue.hub.ledger import CLOCK_SLACK_S, EVENING_S, Ledger, PairedTimes
from venue.hub.pairing import Played, swiss_evening
from venue.hub.room import Room
from venue.hub.session import Session

__all__ = ["hub_factory"]  # the fixture

TABLES = ("table-1", "table-2")
HOUR = 3600.0


class Clock:
    """The hub's wall clock, set by the test."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def swiss_room(clock: Clock, times: PairedTimes | None = None) -> Room:
    session = Session("Tuesday", SWISS, system="swiss", planned=3)
    return Room("club", session, TABLES, ledger=Ledger(session, TABLES, clock=clock, times=times))


def test_a_result_that_ended_before_its_round_was_paired_is_disputed() -> None:
    """Round 1 paired at 20:00 by the hub's clock: Ann–Cat's result at table-1 that ended 20 hours
    earlier (retained since yesterday) is disputed with both times; so is one that ended just past
    the clocks' slack before the pairing; one just within it counts."""
    paired = 1_800_000_000.0
    room = swiss_room(Clock(paired))
    room.take("ecarte/club/table-1/games/3", result("table-1", 3, ("Ann", "Cat"), ended=paired - 20 * HOUR), 1.0)
    standings = room.standings()
    assert standings["games"] == 0 and standings["rounds"][0]["games"][0]["result"] is None
    why = standings["disputed"][0]["why"]
    assert "before round 1 paired Ann and Cat" in why and "by table-1's clock" in why, why
    room.take("ecarte/club/table-1/games/4", result("table-1", 4, ("Ann", "Cat"), ended=paired - CLOCK_SLACK_S - 1),
              2.0)
    assert room.standings()["games"] == 0 and len(room.standings()["disputed"]) == 2
    room.take("ecarte/club/table-1/games/5", result("table-1", 5, ("Ann", "Cat"), ended=paired - CLOCK_SLACK_S + 1),
              3.0)
    standings = room.standings()
    assert standings["games"] == 1 and standings["rounds"][0]["games"][0]["result"]["game"] == 5


def test_a_result_posted_ahead_of_its_round_is_disputed_when_the_round_pairs_it() -> None:
    """table-2's Cat v Bob posted while round 1 is played (before round 2 existed) was counted the moment
    round 2 seated that pair at table-2; now it is disputed, and the game played after the pairing counts."""
    clock = Clock(1_800_000_000.0)
    room = swiss_room(clock)
    round_2 = swiss_evening(SWISS, 3, [Played(("Ann", "Cat"), "A"), Played(("Eve", "Bob"), "B")])[1]
    (a1, b1), (a2, b2) = round_2.pairs
    clock.now += 600  # round 1 under way
    room.take("ecarte/club/table-2/games/1", result("table-2", 1, (a2, b2), ended=clock.now), 1.0)
    clock.now += 600  # round 1 over: round 2 paired
    room.take("ecarte/club/table-1/games/1", result("table-1", 1, ("Ann", "Cat"), ended=clock.now - 60), 2.0)
    room.take("ecarte/club/table-2/games/2", result("table-2", 2, ("Eve", "Bob"), "B", ended=clock.now - 30), 3.0)
    standings = room.standings()
    assert [(g["A"], g["B"], g["table"]) for g in standings["rounds"][1]["games"]] == [
        (a1, b1, "table-1"), (a2, b2, "table-2")]
    assert standings["games"] == 2 and standings["rounds"][1]["games"][1]["result"] is None
    assert [d["game"] for d in standings["disputed"]] == [1]
    assert f"before round 2 paired {' and '.join(sorted((a2, b2)))}" in standings["disputed"][0]["why"]
    room.take("ecarte/club/table-2/games/3", result("table-2", 3, (a2, b2), ended=clock.now + 900), 4.0)
    assert room.standings()["rounds"][1]["games"][1]["result"]["game"] == 3


def state(t: float, players: tuple[str, str] = ("Eve", "Bob")) -> bytes:
    """A table's state made at ``t`` by its clock."""
    return json.dumps({"game": 1, "players": [*players, ""], "t": t, "view": {"score": [0, 0]}}).encode()


def test_a_tables_clock_is_read_from_its_live_states() -> None:
    """A Pi that booted without a network keeps its last saved time: table-2's clock is 3 hours behind,
    table-1's 3 hours ahead. Read by their live states, table-2's game played after the pairing counts
    (it was disputed: it ended hours before the pairing by its clock), and table-1's practice game of an
    hour before the pairing is disputed with both clocks said (it counted: hours after, by its clock).
    A retained state (an old one, given on subscribing) tells nothing of the clock."""
    clock = Clock(1_800_000_000.0)
    room = swiss_room(clock)
    paired = clock.now
    clock.now += 900
    room.take("ecarte/club/table-1/state", state(clock.now + 3 * HOUR, ("Ann", "Cat")), clock.now, live=True)
    room.take("ecarte/club/table-2/state", state(clock.now - 3 * HOUR - 20 * HOUR), clock.now)  # retained
    assert room.tables["table-2"].clock_offset is None
    room.take("ecarte/club/table-2/state", state(clock.now - 3 * HOUR - 0.05), clock.now, live=True)
    room.take("ecarte/club/table-2/state", state(clock.now - 3 * HOUR - 0.01), clock.now, live=True)
    assert abs(room.tables["table-2"].clock_offset + 3 * HOUR + 0.01) < 1e-6
    room.take("ecarte/club/table-1/games/1", result("table-1", 1, ("Ann", "Cat"), ended=paired - HOUR + 3 * HOUR),
              clock.now)
    room.take("ecarte/club/table-2/games/1", result("table-2", 1, ("Eve", "Bob"), "B", ended=clock.now - 3 * HOUR),
              clock.now)
    standings = room.standings()
    assert [g["result"] is not None for g in standings["rounds"][0]["games"]] == [False, True]
    why = standings["disputed"][0]["why"]
    assert "by the hub's: table-1's clock is 3 h 00 min ahead), before round 1 paired Ann and Cat" in why, why


def test_an_absurd_game_number_is_dropped() -> None:
    room = Room("club")
    room.take("ecarte/club/t1/games/999999999", result("t1", 999_999_999, ("Ann", "Bob")), 1.0)
    room.take("ecarte/club/t1/games/0", result("t1", 0, ("Ann", "Bob")), 1.0)
    assert room.dropped == 2 and room.standings()["games"] == 0 and room.tables == {}
    room.take("ecarte/club/t1/games/100000", result("t1", 100_000, ("Ann", "Bob")), 1.0)
    assert room.standings()["games"] == 1


def test_a_hub_restarted_the_same_evening_keeps_its_rounds_times(tmp_path: Path) -> None:
    """The evening's results come back retained after a restart: they still count for the rounds paired
    before it (their times are in the hub's folder); the next evening, the same file begins anew."""
    path = tmp_path / "session" / "rounds.json"
    clock = Clock(1_800_000_000.0)

    def evening() -> Evening:  # the hub's start, in one boot of the machine whose clock is right
        return Evening.open(tmp_path / "evening.json", now=clock.now, monotonic=clock.now - 1_700_000_000.0,
                            boot=1, synchronised=True)

    first = swiss_room(clock, PairedTimes(path, Session("Tuesday", SWISS, system="swiss", planned=3), evening()))
    paired = first.standings()["rounds"][0]["paired"]
    clock.now += 1800
    games = [("ecarte/club/table-1/games/1", result("table-1", 1, ("Ann", "Cat"), ended=clock.now - 60)),
             ("ecarte/club/table-2/games/1", result("table-2", 1, ("Eve", "Bob"), "B", ended=clock.now - 30))]
    for topic, payload in games:
        first.take(topic, payload, 1.0)
    assert first.standings()["games"] == 2
    second_paired = first.standings()["rounds"][1]["paired"]

    clock.now += 600  # the hub restarted: the results come back retained
    again = swiss_room(clock, PairedTimes(path, Session("Tuesday", SWISS, system="swiss", planned=3), evening()))
    for topic, payload in games:
        again.take(topic, payload, 2.0)
    standings = again.standings()
    assert standings["games"] == 2 and standings["disputed"] == []
    assert [r["paired"] for r in standings["rounds"]] == [paired, second_paired]

    clock.now = paired + EVENING_S + 1  # the next evening: yesterday's results are not this evening's
    later = swiss_room(clock, PairedTimes(path, Session("Tuesday", SWISS, system="swiss", planned=3), evening()))
    for topic, payload in games:
        later.take(topic, payload, 3.0)
    assert later.standings()["games"] == 0 and len(later.standings()["disputed"]) == 2


def test_stale_and_early_results_through_mosquitto_reach_the_directors_list(tmp_path: Path, hub_factory: Any,
                                                                             browser: Any) -> None:
    if MOSQUITTO is None:
        pytest.skip("Mosquitto is not installed: `apt-get install -y mosquitto`")
    path = venue_file(tmp_path, "mosquitto", [*TABLES, "sentinel"])
    path.write_text(path.read_text() + f'[session]\nname = "Tuesday"\nplayers = {json.dumps(list(SWISS))}\n'
                    f'system = "swiss"\nrounds = 3\n')
    settings = load_hub_settings(path)
    hub: Hub = hub_factory(settings)
    t1, t2 = secret(settings, "table-1"), secret(settings, "table-2")
    now = time.time()
    # table-2's clock is 3 hours behind (a Pi without a network): its live state says so
    behind = now - 3 * HOUR
    publish(settings, "ecarte/club/table-2/state", state(behind), "table-2", t2)
    wait_for(lambda: "table-2" in hub.live.room.tables and hub.live.room.tables["table-2"].clock_offset is not None,
             "table-2's live state")
    round_2 = swiss_evening(SWISS, 3, [Played(("Ann", "Cat"), "A"), Played(("Eve", "Bob"), "B")])[1]
    ahead = round_2.pairs[1]  # seated at table-2 by round 2
    # yesterday's game, retained; the pair of round 2 posted before round 2 exists
    publish(settings, "ecarte/club/table-1/games/3", result("table-1", 3, ("Ann", "Cat"), ended=now - 20 * HOUR),
            "table-1", t1)
    publish(settings, "ecarte/club/table-2/games/4", result("table-2", 4, ahead, ended=behind - 10 * 60), "table-2",
            t2)
    wait_for(lambda: len(hub.get("/api/standings")["disputed"]) == 2, "the two results disputed")
    # tonight's round 1, played after its pairing (table-2's by its clock, 3 hours behind): counted
    publish(settings, "ecarte/club/table-1/games/5", result("table-1", 5, ("Ann", "Cat"), ended=now + 600),
            "table-1", t1)
    publish(settings, "ecarte/club/table-2/games/6", result("table-2", 6, ("Eve", "Bob"), "B", ended=behind + 700),
            "table-2", t2)
    wait_for(lambda: len(hub.get("/api/standings")["rounds"]) == 2, "round 2 paired")
    standings = hub.get("/api/standings")
    assert standings["games"] == 2
    assert [(g["A"], g["B"]) for g in standings["rounds"][1]["games"]] == list(round_2.pairs)
    assert standings["rounds"][1]["games"][1]["result"] is None  # the result posted ahead does not fill it
    whys = [d["why"] for d in standings["disputed"]]
    assert "before round 1 paired Ann and Cat" in whys[0], whys
    assert f"before round 2 paired {' and '.join(sorted(ahead))}" in whys[-1], whys

    tab = browser.new_page()
    try:
        tab.goto(hub.server.url)
        tab.wait_for_function("window.__standings && window.__standings.rounds.length === 2", timeout=20_000)
        tab.click("nav button[data-tab=standings]")
        text = tab.inner_text("#rounds")
        assert "disputed result" in text
        assert "table-1 game 3: Ann – Cat 5–2: not counted" in text and "before round 1 paired Ann and Cat" in text
        assert f"table-2 game 4: {ahead[0]} – {ahead[1]} 5–2: not counted" in text
        assert f"before round 2 paired {' and '.join(sorted(ahead))}" in text
    finally:
        tab.close()
