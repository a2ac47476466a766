"""Bounded memory at the hub and the table (issue 40, item 3), through the hub's own Mosquitto:
the finished games the hub keeps for ``/api/tables/<t>/games`` (it kept every one, up to 512 kB
each, and parsed them all again at each request)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from conftest import MOSQUITTO
from paho.mqtt.enums import CallbackAPIVersion
from test_venue_trust import Hub, hub_factory, secret, venue_file
from waiting import wait_for

from venue.hub_settings import HubSettings, load_hub_settings
from venue.room import KEPT_GAMES, KEPT_GAMES_BYTES

__all__ = ["hub_factory"]  # the fixture


def game(n: int, pad: int = 0) -> bytes:
    """Game ``n`` of t1, its hands padded to ``pad`` bytes (a record as big as a table may send)."""
    return json.dumps({"table": "t1", "game": n, "players": ["Ann", "Bob"], "score": {"A": 5, "B": 2},
                       "winner": "A", "ended": time.time() + n, "hands": [{"pad": "x" * pad}],
                       "text": ""}).encode()


def publish_many(settings: HubSettings, messages: list[tuple[str, bytes]], user: str) -> None:
    """One connection of ``user`` publishing every message, retained at QoS 1, each acknowledged."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"{user}-bulk")
    client.username_pw_set(user, secret(settings, user))
    client.connect(*settings.broker_listen)
    client.loop_start()
    try:
        for topic, payload in messages:
            client.publish(topic, payload, qos=1, retain=True).wait_for_publish(20)
    finally:
        client.disconnect()
        client.loop_stop()


@pytest.fixture
def hub(tmp_path: Path, hub_factory: Any) -> tuple[Hub, HubSettings]:
    if MOSQUITTO is None:
        pytest.skip("Mosquitto is not installed: `apt-get install -y mosquitto`")
    settings = load_hub_settings(venue_file(tmp_path, "mosquitto", ["t1"]))
    return hub_factory(settings), settings


def test_the_hub_keeps_a_bounded_number_of_a_tables_games(hub: tuple[Hub, HubSettings]) -> None:
    live, settings = hub
    count = KEPT_GAMES + 15
    publish_many(settings, [(f"ecarte/club/t1/games/{n}", game(n)) for n in range(1, count + 1)], "t1")
    wait_for(lambda: live.get("/api/standings")["games"] == count, "every result counted")
    games = live.get("/api/tables/t1/games")
    assert [g["game"] for g in games] == list(range(count - KEPT_GAMES + 1, count + 1))
    assert set(games[0]) == {"game", "players", "score", "winner", "ended", "hands"}


def test_the_hub_keeps_a_bounded_number_of_bytes_of_a_tables_games(hub: tuple[Hub, HubSettings]) -> None:
    """Results of 400 kB each: the hub keeps the latest within its bytes (it kept them all: 600 of 500 kB
    grew it by 288 MB)."""
    live, settings = hub
    size = 400 * 1024
    count = 2 * KEPT_GAMES_BYTES // size
    publish_many(settings, [(f"ecarte/club/t1/games/{n}", game(n, size)) for n in range(1, count + 1)], "t1")
    wait_for(lambda: live.get("/api/standings")["games"] == count, "every result counted")
    seen = live.live.room.tables["t1"]
    assert seen.games_bytes == sum(len(g) for g in seen.games.values()) <= KEPT_GAMES_BYTES
    games = live.get("/api/tables/t1/games")
    assert games[-1]["game"] == count and len(games) == KEPT_GAMES_BYTES // len(seen.games[count])
    assert [g["game"] for g in games] == list(range(count - len(games) + 1, count + 1))
    assert len(games[-1]["hands"][0]["pad"]) == size
