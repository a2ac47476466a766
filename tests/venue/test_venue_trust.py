"""The hub believes no message it cannot trust, through HTTP and a real broker:
bad payloads are dropped with one log line and the scoreboard keeps answering; tables publish
with their own credentials under their own topic only; an intruder's result never reaches the
standings; a refused retained message does not survive a hub restart; bad venue files exit 2."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import paho.mqtt.client as mqtt
import pytest
from conftest import MOSQUITTO
from paho.mqtt.enums import CallbackAPIVersion
from waiting import wait_for

from venue.hub.hub_settings import HubSettings, load_hub_settings
from venue.hub.scoreboard import build_hub
from venue.table.page import ServerThread

BAD = [b"[1,2]", b'"x"', b"NaN", b'{"view": []}', b'{"players": 5}', b'{"view": {"score": 5}}',
       b'{"winner": "A", "game": "x"}', b"1e400", b'{"view": {"score": [1e400, 1]}}', b"\xff\xfe",
       b'{"winner": "A", "players": ["a", "b"], "view": {"score": [5, 0]}, "t": NaN}',
       b'{"view": {"trick": [["A", ""]]}}', b'{"last_trick": {}}']
"""Each one raised in the hub before (a 500 on /api/tables and /api/stream for every browser)."""


def good_state(winner: str | None, players: tuple[str, str] = ("Ann", "Bob"), game: int = 1) -> bytes:
    return json.dumps({"game": game, "winner": winner, "players": [*players, ""], "t": 1.0,
                       "view": {"score": [5, 2] if winner else [1, 0], "phase": "over", "target": 5},
                       "prompt": {"seat": None}}).encode()


def finished(n: int, winner: str, players: tuple[str, str] = ("Ann", "Bob")) -> bytes:
    return json.dumps({"game": n, "players": list(players), "score": {"A": 5, "B": 2} if winner == "A" else
                       {"A": 2, "B": 5}, "winner": winner, "ended": time.time() + n, "hands": [], "text": ""}).encode()


def venue_file(tmp_path: Path, mode: str, names: list[str]) -> Path:
    path = tmp_path / "venue.toml"
    path.write_text(f'[hub]\nvenue = "club"\nlisten = "127.0.0.1:0"\n[broker]\nmode = "{mode}"\n'
                    f'listen = "127.0.0.1:{_free()}"\n[tables]\nnames = {json.dumps(names)}\nreaders = ["reader"]\n')
    path.parent.chmod(0o755)
    return path


def _free() -> int:
    from venue.hub.broker import free_port

    return free_port()


class Hub:
    """The hub (its broker, its subscriber, its scoreboard over HTTP), in this process."""

    def __init__(self, settings: HubSettings) -> None:
        self.settings = settings
        app, self.live = build_hub(settings)
        self.server = ServerThread(app, "127.0.0.1", 0, name="hub")
        self.server.start(timeout=20)
        self.http = httpx.Client(base_url=self.server.url, timeout=10)

    def get(self, path: str) -> Any:
        r = self.http.get(path)
        assert r.status_code == 200, (path, r.status_code, r.text[:200])
        return r.json()

    def first_blocks(self) -> str:
        with self.http.stream("GET", "/api/stream") as r:
            assert r.status_code == 200
            text = ""
            for chunk in r.iter_text():
                text += chunk
                if "event: standings" in text:
                    return text
        raise AssertionError(text)

    def close(self) -> None:
        self.http.close()
        self.server.close()


def secret(settings: HubSettings, name: str) -> str:
    assert settings.state is not None
    return (settings.state / "secrets" / f"{name}.pass").read_text().strip()


def publish(settings: HubSettings, topic: str, payload: bytes, user: str | None = None,
            password: str | None = None) -> Any:
    """Connect, publish one retained QoS 1 message, disconnect; the broker's answer to the connection."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"test-{user}-{id(payload)}")
    if user is not None:
        client.username_pw_set(user, password)
    answers: list[Any] = []
    client.on_connect = lambda c, u, f, r, p: answers.append(r)
    client.connect(*settings.broker_listen)
    client.loop_start()
    wait_for(lambda: bool(answers), "the broker's answer")
    if not answers[0].is_failure:
        client.publish(topic, payload, qos=1, retain=True).wait_for_publish(10)
    client.disconnect()
    client.loop_stop()
    return answers[0]


