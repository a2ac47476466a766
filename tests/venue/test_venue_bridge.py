"""Past one machine: a room's Mosquitto bridged into the hub's with Mosquitto's own bridging (two
mosquitto processes on 127.0.0.1): a table of that room reaches the hub's standings through the
bridge, and the room's broker holds each table to its own topic as the hub's does."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import MOSQUITTO, free_port
from test_venue_trust import Hub, finished, publish, secret, venue_file
from waiting import wait_for

from venue.hub.broker import wait_listening, write_room_files
from venue.hub.hub_settings import HubSettings, load_hub_settings


def test_a_room_bridged_into_the_hub(tmp_path: Path) -> None:
    if MOSQUITTO is None:
        pytest.skip("Mosquitto is not installed: `apt-get install -y mosquitto`")
    path = venue_file(tmp_path, "mosquitto", ["t1", "t2"])
    path.write_text(path.read_text() + 'bridges = ["room-2"]\n')
    settings = load_hub_settings(path)
    hub = Hub(settings)
    room_port = free_port()
    assert settings.state is not None
    room_dir = settings.state / "bridges" / "room-2"
    rules = hub_rules(hub)
    conf = write_room_files(room_dir, rules, "room-2", settings.broker_listen, ("127.0.0.1", room_port))
    room = subprocess.Popen([str(MOSQUITTO), "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        at_room = HubSettings(broker_listen=("127.0.0.1", room_port))
        assert wait_listening("127.0.0.1", room_port, 10), "the room's broker"
        # in the room as at the hub, a table publishes under its own name only, and anonymous clients nothing
        publish(at_room, "ecarte/club/t1/games/5", finished(5, "B", ("Eve", "Bob")), "t2", secret(settings, "t2"))
        publish(at_room, "ecarte/club/t1/games/6", finished(6, "B", ("Eve", "Bob")))

        # t2 plays in room 2: its result reaches the hub once the bridge is up (sent again until then)
        def through() -> bool:
            publish(at_room, "ecarte/club/t2/games/1", finished(1, "A"), "t2", secret(settings, "t2"))
            return bool(hub.get("/api/standings")["games"] >= 1)

        wait_for(through, "the result through the bridge")
        publish(at_room, "ecarte/club/t2/games/2", finished(2, "A"), "t2", secret(settings, "t2"))
        wait_for(lambda: hub.get("/api/standings")["games"] == 2, "the second result")
        assert {r["player"]: r["wins"] for r in hub.get("/api/standings")["ranking"]} == {"Ann": 2, "Bob": 0}
        assert [g["game"] for g in hub.get("/api/tables/t2/games")] == [1, 2]
        assert "room-2" in json.dumps(str(conf)) and "connection room-2" in conf.read_text()
    finally:
        room.terminate()
        room.wait(10)
        hub.close()


def hub_rules(hub: Any) -> Any:
    """The rules the hub wrote its files from (the room's broker gets the same ones)."""
    from venue.hub.broker import load_rules

    s = hub.settings
    return load_rules(s.broker.venue, list(s.tables), s.state / "secrets", bridges=list(s.bridges),
                      readers=list(s.readers))
