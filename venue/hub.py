"""``ecarte-table hub``: the venue's scoreboard, from every table's MQTT topics.

The hub subscribes to ``ecarte/<venue>/+/#`` (QoS 1); the retained ``state``,
``availability`` and ``record`` topics give it every table at once, and what follows
keeps them live. :class:`Room` (pure) holds the tables, the finished games and the
session (a round-robin of several rounds: its pairings and the ranking); the
Starlette app of :func:`hub_app` serves the scoreboard and pushes changes to the
browsers with Server-Sent Events:

=================================  ====================================================
``GET /``                          the scoreboard
``GET /api/tables``                every table: availability, players, score, state
``GET /api/stream``                SSE: ``table`` (one table changed), ``standings``
``GET /api/standings``             the session: rounds, pairings, results, ranking
``GET /api/tables/{t}/record``     the table's current game record (text)
=================================  ====================================================

With no broker named, the hub starts an embedded one (amqtt, pure Python) on
``127.0.0.1:1883`` so that it runs with nothing else installed; a Mosquitto (or any
MQTT 3.1.1 broker) is named with ``--broker HOST:PORT`` and the venue file's ``[broker]``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
import tomllib
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from venue.mqtt import QOS, make_client
from venue.page import STATIC
from venue.settings import MqttSettings, SettingsError, split_listen
from venue.sse import Broadcaster, sse_block

logger = logging.getLogger(__name__)


# -- the session ---------------------------------------------------------------------------------


def round_robin(players: Iterable[str]) -> list[list[tuple[str, str]]]:
    """Every round of a round-robin (the circle method): each pair meets once, seats alternating.

    An odd field gets a bye (the pair with ``""``, left out of the rounds' pairings).

    >>> round_robin(["ann", "bob", "cat", "dan"])
    [[('ann', 'dan'), ('bob', 'cat')], [('cat', 'ann'), ('dan', 'bob')], [('ann', 'bob'), ('cat', 'dan')]]
    """
    field_ = list(players)
    if len(field_) % 2:
        field_.append("")
    n = len(field_)
    rounds: list[list[tuple[str, str]]] = []
    order = field_[:]
    for r in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = order[i], order[n - 1 - i]
            if i == 0 and r % 2 == 1:
                a, b = b, a
            if a and b:
                pairs.append((a, b))
        rounds.append(pairs)
        order = [order[0], order[-1], *order[1:-1]]
    return rounds


@dataclass(frozen=True, slots=True)
class Result:
    """A finished game at a table."""

    table: str
    game: int
    players: tuple[str, str]
    score: tuple[int, int]
    winner: str
    at: float

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table, "game": self.game, "players": list(self.players),
                "score": {"A": self.score[0], "B": self.score[1]}, "winner": self.winner, "at": self.at}


@dataclass
class Session:
    """A session: ``players`` in a round-robin over ``cycles`` cycles of rounds (a double
    round-robin with 2), or a Swiss evening (``system="swiss"``, :mod:`venue.pairing`) of
    ``planned`` rounds (0: :func:`venue.pairing.default_rounds`), each paired from the results."""

    name: str = "session"
    players: tuple[str, ...] = ()
    cycles: int = 1
    system: str = "round-robin"
    planned: int = 0

    def pairings(self, results: Iterable[Result]) -> list[tuple[list[tuple[str, str]], str | None]]:
        """Each round's pairs and bye so far (a Swiss round appears once the last one is over)."""
        if self.system != "swiss":
            return [(pairs, None) for pairs in self.rounds]
        from venue.pairing import Played, default_rounds, swiss_evening

        games = [Played(r.players, r.winner, abs(r.score[0] - r.score[1])) for r in results if r.winner in ("A", "B")]
        evening = swiss_evening(self.players, self.planned or default_rounds(len(self.players)), games)
        return [(list(rnd.pairs), rnd.bye) for rnd in evening]

    @property
    def rounds(self) -> list[list[tuple[str, str]]]:
        base = round_robin(self.players)
        out = []
        for c in range(self.cycles):
            out.extend([[(b, a) if c % 2 else (a, b) for a, b in rnd] for rnd in base])
        return out


def standings(session: Session, results: Iterable[Result]) -> dict[str, Any]:
    """Rounds with their pairings and results, and the ranking (wins, then point difference,
    then points won; players not in the session are ranked too, from their games)."""
    results = list(results)
    names: list[str] = list(session.players)
    for r in results:
        for p in r.players:
            if p not in names:
                names.append(p)
    table: dict[str, dict[str, Any]] = {
        p: {"player": p, "played": 0, "wins": 0, "losses": 0, "for": 0, "against": 0, "byes": 0} for p in names}
    paired = session.pairings(results)
    for _pairs, bye in paired:
        if bye is not None:  # a bye is a win
            table[bye]["byes"] += 1
            table[bye]["wins"] += 1
    for r in results:
        for i, p in enumerate(r.players):
            row = table[p]
            row["played"] += 1
            won = r.winner == "AB"[i]
            row["wins"] += won
            row["losses"] += not won
            row["for"] += r.score[i]
            row["against"] += r.score[1 - i]
    ranking = sorted(table.values(), key=lambda row: (-row["wins"], -(row["for"] - row["against"]),
                                                      -row["for"], row["player"]))
    for rank, row in enumerate(ranking, start=1):
        row["rank"] = rank
    used: set[int] = set()
    rounds = []
    for number, (pairs, bye) in enumerate(paired, start=1):
        games = []
        for a, b in pairs:
            found = None
            for i, r in enumerate(results):
                if i not in used and set(r.players) == {a, b}:
                    found = r
                    used.add(i)
                    break
            games.append({"A": a, "B": b, "result": found.to_json() if found else None})
        rounds.append({"round": number, "games": games, "bye": bye})
    return {"session": session.name, "system": session.system, "planned": _planned(session), "rounds": rounds,
            "ranking": ranking, "games": len(results)}


def _planned(session: Session) -> int:
    if session.system == "swiss":
        from venue.pairing import default_rounds

        return session.planned or default_rounds(len(session.players))
    return len(session.rounds)


# -- the room ------------------------------------------------------------------------------------


@dataclass
class TableSeen:
    """What the hub knows of one table."""

    table: str
    availability: str = "unknown"
    state: dict[str, Any] = field(default_factory=dict)
    record: dict[str, Any] = field(default_factory=dict)
    seen: float = 0.0

    def summary(self) -> dict[str, Any]:
        view = self.state.get("view", {})
        score = view.get("score", [0, 0])
        return {
            "table": self.table, "availability": self.availability,
            "players": self.state.get("players", ["A", "B", ""])[:2],
            "score": {"A": score[0], "B": score[1]}, "target": view.get("target"),
            "phase": view.get("phase", "unknown"), "trump": view.get("trump"), "game": self.state.get("game"),
            "hand": self.state.get("hand"), "turn": self.state.get("prompt", {}).get("seat"),
            "expectation": self.state.get("expectation", ""), "winner": self.state.get("winner"),
            "trick": view.get("trick", []), "faults": len(self.state.get("faults", [])),
            "tricks": view.get("tricks", [0, 0]), "last_trick": self.state.get("last_trick"),
            "t": self.state.get("t"), "seen": self.seen,
        }


@dataclass
class Room:
    """Every table of the venue, the finished games and the session. Pure: feed it messages."""

    venue: str = "venue"
    session: Session = field(default_factory=Session)
    tables: dict[str, TableSeen] = field(default_factory=dict)
    results: list[Result] = field(default_factory=list)
    _finished: set[tuple[str, int, tuple[str, ...], tuple[int, ...]]] = field(default_factory=set)

    def take(self, topic: str, payload: bytes, now: float) -> list[tuple[str, Any]]:
        """One MQTT message; what to push to the browsers (``table``, ``standings``)."""
        parts = topic.split("/")
        if len(parts) != 4 or parts[0] != "ecarte" or parts[1] != self.venue:
            return []
        name, kind = parts[2], parts[3]
        seen = self.tables.get(name)
        if seen is None:
            seen = self.tables[name] = TableSeen(name)
        seen.seen = now
        out: list[tuple[str, Any]] = []
        if kind == "availability":
            seen.availability = payload.decode("utf-8", "replace")
        elif kind == "state":
            try:
                seen.state = json.loads(payload)
            except ValueError:
                logger.warning("hub: %s sent a state that is not JSON", topic)
                return []
            if seen.availability == "unknown":
                seen.availability = "online"
            out.extend(self._result(seen, now))
        elif kind == "record":
            with contextlib.suppress(ValueError):
                seen.record = json.loads(payload)
            return []
        else:
            return []
        out.insert(0, ("table", seen.summary()))
        return out

    def _result(self, seen: TableSeen, now: float) -> list[tuple[str, Any]]:
        state = seen.state
        winner = state.get("winner")
        if not winner:
            return []
        view = state.get("view", {})
        players = tuple(state.get("players", ["A", "B"])[:2])
        score = tuple(view.get("score", [0, 0]))
        key = (seen.table, int(state.get("game", 0)), players, score)
        if key in self._finished:
            return []
        self._finished.add(key)
        self.results.append(Result(seen.table, int(state.get("game", 0)), (players[0], players[1]),
                                   (int(score[0]), int(score[1])), str(winner), now))
        return [("standings", self.standings())]

    def standings(self) -> dict[str, Any]:
        return standings(self.session, self.results)

    def snapshot(self) -> list[dict[str, Any]]:
        return [self.tables[name].summary() for name in sorted(self.tables)]


# -- the app -------------------------------------------------------------------------------------


class LiveRoom:
    """The room on the server's loop, with its browsers."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.browsers = Broadcaster()
        self.messages = 0

    def take(self, topic: str, payload: bytes | bytearray) -> None:
        self.messages += 1
        for kind, data in self.room.take(topic, bytes(payload), time.time()):
            self.browsers.send(kind, data)

    def first_blocks(self) -> list[bytes]:
        blocks = [sse_block("table", t) for t in self.room.snapshot()]
        blocks.append(sse_block("standings", self.room.standings()))
        return blocks


def hub_app(live: LiveRoom, *, on_start: Callable[[], Any] | None = None,
            on_stop: Callable[[], Any] | None = None) -> Starlette:
    """The scoreboard's Starlette app. ``on_start``/``on_stop`` (may be coroutines) run in its lifespan."""

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "hub.html", headers={"Cache-Control": "no-cache"})

    async def tables(request: Request) -> Response:
        return JSONResponse({"venue": live.room.venue, "tables": live.room.snapshot()})

    async def stream(request: Request) -> Response:
        return live.browsers.response(live.first_blocks())

    async def standings_(request: Request) -> Response:
        return JSONResponse(live.room.standings())

    async def record(request: Request) -> Response:
        seen = live.room.tables.get(request.path_params["table"])
        if seen is None or not seen.record:
            return PlainTextResponse("no record for this table yet", status_code=404)
        return PlainTextResponse(str(seen.record.get("text", "")), media_type="text/plain; charset=utf-8")

    async def record_json(request: Request) -> Response:
        seen = live.room.tables.get(request.path_params["table"])
        if seen is None or not seen.record:
            return JSONResponse({"error": "no record for this table yet"}, status_code=404)
        return JSONResponse(seen.record)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if on_start is not None:
            started = on_start()
            if asyncio.iscoroutine(started):
                await started
        try:
            yield
        finally:
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
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