def retained(settings: HubSettings, topic: str) -> bytes | None:
    """What a new subscriber (the venue file's reader) gets on ``topic`` (None: nothing retained)."""
    got: list[bytes] = []
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="test-reader")
    client.username_pw_set("reader", secret(settings, "reader"))
    client.on_connect = lambda c, u, f, r, p: c.subscribe([(topic, 1), ("ecarte/club/sentinel/state", 1)])
    client.on_message = lambda c, u, m: got.append(m.payload if m.topic == topic else b"<sentinel>")
    client.connect(*settings.broker_listen)
    client.loop_start()
    wait_for(lambda: b"<sentinel>" in got, "the retained messages")
    client.disconnect()
    client.loop_stop()
    return next((g for g in got if g != b"<sentinel>"), None)


@pytest.fixture
def mosquitto_mode() -> str:
    if MOSQUITTO is None:
        pytest.skip("Mosquitto is not installed: `apt-get install -y mosquitto`")
    return "mosquitto"


@pytest.fixture
def hub_factory(tmp_path: Path) -> Iterator[Any]:
    hubs: list[Hub] = []

    def make(settings: HubSettings) -> Hub:
        hub = Hub(settings)
        hubs.append(hub)
        return hub

    yield make
    for hub in hubs:
        hub.close()


