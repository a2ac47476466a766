"""What the scoreboard believes: a result judged before it takes any key, free play counting only this
evening, a hub that takes up an evening only when it can know it is the same one.
Through the Room (pure) and, where the broker's retained messages make the case, the hub's own Mosquitto."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from test_venue_results import SWISS, result
from test_venue_trust import hub_factory, mosquitto_mode, publish, secret, venue_file
from waiting import wait_for

from venue.hub.evening import BREAK_S, Evening
from venue.hub.hub_settings import load_hub_settings
from venue.hub.ledger import Ledger, PairedTimes
from venue.hub.room import Room
from venue.hub.session import Session
from venue.settings import SettingsError

__all__ = ["hub_factory", "mosquitto_mode"]  # the fixtures

TABLES = ("table-1", "table-2")
HOUR = 3600.0
DAY = 24 * HOUR


def _swiss(**ledger: Any) -> Room:
    session = Session("Tuesday", SWISS, system="swiss", planned=3)
    return Room("club", session, TABLES, ledger=Ledger(session, TABLES, **ledger))


def test_a_forged_result_takes_no_number_from_the_honest_one() -> None:
    """table-1's password posts games/1 for the wrong pair and games/2…51 for players never paired, and a
    forgery of its game under the honest end time: each is disputed and none takes a key. Before, the
    honest games/1 that followed was disputed ("came again with another result") and never counted, so
    the Swiss round never completed."""
    room = _swiss()
    now = time.time()
    honest = result("table-1", 1, ("Ann", "Cat"), ended=now + 60)
    room.take("ecarte/club/table-1/games/1", result("table-1", 1, ("Eve", "Bob"), ended=now + 60), 1.0)
    for n in range(2, 52):
        room.take(f"ecarte/club/table-1/games/{n}", result("table-1", n, ("Zed", "Yan"), ended=now + n), 1.0)
    room.take("ecarte/club/table-1/games/9", result("table-1", 9, ("Ann", "Cat"), "B", ended=now + 600), 1.0)
    assert room.standings()["games"] == 1  # the forgery for Ann–Cat itself counts: one pair, once (security.md)
    room = _swiss()
    room.take("ecarte/club/table-1/games/1", result("table-1", 1, ("Eve", "Bob"), ended=now + 60), 1.0)
    for n in range(2, 52):
        room.take(f"ecarte/club/table-1/games/{n}", result("table-1", n, ("Zed", "Yan"), ended=now + n), 1.0)
    room.take("ecarte/club/table-1/games/1", honest, 2.0)
    room.take("ecarte/club/table-1/games/2", result("table-1", 2, ("Bob", "Eve"), "B", ended=now + 90), 2.0)
    room.take("ecarte/club/table-2/games/2", result("table-2", 2, ("Eve", "Bob"), "B", ended=now + 90), 2.0)
    standings = room.standings()
    assert standings["games"] == 2, standings["disputed"]
    assert len(standings["rounds"]) == 2  # the round completed: round 2 is paired
    assert not any("came again" in d["why"] or "another number" in d["why"] for d in standings["disputed"])
    room.take("ecarte/club/table-1/games/1", honest, 3.0)  # the honest result again: nothing new
    assert room.standings()["games"] == 2 and len(room.standings()["disputed"]) == len(standings["disputed"])


def test_a_forged_result_with_the_honest_end_time_blocks_nothing_in_free_play() -> None:
    """Free play: a forged games/4 that the table's state contradicts is disputed; the honest games/4 (and
    a forgery reusing its end time under game 5, refused first) still count once."""
    room = Room("club")
    now = time.time()
    state = b'{"game": 4, "players": ["Ann", "Bob", ""], "view": {"score": [0, 0]}}'
    room.take("ecarte/club/t1/state", state, 1.0)
    room.take("ecarte/club/t1/games/4", result("t1", 4, ("Eve", "Bob"), ended=now), 2.0)
    room.take("ecarte/club/t1/games/4", result("t1", 4, ("Ann", "Bob"), ended=now), 3.0)
    standings = room.standings()
    assert standings["games"] == 1 and len(standings["disputed"]) == 1, standings["disputed"]
    room.take("ecarte/club/t1/games/5", result("t1", 5, ("Ann", "Bob"), "B", ended=now), 4.0)
    assert room.standings()["games"] == 1 and "another number" in room.standings()["disputed"][-1]["why"]


def test_free_play_counts_only_what_ended_this_evening() -> None:
    """Retained results of last week came back at each start of the hub and counted "whatever their
    time": now a result that ended before this evening began is disputed, once, and tonight's counts."""
    now = time.time()
    room = Room("club", ledger=Ledger(Session(), evening=now - HOUR))
    room.take("ecarte/club/t1/games/1", result("t1", 1, ("Ann", "Bob"), ended=now - 7 * DAY), 1.0)
    room.take("ecarte/club/t1/games/1", result("t1", 1, ("Ann", "Bob"), ended=now - 7 * DAY), 1.5)
    room.take("ecarte/club/t1/games/2", result("t1", 2, ("Ann", "Bob"), ended=now - 600), 2.0)
    standings = room.standings()
    assert standings["games"] == 1 and standings["ranking"][0]["played"] == 1
    assert len(standings["disputed"]) == 1 and "before this evening began" in standings["disputed"][0]["why"]
    assert room.earlier == 1


