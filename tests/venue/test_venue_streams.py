"""The hub's streams: to the browsers (a browser that does not read is dropped, what waits goes out
together and at a bounded pace) and from the broker (what waits for the hub is taken together, the
latest of each topic)."""

from __future__ import annotations

import json
import socket

import paho.mqtt.client as mqtt
from conftest import wait_for
from test_venue_trust import good_state


def test_a_browser_that_does_not_read_is_dropped() -> None:
    """A stream opened and never read: what waits for it is bounded by bytes, then it is dropped (its
    queue used to hold 2,000 blocks of any size: a standings block each result)."""
    from venue.hub.room import Room
    from venue.hub.scoreboard import LiveRoom, hub_app
    from venue.table.page import ServerThread

    live = LiveRoom(Room("club"))
    live.browsers.limit = 512 * 1024
    server = ServerThread(hub_app(live), "127.0.0.1", 0, name="hub")
    server.start()
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.sendall(b"GET /api/stream HTTP/1.1\r\nHost: hub\r\n\r\n")
            wait_for(lambda: live.browsers.count == 1, "the stream opened")
            state = {"game": 1, "players": ["A" * 64, "B" * 64, ""], "expectation": "x" * 500,
                     "view": {"score": [1, 0], "phase": "play"}}
            n = 0
            while live.browsers.dropped == 0 and n < 200_000:
                n += 1
                live.take(f"ecarte/club/t{n % 50}/state", json.dumps({**state, "t": float(n)}).encode())
            assert live.browsers.dropped == 1 and live.browsers.count == 0
            assert n > 100  # it was dropped for what it did not read (about 1 KB a block), not at once
    finally:
        server.close()


def test_messages_waiting_for_a_browser_go_out_in_one_write_in_order() -> None:
    """A busy room was one write a message to each browser (850 a second at 256 tables at ten times
    their pace), each a chunk the browser took apart alone. What waits goes out together, in order,
    none held back, and a browser dropped meanwhile still gets what was queued before its end."""
    import asyncio

    from venue.sse import Broadcaster, sse_block

    async def writes() -> list[bytes]:
        browsers = Broadcaster()
        body = browsers.response([sse_block("table", {"n": 0})]).body_iterator
        out = [await anext(body), await anext(body)]  # the retry line, then the state now
        for n in range(1, 6):
            browsers.send("table", {"n": n})
        out.append(await anext(body))
        browsers.send("table", {"n": 6})
        browsers.close()
        out.extend([chunk async for chunk in body])
        return [bytes(c) if not isinstance(c, str) else c.encode() for c in out]

    out = asyncio.run(writes())
    assert out[0] == b"retry: 1000\n\n" and out[1] == sse_block("table", {"n": 0})
    assert out[2] == b"".join(sse_block("table", {"n": n}) for n in range(1, 6))
    assert out[3:] == [sse_block("table", {"n": 6})]


def test_a_busy_stream_is_written_twenty_times_a_second_at_most_and_a_quiet_one_at_once() -> None:
    """At full pace each message woke a browser's stream and went out alone (850 writes a second to each
    phone, and to each phone of a crowd). Messages 5 ms apart now go out in writes 50 ms apart at
    least, every message in order; after a quiet moment the next message goes out at once, alone."""
    import asyncio

    from venue.sse import WRITE_EVERY_S, Broadcaster, sse_block

    async def writes() -> tuple[list[bytes], float, list[bytes]]:
        browsers = Broadcaster()
        body = browsers.response([]).body_iterator
        await anext(body)  # the retry line
        chunks: list[bytes] = []

        async def read() -> None:
            async for chunk in body:
                chunks.append(chunk if isinstance(chunk, bytes) else chunk.encode())

        reader = asyncio.create_task(read())
        began = asyncio.get_running_loop().time()
        for n in range(100):
            browsers.send("table", {"n": n})
            await asyncio.sleep(0.005)
        elapsed = asyncio.get_running_loop().time() - began
        await asyncio.sleep(3 * WRITE_EVERY_S)
        busy = chunks[:]
        chunks.clear()
        browsers.send("table", {"n": "after"})
        for _ in range(20):  # a few turns of the loop, no wait of WRITE_EVERY_S for it
            await asyncio.sleep(0)
        quiet = chunks[:]
        browsers.close()
        await reader
        return busy, elapsed, quiet

    busy, elapsed, quiet = asyncio.run(writes())
    assert b"".join(busy) == b"".join(sse_block("table", {"n": n}) for n in range(100))
    assert len(busy) <= elapsed / WRITE_EVERY_S + 2, (len(busy), elapsed)
    assert quiet == [sse_block("table", {"n": "after"})]


def test_messages_waiting_for_the_hub_are_taken_together_the_latest_of_each_topic() -> None:
    """A table flooding its ``state`` with its own password (70,000 a second from one process, through
    the hub's Mosquitto) made each message a turn of the hub's loop, and every other table's state
    waited behind them (1.6–3.8 s at the median, 5–8 s at worst; 1.0 s and 2.5 s at most now). The
    messages that arrive while the loop is busy are taken in one turn, the latest of each topic (each
    is retained: a newer one replaces it), in their order."""
    import asyncio

    from venue.hub.room import Room
    from venue.hub.scoreboard import LiveRoom, Subscriber
    from venue.settings import MqttSettings

    def message(topic: str, payload: bytes) -> mqtt.MQTTMessage:
        m = mqtt.MQTTMessage(topic=topic.encode())
        m.payload = payload
        return m

    async def flooded() -> LiveRoom:
        live = LiveRoom(Room("club"))
        sub = Subscriber(MqttSettings(venue="club", table="hub", enabled=True), live, asyncio.get_running_loop())
        for n in range(1000):  # paho's thread, while the loop is busy
            sub._on_message(sub.client, None, message("ecarte/club/bad/state", b"[%d]" % n))
        sub._on_message(sub.client, None, message("ecarte/club/good/state", good_state("A")))
        sub._on_message(sub.client, None, message("ecarte/club/bad/state", b"[1000]"))
        await asyncio.sleep(0.1)  # the loop's turn
        return live

    live = asyncio.run(flooded())
    assert live.messages == 2  # the latest of each topic
    assert live.room.dropped == 1 and list(live.room.tables) == ["good"]
