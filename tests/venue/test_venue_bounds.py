"""Bounded memory and streams at the hub and the table, through the hub's own
Mosquitto and Chromium: the finished games the hub keeps for ``/api/tables/<t>/games`` (it kept
every one, up to 512 kB each, and parsed them all again at each request); the streams a stranger
may hold on a table's page or the hub (300 on the page, read normally, locked every spectator out)."""

from __future__ import annotations

import json
import selectors
import socket
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import paho.mqtt.client as mqtt
import pytest
from conftest import MOSQUITTO
from paho.mqtt.enums import CallbackAPIVersion
from test_venue_trust import Hub, good_state, hub_factory, secret, venue_file
from waiting import wait_for

from venue.hub.hub_settings import HubSettings, load_hub_settings
from venue.hub.room import KEPT_GAMES, KEPT_GAMES_BYTES
from venue.settings import WebSettings
from venue.sse import STREAMS_PER_ADDRESS
from venue.table.page import LiveTable, ServerThread, table_app
from venue.table.public import PublicFeed

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


class Stranger:
    """Streams opened from loopback addresses of their own (``127.0.0.N``, as many machines), each read
    as it comes on a thread: what a stranger on the club's Wi-Fi holds the page's connections with."""

    def __init__(self, port: int, addresses: list[str], each: int) -> None:
        self.selector = selectors.DefaultSelector()
        self.answered: dict[socket.socket, bytes] = {}
        self.closed: set[socket.socket] = set()
        self._lock = threading.Lock()
        for address in addresses:
            for _ in range(each):
                sock = socket.socket()
                sock.bind((address, 0))
                sock.settimeout(5)
                sock.connect(("127.0.0.1", port))
                sock.sendall(b"GET /api/stream HTTP/1.1\r\nHost: table\r\nAccept: text/event-stream\r\n\r\n")
                sock.setblocking(False)
                self.answered[sock] = b""
                self.selector.register(sock, selectors.EVENT_READ)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            for key, _ in self.selector.select(0.1):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                try:
                    data = sock.recv(65536)
                except OSError:
                    data = b""
                with self._lock:
                    if data:  # the response's head, and whether it ended (its last chunk), are all we need
                        both = self.answered[sock] + data
                        self.answered[sock] = both if len(both) <= 216 else both[:200] + both[-16:]
                    else:
                        self.closed.add(sock)
                        self.selector.unregister(sock)

    def held(self) -> int:
        """Streams the stranger holds: connections open, answered 200 and not ended."""
        with self._lock:
            return sum(1 for s, data in self.answered.items() if s not in self.closed
                       and data.startswith(b"HTTP/1.1 200") and not data.endswith(b"\r\n0\r\n\r\n"))

    def settled(self) -> bool:
        """Every connection closed or holding a stream (an answer that ended, or a 503, is closed by the
        server once its keep-alive is over)."""
        with self._lock:
            closed = len(self.closed)
        return closed + self.held() == len(self.answered)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        for sock in self.answered:
            sock.close()


def spectator_stream(url: str) -> bytes:
    """What a new spectator's stream (from 127.0.0.1) begins with."""
    with httpx.Client(timeout=10) as client, client.stream("GET", f"{url}/api/stream") as r:
        assert r.status_code == 200
        return next(r.iter_bytes())


def test_a_stranger_holding_300_streams_leaves_the_page_to_its_spectators() -> None:
    """300 streams read normally from one address took the table's page's 200 connections: every
    spectator was locked out for as long as the stranger held them."""
    live = LiveTable(PublicFeed(table="T"))
    server = ServerThread(table_app(live, history=None, settings=WebSettings()), "127.0.0.1", 0, name="page")
    server.start()
    stranger = Stranger(server.port, ["127.0.0.2"], 300)
    try:
        wait_for(stranger.settled, "the stranger's connections holding a stream or closed")
        assert spectator_stream(server.url).startswith(b"retry:")
        assert httpx.get(f"{server.url}/api/state", timeout=10).status_code == 200
        assert stranger.held() == live.browsers.streams_of("127.0.0.2") == STREAMS_PER_ADDRESS
    finally:
        stranger.close()
        server.close()