def test_a_hub_tonight_clears_last_weeks_results_and_counts_tonights(tmp_path: Path, mosquitto_mode: str,
                                                                    hub_factory: Any) -> None:
    """Through the hub's Mosquitto: last week's retained result is not counted; tonight's is."""
    settings = load_hub_settings(venue_file(tmp_path, mosquitto_mode, ["t1", "t2"]))
    hub = hub_factory(settings)
    old = result("t1", 1, ("Ann", "Bob"), ended=time.time() - 7 * DAY)
    publish(settings, "ecarte/club/t1/games/1", old, "t1", secret(settings, "t1"))
    publish(settings, "ecarte/club/t2/games/1", result("t2", 1, ("Cat", "Eve"), "B"), "t2", secret(settings, "t2"))
    wait_for(lambda: hub.get("/api/standings")["games"] == 1 and len(hub.get("/api/standings")["disputed"]) == 1,
             "tonight's result counted, last week's disputed")
    assert {r["player"] for r in hub.get("/api/standings")["ranking"] if r["played"]} == {"Cat", "Eve"}


def _evening(path: Path, now: float, monotonic: float, boot: int, synchronised: bool) -> Evening:
    return Evening.open(path, now=now, monotonic=monotonic, boot=boot, synchronised=synchronised)


def test_a_hub_restarted_the_next_morning_begins_a_new_evening(tmp_path: Path) -> None:
    """Round 1 at 20:00; the hub stopped at 23:30 and started again at 07:30 (within 12 hours of round 1):
    it took up last evening's rounds, and last evening's retained results filled this morning's. Now a
    hub away for more than BREAK_S begins anew, in the same boot of the machine or after a reboot with
    its clock set; one away for a few minutes takes its evening up."""
    evening_path, rounds = tmp_path / "evening.json", tmp_path / "session" / "rounds.json"
    session = Session("Tuesday", SWISS, system="swiss", planned=3)
    start = 1_800_000_000.0
    first = _evening(evening_path, start, 100.0, boot=1, synchronised=True)
    ledger = Ledger(session, TABLES, clock=lambda: start, times=PairedTimes(rounds, session, first))
    assert ledger.rounds[0].paired == start
    first.alive(now=start + 3.5 * HOUR, monotonic=100.0 + 3.5 * HOUR)  # its last word at 23:30
    # a few minutes later, the same boot: the evening goes on
    soon = _evening(evening_path, start + 3.6 * HOUR, 100 + 3.6 * HOUR, boot=1, synchronised=False)
    assert soon.continued and PairedTimes(rounds, session, soon).rounds
    soon.alive(now=start + 3.5 * HOUR, monotonic=100.0 + 3.5 * HOUR + 61)
    for boot, synchronised in ((1, False), (2, True)):  # the same boot, or a reboot with NTP answered
        morning = start + 11.5 * HOUR
        mono = 100.0 + 11.5 * HOUR if boot == 1 else 40.0
        later = _evening(evening_path, morning, mono, boot=boot, synchronised=synchronised)
        assert not later.continued and later.began == morning
        ledger = Ledger(session, TABLES, clock=lambda m=morning: m, times=PairedTimes(rounds, session, later))
        assert ledger.rounds[0].paired == morning  # paired anew
        room = Room("club", session, TABLES, ledger=ledger)
        room.take("ecarte/club/table-1/games/1", result("table-1", 1, ("Ann", "Cat"), ended=start + HOUR), 1.0)
        assert room.standings()["games"] == 0 and "before round 1" in room.standings()["disputed"][0]["why"]
        # the file says the evening of this start now
        _evening(evening_path, start, 100.0, boot=1, synchronised=True)
        first.alive(now=start + 3.5 * HOUR, monotonic=100.0 + 3.5 * HOUR + 2 * 61)
    assert BREAK_S < 8 * HOUR


