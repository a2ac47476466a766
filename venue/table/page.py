"""The table's own page: the live table, the journal's games and hands, players' statistics.

:class:`TablePage` is one of the service's :class:`~firmware_host.service.TableOutput`\\ s:
:meth:`TablePage.publish` hands the outcome to the web server's event loop and returns
at once (``call_soon_threadsafe``: it never waits for the network or a browser). The
server (uvicorn, on its own thread) runs the Starlette app of :func:`table_app`:

==========================  =================================================================
``GET /``                   the page (static ``index.html``; the browser does the rest)
``GET /api/state``          the table now, as spectators see it (:class:`venue.table.public.PublicFeed`),
                            with the public events of the hand under way and the game's hands
``GET /api/words``          the page's words and card ranks in the table's language (:mod:`venue.table.words`)
``GET /api/stream``         Server-Sent Events: ``state``, ``event``, ``hand`` as they happen
``GET /api/games``          the journal's games
``GET /api/games/{n}``      one game with its hands (JSON); ``.../record``: its hand record (text);
                            ``.../hands/{k}``: one finished hand for the hand viewer (its steps, with
                            the coach's verdicts; a hand of the game under way once it is revealed)
``GET /api/stats``          per-player statistics
``POST /api/setup``         names, rules, target before the first card (needs the token)
``POST /api/new-game``      a new game once this one is over (needs the token)
==========================  =================================================================

Changes go into the table as physical events on the service's queue (journaled like
any other), and only with ``Authorization: Bearer <token>`` where the table file's
``[web] token`` is set; without a token the page is read-only.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hmac
import json
import logging
import socket
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from catalogue import language
from catalogue.phrase import Phrase, log_said
from engine.state import Phase
from firmware_host.referee import (
    MAX_LINE_BYTES,
    ButtonEvent,
    Outcome,
    PhysicalEvent,
    TranscriptError,
    setup_from_json,
)
from hardware.limits import quoted
from venue.assets import STATIC
from venue.guard import BACKLOG, Guard, guarded_config, serve
from venue.settings import WebSettings
from venue.sse import Broadcaster, sse_block
from venue.table.page_history import JournalHistory, PlayedGame, live_game
from venue.table.public import Message, PublicFeed
from venue.table.record import GameLog, said_record, write_record
from venue.table.reviews import Reviews, reviews_folder
from venue.table.words import page_words

logger = logging.getLogger(__name__)

class LiveTable:
    """The live side of the page, on the server's event loop: the public feed and the browsers."""

    def __init__(self, feed: PublicFeed, reviews: Reviews | None = None) -> None:
        self.feed = feed
        self.browsers = Broadcaster()
        self._timer: asyncio.TimerHandle | None = None
        self.reviews = reviews if reviews is not None else Reviews(None)
        """The coach's reviews: each hand's made by a worker process as it ends (:mod:`venue.table.reviews`)."""
        self.feed.on_hand = self.reviews.submit
        self.on_over: Callable[[int], None] | None = None
        """Called with a game's number once it is over, and again when the next begins: its summary,
        record and statistics are made then (:meth:`venue.table.page_history.JournalHistory.prepare`)."""
        self._over = 0

    def take(self, outcome: Outcome) -> None:
        """One outcome (called on the loop)."""
        before = self.feed.game
        self._send(self.feed.take(outcome, time.monotonic(), wall=time.time()))
        self._arm()
        if self.on_over is not None:
            if before and self.feed.game != before:
                self.on_over(before)  # its last lines (the new game's button) are in the journal
            if self.feed.state.get("winner") and self._over != self.feed.game:
                self._over = self.feed.game
                self.on_over(self._over)

    def _send(self, messages: list[Message]) -> None:
        for message in messages:
            self.browsers.send(message.kind, message.data)

    def _arm(self) -> None:
        due = self.feed.next_due()
        if due is None or self._timer is not None:
            return
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(max(0.0, due - time.monotonic()), self._reveal)

    def _reveal(self) -> None:
        self._timer = None
        self._send(self.feed.due(time.monotonic()))
        self._arm()

    def first_blocks(self) -> list[bytes]:
        """What a browser gets on connecting: the hands already revealed, then the state."""
        # each hand as the feed sends it: its record worded in the page's language beside the notation
        blocks = [sse_block("hand", self.feed.hand_message(hand)) for hand in self.feed.revealed]
        if self.feed.state:
            blocks.append(sse_block("state", self.feed.state))
        return blocks

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.browsers.close()
        self.reviews.close()


