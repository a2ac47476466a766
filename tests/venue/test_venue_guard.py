"""The venue's broker as an attacker on the club's Wi-Fi tries it, on the hub's own Mosquitto: a last
will cannot write where its client may not publish, nobody but table-2 can be table-2, the hub's
password writes no result and one table's posts none of another's; and the broker as the tables
meet it: every message passed on in order, a table fallen silent offline after its keep-alive, a
misspelt venue said, a hub toward no broker saying it cannot connect.

The scoreboard in the browser is tests/venue/test_venue_scoreboard.py, the hub's streams
test_venue_streams.py, the results counted test_venue_results.py."""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from conftest import MOSQUITTO, wait_for
from paho.mqtt.enums import CallbackAPIVersion
from test_venue_results import SWISS, result
from test_venue_trust import finished, good_state, hub_factory, publish, retained, secret, venue_file

from venue.hub.hub_settings import HubSettings, load_hub_settings

__all__ = ["hub_factory"]  # the fixture, shared with test_venue_trust


def _string(data: bytes) -> bytes:
    return len(data).to_bytes(2, "big") + data


def connect_packet(client_id: str, username: str | None = None, password: str | None = None,
                   will: tuple[str, bytes] | None = None, clean: bool = True, keep_alive: int = 60) -> bytes:
    """An MQTT 3.1.1 CONNECT, byte by byte (a retained QoS 1 will when ``will`` is given)."""
    flags = 0x02 if clean else 0
    payload = _string(client_id.encode())
    if will is not None:
        flags |= 0x04 | 0x08 | 0x20
        payload += _string(will[0].encode()) + _string(will[1])
    if username is not None:
        flags |= 0x80
        payload += _string(username.encode())
    if password is not None:
        flags |= 0x40
        payload += _string(password.encode())
    body = _string(b"MQTT") + bytes([4, flags]) + keep_alive.to_bytes(2, "big") + payload
    size, length = len(body), b""
    while True:
        byte, size = size % 128, size // 128
        length += bytes([byte | (0x80 if size else 0)])
        if not size:
            break
    return b"\x10" + length + body


def raw_connect(settings: HubSettings, client_id: str, username: str | None = None, password: str | None = None,
                will: tuple[str, bytes] | None = None, clean: bool = True, hold: float = 0.3) -> int | None:
    """Connect, hold the connection ``hold`` s, then drop it without a DISCONNECT (a reset, as a
    pulled plug): the broker's CONNACK code (0: accepted), or None if it closed without one."""
    with socket.create_connection(settings.broker_listen, timeout=5) as sock:
        sock.sendall(connect_packet(client_id, username, password, will, clean))
        answer = b""
        try:
            while len(answer) < 4:
                chunk = sock.recv(4 - len(answer))
                if not chunk:
                    break
                answer += chunk
        except OSError:
            pass
        time.sleep(hold)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    return answer[3] if len(answer) == 4 and answer[0] == 0x20 else None


def settings_for(tmp_path: Any, names: list[str]) -> HubSettings:
    if MOSQUITTO is None:
        pytest.skip("Mosquitto is not installed")
    return load_hub_settings(venue_file(tmp_path, "mosquitto", names))


def seen_sentinel(settings: HubSettings, hub: Any, n: int) -> None:
    """A table's state published after the attack has reached the hub (so the attack has too)."""
    publish(settings, "ecarte/club/sentinel/state", good_state(None, game=n), "sentinel", secret(settings, "sentinel"))
    wait_for(lambda: any(t["table"] == "sentinel" and t["game"] == n for t in hub.get("/api/tables")["tables"]),
             "the sentinel's state")