def test_bad_payloads_are_dropped_and_the_scoreboard_answers(tmp_path: Path, mosquitto_mode: str, hub_factory: Any,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    names = [f"b{i}" for i in range(len(BAD))] + ["good", "sentinel"]
    settings = load_hub_settings(venue_file(tmp_path, mosquitto_mode, names))
    caplog.set_level(logging.WARNING, logger="venue.hub.room")
    hub = hub_factory(settings)
    for i, payload in enumerate(BAD):
        publish(settings, f"ecarte/club/b{i}/state", payload, f"b{i}", secret(settings, f"b{i}"))
    publish(settings, "ecarte/club/b0/record", b"[]", "b0", secret(settings, "b0"))
    publish(settings, "ecarte/club/b1/availability", b"maybe", "b1", secret(settings, "b1"))
    publish(settings, "ecarte/club/good/state", good_state("A"), "good", secret(settings, "good"))
    publish(settings, "ecarte/club/good/games/1", finished(1, "A"), "good", secret(settings, "good"))
    publish(settings, "ecarte/club/b2/games/1", b'{"game": 1, "winner": "A"}', "b2", secret(settings, "b2"))
    publish(settings, "ecarte/club/sentinel/state", good_state(None), "sentinel", secret(settings, "sentinel"))
    wait_for(lambda: hub.get("/api/standings")["games"] == 1 and len(hub.get("/api/tables")["tables"]) == 2,
             "the good tables")
    tables = hub.get("/api/tables")["tables"]
    assert [t["table"] for t in tables] == ["good", "sentinel"]
    assert hub.get("/api/standings")["ranking"][0] == {**hub.get("/api/standings")["ranking"][0], "player": "Ann",
                                                      "wins": 1}
    blocks = hub.first_blocks()
    assert "event: table" in blocks and '"good"' in blocks
    # a line for each table's first bad message; b0, b1 and b2's second ones, within the minute, unsaid
    wait_for(lambda: len([r for r in caplog.records if "dropped a message" in r.getMessage()]) == len(BAD),
             "one log line a table's bad messages")
    wait_for(lambda: hub.live.room.dropped == len(BAD) + 3, "every bad message dropped")
    # the hub cleared each refused retained message: a new subscriber does not get it
    wait_for(lambda: retained(settings, "ecarte/club/b0/state") is None, "the bad retained state cleared")


def test_an_intruder_never_reaches_the_standings(tmp_path: Path, mosquitto_mode: str, hub_factory: Any) -> None:
    settings = load_hub_settings(venue_file(tmp_path, mosquitto_mode, ["t1", "t2", "t3", "sentinel"]))
    hub = hub_factory(settings)
    # anonymous, a wrong password, and another table's credentials: nothing reaches the hub
    eve = finished(2, "B", ("Eve", "Ann"))
    assert publish(settings, "ecarte/club/t1/games/2", eve).is_failure
    assert publish(settings, "ecarte/club/t1/games/2", eve, "t1", "guess").is_failure
    assert publish(settings, "ecarte/club/t1/games/2", eve, "hub", "x").is_failure
    publish(settings, "ecarte/club/t1/games/2", eve, "t2", secret(settings, "t2"))
    publish(settings, "ecarte/club/t1/availability", b"offline", "t2", secret(settings, "t2"))
    # the real table, and one that sends a poisoned retained state
    publish(settings, "ecarte/club/t1/state", good_state("A"), "t1", secret(settings, "t1"))
    publish(settings, "ecarte/club/t1/games/1", finished(1, "A"), "t1", secret(settings, "t1"))
    publish(settings, "ecarte/club/t3/state", b"[1,2]", "t3", secret(settings, "t3"))
    publish(settings, "ecarte/club/sentinel/state", good_state(None), "sentinel", secret(settings, "sentinel"))
    wait_for(lambda: hub.get("/api/standings")["games"] == 1 and len(hub.get("/api/tables")["tables"]) == 2,
             "the real table's result")
    assert {r["player"]: r["wins"] for r in hub.get("/api/standings")["ranking"]} == {"Ann": 1, "Bob": 0}
    assert retained(settings, "ecarte/club/t1/state") == good_state("A")
    assert retained(settings, "ecarte/club/t1/games/2") is None
    # the hub restarts (its Mosquitto keeps retained messages in its database): the real result is
    # back, the poisoned state is gone for good
    hub.close()
    hub = hub_factory(settings)
    wait_for(lambda: hub.get("/api/standings")["games"] == 1, "the result from the retained game")
    assert [t["table"] for t in hub.get("/api/tables")["tables"]] == ["sentinel", "t1"]
    assert retained(settings, "ecarte/club/t3/state") is None
    assert {r["player"]: r["wins"] for r in hub.get("/api/standings")["ranking"]} == {"Ann": 1, "Bob": 0}


def test_a_bad_venue_file_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "venue.toml"
    path.write_text('[tables]\nnames = ["a/b", "c#", "d+", "ok"]\n[session]\ncycles = "x"\n[broker]\nmode = "x"\n')
    done = subprocess.run([sys.executable, "-m", "cli.main", "hub", str(path)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    for fragment in ("'a/b'", "'c#'", "'d+'", "session.cycles", "broker.mode"):
        assert fragment in done.stderr


def test_the_hubs_mosquitto_with_tls(tmp_path: Path, mosquitto_mode: str, hub_factory: Any) -> None:
    """The venue file's TLS listener: a table connects with the CA and its password, and is counted."""
    from conftest import _make_certs

    from venue.mqtt_client import make_client
    from venue.settings import MqttSettings

    tmp_path.chmod(0o755)
    certs = _make_certs(tmp_path)
    for name in ("ca.pem", "server.pem", "server.key"):
        (tmp_path / name).chmod(0o644)
    tls_port = _free()
    path = venue_file(tmp_path, mosquitto_mode, ["t1"])
    path.write_text(path.read_text().replace("[tables]", f'tls_listen = "127.0.0.1:{tls_port}"\n'
                                             f'certfile = "{certs["cert"]}"\nkeyfile = "{certs["key"]}"\n[tables]'))
    settings = load_hub_settings(path)
    assert settings.tls is not None and settings.tls.port == tls_port
    hub = hub_factory(settings)
    table = MqttSettings(port=tls_port, venue="club", table="t1", username="t1", password=secret(settings, "t1"),
                         tls=True, ca=certs["ca"])
    client = make_client(table, "t1-tls")
    answers: list[Any] = []
    client.on_connect = lambda c, u, f, r, p: answers.append(r)
    client.connect("127.0.0.1", tls_port)
    client.loop_start()
    wait_for(lambda: bool(answers), "the broker's answer over TLS")
    assert not answers[0].is_failure
    client.publish("ecarte/club/t1/games/1", finished(1, "A"), qos=1, retain=True).wait_for_publish(10)
    client.disconnect()
    client.loop_stop()
    wait_for(lambda: hub.get("/api/standings")["games"] == 1, "the result over TLS")


def test_a_table_flooding_bad_payloads_is_said_once_a_minute(caplog: Any) -> None:
    """Each refused message was a WARNING: a table sending a thousand bad states a second wrote a
    thousand lines a second. A table's drops are said once a minute, the next line with how many
    were not said; another table's are said at once."""
    from venue.hub.room import DROP_SAID_EVERY_S, Room

    room = Room("club")
    with caplog.at_level(logging.WARNING, logger="venue.hub.room"):
        for i in range(1000):
            room.take("ecarte/club/t1/state", b"[1,2]", 1.0 + i / 1000)
        room.take("ecarte/club/t2/state", b"x", 1.5)
        room.take("ecarte/club/t1/state", b"[1,2]", 1.0 + DROP_SAID_EVERY_S)
    said = [r.getMessage() for r in caplog.records if "dropped a message" in r.getMessage()]
    assert room.dropped == 1002
    assert len(said) == 3, said
    assert said[0].startswith("hub: dropped a message on ecarte/club/t1/state") and "more" not in said[0]
    assert "ecarte/club/t2/state" in said[1]
    assert said[2].endswith("(999 more from t1 dropped since the last line)")