async def _json_body(request: Request) -> Any:
    """The request's JSON, or the answer refusing it: a body over the journal's line limit
    (:data:`~firmware_host.referee.transcript.MAX_LINE_BYTES`) is refused before it is read whole."""
    size = 0
    chunks = []
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_LINE_BYTES:
            return JSONResponse({"error": f"bad setup: larger than {MAX_LINE_BYTES:,} bytes"}, status_code=413)
        chunks.append(chunk)
    try:
        return json.loads(b"".join(chunks))
    except (ValueError, RecursionError):
        return JSONResponse({"error": "bad setup: not JSON"}, status_code=400)


MAX_GAME_DIGITS = 18
"""The longest game number the page reads (a journal numbers its games from 1; a longer one is no game)."""


def game_number(text: str) -> int | None:
    """The game number in a path (``/api/games/<n>``), or None: not digits, or more than
    :data:`MAX_GAME_DIGITS` of them (Python refuses to read an int of 4,301 digits and more)."""
    if not (0 < len(text) <= MAX_GAME_DIGITS and text.isascii() and text.isdigit()):
        return None
    return int(text)


def _named(number: int | None, request: Request) -> str:
    return str(number) if number is not None else quoted(request.path_params["number"])


def _authorized(request: Request, token: str | None) -> Response | None:
    """None when the request may change the table, else the response that says why not."""
    if token is None:
        return JSONResponse({"error": "read-only: this table file sets no [web] token"}, status_code=403)
    header = request.headers.get("authorization", "")
    given = header[7:] if header.lower().startswith("bearer ") else ""
    if not given or not hmac.compare_digest(given.encode(), token.encode()):
        return JSONResponse({"error": "a valid token is needed (Authorization: Bearer <token>)"}, status_code=401,
                            headers={"WWW-Authenticate": "Bearer"})
    return None