# -- the broker and the subscriber ---------------------------------------------------------------


def embedded_broker_config(host: str, port: int) -> dict[str, Any]:
    """amqtt's configuration: one TCP listener on ``host:port``, anonymous clients, no $SYS."""
    bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return {
        "listeners": {"default": {"type": "tcp", "bind": bind, "max_connections": 0}},
        "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
    }


class EmbeddedBroker:
    """amqtt's broker on the current event loop (started and stopped by the hub's lifespan)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 1883) -> None:
        self.host, self.port = host, port
        self._broker: Any = None

    async def start(self) -> None:
        from amqtt.broker import Broker

        for name in ("amqtt", "transitions"):
            logging.getLogger(name).setLevel(logging.ERROR)
        self._broker = Broker(embedded_broker_config(self.host, self.port))
        await self._broker.start()
        logger.warning("the embedded MQTT broker listens on %s:%s", self.host, self.port)

    async def stop(self) -> None:
        if self._broker is not None:
            broker, self._broker = self._broker, None
            with contextlib.suppress(Exception):
                await broker.shutdown()


class Subscriber:
    """paho on its own thread, handing every message to the server's loop."""

    def __init__(self, settings: MqttSettings, live: LiveRoom, loop: asyncio.AbstractEventLoop) -> None:
        self.settings = settings
        self.topic = f"ecarte/{settings.venue}/+/#"
        self.client = make_client(settings, f"ecarte-hub-{settings.venue}-{id(self) % 10_000}")
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.live = live
        self.loop = loop
        self.connected = threading.Event()

    def start(self) -> None:
        self.client.connect_async(self.settings.host, self.settings.port, keepalive=self.settings.keepalive)
        self.client.loop_start()

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if getattr(reason, "is_failure", False):
            logger.warning("hub: the broker refused us: %s", reason)
            return
        client.subscribe(self.topic, qos=QOS)
        self.connected.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closing
            self.loop.call_soon_threadsafe(self.live.take, message.topic, message.payload)