def test_a_hub_pi_without_a_clock_takes_up_no_evening_before_ntp(tmp_path: Path) -> None:
    """A hub Pi with no real-time clock, switched on the next morning: before NTP answers it reads the
    time it saved when switched off last night, so it looked 10 minutes away, and took up last evening's
    rounds. After a reboot whose clock is not set, the evening is never taken up."""
    evening_path, rounds = tmp_path / "evening.json", tmp_path / "session" / "rounds.json"
    session = Session("Tuesday", SWISS, system="swiss", planned=3)
    start = 1_800_000_000.0
    first = _evening(evening_path, start, 100.0, boot=1, synchronised=True)
    Ledger(session, TABLES, clock=lambda: start, times=PairedTimes(rounds, session, first))
    first.alive(now=start + 4 * HOUR, monotonic=100.0 + 4 * HOUR)  # saved as it was switched off
    booted = _evening(evening_path, start + 4 * HOUR + 600, 30.0, boot=2, synchronised=False)
    assert not booted.continued
    assert PairedTimes(rounds, session, booted).rounds == {}
    # the same reboot once NTP has answered, ten minutes after a stop: taken up (a power cut mid-evening)
    first = _evening(evening_path, start, 100.0, boot=1, synchronised=True)
    Ledger(session, TABLES, clock=lambda: start, times=PairedTimes(rounds, session, first))
    first.alive(now=start + 4 * HOUR, monotonic=100.0 + 4 * HOUR)
    cut = _evening(evening_path, start + 4 * HOUR + 600, 30.0, boot=2, synchronised=True)
    assert cut.continued and cut.began == start and PairedTimes(rounds, session, cut).rounds


def test_a_result_in_nfd_counts_for_a_pair_named_in_nfc(tmp_path: Path) -> None:
    """A table whose setup came from a phone (NFD "José") had its result disputed at a hub whose venue
    file says "José" in NFC ("not paired together"); and a venue file naming one player twice in two
    spellings passed. The hub reads every name in NFC and compares them folded."""
    nfc, nfd = "Jos\u00e9", "Jose\u0301"
    session = Session("Tuesday", (nfc, "Bob"))  # a round-robin of two: one round, José–Bob
    room = Room("club", session, ("table-1",))
    room.take("ecarte/club/table-1/games/1", result("table-1", 1, (nfd, "Bob")), 1.0)
    standings = room.standings()
    assert standings["games"] == 1 and standings["disputed"] == [], standings["disputed"]
    path = tmp_path / "venue.toml"
    path.write_text(f'[session]\nplayers = ["{nfc}", "Bob", "{nfd}"]\n[broker]\nmode = "external"\nhost = "x"\n')
    with pytest.raises(SettingsError, match=r"session\.players"):
        load_hub_settings(path)
