"""Mosquitto's own limits in the configuration the hub writes for it (venue/hub/broker.py), each tried
through a real Mosquitto started by the hub: a packet too big disconnects its sender and keeps
nothing; a reader that does not read holds the broker to ``max_queued_bytes`` and
``max_inflight_bytes``; connections past ``max_connections`` are refused and a table connects once
they go. And what users of the retired embedded broker had: their venue file still starts a hub."""

from __future__ import annotations

import contextlib
import json
import logging
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import psutil
import pytest
from conftest import MOSQUITTO, wait_for
from paho.mqtt.enums import CallbackAPIVersion
from test_venue_guard import _string, connect_packet, raw_connect
from test_venue_trust import good_state, hub_factory, publish, retained, secret, venue_file

from venue.hub.broker import (
    CONNECTIONS_SPARE,
    DESCRIPTORS_KEPT,
    MAX_INFLIGHT_BYTES,
    MAX_PACKET_BYTES,
    MAX_QUEUED_BYTES,
    mosquitto_path,
)
from venue.hub.hub_settings import HubSettings, load_hub_settings

__all__ = ["hub_factory"]  # the fixture, shared with test_venue_trust

MB = 1024 * 1024


@pytest.fixture
def settings(tmp_path: Path) -> HubSettings:
    """A venue of tables t1, t2 and a sentinel, and two readers (``reader``, ``keeper``), on the hub's Mosquitto."""
    if MOSQUITTO is None:
        pytest.skip("Mosquitto is not installed: `apt-get install -y mosquitto`")
    path = venue_file(tmp_path, "mosquitto", ["t1", "t2", "sentinel"])
    path.write_text(path.read_text().replace('readers = ["reader"]', 'readers = ["reader", "keeper"]'))
    return load_hub_settings(path)


def conf(settings: HubSettings) -> Path:
    assert settings.state is not None
    return settings.state / "broker" / "mosquitto.conf"


def conf_value(settings: HubSettings, key: str) -> int:
    """A setting of the configuration the hub wrote for its Mosquitto (its first line for ``key``)."""
    for line in conf(settings).read_text().splitlines():
        if line.split(" ")[0] == key:
            return int(line.split()[1])
    raise AssertionError(f"no {key} in {conf(settings)}")


def broker_process(settings: HubSettings) -> psutil.Process:
    """The hub's Mosquitto: the process run on the configuration the hub wrote."""
    for proc in psutil.process_iter(["cmdline"]):
        if str(conf(settings)) in (proc.info["cmdline"] or []):
            return proc
    raise AssertionError(f"no mosquitto running on {conf(settings)}")


def rss_mb(proc: psutil.Process) -> float:
    return float(proc.memory_info().rss) / MB


def publish_packet(topic: str, payload: bytes, retain: bool = True) -> bytes:
    """An MQTT 3.1.1 PUBLISH at QoS 0, byte by byte."""
    body = _string(topic.encode()) + payload
    size, length = len(body), b""
    while True:
        byte, size = size % 128, size // 128
        length += bytes([byte | (0x80 if size else 0)])
        if not size:
            break
    return bytes([0x30 | (0x01 if retain else 0)]) + length + body


def closed_by_broker(sock: socket.socket, wait: float = 10.0) -> bool:
    """Whether the broker closes ``sock`` within ``wait`` s (False: it is still open)."""
    sock.settimeout(wait)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except OSError:  # reset: closed too
        return True


