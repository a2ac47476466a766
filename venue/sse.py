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
from collections import deque
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


def sse_block(kind: str, data: Any) -> bytes:
    """One message in the text/event-stream format."""
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {kind}\ndata: {body}\n\n".encode()


class _Browser:
    """One browser's messages waiting to be sent, bounded by their bytes."""

    def __init__(self, first: Iterable[bytes]) -> None:
        self.blocks: deque[bytes | None] = deque(first)
        self.size = sum(len(b) for b in self.blocks if b is not None)
        self.ready = asyncio.Event()
        self.ready.set()

    def put(self, block: bytes | None) -> None:
        self.blocks.append(block)
        self.size += len(block) if block is not None else 0
        self.ready.set()

    async def get(self, timeout: float) -> bytes | None:
        """The next block; raises TimeoutError after ``timeout`` s with none."""
        while not self.blocks:
            self.ready.clear()
            await asyncio.wait_for(self.ready.wait(), timeout)
        block = self.blocks.popleft()
        self.size -= len(block) if block is not None else 0
        return block


class Broadcaster:
    """The browsers connected to one stream. Not thread-safe: used on the server's loop only."""

    def __init__(self, limit: int = QUEUE_BYTES) -> None:
        self._browsers: set[_Browser] = set()
        self.limit = limit
        self.dropped = 0
        """Browsers dropped for not reading."""

    @property
    def count(self) -> int:
        return len(self._browsers)

    def send(self, kind: str, data: Any) -> None:
        """Queue one message for every browser (dropping those that have too much waiting)."""
        if self._browsers:
            self.send_block(sse_block(kind, data))

    def send_block(self, block: bytes) -> None:
        for browser in list(self._browsers):
            if browser.size + len(block) > self.limit:
                self._browsers.discard(browser)
                self.dropped += 1
                browser.blocks.clear()
                browser.size = 0
                browser.put(None)
            else:
                browser.put(block)

    def close(self) -> None:
        """End every stream (on shutdown)."""
        for browser in list(self._browsers):
            browser.put(None)
        self._browsers.clear()

    def subscribe(self, first: Iterable[bytes]) -> _Browser:
        browser = _Browser(first)
        self._browsers.add(browser)
        return browser

    def unsubscribe(self, browser: _Browser) -> None:
        self._browsers.discard(browser)

    def response(self, first: Iterable[bytes]) -> StreamingResponse:
        """A streaming response: ``first`` (the state now), then every message sent."""
        browser = self.subscribe(first)

        async def stream() -> AsyncIterator[bytes]:
            try:
                yield b"retry: 1000\n\n"
                while True:
                    try:
                        block = await browser.get(HEARTBEAT_S)
                    except TimeoutError:
                        yield PING
                        continue
                    if block is None:
                        return
                    yield block
            finally:
                self.unsubscribe(browser)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
