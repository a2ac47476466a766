"""Server-Sent Events: one queue a browser, fed from the server's event loop.

:class:`Broadcaster` lives on the asyncio loop of the web server; :func:`sse_response`
streams one subscriber's messages as ``event: KIND`` / ``data: JSON`` blocks (the
browser's ``EventSource`` calls the handler of that kind). A browser too slow to keep
up (more than :data:`QUEUE_BYTES` waiting for it) is dropped; it reconnects by itself and starts
from the state.

A stream that is read normally holds one of the server's connections for as long as its client
wants (:mod:`venue.guard` caps them: 200 for a table's page, 1,000 for the hub), so that one
stranger opening many streams cannot lock every spectator out, streams are bounded by client address
(:data:`STREAMS_PER_ADDRESS`: a new one ends that address's oldest; an IPv6 address counted by its /64,
:func:`address_group`) and in all (:attr:`Broadcaster.most`, :data:`STREAMS_SHARE` of the server's
connections: a new one ends the oldest stream of the address that holds the most, or, when every
address holds one, the newest stream, never a spectator who has watched all along): a new spectator
always gets a stream, and the room left over serves the page's other requests. An ended stream's
browser reconnects by itself (``retry``), and is then the newest.
The address is the connection's peer, or the one a proxy on the same machine names
(uvicorn's ``proxy_headers``, trusted from 127.0.0.1 only).
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
from collections.abc import AsyncIterator, Iterable
from typing import Any

from starlette.responses import StreamingResponse

from venue.guard import Throttle, connection_cap

QUEUE_BYTES = 8 * 1024 * 1024
"""Bytes a browser may fall behind by before it is dropped (it reconnects by itself and starts from
the state): a browser that does not read costs the hub at most this."""

HEARTBEAT_S = 15.0
"""Seconds between ``ping`` messages on a quiet stream: proxies close silent connections, and
the page tells a live stream from a dead one by them (it reconnects after missing two)."""

PING = b"event: ping\ndata: {}\n\n"

WRITE_BYTES = 256 * 1024
"""The messages waiting for a browser go out in one write, up to this many bytes (more: the next
write follows at once)."""

WRITE_EVERY_S = 0.05
"""A browser's stream is written at most this often: what arrives meanwhile waits and goes out in the
next write, in order, none held back. A busy room (850 states a second) is then 20 writes a second to
each phone instead of 850: the phone takes 20 chunks apart, and a crowd of phones costs the hub 20
wake-ups a second each. A message after a quiet moment goes at once; the scoreboard draws ten frames
a second, so the wait shows nowhere."""


STREAMS_PER_ADDRESS = 8
"""Streams one client address holds at once: a phone keeps one; a household's phones behind one
router, or a browser's tabs, a few. The next one from that address ends its oldest."""

STREAMS_SHARE = 0.75
"""The share of the server's connections that streams may hold together; past it a new stream ends
the oldest of the address holding the most. The rest serves the pages' other requests."""