def test_a_packet_over_max_packet_size_disconnects_its_sender_and_keeps_nothing(
        settings: HubSettings, hub_factory: Any) -> None:
    """Three retained publishes of 4 MB each on a table's own topic (the embedded broker kept three of
    100 MB and grew by 286 MB): each sender is disconnected, nothing is retained or kept in memory,
    and the table and the others go on publishing."""
    hub = hub_factory(settings)
    topic = "ecarte/club/t1/state"
    publish(settings, "ecarte/club/sentinel/state", good_state(None), "sentinel", secret(settings, "sentinel"))
    publish(settings, topic, good_state(None, game=1), "t1", secret(settings, "t1"))
    wait_for(lambda: any(t["table"] == "t1" for t in hub.get("/api/tables")["tables"]), "t1's state")
    broker = broker_process(settings)
    before = rss_mb(broker)
    assert MAX_PACKET_BYTES < 4 * MB
    for n in range(3):
        with socket.create_connection(settings.broker_listen, timeout=10) as sock:
            sock.sendall(connect_packet(f"t1-{n}", "t1", secret(settings, "t1")))
            assert sock.recv(4)[3] == 0  # accepted
            big = json.dumps({"game": 2, "view": {"phase": "x" * 4 * MB}}).encode()
            with contextlib.suppress(OSError):  # the broker closed it part-way: what is asserted next
                sock.sendall(publish_packet(topic, big))
            assert closed_by_broker(sock), "a packet over max_packet_size left its sender connected"
    grown = rss_mb(broker) - before
    assert grown < 4, f"the broker grew by {grown:.1f} MB"
    assert retained(settings, topic) == good_state(None, game=1)
    publish(settings, topic, good_state(None, game=3), "t1", secret(settings, "t1"))
    publish(settings, "ecarte/club/t2/state", good_state(None, game=4), "t2", secret(settings, "t2"))
    wait_for(lambda: {("t1", 3), ("t2", 4)} <= {(t["table"], t["game"]) for t in hub.get("/api/tables")["tables"]},
             "both tables' states after the big packets")


@pytest.mark.parametrize(("size", "count"), [(100_000, 800), (900_000, 110)], ids=["queued", "inflight"])
def test_a_reader_that_does_not_read_holds_the_broker_to_its_limits(settings: HubSettings, hub_factory: Any,
                                                                    size: int, count: int) -> None:
    """A dashboard subscribed at QoS 1 that never reads (its socket's buffer full) while a table sends
    80-100 MB at QoS 1: Mosquitto holds at most ``max_queued_bytes`` waiting for it and
    ``max_inflight_bytes`` in flight, drops the rest for it, and every other reader gets everything.
    Small messages try ``max_queued_bytes`` (without it Mosquitto kept all 80 MB, up to
    ``max_queued_messages``); messages near the packet cap try ``max_inflight_bytes`` (without it 100
    of them, 90 MB, waited in flight)."""
    hub_factory(settings)
    topic = "ecarte/club/t1/event"
    stalled = socket.socket()
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stalled.settimeout(10)
    stalled.connect(settings.broker_listen)
    stalled.sendall(connect_packet("reader", "reader", secret(settings, "reader")))
    assert stalled.recv(4)[3] == 0
    filter_ = _string(topic.encode())
    stalled.sendall(b"\x82" + bytes([2 + len(filter_) + 1]) + b"\x00\x01" + filter_ + b"\x01")  # QoS 1
    assert stalled.recv(5)[0] == 0x90  # SUBACK; then never read again
    got: list[int] = []
    subscribed: list[Any] = []
    keeper = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="keeper")
    keeper.username_pw_set("keeper", secret(settings, "keeper"))
    keeper.on_connect = lambda c, u, f, r, p: c.subscribe(topic, qos=1)
    keeper.on_subscribe = lambda c, u, m, r, p: subscribed.append(r)
    keeper.on_message = lambda c, u, m: got.append(int(m.payload[:8]))
    keeper.connect(*settings.broker_listen)
    keeper.loop_start()
    table = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="t1")
    table.username_pw_set("t1", secret(settings, "t1"))
    table.connect(*settings.broker_listen)
    table.loop_start()
    try:
        wait_for(lambda: bool(subscribed), "the keeper subscribed")
        broker = broker_process(settings)
        before = rss_mb(broker)
        for n in range(count):
            table.publish(topic, b"%08d" % n + b"x" * (size - 8), qos=1).wait_for_publish(30)
        wait_for(lambda: len(got) == count, "every message read by the reader that reads", timeout=120)
        assert got == list(range(count))
        grown = rss_mb(broker) - before
        bound = 2 * (MAX_QUEUED_BYTES + MAX_INFLIGHT_BYTES + size) / MB + 10
        assert grown < bound, f"the broker grew by {grown:.0f} MB for {count * size / MB:.0f} MB sent ({bound:.0f})"
    finally:
        stalled.close()
        for client in (table, keeper):
            client.disconnect()
            client.loop_stop()