@dataclass(frozen=True, slots=True)
class HubSettings:
    """The venue file (TOML): ``[hub]`` listen, venue; ``[broker]`` embedded or host/port with
    credentials and TLS (as a table's ``[mqtt]``); ``[session]`` name, players, cycles."""

    listen: tuple[str, int] = ("127.0.0.1", 8090)
    broker: MqttSettings = field(default_factory=MqttSettings)
    embedded: bool = True
    embedded_listen: tuple[str, int] = ("127.0.0.1", 1883)
    session: Session = field(default_factory=Session)


def load_hub_settings(path: str | Path | None, *, listen: str | None = None, broker: str | None = None,
                      venue: str | None = None) -> HubSettings:
    """The venue file with the command line's overrides.

    :raises SettingsError: for a file or a value that cannot be used.
    """
    from venue.settings import parse_sections

    data: dict[str, Any] = {}
    if path is not None:
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise SettingsError(f"{path}: {exc}") from None
    hub = data.get("hub", {})
    broker_section = dict(data.get("broker", {}))
    embedded = bool(broker_section.pop("embedded", "host" not in broker_section))
    embedded_listen_text = str(broker_section.pop("listen", "127.0.0.1:1883"))
    broker_section.setdefault("venue", venue or hub.get("venue", "venue"))
    if venue:
        broker_section["venue"] = venue
    broker_section.setdefault("table", "hub")
    try:
        _, mqtt_settings = parse_sections({"mqtt": broker_section}, table_name="hub", source=str(path or "hub"),
                                          base=Path(path).parent if path else None)
        host, port = split_listen(listen or str(hub.get("listen", "127.0.0.1:8090")), default_port=8090)
        e_host, e_port = split_listen(embedded_listen_text, default_port=1883)
        if broker:
            b_host, b_port = split_listen(broker, default_port=1883)
            mqtt_settings = MqttSettings(**{**_fields(mqtt_settings), "host": b_host, "port": b_port})
            embedded = False
        elif embedded:
            mqtt_settings = MqttSettings(**{**_fields(mqtt_settings), "host": e_host, "port": e_port,
                                            "tls": False, "username": None, "password": None})
    except ValueError as exc:
        raise SettingsError(f"{path or 'hub'}: {exc}") from None
    s = data.get("session", {})
    from venue.pairing import SYSTEMS

    system = str(s.get("system", "round-robin"))
    if system not in SYSTEMS:
        raise SettingsError(f"{path}: [session] system: one of {', '.join(SYSTEMS)}, got {system!r}")
    session = Session(str(s.get("name", "session")), tuple(str(p) for p in s.get("players", ())),
                      int(s.get("cycles", 1)), system, int(s.get("rounds", 0)))
    return HubSettings((host, port), mqtt_settings, embedded, (e_host, e_port), session)


