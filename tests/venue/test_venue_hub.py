"""The venue's hub: the room from MQTT messages, the session's pairings and ranking, its app."""

from __future__ import annotations

import json
import time

from starlette.testclient import TestClient

from venue.hub.ledger import standings
from venue.hub.room import Room
from venue.hub.scoreboard import LiveRoom, hub_app
from venue.hub.session import Session, round_robin


def state(winner: str | None, score: tuple[int, int], players: tuple[str, str], game: int = 1) -> bytes:
    return json.dumps({"table": "t", "game": game, "winner": winner, "players": [*players, ""],
                       "view": {"score": list(score), "phase": "over" if winner else "play", "target": 5},
                       "prompt": {"seat": "A"}, "t": 1.0}).encode()


def test_round_robin_meets_everyone_once() -> None:
    for n in range(2, 9):
        players = [f"p{i}" for i in range(n)]
        rounds = round_robin(players)
        pairs = [frozenset(p) for rnd in rounds for p in rnd]
        assert len(pairs) == len(set(pairs)) == n * (n - 1) // 2
        for rnd in rounds:
            seated = [p for pair in rnd for p in pair]
            assert len(seated) == len(set(seated))


def game(n: int, winner: str, score: tuple[int, int], players: tuple[str, str],
         ended: float | None = None) -> bytes:
    """Game ``n`` of a table, ended ``n`` seconds from now unless told (after the session's rounds were paired)."""
    return json.dumps({"table": "t", "game": n, "players": list(players), "score": {"A": score[0], "B": score[1]},
                       "winner": winner, "ended": time.time() + n if ended is None else ended, "hands": [],
                       "text": ""}).encode()


def test_the_room_counts_each_result_once_and_ranks() -> None:
    room = Room("club", Session("s", ("ann", "bob", "cat", "dan")))
    assert room.take("ecarte/club/t1/availability", b"online", 0.0)[0][1]["availability"] == "online"
    room.take("ecarte/club/t1/state", state(None, (2, 1), ("ann", "dan")), 1.0)
    assert room.take("ecarte/club/t1/state", state("A", (5, 1), ("ann", "dan")), 2.0)[1:] == []
    out = room.take("ecarte/club/t1/games/7", game(7, "A", (5, 1), ("ann", "dan")), 2.0)
    assert [k for k, _ in out] == ["standings"]
    assert room.take("ecarte/club/t1/games/7", game(7, "A", (5, 1), ("ann", "dan")), 3.0) == []  # once
    assert room.take("ecarte/club/t1/games/8", game(7, "A", (5, 1), ("ann", "dan")), 3.0) == []  # not its topic
    room.take("ecarte/club/t2/games/1", game(1, "B", (3, 5), ("bob", "cat")), 4.0)
    room.take("ecarte/other/t9/games/1", game(1, "B", (3, 5), ("x", "y")), 4.0)
    table = standings(room.session, room.results)
    assert table["games"] == 2
    assert [r["player"] for r in table["ranking"]][:2] == ["ann", "cat"]
    assert table["rounds"][0]["games"][0]["result"]["table"] == "t1"
    assert set(room.tables) == {"t1", "t2"}


def test_the_hub_app() -> None:
    live = LiveRoom(Room("club"))
    live.take("ecarte/club/t1/state", state("A", (5, 0), ("ann", "bob")))
    live.take("ecarte/club/t1/games/1", game(1, "A", (5, 0), ("ann", "bob")))
    live.take("ecarte/club/t1/record", json.dumps({"text": '[Event "x"]\n'}).encode())
    with TestClient(hub_app(live)) as client:
        assert "hub.js" in client.get("/").text
        assert client.get("/api/tables").json()["tables"][0]["score"] == {"A": 5, "B": 0}
        assert client.get("/api/standings").json()["ranking"][0]["player"] == "ann"
        assert client.get("/api/tables/t1/record").text == '[Event "x"]\n'
        assert client.get("/api/tables/t2/record").status_code == 404