def address_group(address: str) -> str:
    """The client address streams are counted by: an IPv6 address by its /64 (one host holds a whole
    /64: SLAAC and privacy addresses give it as many as it likes), an IPv4 address whole (the room's
    phones share one /24), anything else as it is.

        >>> address_group("2001:db8:1:2:aaaa::1"), address_group("192.0.2.7"), address_group("::ffff:192.0.2.7")
        ('2001:db8:1:2::/64', '192.0.2.7', '192.0.2.7')
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def sse_block(kind: str, data: Any) -> bytes:
    """One message in the text/event-stream format."""
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {kind}\ndata: {body}\n\n".encode()


class Broadcaster:
    """The browsers connected to one stream. Not thread-safe: used on the server's loop only."""

    def __init__(self, limit: int = QUEUE_BYTES, most: int | None = None,
                 per_address: int = STREAMS_PER_ADDRESS) -> None:
        self._queues: dict[asyncio.Queue[bytes | None], list[int]] = {}
        self._by_address: dict[str, dict[asyncio.Queue[bytes | None], None]] = {}
        """Each client address's streams, oldest first."""
        self._address: dict[asyncio.Queue[bytes | None], str] = {}
        self.limit = limit
        self.most = int(connection_cap() * STREAMS_SHARE) if most is None else most
        """Streams held at once, at most (the server's connection cap times :data:`STREAMS_SHARE`)."""
        self.per_address = per_address
        self.dropped = 0
        """Browsers dropped for not reading."""
        self.ended = Throttle("the streams ended to make room for a new one")

    @property
    def count(self) -> int:
        return len(self._queues)

    def send(self, kind: str, data: Any) -> None:
        """Queue one message for every browser (dropping those that are full)."""
        if self._queues:
            self.send_block(sse_block(kind, data))

    def send_block(self, block: bytes) -> None:
        """Queue one ready-made block for every browser (dropping those with too many bytes waiting)."""
        for q, waiting in list(self._queues.items()):
            if waiting[0] + len(block) > self.limit:
                self._end(q)
                self.dropped += 1
            else:
                waiting[0] += len(block)
                q.put_nowait(block)

    def close(self) -> None:
        """End every stream (on shutdown)."""
        for q in list(self._queues):
            q.put_nowait(None)
        self._queues.clear()
        self._by_address.clear()
        self._address.clear()
        self.ended.close()

    def streams_of(self, address: str) -> int:
        """The streams ``address`` holds."""
        return len(self._by_address.get(address, ()))

    def subscribe(self, first: Iterable[bytes], address: str = "") -> asyncio.Queue[bytes | None]:
        """A new stream of ``address`` (the client's), ``first`` queued; room made for it first: its
        address's oldest stream ended past :attr:`per_address`, else past :attr:`most` the oldest of the
        address holding the most."""
        address = address_group(address)
        mine = self._by_address.get(address, {})
        if len(mine) >= self.per_address:
            self._end(next(iter(mine)))
            self.ended.note(f"the oldest of an address holding {self.per_address}")
        elif len(self._queues) >= self.most:
            biggest = max(self._by_address.values(), key=len)
            if len(biggest) > 1:
                self._end(next(iter(biggest)))
                self.ended.note(f"the oldest of the address holding the most, with {self.most} streams open")
            else:  # every address holds one: the newest goes, never a spectator who has watched all along
                self._end(next(reversed(self._queues)))
                self.ended.note(f"the newest, every address holding one, with {self.most} streams open")
        q: asyncio.Queue[bytes | None] = asyncio.Queue()
        waiting = [0]
        for block in first:
            q.put_nowait(block)
            waiting[0] += len(block)
        self._queues[q] = waiting
        self._by_address.setdefault(address, {})[q] = None
        self._address[q] = address
        return q

    def unsubscribe(self, q: asyncio.Queue[bytes | None]) -> None:
        self._queues.pop(q, None)
        address = self._address.pop(q, None)
        if address is not None:
            mine = self._by_address[address]
            mine.pop(q, None)
            if not mine:
                del self._by_address[address]

    def _end(self, q: asyncio.Queue[bytes | None]) -> None:
        """End one stream: what waits for it forgotten, its response ends (its browser reconnects)."""
        self.unsubscribe(q)
        while not q.empty():
            q.get_nowait()
        q.put_nowait(None)

    def response(self, first: Iterable[bytes], address: str = "") -> StreamingResponse:
        """A streaming response of a client at ``address``: ``first`` (the state now), then every message sent."""
        q = self.subscribe(first, address)

        async def stream() -> AsyncIterator[bytes]:
            loop = asyncio.get_running_loop()
            written, full = -WRITE_EVERY_S, False
            try:
                yield b"retry: 1000\n\n"
                while True:
                    try:
                        block = await asyncio.wait_for(q.get(), HEARTBEAT_S)
                    except TimeoutError:
                        yield PING
                        continue
                    if block is None:
                        return
                    wait = written + WRITE_EVERY_S - loop.time()
                    if wait > 0 and not full:
                        await asyncio.sleep(wait)
                    blocks, size, last = [block], len(block), False
                    while size < WRITE_BYTES and not q.empty():
                        more = q.get_nowait()
                        if more is None:
                            last = True
                            break
                        blocks.append(more)
                        size += len(more)
                    waiting = self._queues.get(q)
                    if waiting is not None:
                        waiting[0] -= size
                    yield b"".join(blocks)
                    written, full = loop.time(), size >= WRITE_BYTES
                    if last:
                        return
            finally:
                self.unsubscribe(q)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