def test_streams_from_many_addresses_leave_room_for_a_spectator(hub: tuple[Hub, HubSettings],
                                                                 browser: Any) -> None:
    """Strangers on 25 addresses, 8 streams each: the hub's streams stop at their share of its
    connections, the oldest of the address holding the most ending; a spectator in Chromium sees
    the table that publishes through Mosquitto."""
    live, settings = hub
    addresses = [f"127.0.0.{n}" for n in range(10, 35)]
    stranger = Stranger(live.server.port, addresses, STREAMS_PER_ADDRESS)
    try:
        wait_for(stranger.settled, "the strangers' connections holding a stream or closed")
        browsers = live.live.browsers
        assert stranger.held() == browsers.count == browsers.most < live.server.guard.cap
        publish_many(settings, [("ecarte/club/t1/state", good_state(None))], "t1")
        tab = browser.new_page()
        try:
            tab.goto(live.server.url)
            tab.wait_for_selector("#conn:text('live')", timeout=20_000)
            tab.wait_for_selector("[data-table=t1]", timeout=20_000)
        finally:
            tab.close()
        assert browsers.count <= browsers.most
    finally:
        stranger.close()


def test_a_stranger_on_200_addresses_never_ends_a_long_standing_spectators_stream(
        hub: tuple[Hub, HubSettings], browser: Any) -> None:
    """Every address holding one stream, the stream ended to make room was the first spectator's: a
    stranger with 200 addresses ended it 20 times in 30 s. Now the newest stream goes: the spectator in
    Chromium keeps the stream it opened first, and sees the table's states as they come."""
    live, settings = hub
    browsers = live.live.browsers
    browsers.most = 20  # the share of a small hub's connections, reached sooner
    tab = browser.new_page()
    stranger = None
    try:
        tab.goto(live.server.url)
        tab.wait_for_selector("#conn:text('live')", timeout=20_000)
        wait_for(lambda: browsers.streams_of("127.0.0.1") == 1, "the spectator's stream")
        first = set(browsers._by_address["127.0.0.1"])
        stranger = Stranger(live.server.port, [f"127.0.0.{n}" for n in range(10, 210)], 1)
        wait_for(stranger.settled, "the stranger's connections holding a stream or closed")
        assert set(browsers._by_address.get("127.0.0.1", {})) == first  # never ended, never reconnected
        assert browsers.count == browsers.most and stranger.held() == browsers.most - 1
        publish_many(settings, [("ecarte/club/t1/state", good_state(None))], "t1")
        tab.wait_for_selector("[data-table=t1]", timeout=20_000)
        assert set(browsers._by_address.get("127.0.0.1", {})) == first
    finally:
        if stranger is not None:
            stranger.close()
        tab.close()


def test_an_ipv6_host_is_one_address_for_its_whole_64() -> None:
    """A host on IPv6 holds a whole /64 (SLAAC, privacy addresses): counted by address, it could hold 8
    streams on each of as many addresses as it liked. Its /64 is one address now."""
    from venue.sse import Broadcaster

    async def main() -> None:
        browsers = Broadcaster(most=100)
        queues = [browsers.subscribe([], f"2001:db8:1:2::{n:x}") for n in range(1, 41)]
        spectator = browsers.subscribe([], "2001:db8:1:3::1")
        assert browsers.count == STREAMS_PER_ADDRESS + 1
        assert browsers.streams_of("2001:db8:1:2::/64") == STREAMS_PER_ADDRESS
        assert all(q.get_nowait() is None for q in queues[:-STREAMS_PER_ADDRESS])  # ended, oldest first
        assert spectator.empty()

    import asyncio

    asyncio.run(main())
