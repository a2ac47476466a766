"""The table on MQTT: topics, retained state, the last will, a broker that comes late, Mosquitto
with a password and TLS."""

from __future__ import annotations

import json
import socket
import threading
from typing import Any

import paho.mqtt.client as mqtt
from conftest import feed, open_broker, whole_game
from paho.mqtt.enums import CallbackAPIVersion
from waiting import wait_for

from firmware_host.service import TableService
from venue.mqtt_client import make_client
from venue.settings import MqttSettings
from venue.table.mqtt import TablePublisher


class Watcher:
    def __init__(self, settings: MqttSettings, topic: str = "ecarte/#") -> None:
        self.retained: dict[str, bytes] = {}
        self.seen: list[tuple[str, bytes, bool]] = []
        self.lock = threading.Lock()
        self.client = make_client(settings, f"watcher-{id(self)}")
        self.client.on_connect = lambda c, u, f, r, p: c.subscribe(topic, qos=1)
        self.client.on_message = self._message
        self.client.connect(settings.host, settings.port)
        self.client.loop_start()

    def _message(self, client: mqtt.Client, userdata: object, m: mqtt.MQTTMessage) -> None:
        with self.lock:
            self.seen.append((m.topic, bytes(m.payload), bool(m.retain)))
            self.retained[m.topic] = bytes(m.payload)

    def last(self, topic: str) -> bytes | None:
        with self.lock:
            return self.retained.get(topic)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def play(service: TableService, publisher: TablePublisher) -> dict[str, object]:
    service.outputs.append(publisher)
    for event in whole_game(4):
        feed(service, event)
    return service.outputs[0].outcomes[-1].snapshot.to_json()  # type: ignore[attr-defined,no-any-return]


def test_topics_retained_state_and_the_will(service: TableService) -> None:
    with open_broker() as broker:
        settings = MqttSettings(port=broker.port, venue="club", table="t1", enabled=True)
        publisher = TablePublisher(settings, table_name="Table 1")
        publisher.start()
        final = play(service, publisher)
        # a subscriber that comes after the game sees the table at once (retained)
        late = Watcher(settings)
        wait_for(lambda: late.last("ecarte/club/t1/state") is not None and late.last("ecarte/club/t1/record")
                 and json.loads(late.last("ecarte/club/t1/state") or b"{}").get("winner"), "the retained state")
        state = json.loads(late.last("ecarte/club/t1/state") or b"")
        assert state["view"]["score"] == final["view"]["score"] and state["table"] == "t1"  # type: ignore[index]
        assert late.last("ecarte/club/t1/availability") == b"online"
        record = json.loads(late.last("ecarte/club/t1/record") or b"")
        assert record["hands"] and "[Hand \"1\"]" in record["text"]
        # the table drops off without a word: the broker says it (the last will)
        publisher._inbox.put(None)
        publisher.client._sock_close()  # type: ignore[attr-defined]
        publisher.client.loop_stop()
        wait_for(lambda: late.last("ecarte/club/t1/availability") == b"offline", "the last will")
        late.close()


def test_the_game_goes_on_without_a_broker(service: TableService) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    settings = MqttSettings(port=port, venue="v", table="late", enabled=True)
    publisher = TablePublisher(settings, table_name="Late")
    publisher.start()
    final = play(service, publisher)  # no broker: refereeing does not wait for it
    assert final["winner"] in ("A", "B")
    with open_broker(port):
        watcher = Watcher(settings)
        assert publisher.connected.wait(40), "the publisher reconnects by itself"
        wait_for(lambda: json.loads(watcher.last("ecarte/v/late/state") or b"{}").get("winner") == final["winner"],
                 "the state after the broker came")
        publisher.close()
        watcher.close()


def test_mosquitto_with_password_and_tls(service: TableService, mosquitto: dict[str, object]) -> None:
    plain = MqttSettings(port=int(mosquitto["port"]), venue="v", table="m", enabled=True,  # type: ignore[call-overload]
                         username="table", password="s3cret")
    tls = MqttSettings(port=int(mosquitto["tls_port"]), venue="v", table="m", enabled=True,  # type: ignore[call-overload]
                       username="table", password="s3cret", tls=True, ca=str(mosquitto["ca"]))
    refused = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="nobody")
    refused.username_pw_set("table", "wrong")
    codes: list[object] = []
    refused.on_connect = lambda c, u, f, r, p: codes.append(r)
    refused.connect("127.0.0.1", int(mosquitto["port"]))  # type: ignore[call-overload]
    refused.loop_start()
    wait_for(lambda: bool(codes), "the broker's answer")
    refused.loop_stop()
    assert codes[0].is_failure  # type: ignore[attr-defined]
    watcher = Watcher(plain)
    publisher = TablePublisher(tls, table_name="Mosquitto")
    publisher.start()
    assert publisher.connected.wait(20), "TLS with the CA and a password"
    final = play(service, publisher)
    wait_for(lambda: json.loads(watcher.last("ecarte/v/m/state") or b"{}").get("winner") == final["winner"],
             "the state through Mosquitto")
    publisher.close()
    wait_for(lambda: watcher.last("ecarte/v/m/availability") == b"offline", "offline on a clean stop")
    watcher.close()


def test_tables_connecting_together_stay_connected(caplog: Any) -> None:
    """Tables connecting together (each subscribing to its own availability for a moment, then
    leaving it) all stay connected: none is knocked off, none told the broker refused it."""
    import logging
    import time

    caplog.set_level(logging.WARNING, logger="venue.table.mqtt")
    with open_broker() as broker:
        tables = [TablePublisher(MqttSettings(port=broker.port, venue="v", table=f"t{i}", enabled=True),
                                 table_name=f"t{i}") for i in range(32)]
        try:
            for table in tables:
                table.start()
            wait_for(lambda: all(t.connected.is_set() for t in tables), "every table connected")
            time.sleep(4.0)  # the echoes heard, the subscriptions gone again
            assert all(t.connected.is_set() for t in tables)
        finally:
            for table in tables:
                table.close()
    assert "lost the broker" not in caplog.text and "does not let this table" not in caplog.text, caplog.text[:2000]