def table_app(live: LiveTable, *, history: JournalHistory | None, settings: WebSettings,
              control: Callable[[PhysicalEvent], None] | None = None,
              lifespan_hooks: tuple[Callable[[], None], Callable[[], None]] | None = None) -> Starlette:
    """The page's Starlette app (routes in one list; the state is in ``live``, not global).

    :param control: puts a physical event on the table's queue (the service's ``put_physical``).
    :param lifespan_hooks: called when the server starts and stops (on its loop).
    """

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "table.html", headers={"Cache-Control": "no-cache"})

    async def state(request: Request) -> Response:
        return JSONResponse(live.feed.state)

    async def words(request: Request) -> Response:
        return JSONResponse(page_words(live.feed.language))

    async def stream(request: Request) -> Response:
        return live.browsers.response(live.first_blocks(), request.client.host if request.client else "")

    async def games(request: Request) -> Response:
        if history is None:
            return JSONResponse([])
        played = await asyncio.to_thread(history.games, live_game(live.feed))
        return JSONResponse([g.summary() for g in reversed(played)])

    rendered: dict[tuple[int, str], tuple[GameLog, bytes]] = {}
    """A game's answers as rendered (its JSON, its record in a language), while the history hands the
    same log back (:meth:`JournalHistory.log`): a viewer looping over a game over renders nothing."""

    def render(number: int, under_way: PlayedGame | None, kind: str, make: Callable[[GameLog], bytes]) -> bytes | None:
        """Game ``number``'s answer of ``kind`` (on a thread of the server's, off its loop); None: no such
        game. ``under_way``: the game under way as the feed shows it (taken on the loop)."""
        assert history is not None
        log = history.log(number, None, under_way)
        if log is None:
            return None
        if under_way is not None and number == under_way.game:
            return make(log)  # the feed's, anew at each request
        found = rendered.get((id(log), kind))
        if found is not None and found[0] is log:
            return found[1]
        body = make(log)
        if len(rendered) >= 256:
            rendered.clear()
        rendered[(id(log), kind)] = (log, body)
        return body

    def game_json(log: GameLog) -> bytes:
        return json.dumps({"tags": dict(log.tags), "hands": [h.to_json() for h in log.hands]}, ensure_ascii=False,
                          separators=(",", ":")).encode()

    async def game(request: Request) -> Response:
        if history is None:
            return JSONResponse({"error": "no journal"}, status_code=404)
        number = game_number(request.path_params["number"])
        under_way = live_game(live.feed)
        body = None if number is None else await asyncio.to_thread(render, number, under_way, "json", game_json)
        if body is None:
            return JSONResponse({"error": f"no game {_named(number, request)}"}, status_code=404)
        return Response(body, media_type="application/json")

    async def record(request: Request) -> Response:
        if history is None:
            return PlainTextResponse("no journal", status_code=404)
        number = game_number(request.path_params["number"])
        said = request.query_params.get("lang")
        lang = language(said) if said else ""

        def text(log: GameLog) -> bytes:
            # the page reads it in its language; without ?lang= the record as exported (the notation)
            return (said_record(write_record(log), lang) if lang else write_record(log)).encode()

        under_way = live_game(live.feed)
        body = None if number is None else await asyncio.to_thread(render, number, under_way, f"record {lang}", text)
        if body is None:
            return PlainTextResponse(f"no game {_named(number, request)}", status_code=404)
        return Response(body, media_type="text/plain; charset=utf-8")

    async def hand(request: Request) -> Response:
        """One finished hand for the hand viewer (:func:`venue.table.hand_view.hand_view`): a hand of the
        game under way only once the feed has put it out; of an earlier game, from the journal."""
        number, k = game_number(request.path_params["number"]), game_number(request.path_params["hand"])
        if number is None or k is None:
            return JSONResponse({"error": "no such hand"}, status_code=404)
        found = live.feed.revealed_hand(number, k)
        if found is None and number != live.feed.game and history is not None:
            log = await asyncio.to_thread(history.log, number)
            if log is not None:
                rules = {"name": log.tag("Rules", "classic"), **json.loads(log.tag("Options", "{}") or "{}")}
                found = next(((h, rules) for h in log.hands if h.number == k), None)
        if found is None:
            return JSONResponse({"error": f"no finished hand {k} of game {number} to show"}, status_code=404)
        # reviewed once, by the worker (as it ended, or now for a hand of an older journal): a read
        view = await live.reviews.view(*found)
        if view is None:
            return JSONResponse({"error": "the coach is busy: ask again in a few seconds"}, status_code=503,
                                headers={"Retry-After": "5"})
        return Response(view, media_type="application/json")

    async def stats(request: Request) -> Response:
        if history is None:
            return JSONResponse([])
        return JSONResponse(await asyncio.to_thread(history.stats, None, live_game(live.feed)))

    def changing(endpoint: Callable[[Request, Callable[[PhysicalEvent], None]], Awaitable[Response]],
                 ) -> Callable[[Request], Awaitable[Response]]:
        """An endpoint that changes the table, behind the page's one guard: the token (:func:`_authorized`),
        then a table this page may change (``control``); the endpoint is given ``control``."""

        async def guarded(request: Request) -> Response:
            refused = _authorized(request, settings.token)
            if refused is not None:
                return refused
            if control is None:
                return JSONResponse({"error": "this page cannot change the table"}, status_code=503)
            return await endpoint(request, control)

        return guarded

    @changing
    async def setup(request: Request, control: Callable[[PhysicalEvent], None]) -> Response:
        body = await _json_body(request)
        if isinstance(body, Response):
            return body
        try:
            if not isinstance(body, dict):
                raise TranscriptError("POST /api/setup", 1, "expected a JSON object")
            unknown = set(body) - {"rules", "target", "players"}
            if unknown:
                raise TranscriptError("POST /api/setup", 1, f"unknown key(s): {', '.join(sorted(unknown))[:80]}")
            players = body.get("players")
            if isinstance(players, list) and len(players) == 2:
                body = {**body, "players": [*players, ""]}  # two names: no pool
            event = setup_from_json(body, source="POST /api/setup")
        except TranscriptError as exc:
            return JSONResponse({"error": f"bad setup: {exc.problem}"}, status_code=400)
        control(event)
        return JSONResponse({"queued": event.to_json()}, status_code=202)

    @changing
    async def new_game(request: Request, control: Callable[[PhysicalEvent], None]) -> Response:
        if live.feed.state.get("view", {}).get("phase") != Phase.OVER:
            return JSONResponse({"error": "the game is not over"}, status_code=409)
        control(ButtonEvent("A", "yes"))
        return JSONResponse({"queued": "new game"}, status_code=202)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if lifespan_hooks is not None:
            lifespan_hooks[0]()
        try:
            yield
        finally:
            live.close()
            if lifespan_hooks is not None:
                lifespan_hooks[1]()

    routes = [
        Route("/", index),
        Route("/api/state", state),
        Route("/api/stream", stream),
        Route("/api/words", words),
        Route("/api/games", games),
        Route("/api/games/{number}", game),
        Route("/api/games/{number}/record", record),
        Route("/api/games/{number}/hands/{hand}", hand),
        Route("/api/stats", stats),
        Route("/api/setup", setup, methods=["POST"]),
        Route("/api/new-game", new_game, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


class ServerThread:
    """A uvicorn server on its own thread and event loop (binds ``host``: loopback unless told).

    Its socket is bound and listening before :meth:`start` returns, on the caller's thread: an
    address that cannot be had (the port in use, IP sockets forbidden) is an :class:`OSError`
    there, never a page announced with nothing listening. Connections are capped and a request's
    headers have a deadline (:mod:`venue.guard`).
    """

    def __init__(self, app: Any, host: str, port: int, *, name: str = "web") -> None:
        self.guard = Guard()
        self.server = uvicorn.Server(guarded_config(app, host, port, self.guard, lifespan="on"))
        self.host = host
        self._name = name
        self._socket: socket.socket | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The bound port (the real one when asked for port 0)."""
        if self._socket is not None and self._socket.fileno() != -1:
            return int(self._socket.getsockname()[1])
        return int(self.server.config.port)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def start(self, timeout: float = 10.0) -> None:
        """Bind, then start the server and wait until it serves.

        :raises OSError: when it cannot listen (the port in use, an address not on this machine,
            IP sockets forbidden), with the reason.
        """
        self._socket = listening_socket(self.host, int(self.server.config.port), BACKLOG)
        self._thread = threading.Thread(target=self._serve, args=(self._socket,), name=self._name, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise OSError(f"the web server could not start on {self.host}:{self.port}")
            time.sleep(0.01)

    def _serve(self, sock: socket.socket) -> None:
        serve(self.server, self.guard, [sock])

    def close(self) -> None:
        """Stop and wait for the thread (safe to call twice)."""
        self.server.should_exit = True
        if self._thread is not None and self._thread.is_alive():
            self._thread.join(timeout=5)
        if self._socket is not None:
            self._socket.close()
        self.guard.refused.tell()


def listening_socket(host: str, port: int, backlog: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` and listening (the first of ``host``'s addresses that binds).

    :raises OSError: the reason the last address could not be had.
    """
    problem: OSError | None = None
    try:
        found = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        # a listen host no address answers to: this machine has no such address
        raise OSError(errno.EADDRNOTAVAIL, f"{host}: {exc.strerror or exc}") from None
    for family, kind, proto, _, address in found:
        try:
            sock = socket.socket(family, kind, proto)
        except OSError as exc:
            problem = exc
            continue
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
            sock.listen(backlog)
        except OSError as exc:
            sock.close()
            problem = exc
            continue
        return sock
    raise problem or OSError(f"{host}: no address to listen on")


class TablePage:
    """The page as a service output: hands every outcome to the server's loop, never waiting.

    :param journal: the journal file (the history of games), or None.
    :param control: puts a physical event on the table's queue (for the token's changes).
    :param language: the table's language (``[table] language``): the page speaks it.
    """

    def __init__(self, settings: WebSettings, *, table: str, journal: Path | None = None,
                 control: Callable[[PhysicalEvent], None] | None = None, language: str = "en") -> None:
        self.settings = settings
        self.live = LiveTable(PublicFeed(table=table, reveal_delay=settings.reveal_delay, language=language),
                              Reviews(reviews_folder(Path(journal)) if journal else None))
        history = JournalHistory(Path(journal), table=table, reveal_delay=settings.reveal_delay) if journal else None
        self.history = history
        if history is not None:
            def over(game: int, history: JournalHistory = history) -> None:
                history.prepare([game])

            self.live.on_over = over
        self._loop: asyncio.AbstractEventLoop | None = None
        self._early: list[Outcome] = []
        self._lock = threading.Lock()
        self.app = table_app(self.live, history=history, settings=settings, control=control,
                             lifespan_hooks=(self._started, self._stopped))
        self.server = ServerThread(self.app, settings.host, settings.port)

    def _started(self) -> None:
        with self._lock:
            self._loop = asyncio.get_running_loop()
            early, self._early = self._early, []
        for outcome in early:
            self.live.take(outcome)

    def _stopped(self) -> None:
        with self._lock:
            self._loop = None

    def publish(self, outcome: Outcome) -> None:
        """Hand the outcome to the server's loop (returns at once)."""
        loop = self._loop
        if loop is None:
            with self._lock:
                if self._loop is None:
                    self._early.append(outcome)
                    del self._early[:-1000]
                    return
                loop = self._loop
        with contextlib.suppress(RuntimeError):  # the loop closed under us: the page is going away
            loop.call_soon_threadsafe(self.live.take, outcome)

    def start(self) -> None:
        self.server.start()
        if self.history is not None:  # the games kept beside the journal read, a missing one made: not on a request
            self.history.prepare()
        log_said(logger, logging.INFO, Phrase.of("log.page", url=self.server.url))

    @property
    def url(self) -> str:
        return self.server.url

    def close(self) -> None:
        """End the browsers' streams, then stop the server (safe to call twice)."""
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self.live.browsers.close)
        self.server.close()
        self.live.reviews.close()

    def __enter__(self) -> TablePage:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