def test_connections_past_the_cap_are_refused_and_a_table_connects_once_they_go(
        settings: HubSettings, hub_factory: Any) -> None:
    """A burst of connections that never say who they are, more than the listener's
    ``max_connections`` and the descriptors the hub gives its Mosquitto: the broker closes those past
    its limit as they come, and a table meanwhile; once the burst goes, the table connects. (Without
    the limits the broker took as many as the hub's own limit of descriptors allowed; Debian 12's
    Mosquitto counts ``max_connections`` wrong once clients have left, so its descriptors hold it.)"""
    hub = hub_factory(settings)
    publish(settings, "ecarte/club/sentinel/state", good_state(None), "sentinel", secret(settings, "sentinel"))
    wait_for(lambda: bool(hub.get("/api/tables")["tables"]), "the hub connected and reading")
    cap = 2 * 6 + CONNECTIONS_SPARE  # two for each user (the hub, three tables, two readers) and a few spare
    burst = [socket.create_connection(settings.broker_listen, timeout=10) for _ in range(cap + DESCRIPTORS_KEPT + 8)]
    try:
        time.sleep(0.5)  # the broker's turn to take them
        refused = sum(closed_by_broker(sock, wait=0.05) for sock in burst)
        assert refused >= 8, f"{refused} of {len(burst)} connections refused"
        assert raw_connect(settings, "t1", "t1", secret(settings, "t1"), hold=0.1) is None
    finally:
        for sock in burst:
            sock.close()
    wait_for(lambda: raw_connect(settings, "t1", "t1", secret(settings, "t1"), hold=0.1) == 0,
             "the table connected once the burst went")
    publish(settings, "ecarte/club/t1/state", good_state(None, game=7), "t1", secret(settings, "t1"))
    wait_for(lambda: any(t["table"] == "t1" and t["game"] == 7 for t in hub.get("/api/tables")["tables"]),
             "the table's state at the hub")
    assert conf_value(settings, "max_connections") == cap


@pytest.mark.parametrize("broker", ['mode = "embedded"', "embedded = true"])
def test_a_venue_file_of_the_embedded_broker_starts_the_hubs_own_mosquitto(
        tmp_path: Path, hub_factory: Any, caplog: pytest.LogCaptureFixture, broker: str) -> None:
    """A venue file written for the retired embedded broker (``mode = "embedded"``, or the older
    ``embedded = true``) starts the hub on its own Mosquitto with the same passwords, and the hub says
    so in one line at its start."""
    if MOSQUITTO is None:
        pytest.skip("Mosquitto is not installed: `apt-get install -y mosquitto`")
    path = venue_file(tmp_path, "embedded", ["t1"])
    path.write_text(path.read_text().replace('mode = "embedded"', broker))
    settings = load_hub_settings(path)
    assert settings.mode == "mosquitto" and settings.retired == "embedded"
    caplog.set_level(logging.INFO, logger="venue.hub.scoreboard")
    hub = hub_factory(settings)
    said = [r.getMessage() for r in caplog.records if r.name == "venue.hub.scoreboard" and r.levelno == logging.WARNING]
    assert len(said) == 1 and "retired" in said[0] and "own Mosquitto" in said[0], said
    assert any("Mosquitto on" in r.getMessage() for r in caplog.records), caplog.text
    publish(settings, "ecarte/club/t1/state", good_state(None, game=2), "t1", secret(settings, "t1"))
    wait_for(lambda: any(t["table"] == "t1" and t["game"] == 2 for t in hub.get("/api/tables")["tables"]),
             "the table's state through the hub's Mosquitto")


def test_without_mosquitto_the_hub_says_what_to_install(tmp_path: Path) -> None:
    """On a machine without Mosquitto (hidden here in a mount namespace of its own), ``ecarte-table hub``
    on a venue file of the embedded broker exits 2 with one line that says what to install (it used
    to start the embedded broker)."""
    exe = mosquitto_path()
    unshare = shutil.which("unshare")
    if exe is None or unshare is None:
        pytest.skip("needs Mosquitto to hide and util-linux's unshare")
    hide = f"mount --bind /dev/null {exe}"
    if subprocess.run([unshare, "-rm", "sh", "-c", hide], capture_output=True, check=False).returncode != 0:
        pytest.skip("no mount namespace here (unshare -rm refused)")
    path = venue_file(tmp_path, "embedded", ["t1"])
    began = time.monotonic()
    done = subprocess.run([unshare, "-rm", "sh", "-c", f'{hide} && exec "$0" -m cli.main hub "$1"',
                           sys.executable, str(path)], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).parents[2])
    assert done.returncode == 2, (done.returncode, done.stderr, time.monotonic() - began)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "Mosquitto is not installed" in lines[0] and "apt-get install mosquitto" in lines[0], lines[0]


