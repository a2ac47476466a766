"""The session's results as the hub counts them from the tables' games (the room and its ledger): a
result belongs to its table and its pairing, free play counts the players a table announced, and a
restart counts a later round's result that comes first."""

from __future__ import annotations

import json
import time


def result(table: str, n: int, players: tuple[str, str], winner: str = "A", ended: float | None = None) -> bytes:
    """Game ``n`` of ``table``, ended ``n`` seconds from now unless told (after its round was paired)."""
    return json.dumps({"table": table, "game": n, "players": list(players), "winner": winner,
                       "score": {"A": 5, "B": 2} if winner == "A" else {"A": 2, "B": 5},
                       "ended": time.time() + n if ended is None else ended, "hands": [], "text": ""}).encode()


SWISS = ("Ann", "Bob", "Cat", "Eve")
"""Round 1 of this Swiss: Ann–Cat at table-1, Eve–Bob at table-2 (the seeding's halves, the tables in order)."""


def test_a_result_belongs_to_its_table_and_its_pairing() -> None:
    from venue.hub.room import Room
    from venue.hub.session import Session

    room = Room("club", Session("Tuesday", SWISS, system="swiss", planned=3), ("table-1", "table-2"))
    now = time.time()
    games = room.standings()["rounds"][0]["games"]
    assert [(g["A"], g["B"], g["table"]) for g in games] == [("Ann", "Cat", "table-1"), ("Eve", "Bob", "table-2")]
    # table-1's password, table-2's pairing: disputed, not counted
    room.take("ecarte/club/table-1/games/7", result("table-1", 7, ("Eve", "Bob")), 1.0)
    assert room.standings()["games"] == 0
    assert "paired at table-2" in room.standings()["disputed"][0]["why"]
    room.take("ecarte/club/table-2/games/1", result("table-2", 1, ("Eve", "Bob"), "B", ended=now + 600), 2.0)
    # the same game again with another end, or under another number: counted once
    room.take("ecarte/club/table-2/games/1", result("table-2", 1, ("Eve", "Bob"), "B", ended=now + 900), 3.0)
    room.take("ecarte/club/table-2/games/2", result("table-2", 2, ("Eve", "Bob"), "B", ended=now + 600), 3.0)
    standings = room.standings()
    played = {r["player"]: r["played"] for r in standings["ranking"]}
    assert standings["games"] == 1 and played["Bob"] == 1 and played["Eve"] == 1
    assert len(standings["disputed"]) == 2
    assert len(standings["rounds"]) == 1  # round 2 waits for table-1's real result
    room.take("ecarte/club/table-1/games/1", result("table-1", 1, ("Ann", "Cat")), 4.0)
    standings = room.standings()
    assert standings["games"] == 2 and len(standings["rounds"]) == 2
    # a result for a pair already decided, from its own table: disputed
    room.take("ecarte/club/table-1/games/3", result("table-1", 3, ("Ann", "Cat"), "B"), 5.0)
    assert room.standings()["games"] == 2 and "already have their result" in room.standings()["disputed"][-1]["why"]


def test_free_play_counts_the_players_the_table_announced() -> None:
    from venue.hub.room import Room

    room = Room("club")
    state = json.dumps({"game": 3, "players": ["Ann", "Bob", ""], "view": {"score": [0, 0]}}).encode()
    room.take("ecarte/club/t1/state", state, 1.0)
    room.take("ecarte/club/t1/games/3", result("t1", 3, ("Eve", "Bob")), 2.0)
    assert room.standings()["games"] == 0 and "announced Ann vs Bob" in room.standings()["disputed"][0]["why"]
    room.take("ecarte/club/t1/games/4", result("t1", 4, ("Eve", "Bob")), 3.0)  # a game the hub saw no state of
    room.take("ecarte/club/t2/games/3", result("t2", 3, ("Ann", "Bob")), 3.0)
    assert room.standings()["games"] == 2


def test_a_restart_counts_a_later_rounds_result_that_comes_first() -> None:
    """After a restart the retained games come in any order: a result of round 2 before round 1 is
    over waits (disputed meanwhile) and counts once round 2 is paired."""
    from venue.hub.room import Room
    from venue.hub.session import Session

    first = Room("club", Session("Tuesday", SWISS, system="swiss", planned=3), ("table-1", "table-2"))
    first.take("ecarte/club/table-1/games/1", result("table-1", 1, ("Ann", "Cat")), 1.0)
    first.take("ecarte/club/table-2/games/1", result("table-2", 1, ("Eve", "Bob"), "B"), 1.0)
    round_2 = first.standings()["rounds"][1]["games"]
    later = [(g["table"], (g["A"], g["B"])) for g in round_2]
    room = Room("club", Session("Tuesday", SWISS, system="swiss", planned=3), ("table-1", "table-2"))
    for table, players in later:
        room.take(f"ecarte/club/{table}/games/2", result(table, 2, players), 2.0)
    assert room.standings()["games"] == 0 and len(room.standings()["disputed"]) == 2
    room.take("ecarte/club/table-1/games/1", result("table-1", 1, ("Ann", "Cat")), 3.0)
    room.take("ecarte/club/table-2/games/1", result("table-2", 1, ("Eve", "Bob"), "B"), 3.0)
    standings = room.standings()
    assert standings["games"] == 4 and standings["disputed"] == [] and len(standings["rounds"]) == 3