def test_a_last_will_cannot_forge_a_result(tmp_path: Any, hub_factory: Any) -> None:
    settings = settings_for(tmp_path, ["t1", "t2", "sentinel"])
    hub = hub_factory(settings)
    forged = ("ecarte/club/t2/games/9", finished(9, "A", ("Eve", "Bob")))
    raw_connect(settings, "x1", "t1", secret(settings, "t1"), will=forged)  # another table's password
    raw_connect(settings, "x2", will=forged)  # no user name at all
    raw_connect(settings, "x3", "t2", "guess", will=forged)  # a wrong password
    # a table's own will on its own topic is still the broker's word that it dropped off
    assert raw_connect(settings, "t2", "t2", secret(settings, "t2"),
                       will=("ecarte/club/t2/availability", b"offline")) == 0
    wait_for(lambda: any(t["table"] == "t2" and t["availability"] == "offline"
                         for t in hub.get("/api/tables")["tables"]), "t2's own will")
    seen_sentinel(settings, hub, 2)
    assert hub.get("/api/standings")["games"] == 0
    assert retained(settings, forged[0]) is None


def test_nobody_but_table_2_can_be_table_2(tmp_path: Any, hub_factory: Any) -> None:
    settings = settings_for(tmp_path, ["t1", "t2", "sentinel"])
    hub = hub_factory(settings)
    drops: list[Any] = []
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="ecarte-club-t2")
    client.username_pw_set("t2", secret(settings, "t2"))
    client.on_disconnect = lambda c, u, f, r, p: drops.append(r)
    connected: list[Any] = []
    client.on_connect = lambda c, u, f, r, p: connected.append(r)
    client.connect(*settings.broker_listen)
    client.loop_start()
    try:
        wait_for(lambda: bool(connected), "table-2 connected")
        for cid in ("ecarte-club-t2", "t2"):
            for clean in (False, True):
                raw_connect(settings, cid, clean=clean, hold=0.2)  # anonymous
                raw_connect(settings, cid, "t1", secret(settings, "t1"), clean=clean, hold=0.2)  # another table
                raw_connect(settings, cid, "t2", "guess", clean=clean, hold=0.2)  # a wrong password
        time.sleep(0.5)
        assert drops == [], f"table-2 was knocked off: {drops}"
        client.publish("ecarte/club/t2/state", good_state(None, game=5), qos=1, retain=True).wait_for_publish(10)
        wait_for(lambda: any(t["table"] == "t2" and t["game"] == 5 for t in hub.get("/api/tables")["tables"]),
                 "table-2's state")
    finally:
        client.disconnect()
        client.loop_stop()


def test_the_hubs_password_writes_no_result(tmp_path: Any, hub_factory: Any) -> None:
    settings = settings_for(tmp_path, ["t1", "sentinel"])
    hub = hub_factory(settings)
    wait_for(lambda: hub.get("/api/standings") is not None, "the hub")
    hub_password = (settings.state / "secrets" / "ecarte-hub.pass").read_text().strip()  # type: ignore[operator]
    publish(settings, "ecarte/club/t1/games/3", finished(3, "A", ("Eve", "Bob")), "ecarte-hub", hub_password)
    seen_sentinel(settings, hub, 3)
    assert retained(settings, "ecarte/club/t1/games/3") is None
    assert hub.get("/api/standings")["games"] == 0


def test_one_tables_password_posts_no_result_of_another(tmp_path: Any, hub_factory: Any) -> None:
    settings = settings_for(tmp_path, ["table-1", "table-2", "sentinel"])
    path = tmp_path / "venue.toml"
    path.write_text(path.read_text() + f'[session]\nplayers = {json.dumps(list(SWISS))}\nsystem = "swiss"\n')
    settings = load_hub_settings(path)
    hub = hub_factory(settings)
    t1, t2 = secret(settings, "table-1"), secret(settings, "table-2")
    publish(settings, "ecarte/club/table-1/games/7", result("table-1", 7, ("Eve", "Bob")), "table-1", t1)
    now = time.time()
    publish(settings, "ecarte/club/table-2/games/1", result("table-2", 1, ("Eve", "Bob"), "B", now + 600), "table-2",
            t2)
    publish(settings, "ecarte/club/table-2/games/1", result("table-2", 1, ("Eve", "Bob"), "B", now + 900), "table-2",
            t2)
    publish(settings, "ecarte/club/table-2/games/2", result("table-2", 2, ("Eve", "Bob"), "B", now + 600), "table-2",
            t2)
    seen_sentinel(settings, hub, 4)
    standings = hub.get("/api/standings")
    assert standings["games"] == 1
    assert {r["player"]: r["played"] for r in standings["ranking"]} == {"Ann": 0, "Bob": 1, "Cat": 0, "Eve": 1}
    assert len(standings["disputed"]) == 2