# -- the red team's cases that broke the embedded broker, on the hub's Mosquitto ---------------------


def log_size(settings: HubSettings) -> int:
    assert settings.state is not None
    log = settings.state / "broker" / "mosquitto.log"
    return log.stat().st_size if log.exists() else 0


def test_refused_logins_and_connections_that_end_early_leave_nothing_behind(
        settings: HubSettings, hub_factory: Any) -> None:
    """200 logins with a wrong password or none, and 200 connections that end before their CONNECT
    (the embedded broker wrote a WARNING for each refused login to a log never rotated, and kept each
    connection that ended early open in CLOSE-WAIT until its memory was collected): each login is
    refused, the broker's log does not grow, and its descriptors are back to what they were."""
    hub_factory(settings)
    publish(settings, "ecarte/club/sentinel/state", good_state(None), "sentinel", secret(settings, "sentinel"))
    broker = broker_process(settings)
    descriptors, logged = broker.num_fds(), log_size(settings)
    for n in range(100):
        assert raw_connect(settings, f"x{n}", "t1", "guess", hold=0) == 5  # not authorised
        assert raw_connect(settings, f"y{n}", hold=0) == 5  # no user name
    for n in range(200):
        with socket.create_connection(settings.broker_listen, timeout=10) as sock:
            if n % 2:
                sock.sendall(b"\x10\x20\x00\x04MQ")  # the start of a CONNECT, then nothing
    wait_for(lambda: broker.num_fds() <= descriptors, "the broker's descriptors back to what they were")
    assert log_size(settings) == logged
    assert raw_connect(settings, "t1", "t1", secret(settings, "t1"), hold=0) == 0


def subscribe_packet(topic: str, qos: int) -> bytes:
    body = b"\x00\x01" + _string(topic.encode()) + bytes([qos])
    return b"\x82" + bytes([len(body)]) + body


@pytest.mark.parametrize("attack", ["will on a wildcard", "topic with U+0000", "QoS 3"])
def test_a_malformed_packet_closes_its_connection_and_leaves_nothing(
        settings: HubSettings, hub_factory: Any, attack: str) -> None:
    """Packets MQTT 3.1.1 forbids, which the embedded broker accepted: a will on a wildcard topic
    (MQTT-3.1.3-11, -4.7.3-1), a topic with U+0000 (MQTT-1.5.3-2), a subscription at QoS 3
    (MQTT-3-8.3-4): the broker closes the connection, keeps nothing of it, and the table goes on."""
    hub = hub_factory(settings)
    password = secret(settings, "t1")
    publish(settings, "ecarte/club/sentinel/state", good_state(None), "sentinel", secret(settings, "sentinel"))
    with socket.create_connection(settings.broker_listen, timeout=10) as sock:
        if attack == "will on a wildcard":
            sock.sendall(connect_packet("t1", "t1", password, will=("ecarte/club/t1/#", b"offline")))
            answer = sock.recv(4)
            assert len(answer) < 4 or answer[3] != 0, answer  # no CONNACK, or a refusal
        else:
            sock.sendall(connect_packet("t1", "t1", password))
            assert sock.recv(4)[3] == 0
            sock.sendall(publish_packet("ecarte/club/t1/state\u0000x", good_state(None, game=9))
                         if attack == "topic with U+0000" else subscribe_packet("ecarte/club/t1/#", 3))
        assert closed_by_broker(sock), f"{attack}: the connection stayed open"
    assert retained(settings, "ecarte/club/t1/#") is None
    publish(settings, "ecarte/club/t1/state", good_state(None, game=2), "t1", password)
    wait_for(lambda: any(t["table"] == "t1" and t["game"] == 2 for t in hub.get("/api/tables")["tables"]),
             "the table's state after the attack")


