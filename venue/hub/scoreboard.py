"""``ecarte-table hub``: the venue's scoreboard, from every table's MQTT topics.

The hub subscribes to ``ecarte/<venue>/+/state``, ``…/availability``, ``…/record`` and
``…/games/+`` (QoS 1); their retained messages give it every table at once, and what
follows keeps them live. :class:`venue.hub.room.Room` (pure) holds the tables, the finished games
and the session (a round-robin of several rounds: its pairings and the ranking); the
Starlette app of :func:`hub_app` serves the scoreboard and pushes changes to the
browsers with Server-Sent Events:

=================================  ====================================================
``GET /``                          the scoreboard
``GET /api/tables``                every table: availability, players, score, state
``GET /api/stream``                SSE: ``table`` (one table changed), ``standings``
``GET /api/standings``             the session: rounds, pairings, results, ranking
``GET /api/tables/{t}/record``     the table's current game record (text)
``GET /api/tables/{t}/games``      the table's finished games (results and hands, JSON)
=================================  ====================================================

The hub runs its own broker (:class:`VenueBroker`): Mosquitto, a child process of its own, with
Mosquitto's own limits (:func:`venue.hub.broker.mosquitto_conf`), on ``127.0.0.1:1883`` unless told; or it connects
to the venue's running broker (``--broker HOST:PORT``, ``[broker] host``). Either way it
writes the broker's password and ACL files from the venue file's ``[tables]`` (each table
publishes under its own topic only, :mod:`venue.hub.broker`), and believes no payload it has not
checked (:mod:`venue.hub.trust`). Results come from each table's ``games/<n>`` topic (its journal's
finished games), counted once. The venue file is read by :mod:`venue.hub.hub_settings`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from venue.assets import STATIC
from venue.guard import Guard, connection_cap, guarded_config, serve
from venue.hub.broker import (
    HUB_USER,
    BrokerFiles,
    Rules,
    Supervised,
    in_use,
    load_rules,
    mosquitto_broker,
    write_broker_files,
    write_room_files,
)
from venue.hub.evening import Evening
from venue.hub.hub_settings import CAPACITY, HubSettings, default_state
from venue.hub.hub_settings import load_hub_settings as load_hub_settings  # the command's, with run_hub
from venue.hub.ledger import Ledger, PairedTimes
from venue.hub.room import Room
from venue.mqtt_client import QOS, make_client
from venue.settings import MqttSettings, SettingsError
from venue.sse import STREAMS_SHARE, Broadcaster, sse_block

logger = logging.getLogger(__name__)


# -- the app -------------------------------------------------------------------------------------


MAX_CONNECTIONS = 1_000
"""Connections the scoreboard holds at once, at most (or a quarter of its descriptors if fewer: its
unit's ``LimitNOFILE=8192`` allows them): a room's phones keep one stream each and a request or two."""

STANDINGS_S = 0.25
"""The standings go to the browsers at most this often (once, with every result since)."""


class LiveRoom:
    """The room on the server's loop, with its browsers. Each message costs the same whatever the
    results so far (:mod:`venue.hub.ledger`); the standings go out at most every :data:`STANDINGS_S`, and
    a Swiss round is paired on a worker thread once the last one is over."""

    def __init__(self, room: Room, evening: Evening | None = None) -> None:
        self.room = room
        self.evening = evening
        """The hub's evening, told at each turn that the hub is alive (None: kept nowhere)."""
        self.room.ledger.defer = True
        self.browsers = Broadcaster()
        self.messages = 0
        self._standings_dirty = False
        self.loop: asyncio.AbstractEventLoop | None = None
        """The server's loop, once :meth:`send_standings` runs on it (None: not served yet)."""

    def take(self, topic: str, payload: bytes | bytearray, clear: Callable[[str], Any] | None = None,
             live: bool = False) -> None:
        """One message from the broker; ``clear`` clears its retained topic if the room refuses it;
        ``live``: passed on as published, not a retained one given on subscribing (:meth:`Room.take`)."""
        self.messages += 1
        dropped, earlier = self.room.dropped, self.room.earlier
        for kind, data in self.room.take(topic, bytes(payload), time.time(), live):
            if kind == "table":
                self.browsers.send("table", data)
            else:
                self._standings_dirty = True
        self._pair_due()
        if self.loop is None and self._standings_dirty:  # not served yet: nobody waits for them
            self._standings_dirty = False
            self.browsers.send_block(self.standings_block())
        if clear is not None and (self.room.dropped > dropped or self.room.earlier > earlier):
            clear(topic)  # refused, or a result of an earlier evening: no later start of the hub gets it again

    def _pair_due(self) -> None:
        due = self.room.ledger.take_due()
        if due is None:
            return
        ledger = self.room.ledger
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None or loop is not self.loop:  # called off the server's loop (a test, a tool): paired here
            ledger.apply_round(ledger.next_round(*due), due[1])
            self._standings_dirty = True
            return

        def paired(future: asyncio.Future[Any]) -> None:
            ledger.apply_round(future.result(), due[1])
            self._standings_dirty = True

        loop.run_in_executor(None, ledger.next_round, *due).add_done_callback(paired)

    def standings_block(self) -> bytes:
        return sse_block("standings", self.room.standings())

    def first_blocks(self) -> list[bytes]:
        blocks = [sse_block("table", t) for t in self.room.snapshot()]
        blocks.append(self.standings_block())
        return blocks

    async def send_standings(self) -> None:
        """On the server's loop, until cancelled: the standings to the browsers when they changed,
        at most every :data:`STANDINGS_S`."""
        self.loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(STANDINGS_S)
            if self.evening is not None:
                self.evening.alive()
            if self._standings_dirty:
                self._standings_dirty = False
                self.browsers.send_block(self.standings_block())


def hub_app(live: LiveRoom, *, on_start: Callable[[], Any] | None = None,
            on_stop: Callable[[], Any] | None = None) -> Starlette:
    """The scoreboard's Starlette app. ``on_start``/``on_stop`` (may be coroutines) run in its lifespan."""

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "hub.html", headers={"Cache-Control": "no-cache"})

    async def tables(request: Request) -> Response:
        return JSONResponse({"venue": live.room.venue, "tables": live.room.snapshot()})

    async def stream(request: Request) -> Response:
        return live.browsers.response(live.first_blocks(), request.client.host if request.client else "")

    async def standings_(request: Request) -> Response:
        return JSONResponse(live.room.standings())

    async def record(request: Request) -> Response:
        seen = live.room.tables.get(request.path_params["table"])
        if seen is None or not seen.record:
            return PlainTextResponse("no record for this table yet", status_code=404)
        return PlainTextResponse(str(seen.record.get("text", "")), media_type="text/plain; charset=utf-8")

    async def games(request: Request) -> Response:
        seen = live.room.tables.get(request.path_params["table"])
        if seen is None:
            return JSONResponse({"error": "no such table"}, status_code=404)
        # made once as each game came (venue.hub.room.TableSeen.keep_game), bounded: joined, not parsed again
        return Response(seen.games_json(), media_type="application/json")

    async def record_json(request: Request) -> Response:
        seen = live.room.tables.get(request.path_params["table"])
        if seen is None or not seen.record:
            return JSONResponse({"error": "no record for this table yet"}, status_code=404)
        return JSONResponse(seen.record)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        sender = asyncio.create_task(live.send_standings())
        if on_start is not None:
            started = on_start()
            if asyncio.iscoroutine(started):
                await started
        try:
            yield
        finally:
            sender.cancel()
            live.browsers.close()
            if on_stop is not None:
                stopped = on_stop()
                if asyncio.iscoroutine(stopped):
                    await stopped

    routes = [
        Route("/", index),
        Route("/api/tables", tables),
        Route("/api/stream", stream),
        Route("/api/standings", standings_),
        Route("/api/tables/{table}/record", record),
        Route("/api/tables/{table}/record.json", record_json),
        Route("/api/tables/{table}/games", games),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


# -- the broker and the subscriber ---------------------------------------------------------------


class Subscriber:
    """paho on its own thread, handing the messages to the server's loop. A message the room refuses
    on a retained topic (``state``, ``record``, ``availability``: all three are) is cleared on the
    broker with an empty retained message, so that it does not come back to the next subscriber.

    The messages that arrive while the loop is busy wait together, the latest of each topic only
    (every topic the hub reads is retained: a newer message on it replaces the older), and are taken
    in one turn of the loop. One table flooding its ``state`` (thousands a second, with its own
    password) is then one message a turn, not a queue that every other table's states wait behind."""

    def __init__(self, settings: MqttSettings, live: LiveRoom, loop: asyncio.AbstractEventLoop) -> None:
        self.settings = settings
        base = f"ecarte/{settings.venue}/+"
        # what the room reads (not the tables' events and hands: half the messages, for nothing), at
        # QoS 0: each of these topics is retained, so what a dropped connection loses comes back with
        # the retained messages when the hub subscribes again; no acknowledgement a message
        self.topics = [(f"{base}/{kind}", 0) for kind in ("state", "availability", "record", "games/+")]
        self.client = make_client(settings, f"ecarte-hub-{settings.venue}-{os.getpid()}-{id(self) % 10_000}")
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_connect_fail = self._on_connect_fail
        self.unreachable = False
        self.live = live
        self.loop = loop
        self.connected = threading.Event()
        self._waiting: dict[str, tuple[bytes | bytearray, bool]] = {}
        self._lock = threading.Lock()

    def start(self) -> None:
        self.client.connect_async(self.settings.host, self.settings.port, keepalive=self.settings.keepalive)
        self.client.loop_start()

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def clear(self, topic: str) -> None:
        self.client.publish(topic, b"", qos=QOS, retain=True)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if getattr(reason, "is_failure", False):
            logger.warning("hub: the broker refused us: %s", reason)
            return
        if self.unreachable:
            self.unreachable = False
            logger.info("hub: reached the broker at %s:%s", self.settings.host, self.settings.port)
        client.subscribe(self.topics)
        self.connected.set()

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        if not self.unreachable:
            self.unreachable = True
            logger.warning("hub: the broker at %s:%s cannot be reached; the hub keeps trying", self.settings.host,
                           self.settings.port)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        with self._lock:
            first = not self._waiting
            # a newer one replaces it, in its place; live: not a retained one given on subscribing
            self._waiting[message.topic] = (message.payload, not message.retain)
        if first:
            with contextlib.suppress(RuntimeError):  # the loop is closing
                self.loop.call_soon_threadsafe(self.take_waiting)

    def take_waiting(self) -> None:
        """The messages waiting, the latest of each topic, to the room (on the server's loop)."""
        with self._lock:
            waiting, self._waiting = self._waiting, {}
        for topic, (payload, live) in waiting.items():
            self.live.take(topic, payload, self.clear, live)



class VenueBroker:
    """The hub's broker side: the rules and their files, and the broker it runs (none when external)."""

    def __init__(self, settings: HubSettings) -> None:
        self.settings = settings
        self.process: Supervised | None = None
        self.client = settings.broker
        self.files: BrokerFiles | None = None
        self.rules: Rules | None = None

    def start(self) -> None:
        """Write the rules' files, start the broker (unless external) and say which one in one line.

        :raises OSError: when the folder cannot be written or the broker does not start.
        """
        s = self.settings
        state = s.state if s.state is not None else default_state(None)
        _ignore_in_git(state)
        rules = load_rules(s.broker.venue, list(s.tables), state / "secrets", bridges=list(s.bridges),
                           readers=list(s.readers))
        if s.anonymous_read:
            logger.warning("[tables] anonymous_read: anonymous clients can no longer connect (a client's id is its "
                           "user name, so that nobody can take a table's): name a dashboard in [tables] readers")
        if s.retired is not None:
            logger.warning("[broker] mode = %r: that broker is retired; the hub runs its own Mosquitto instead, "
                           "with the same passwords and ACL (docs/web.md, Leaving the embedded broker)", s.retired)
        self.rules = rules
        self.files = write_broker_files(state / "broker", rules)
        central = s.broker_listen if s.mode != "external" else (s.broker.host, s.broker.port)
        for room in s.bridges:
            conf = write_room_files(state / "bridges" / room, rules, room, central)
            logger.info("the room %s's broker: mosquitto -c %s (its folder, copied to the room's machine; "
                           "set its address to the hub's as the rooms see it)", room, conf)
        if s.mode == "external":
            if s.broker.username is None:
                self.client = replace(s.broker, username=HUB_USER, password=rules.hub_password)
            where = f"the venue's broker at {s.broker.host}:{s.broker.port}"
            logger.info("%s: give it password_file %s and acl_file %s", where, self.files.password_file,
                           self.files.acl_file)
            why = _unreachable(s.broker.host, s.broker.port)
            if why is not None:
                logger.warning("the hub cannot connect to %s (%s): the scoreboard starts empty and keeps trying; "
                               "is the broker running, and is --broker or [broker] host/port right?", where, why)
                return
        else:
            host, port = s.broker_listen
            self.process = mosquitto_broker(self.files, rules, host, port, s.tls)
            where = f"Mosquitto on {host}:{port}" + (f" (TLS on {s.tls.port})" if s.tls else "")
            self.process.start()
            self.client = replace(s.broker, host=host, port=port, username=HUB_USER, password=rules.hub_password,
                                  tls=False)
        declared = len(rules.tables)
        logger.info("the venue's broker: %s%s; %d table%s declared (passwords in %s); serves about %d tables "
                       "within 250 ms", where, "" if s.mode == "external" else ", run by the hub", declared,
                       "" if declared == 1 else "s", state / "secrets", CAPACITY[s.mode])
        if not rules.tables:
            logger.warning("no table may publish: name them in the venue file's [tables] names (docs/web.md)")

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()


def _unreachable(host: str, port: int, timeout: float = 3.0) -> str | None:
    """Why nothing answers on ``host:port`` (None: something does)."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except OSError as exc:
        return exc.strerror or str(exc) or type(exc).__name__


def _ignore_in_git(state: Path) -> None:
    """The hub's folder holds every password: a ``.gitignore`` of ``*`` in it keeps ``git add -A`` from
    committing it when it lies in a working copy (its default place is beside the venue file)."""
    ignore = state / ".gitignore"
    if not ignore.exists():
        state.mkdir(parents=True, exist_ok=True)
        ignore.write_text("# written by ecarte-table hub: this folder holds the tables' passwords\n*\n",
                          encoding="utf-8")


def build_hub(settings: HubSettings) -> tuple[Starlette, LiveRoom]:
    """The hub's app: its lifespan starts the broker (unless external), then the subscriber."""
    state = settings.state if settings.state is not None else default_state(None)
    evening = Evening.open(state / "evening.json")  # taken up by a hub away for a short while, else begun
    times = None
    if settings.session.players:  # the rounds' pairing times outlive a restart of the hub the same evening
        times = PairedTimes(state / "session" / "rounds.json", settings.session, evening)
    ledger = Ledger(settings.session, settings.tables, times=times, evening=evening.began)
    live = LiveRoom(Room(settings.broker.venue, settings.session, settings.tables, ledger=ledger), evening)
    broker = VenueBroker(settings)
    subscriber: list[Subscriber] = []

    async def start() -> None:
        await asyncio.to_thread(broker.start)
        sub = Subscriber(broker.client, live, asyncio.get_running_loop())
        sub.start()
        subscriber.append(sub)

    async def stop() -> None:
        for sub in subscriber:
            await asyncio.to_thread(sub.stop)
        await asyncio.to_thread(broker.stop)

    return hub_app(live, on_start=start, on_stop=stop), live


def run_hub(settings: HubSettings) -> int:
    """Serve the scoreboard until Ctrl-C or SIGTERM (uvicorn handles both).

    :raises BadInput: when the scoreboard's address is taken, or the broker cannot start.
    """
    import uvicorn

    if settings.mode != "external":
        _check_free(*settings.broker_listen)
    app, live = build_hub(settings)
    host, port = settings.listen
    if in_use(host, port):
        raise SettingsError(f"the scoreboard cannot listen on {host}:{port}: the address is in use")
    logger.info("the venue's scoreboard: http://%s:%s", host, port)
    guard = Guard(cap=connection_cap(MAX_CONNECTIONS), what="the scoreboard")
    live.browsers.most = int(guard.cap * STREAMS_SHARE)  # the room's phones, and room for the next ones
    server = uvicorn.Server(guarded_config(app, host, port, guard))
    try:
        serve(server, guard)
    except OSError as exc:
        raise SettingsError(f"the hub cannot start: {exc}") from None
    return 0 if server.started else 2


def _check_free(host: str, port: int, wait: float = 2.0) -> None:
    """The hub's broker's port is free, or one line that says what to do (not a broker's tracebacks).
    A port still held for up to ``wait`` seconds (the broker of a hub just killed, ending) is waited for.

    :raises BadInput: the port is taken (another hub's broker, a Mosquitto of the system).
    """
    from firmware_host.errors import BadInput

    deadline = time.monotonic() + wait
    while True:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((host, port))
                return
            except OSError as exc:
                if time.monotonic() > deadline:
                    raise BadInput(msgid="error.hub_broker_cannot_listen", host=host, port=port, reason=exc) from None
        time.sleep(0.2)
