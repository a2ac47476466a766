"""Server-Sent Events: one queue a browser, fed from the server's event loop.

:class:`Broadcaster` lives on the asyncio loop of the web server; :func:`sse_response`
streams one subscriber's messages as ``event: KIND`` / ``data: JSON`` blocks (the
browser's ``EventSource`` calls the handler of that kind). A browser too slow to keep
up (more than :data:`QUEUE_BYTES` waiting for it) is dropped; it reconnects by itself and starts
from the state.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterable
from typing import Any

from starlette.responses import StreamingResponse

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


def sse_block(kind: str, data: Any) -> bytes:
    """One message in the text/event-stream format."""
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {kind}\ndata: {body}\n\n".encode()


class Broadcaster:
    """The browsers connected to one stream. Not thread-safe: used on the server's loop only."""

    def __init__(self, limit: int = QUEUE_BYTES) -> None:
        self._queues: dict[asyncio.Queue[bytes | None], list[int]] = {}
        self.limit = limit
        self.dropped = 0
        """Browsers dropped for not reading."""

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
                del self._queues[q]
                self.dropped += 1
                while not q.empty():
                    q.get_nowait()
                q.put_nowait(None)
            else:
                waiting[0] += len(block)
                q.put_nowait(block)

    def close(self) -> None:
        """End every stream (on shutdown)."""
        for q in list(self._queues):
            q.put_nowait(None)
        self._queues.clear()

    def subscribe(self, first: Iterable[bytes]) -> asyncio.Queue[bytes | None]:
        q: asyncio.Queue[bytes | None] = asyncio.Queue()
        waiting = [0]
        for block in first:
            q.put_nowait(block)
            waiting[0] += len(block)
        self._queues[q] = waiting
        return q

    def unsubscribe(self, q: asyncio.Queue[bytes | None]) -> None:
        self._queues.pop(q, None)

    def response(self, first: Iterable[bytes]) -> StreamingResponse:
        """A streaming response: ``first`` (the state now), then every message sent."""
        q = self.subscribe(first)

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