def _fields(settings: MqttSettings) -> dict[str, Any]:
    return {name: getattr(settings, name) for name in settings.__dataclass_fields__}


def build_hub(settings: HubSettings) -> tuple[Starlette, LiveRoom]:
    """The hub's app: its lifespan starts the embedded broker (if any), then the subscriber."""
    live = LiveRoom(Room(settings.broker.venue, settings.session))
    broker = EmbeddedBroker(*settings.embedded_listen) if settings.embedded else None
    subscriber: list[Subscriber] = []

    async def start() -> None:
        if broker is not None:
            await broker.start()
        sub = Subscriber(settings.broker, live, asyncio.get_running_loop())
        sub.start()
        subscriber.append(sub)

    async def stop() -> None:
        for sub in subscriber:
            await asyncio.to_thread(sub.stop)
        if broker is not None:
            await broker.stop()

    return hub_app(live, on_start=start, on_stop=stop), live


def run_hub(settings: HubSettings) -> int:
    """Serve the scoreboard until Ctrl-C or SIGTERM (uvicorn handles both)."""
    import uvicorn

    if settings.embedded:
        _check_free(*settings.embedded_listen)
    app, _ = build_hub(settings)
    host, port = settings.listen
    logger.warning("the venue's scoreboard: http://%s:%s (broker %s:%s%s)", host, port, settings.broker.host,
                   settings.broker.port, ", embedded" if settings.embedded else "")
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False, timeout_graceful_shutdown=2)
    return 0


