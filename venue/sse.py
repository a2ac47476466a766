"""Server-Sent Events: one queue a browser, fed from the server's event loop.

:class:`Broadcaster` lives on the asyncio loop of the web server; :func:`sse_response`
streams one subscriber's messages as ``event: KIND`` / ``data: JSON`` blocks (the
browser's ``EventSource`` calls the handler of that kind). A browser too slow to keep
up (its queue full) is dropped; it reconnects by itself and starts from the state.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterable
from typing import Any

from starlette.responses import StreamingResponse

QUEUE_SIZE = 2_000
"""Messages a browser may fall behind by before it is dropped."""

HEARTBEAT_S = 15.0
"""Seconds between ``ping`` messages on a quiet stream: proxies close silent connections, and
the page tells a live stream from a dead one by them (it reconnects after missing two)."""

PING = b"event: ping\ndata: {}\n\n"


def sse_block(kind: str, data: Any) -> bytes:
    """One message in the text/event-stream format."""
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {kind}\ndata: {body}\n\n".encode()


class Broadcaster:
    """The browsers connected to one stream. Not thread-safe: used on the server's loop only."""

    def __init__(self) -> None:
        self._queues: set[asyncio.Queue[bytes | None]] = set()

    @property
    def count(self) -> int:
        return len(self._queues)

    def send(self, kind: str, data: Any) -> None:
        """Queue one message for every browser (dropping those that are full)."""
        if not self._queues:
            return
        block = sse_block(kind, data)
        for q in list(self._queues):
            try:
                q.put_nowait(block)
            except asyncio.QueueFull:
                self._queues.discard(q)
                q.put_nowait(None) if q.empty() else None

    def close(self) -> None:
        """End every stream (on shutdown)."""
        for q in list(self._queues):
            with contextlib.suppress(asyncio.QueueFull):
                q.put_nowait(None)
        self._queues.clear()

    def subscribe(self, first: Iterable[bytes]) -> asyncio.Queue[bytes | None]:
        q: asyncio.Queue[bytes | None] = asyncio.Queue(QUEUE_SIZE)
        for block in first:
            q.put_nowait(block)
        self._queues.add(q)
        return q

    def unsubscribe(self, q: asyncio.Queue[bytes | None]) -> None:
        self._queues.discard(q)

    def response(self, first: Iterable[bytes]) -> StreamingResponse:
        """A streaming response: ``first`` (the state now), then every message sent."""
        q = self.subscribe(first)

        async def stream() -> AsyncIterator[bytes]:
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
                    yield block
            finally:
                self.unsubscribe(q)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