def test_retained_messages_go_only_where_the_acl_lets_them(settings: HubSettings, hub_factory: Any) -> None:
    """A table subscribing to every topic (``#``, the venue's ``ecarte/club/#``) gets the retained
    messages of its own topics only: another table's state never reaches it (the embedded broker sent
    every retained message to a new subscription without asking the ACL)."""
    hub_factory(settings)
    publish(settings, "ecarte/club/t2/state", good_state(None, game=5), "t2", secret(settings, "t2"))
    publish(settings, "ecarte/club/t1/state", good_state(None, game=6), "t1", secret(settings, "t1"))
    got: list[str] = []
    subscribed: list[Any] = []
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="t1")
    client.username_pw_set("t1", secret(settings, "t1"))
    client.on_connect = lambda c, u, f, r, p: c.subscribe([("#", 1), ("ecarte/club/#", 1)])
    client.on_subscribe = lambda c, u, m, r, p: subscribed.append(r)
    client.on_message = lambda c, u, m: got.append(m.topic)
    client.connect(*settings.broker_listen)
    client.loop_start()
    try:
        wait_for(lambda: "ecarte/club/t1/state" in got, "t1's own retained state")
        client.publish("ecarte/club/t1/availability", b"online", qos=1).wait_for_publish(10)
        wait_for(lambda: "ecarte/club/t1/availability" in got, "t1's own message back")  # after the retained ones
        assert all(topic.startswith("ecarte/club/t1/") for topic in got), got
    finally:
        client.disconnect()
        client.loop_stop()


def test_a_table_piles_up_no_retained_message_on_a_subtopic(settings: HubSettings, hub_factory: Any) -> None:
    """The ACL gave each table `ecarte/<venue>/<table>/#`, and Mosquitto keeps a retained message on any
    topic it accepts, with no bound on their number: 150 retained messages of 900 kB on made-up subtopics
    took the hub's Mosquitto to 142 MB and left a 138 MB database. A table may now publish its own topics
    only: a retained message anywhere else under its name is dropped, and no reader gets it."""
    hub_factory(settings)
    t1 = secret(settings, "t1")
    for topic in ("ecarte/club/t1/junk/1", "ecarte/club/t1/state/x", "ecarte/club/t1/games/1/x",
                  "ecarte/club/t1/x"):
        publish(settings, topic, b"x" * 900_000, "t1", t1)
    publish(settings, "ecarte/club/t1/state", good_state(None, game=6), "t1", t1)
    publish(settings, "ecarte/club/sentinel/state", good_state(None), "sentinel", secret(settings, "sentinel"))
    for topic in ("ecarte/club/t1/junk/1", "ecarte/club/t1/state/x", "ecarte/club/t1/games/1/x", "ecarte/club/t1/x"):
        assert retained(settings, topic) is None, topic
    assert retained(settings, "ecarte/club/t1/state") == good_state(None, game=6)


def test_a_reader_asking_never_to_be_cut_off_gets_the_brokers_keep_alive(settings: HubSettings,
                                                                         hub_factory: Any) -> None:
    """A reader with keep-alive 0 (never cut off) that never reads held 293 MB for 300 MB published. The
    hub's Mosquitto gives an MQTT 5 client the server keep-alive `max_keepalive` instead (it is cut off
    after one and a half of it, and what was held for it freed); the table file refuses a keep-alive
    of 0 or over it."""
    from venue.settings import MAX_KEEPALIVE, SettingsError, parse_sections

    hub_factory(settings)
    answers: list[Any] = []
    reader = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="reader", protocol=mqtt.MQTTv5)
    reader.username_pw_set("reader", secret(settings, "reader"))
    reader.on_connect = lambda c, u, f, r, p: answers.append((r, p))
    reader.connect(*settings.broker_listen, keepalive=0)
    reader.loop_start()
    try:
        wait_for(lambda: bool(answers), "the broker's answer")
        reason, properties = answers[0]
        assert not reason.is_failure
        assert getattr(properties, "ServerKeepAlive", None) == MAX_KEEPALIVE
    finally:
        reader.disconnect()
        reader.loop_stop()
    for keepalive in (0, MAX_KEEPALIVE + 1):
        with pytest.raises(SettingsError, match="keepalive"):
            parse_sections({"mqtt": {"keepalive": keepalive}}, table_name="T")