def _check_free(host: str, port: int) -> None:
    """The embedded broker's port is free, or one line that says what to do (not amqtt's tracebacks).

    :raises BadInput: the port is taken (another hub's broker, Mosquitto).
    """
    import socket

    from firmware_host.errors import BadInput

    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise BadInput(f"the embedded MQTT broker cannot listen on {host}:{port} ({exc.strerror or exc}): "
                           f"is a broker running there? `--broker {host}:{port}` uses it") from None


class BrokerThread:
    """The embedded broker on a thread of its own (for a table that carries its own broker,
    the tests and the benchmark); ``with BrokerThread(port=0) as broker: broker.port``."""

    def __init__(self, host: str = "127.0.0.1", port: int = 1883) -> None:
        if port == 0:
            import socket

            with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
                s.bind((host, 0))
                port = int(s.getsockname()[1])
        self.broker = EmbeddedBroker(host, port)
        self.host, self.port = host, port
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="mqtt-broker", daemon=True)

    def _run(self) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            try:
                await self.broker.start()
            except BaseException as exc:  # reported by start()
                self._error = exc
                self._ready.set()
                return
            self._ready.set()
            await self._stop.wait()
            await self.broker.stop()

        asyncio.run(main())

    def start(self, timeout: float = 10.0) -> None:
        """Start and wait until it listens.

        :raises OSError: when it cannot listen.
        """
        self._thread.start()
        if not self._ready.wait(timeout) or self._error is not None:
            raise OSError(f"the embedded broker cannot listen on {self.host}:{self.port}: {self._error}")

    def stop(self) -> None:
        """Stop (safe to call twice)."""
        if self._loop is not None and self._stop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(10)

    def __enter__(self) -> BrokerThread:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
