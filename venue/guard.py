"""What uvicorn leaves to its user, for a page open to a club's Wi-Fi: a cap on connections, a
deadline for a request's headers, and a log that a flood cannot fill.

uvicorn's own options are used where they exist (``backlog``, ``timeout_keep_alive``,
``limit_concurrency``: a 503 once too many requests run, ``h11_max_incomplete_event_size``:
headers at most 16 KB). None of them bounds a connection that never finishes its headers:
``timeout_keep_alive`` only runs *between* requests, so such connections would hold the process's
descriptors until it had none left. :class:`GuardedH11Protocol` is uvicorn's h11 protocol with
the rest:

- a connection whose request headers are not whole :data:`HEADER_TIMEOUT_S` after it opened
  (or after its last response) is closed;
- past :data:`MAX_CONNECTIONS` (or a quarter of the descriptors the process may open), the
  oldest connection still waiting for its headers makes room for the new one (a normal client,
  which sends its headers at once, is never the oldest waiting); with none waiting the new one
  is closed;
- what is refused is counted and told at most once a minute (:class:`Throttle`), as are the
  event loop's ``accept()`` failures (``EMFILE``) and uvicorn's per-request warnings.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import resource
import socket
import time
from collections import Counter
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

logger = logging.getLogger(__name__)

MAX_CONNECTIONS = 200
"""Connections the page holds at once, at most (browsers keep 1 to 6 each)."""

HEADER_TIMEOUT_S = 10.0
"""Seconds a connection may take to send a request's headers whole."""

BACKLOG = 64
"""The listening socket's backlog, which is also how many connections the event loop accepts
at one wake-up (uvicorn's default, 2,048, lets a flood take every descriptor before any is closed)."""

TELL_EVERY_S = 60.0
"""Seconds between two lines of the log that count refusals."""


def connection_cap(most: int = MAX_CONNECTIONS) -> int:
    """``most``, or a quarter of the descriptors this process may open if fewer."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return most
    return max(8, min(most, soft // 4))


class Throttle:
    """Counts what happens (by kind) and tells it in the log at most once every :data:`TELL_EVERY_S`:
    the first of a burst at once, the rest as a count."""

    def __init__(self, what: str, every: float = TELL_EVERY_S) -> None:
        self.what = what
        self.every = every
        self.counts: Counter[str] = Counter()
        """Everything counted since the start, by kind."""
        self._untold: Counter[str] = Counter()
        self._last = -every
        self._timer: asyncio.TimerHandle | None = None

    def note(self, kind: str) -> None:
        self.counts[kind] += 1
        self._untold[kind] += 1
        now = time.monotonic()
        if now - self._last >= self.every:
            self.tell()
        elif self._timer is None:
            with_loop = _running_loop()
            if with_loop is not None:
                self._timer = with_loop.call_later(self.every - (now - self._last), self.tell)

    def tell(self) -> None:
        self._timer = None
        if not self._untold:
            return
        self._last = time.monotonic()
        said = ", ".join(f"{n:,} {kind}" for kind, n in sorted(self._untold.items()))
        logger.warning("%s: %s (told at most once a minute)", self.what, said)
        self._untold.clear()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class Guard:
    """One server's connections waiting for their headers, oldest first, and its refusals."""

    def __init__(self, *, cap: int | None = None, header_timeout: float = HEADER_TIMEOUT_S,
                 what: str = "the page") -> None:
        self.cap = connection_cap() if cap is None else cap
        self.header_timeout = header_timeout
        self.waiting: dict[GuardedH11Protocol, float] = {}
        self.refused = Throttle(f"{what} refused connections")

    def loop_errors(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The event loop's exception handler: ``accept()`` failures (no descriptor left) counted,
        not one traceback each; anything else as asyncio says it."""
        exc = context.get("exception")
        message = str(context.get("message", ""))
        if isinstance(exc, OSError) and message.startswith("socket.accept() out of system resource"):
            self.refused.note(f"not accepted ({exc.strerror or exc})")
            return
        if isinstance(exc, ValueError) and "_start_serving" in repr(context.get("handle")):
            return  # the accept retried after the server closed (it was stopping)
        loop.default_exception_handler(context)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a header deadline and a cap on connections (see the module)."""

    def __init__(self, *args: Any, guard: Guard, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.guard = guard
        self._begun = 0
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._wait_for_headers()
        if len(self.connections) > self.guard.cap:
            oldest = next(iter(self.guard.waiting))
            if oldest is self:  # nobody waiting but this one: every other connection is busy
                self.guard.refused.note("closed (the page is full)")
            else:
                self.guard.refused.note("waiting for their headers, closed to make room")
            oldest._close()

    def handle_events(self) -> None:
        cycle = self.cycle
        super().handle_events()
        if self.cycle is not cycle:  # a request's headers are whole
            self._begun += 1
            self.guard.waiting.pop(self, None)
            self._cancel_deadline()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._wait_for_headers()  # kept alive: the next request has the same deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self.guard.waiting.pop(self, None)
        self._cancel_deadline()
        super().connection_lost(exc)

    def _wait_for_headers(self) -> None:
        self.guard.waiting.pop(self, None)
        self.guard.waiting[self] = time.monotonic()
        self._cancel_deadline()
        self._deadline = self.loop.call_later(self.guard.header_timeout, self._headers_due, self._begun)

    def _headers_due(self, begun: int) -> None:
        self._deadline = None
        if self._begun == begun and not self.transport.is_closing():
            self.guard.refused.note(f"without whole headers after {self.guard.header_timeout:g} s, closed")
            self._close()

    def _cancel_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _close(self) -> None:
        self.guard.waiting.pop(self, None)
        self._cancel_deadline()
        self.transport.abort()


def guarded_config(app: Any, host: str, port: int, guard: Guard, **options: Any) -> uvicorn.Config:
    """uvicorn's configuration of a server ``guard`` keeps (the table's page, the venue's scoreboard)."""
    protocol = functools.partial(GuardedH11Protocol, guard=guard)
    return uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                          timeout_graceful_shutdown=2, http=protocol,  # type: ignore[arg-type]
                          # a 503 past the cap of requests under way (uvicorn counts the asking
                          # connection too: the guard keeps connections at the cap, never over)
                          backlog=BACKLOG, limit_concurrency=guard.cap + 1, timeout_keep_alive=5, **options)


def serve(server: uvicorn.Server, guard: Guard, sockets: list[socket.socket] | None = None) -> None:
    """Run ``server`` until it exits, its loop's ``accept()`` failures counted by ``guard``, uvicorn's
    per-request warnings at most once a minute each (:class:`ThrottledLog`)."""
    if not _QUIETED:
        _QUIETED.append(ThrottledLog())
        logging.getLogger("uvicorn.error").addFilter(_QUIETED[0])

    async def guarded() -> None:
        asyncio.get_running_loop().set_exception_handler(guard.loop_errors)
        await server.serve(sockets)

    asyncio.run(guarded())


class ThrottledLog(logging.Filter):
    """A filter for uvicorn's own logger: the same message (its format, not its values) at most
    once a minute; the others counted in :attr:`throttle`."""

    def __init__(self, every: float = TELL_EVERY_S) -> None:
        super().__init__()
        self.every = every
        self._last: dict[str, float] = {}
        self.throttle = Throttle("the web server's warnings, repeated", every)

    def filter(self, record: logging.LogRecord) -> bool:
        key = str(record.msg)
        now = time.monotonic()
        if now - self._last.get(key, -self.every) >= self.every:
            self._last[key] = now
            return True
        self.throttle.note(key[:60])
        return False


_QUIETED: list[ThrottledLog] = []