def _hub(tmp_path: Any, text: str, *args: str, wait: float | None = None) -> tuple[int | None, str]:
    """``ecarte-table hub`` on a venue file: its exit status (None: still running after ``wait`` s,
    then ended) and what it said."""
    import subprocess
    import sys

    path = tmp_path / "venue.toml"
    path.write_text(text)
    proc = subprocess.Popen([sys.executable, "-m", "cli.main", "hub", str(path), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _, err = proc.communicate(timeout=wait if wait is not None else 60)
        return proc.returncode, err
    except subprocess.TimeoutExpired:
        proc.terminate()
        return None, proc.communicate(timeout=30)[1]


def test_duplicate_or_reserved_player_names_exit_2(tmp_path: Any) -> None:
    for players, words in ((["Ann", "Bob", "Ann"], "'Ann' given twice"), (["Ann", "\u0000bye", "Bob"], "control")):
        status, err = _hub(tmp_path, f"[session]\nplayers = {json.dumps(players)}\nsystem = \"swiss\"\n")
        assert status == 2 and "session.players" in err and words in err and "Traceback" not in err, err


def test_a_hub_toward_no_broker_says_it_cannot_connect(tmp_path: Any) -> None:
    from venue.hub.broker import free_port

    status, err = _hub(tmp_path, f'[hub]\nlisten = "127.0.0.1:{free_port()}"\n[tables]\nnames = ["t1"]\n',
                       "--broker", f"127.0.0.1:{free_port()}", wait=8)
    assert status is None, err  # it keeps trying
    assert "cannot connect to the venue's broker" in err and "serves about" not in err, err
    assert "1 table declared" not in err  # nothing announced
    assert (tmp_path / "venue-hub" / ".gitignore").read_text().splitlines()[-1] == "*"


def test_a_table_with_a_misspelt_venue_says_so(tmp_path: Any, hub_factory: Any,
                                                caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from venue.settings import MqttSettings
    from venue.table.mqtt import TablePublisher

    settings = settings_for(tmp_path, ["t1"])
    hub_factory(settings)
    caplog.set_level(logging.WARNING, logger="venue.table.mqtt")
    host, port = settings.broker_listen
    for venue, refused in (("clbu", True), ("club", False)):
        table = MqttSettings(host=host, port=port, venue=venue, table="t1", username="t1", enabled=True,
                             password=secret(settings, "t1"))
        with TablePublisher(table, table_name="t1") as publisher:
            if refused:  # Mosquitto refuses its subscription to its own availability, and drops what it publishes
                wait_for(lambda: publisher.refused, "the broker's refusal")
                assert "is [mqtt] venue 'clbu' the hub's venue" in caplog.text
            else:
                assert publisher.connected.wait(20)
                time.sleep(1.0)
                assert not publisher.refused


def test_a_refusal_is_logged_before_it_shows() -> None:
    """Whoever sees :attr:`TablePublisher.refused` finds the warning already logged (the flag came first,
    and the test above, reading the log as soon as it saw the flag, once found it empty on a busy
    machine); said once, however many threads find it."""
    import logging

    from venue.settings import MqttSettings
    from venue.table.mqtt import TablePublisher

    publisher = TablePublisher(MqttSettings(host="127.0.0.1", port=1, venue="clbu", table="t1", username="t1",
                                            enabled=True, password="x"), table_name="t1")
    flags: list[bool] = []

    class Watch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            flags.append(publisher.refused)

    watch = Watch(logging.WARNING)
    logging.getLogger("venue.table.mqtt").addHandler(watch)
    try:
        threads = [threading.Thread(target=publisher._say_refused) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        logging.getLogger("venue.table.mqtt").removeHandler(watch)
        publisher.close()
    assert flags == [False] and publisher.refused


def test_every_message_is_passed_on_in_order_and_acknowledged(tmp_path: Any, hub_factory: Any) -> None:
    """What a table sends reaches each reader in the order sent: one reading at QoS 0 while it is
    sent, one at QoS 1 whose session waits for it while it is away; every QoS 1 message is
    acknowledged to the table."""
    settings_for(tmp_path, ["t1"])  # skipped where Mosquitto is not installed
    path = venue_file(tmp_path, "mosquitto", ["t1"])
    path.write_text(path.read_text().replace('readers = ["reader"]', 'readers = ["reader", "keeper"]'))
    settings = load_hub_settings(path)
    hub_factory(settings)
    topic = "ecarte/club/t1/event"

    def reader(user: str, qos: int, clean: bool) -> tuple[mqtt.Client, list[int]]:
        got: list[int] = []
        subscribed: list[Any] = []
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=user, clean_session=clean)
        client.username_pw_set(user, secret(settings, user))
        client.on_connect = lambda c, u, f, r, p: c.subscribe(topic, qos=qos)
        client.on_subscribe = lambda c, u, m, r, p: subscribed.append(r)
        client.on_message = lambda c, u, m: got.append(int(m.payload))
        client.connect(*settings.broker_listen)
        client.loop_start()
        wait_for(lambda: bool(subscribed), f"{user} subscribed")
        return client, got

    keeper, _ = reader("keeper", 1, clean=False)
    keeper.disconnect()
    keeper.loop_stop()
    live, seen = reader("reader", 0, clean=True)
    table = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="t1")
    table.username_pw_set("t1", secret(settings, "t1"))
    table.connect(*settings.broker_listen)
    table.loop_start()
    try:
        sent = [table.publish(topic, str(i).encode(), qos=1) for i in range(300)]  # as a table sends
        for info in sent:
            info.wait_for_publish(10)
            assert info.is_published()
        for i in range(300, 400):
            table.publish(topic, str(i).encode(), qos=0)
        wait_for(lambda: len(seen) == 400, "every message read at QoS 0")
        assert seen == list(range(400))
        keeper, kept = reader("keeper", 1, clean=False)
        wait_for(lambda: set(range(300)) <= set(kept), "the QoS 1 messages kept for the reader away")
        assert kept == sorted(kept) and len(kept) == len(set(kept))
        keeper.disconnect()
        keeper.loop_stop()
    finally:
        table.disconnect()
        table.loop_stop()
        live.disconnect()
        live.loop_stop()


def test_a_table_fallen_silent_is_offline_after_its_keep_alive(tmp_path: Any, hub_factory: Any) -> None:
    """A table whose power is cut sends nothing more, not even a goodbye: the broker closes its
    connection once one and a half keep-alives have passed without a packet (MQTT-3.1.2-24), and its
    will says it is offline. A table that keeps talking stays connected."""
    settings = settings_for(tmp_path, ["t1", "t2"])
    hub = hub_factory(settings)

    def table(name: str) -> socket.socket:
        sock = socket.create_connection(settings.broker_listen, timeout=10)
        sock.sendall(connect_packet(name, name, secret(settings, name),
                                    will=(f"ecarte/club/{name}/availability", b"offline"), keep_alive=1))
        assert sock.recv(4)[3] == 0  # accepted
        return sock

    silent, talking = table("t1"), table("t2")
    try:
        began = time.monotonic()
        closed_after = None
        while time.monotonic() - began < 8.0 and closed_after is None:
            talking.sendall(b"\xc0\x00")  # PINGREQ
            assert talking.recv(2) == b"\xd0\x00"  # PINGRESP
            silent.setblocking(False)
            try:
                if silent.recv(1) == b"" and closed_after is None:
                    closed_after = time.monotonic() - began
            except BlockingIOError:
                pass
            time.sleep(0.25)
        # Mosquitto 2.0.11 checks keep-alives every few seconds when nothing else happens (5.4 s seen for 1 s)
        assert closed_after is not None and 1.4 <= closed_after <= 7.0, closed_after
        wait_for(lambda: any(t["table"] == "t1" and t["availability"] == "offline"
                             for t in hub.get("/api/tables")["tables"]), "t1's will")
        tables = {t["table"]: t["availability"] for t in hub.get("/api/tables")["tables"]}
        assert tables.get("t1") == "offline", tables
        assert tables.get("t2") != "offline", tables
    finally:
        silent.close()
        talking.close()
