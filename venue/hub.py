"""``ecarte-table hub``: the venue's scoreboard, from every table's MQTT topics.

The hub subscribes to ``ecarte/<venue>/+/state``, ``…/availability``, ``…/record`` and
``…/games/+`` (QoS 1); their retained messages give it every table at once, and what
follows keeps them live. :class:`Room` (pure) holds the tables, the finished games and the
session (a round-robin of several rounds: its pairings and the ranking); the
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

The hub runs its own broker (:class:`VenueBroker`): Mosquitto where it is installed, else
the embedded amqtt in a process of its own, on ``127.0.0.1:1883`` unless told; or it connects
to the venue's running broker (``--broker HOST:PORT``, ``[broker] host``). Either way it
writes the broker's password and ACL files from the venue file's ``[tables]`` (each table
publishes under its own topic only, :mod:`venue.broker`), and believes no payload it has not
checked (:mod:`venue.trust`). Results come from each table's ``games/<n>`` topic (its journal's
finished games), counted once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import threading
import time
import tomllib
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from venue.broker import (
    HUB_USER,
    BrokerFiles,
    Rules,
    Supervised,
    Tls,
    check_table_name,
    embedded_broker,
    embedded_config,
    free_port,
    load_rules,
    mosquitto_broker,
    mosquitto_path,
    write_broker_files,
    write_room_files,
)
from venue.mqtt import QOS, make_client
from venue.page import STATIC
from venue.settings import MqttSettings, SettingsError, split_listen
from venue.sse import Broadcaster, sse_block
from venue.trust import TOPIC_LEVEL, Untrusted, check

logger = logging.getLogger(__name__)

_KINDS = frozenset({"state", "availability", "record", "games"})


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
    games: dict[int, dict[str, Any]] = field(default_factory=dict)
    """The table's finished games (``games/<n>``), by number."""
    seen: float = 0.0

    def summary(self) -> dict[str, Any]:
        view = self.state.get("view") or {}
        score = view.get("score") or [0, 0]
        return {
            "table": self.table, "availability": self.availability,
            "players": (self.state.get("players") or ["A", "B"])[:2],
            "score": {"A": score[0], "B": score[1]}, "target": view.get("target"),
            "phase": view.get("phase") or "unknown", "trump": view.get("trump"), "game": self.state.get("game"),
            "hand": self.state.get("hand"), "turn": (self.state.get("prompt") or {}).get("seat"),
            "expectation": self.state.get("expectation") or "", "winner": self.state.get("winner"),
            "trick": view.get("trick") or [], "faults": len(self.state.get("faults") or []),
            "tricks": view.get("tricks") or [0, 0], "last_trick": self.state.get("last_trick"),
            "t": self.state.get("t"), "seen": self.seen,
        }


@dataclass
class Room:
    """Every table of the venue, the finished games and the session. Pure: feed it messages."""

    venue: str = "venue"
    session: Session = field(default_factory=Session)
    tables: dict[str, TableSeen] = field(default_factory=dict)
    results: list[Result] = field(default_factory=list)
    dropped: int = 0
    """Messages refused (not of their documented shape)."""
    _finished: set[tuple[str, int, float]] = field(default_factory=set)

    def take(self, topic: str, payload: bytes, now: float) -> list[tuple[str, Any]]:
        """One MQTT message; what to push to the browsers (``table``, ``standings``).

        A payload that is not of its documented shape (:mod:`venue.trust`) is dropped with one
        log line and counted in :attr:`dropped`; an empty payload (a retained topic cleared) is
        ignored."""
        parts = topic.split("/")
        if len(parts) not in (4, 5) or parts[0] != "ecarte" or parts[1] != self.venue or parts[3] not in _KINDS:
            return []
        name, kind = parts[2], parts[3]
        if not payload or (len(parts) == 5) != (kind == "games"):
            return []
        if not TOPIC_LEVEL.match(name):
            return self._drop(topic, "the table's name is not one topic level of letters, digits, - or _")
        try:
            data = check(kind, payload)
            if kind == "games" and str(data["game"]) != parts[4]:
                raise Untrusted(f"games: game {data['game']} on the topic of game {parts[4][:12]}")
        except Untrusted as exc:
            return self._drop(topic, str(exc))
        seen = self.tables.get(name)
        if seen is None:
            seen = self.tables[name] = TableSeen(name)
        seen.seen = now
        out: list[tuple[str, Any]] = []
        if kind == "availability":
            seen.availability = data
        elif kind == "state":
            seen.state = data
            if seen.availability == "unknown":
                seen.availability = "online"
        elif kind == "games":
            seen.games[int(data["game"])] = data
            return self._result(name, data, now)
        else:
            seen.record = data
            return []
        out.insert(0, ("table", seen.summary()))
        return out

    def _drop(self, topic: str, why: str) -> list[tuple[str, Any]]:
        self.dropped += 1
        logger.warning("hub: dropped a message on %s: %s", topic[:120], why)
        return []

    def _result(self, table: str, game: dict[str, Any], now: float) -> list[tuple[str, Any]]:
        """A finished game of a table's journal (``…/games/<n>``): a result, counted once however
        often the table publishes it (on each connection) or the broker keeps it."""
        key = (table, int(game["game"]), float(game["ended"]))
        if key in self._finished:
            return []
        self._finished.add(key)
        players, score = game["players"], game["score"]
        self.results.append(Result(table, int(game["game"]), (players[0], players[1]), (score["A"], score["B"]),
                                   str(game["winner"]), float(game["ended"])))
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

    def take(self, topic: str, payload: bytes | bytearray, clear: Callable[[str], Any] | None = None) -> None:
        """One message from the broker; ``clear`` clears its retained topic if the room refuses it."""
        self.messages += 1
        dropped = self.room.dropped
        for kind, data in self.room.take(topic, bytes(payload), time.time()):
            self.browsers.send(kind, data)
        if clear is not None and self.room.dropped > dropped:
            clear(topic)

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

    async def games(request: Request) -> Response:
        seen = live.room.tables.get(request.path_params["table"])
        if seen is None:
            return JSONResponse({"error": "no such table"}, status_code=404)
        return JSONResponse([{k: g.get(k) for k in ("game", "players", "score", "winner", "ended", "hands")}
                             for _, g in sorted(seen.games.items())])

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
        Route("/api/tables/{table}/games", games),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


# -- the broker and the subscriber ---------------------------------------------------------------


class EmbeddedBroker:
    """amqtt's broker on the current event loop, open to anyone (for :class:`BrokerThread`: a table's
    tests and a table that carries its own broker; the hub runs its embedded broker in a process of
    its own with the venue's rules, :func:`venue.broker.embedded_broker`)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 1883) -> None:
        self.host, self.port = host, port
        self._broker: Any = None

    async def start(self) -> None:
        from amqtt.broker import Broker

        for name in ("amqtt", "transitions"):
            logging.getLogger(name).setLevel(logging.ERROR)
        self._broker = Broker(embedded_config(self.host, self.port))
        await self._broker.start()

    async def stop(self) -> None:
        if self._broker is not None:
            broker, self._broker = self._broker, None
            with contextlib.suppress(Exception):
                await broker.shutdown()


class Subscriber:
    """paho on its own thread, handing every message to the server's loop. A message the room refuses
    on a retained topic (``state``, ``record``, ``availability``: all three are) is cleared on the
    broker with an empty retained message, so that it does not come back to the next subscriber."""

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
        self.live = live
        self.loop = loop
        self.connected = threading.Event()

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
        client.subscribe(self.topics)
        self.connected.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closing
            self.loop.call_soon_threadsafe(self.live.take, message.topic, message.payload, self.clear)


MODES = ("mosquitto", "embedded", "external")
"""The hub's broker: its own Mosquitto, its own embedded broker (amqtt, in a process of its own),
or the venue's running broker."""

CAPACITY = {"mosquitto": 1024, "embedded": 1024, "external": 1024}
"""Tables a broker mode serves within the 250 ms goal on a 2-core machine (bench/venue.py, docs/web.md)."""


@dataclass(frozen=True, slots=True)
class HubSettings:
    """The venue file (TOML): ``[hub]`` listen, venue, state; ``[broker]`` mode, listen, TLS, or a
    running broker's host/port with credentials (as a table's ``[mqtt]``); ``[tables]`` names,
    anonymous_read; ``[session]`` name, players, cycles."""

    listen: tuple[str, int] = ("127.0.0.1", 8090)
    broker: MqttSettings = field(default_factory=MqttSettings)
    mode: str = "embedded"
    broker_listen: tuple[str, int] = ("127.0.0.1", 1883)
    session: Session = field(default_factory=Session)
    tables: tuple[str, ...] = ()
    state: Path | None = None
    """The hub's folder: ``secrets/`` (each table's password), ``broker/`` (its files and database)."""
    anonymous_read: bool = True
    tls: Tls | None = None
    bridges: tuple[str, ...] = ()
    """Room brokers bridged into the hub's (``[tables] bridges``): each gets a password and a folder."""


def default_state(venue_file: str | Path | None) -> Path:
    if venue_file is not None:
        path = Path(venue_file)
        return path.parent / f"{path.stem}-hub"
    base = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    return base / "ecarte-table" / "hub"


def load_hub_settings(path: str | Path | None, *, listen: str | None = None, broker: str | None = None,
                      venue: str | None = None) -> HubSettings:
    """The venue file with the command line's overrides.

    :raises SettingsError: for a file or a value that cannot be used (every problem at once).
    """
    from venue.settings import parse_sections

    data: dict[str, Any] = {}
    source = str(path or "hub")
    if path is not None:
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise SettingsError(f"{path}: {exc}") from None
    problems: list[str] = []
    sections = {}
    for name in ("hub", "broker", "tables", "session"):
        value = data.get(name, {})
        if not isinstance(value, dict):
            problems.append(f"{name}: must be a table ([{name}])")
            value = {}
        sections[name] = dict(value)
    hub, broker_section, tables_section, s = (sections[n] for n in ("hub", "broker", "tables", "session"))
    for key in hub:
        if key not in ("listen", "venue", "state"):
            problems.append(f"hub.{key}: unknown key (known: listen, venue, state)")
    for key in tables_section:
        if key not in ("names", "anonymous_read", "bridges"):
            problems.append(f"tables.{key}: unknown key (known: names, anonymous_read, bridges)")
    for key in s:
        if key not in ("name", "players", "cycles", "system", "rounds"):
            problems.append(f"session.{key}: unknown key (known: name, players, cycles, system, rounds)")
    mode = broker_section.pop("mode", None)
    if "embedded" in broker_section:  # the older spelling
        mode = mode or ("embedded" if broker_section.pop("embedded") else "external")
    own_listen = broker_section.pop("listen", None)
    tls_keys = {k: broker_section.pop(k) for k in ("tls_listen", "certfile", "keyfile", "cafile")
                if k in broker_section}
    if broker:
        mode = "external"
    elif mode is None:
        mode = "external" if "host" in broker_section else ("mosquitto" if mosquitto_path() else "embedded")
    if mode not in MODES:
        problems.append(f"broker.mode: {mode!r} is not one of {', '.join(MODES)}")
        mode = "embedded"
    if mode == "mosquitto" and mosquitto_path() is None:
        problems.append("broker.mode: Mosquitto is not installed (apt-get install mosquitto; or mode = \"embedded\")")
    venue_name = venue or hub.get("venue", broker_section.get("venue", "venue"))
    broker_section["venue"] = venue_name
    broker_section.setdefault("table", "hub")
    mqtt_settings = MqttSettings()
    try:
        _, mqtt_settings = parse_sections({"mqtt": broker_section}, table_name="hub", source=source,
                                          base=Path(path).parent if path else None)
    except SettingsError as exc:
        problems.append(str(exc).removeprefix(f"{source}: ").replace("mqtt.", "broker."))
    host, port = "127.0.0.1", 8090
    own = ("127.0.0.1", 1883)
    try:
        host, port = split_listen(listen or str(hub.get("listen", "127.0.0.1:8090")), default_port=8090)
    except ValueError as exc:
        problems.append(f"hub.listen: {exc}")
    if own_listen is not None:
        try:
            own = split_listen(str(own_listen), default_port=1883)
        except ValueError as exc:
            problems.append(f"broker.listen: {exc}")
    elif mode != "external" and _busy(*own):
        own = (own[0], free_port(own[0]))
    if broker:
        try:
            b_host, b_port = split_listen(broker, default_port=1883)
            mqtt_settings = MqttSettings(**{**_fields(mqtt_settings), "host": b_host, "port": b_port})
        except ValueError as exc:
            problems.append(f"--broker: {exc}")
    tls = None
    if tls_keys:
        if "certfile" not in tls_keys or "keyfile" not in tls_keys or "tls_listen" not in tls_keys:
            problems.append("broker: TLS needs tls_listen, certfile and keyfile")
        else:
            try:
                _, tls_port = split_listen(str(tls_keys["tls_listen"]), default_port=8883)
                tls = Tls(str(tls_keys["certfile"]), str(tls_keys["keyfile"]), tls_port,
                          str(tls_keys["cafile"]) if "cafile" in tls_keys else None)
            except ValueError as exc:
                problems.append(f"broker.tls_listen: {exc}")
    names = tables_section.get("names", [])
    if not isinstance(names, list):
        problems.append("tables.names: expected a list of table names")
        names = []
    for name in names:
        try:
            check_table_name(name)
        except ValueError as exc:
            problems.append(f"tables.names: {exc}")
    bridges = tables_section.get("bridges", [])
    if not isinstance(bridges, list):
        problems.append("tables.bridges: expected a list of room names")
        bridges = []
    for name in bridges:
        try:
            check_table_name(name)
        except ValueError as exc:
            problems.append(f"tables.bridges: {str(exc).replace('table name', 'room name')}")
    if len(set(map(str, names + bridges))) != len(names) + len(bridges):
        problems.append("tables.names, tables.bridges: a name is given twice")
    anonymous_read = tables_section.get("anonymous_read", True)
    if not isinstance(anonymous_read, bool):
        problems.append("tables.anonymous_read: expected true or false")
    players = s.get("players", [])
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        problems.append("session.players: expected a list of names")
        players = []
    cycles = s.get("cycles", 1)
    if not isinstance(cycles, int) or isinstance(cycles, bool) or not 1 <= cycles <= 100:
        problems.append("session.cycles: expected a number from 1 to 100")
        cycles = 1
    from venue.pairing import SYSTEMS

    system = s.get("system", "round-robin")
    if system not in SYSTEMS:
        problems.append(f"session.system: one of {', '.join(SYSTEMS)}, got {system!r}")
        system = "round-robin"
    rounds = s.get("rounds", 0)
    if not isinstance(rounds, int) or isinstance(rounds, bool) or not 0 <= rounds <= 100:
        problems.append("session.rounds: expected a number from 0 to 100")
        rounds = 0
    state = hub.get("state")
    if state is not None and not isinstance(state, str):
        problems.append("hub.state: expected a folder")
        state = None
    if problems:
        raise SettingsError(f"{source}: " + "; ".join(problems))
    if mode != "external":
        mqtt_settings = MqttSettings(**{**_fields(mqtt_settings), "host": own[0], "port": own[1], "tls": False})
    state_path = Path(state).expanduser() if state else default_state(path)
    if state and path is not None and not state_path.is_absolute():
        state_path = Path(path).parent / state_path
    session = Session(str(s.get("name", "session")), tuple(players), cycles, system, rounds)
    return HubSettings((host, port), mqtt_settings, mode, own, session, tuple(names), state_path,
                       bool(anonymous_read), tls, tuple(bridges))


def _busy(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.settimeout(0.3)
        return sock.connect_ex((host, port)) == 0


def _fields(settings: MqttSettings) -> dict[str, Any]:
    return {name: getattr(settings, name) for name in settings.__dataclass_fields__}


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
        rules = load_rules(s.broker.venue, list(s.tables), state / "secrets", anonymous_read=s.anonymous_read,
                           bridges=list(s.bridges))
        self.rules = rules
        self.files = write_broker_files(state / "broker", rules)
        central = s.broker_listen if s.mode != "external" else (s.broker.host, s.broker.port)
        for room in s.bridges:
            conf = write_room_files(state / "bridges" / room, rules, room, central)
            logger.warning("the room %s's broker: mosquitto -c %s (its folder, copied to the room's machine; "
                           "set its address to the hub's as the rooms see it)", room, conf)
        if s.mode == "external":
            if s.broker.username is None:
                self.client = replace(s.broker, username=HUB_USER, password=rules.hub_password)
            where = f"the venue's broker at {s.broker.host}:{s.broker.port}"
            logger.warning("%s: give it password_file %s and acl_file %s", where, self.files.password_file,
                           self.files.acl_file)
        else:
            host, port = s.broker_listen
            if s.mode == "mosquitto":
                self.process = mosquitto_broker(self.files, rules, host, port, s.tls)
                where = f"Mosquitto on {host}:{port}" + (f" (TLS on {s.tls.port})" if s.tls else "")
            else:
                self.process = embedded_broker(self.files, rules, host, port)
                where = f"the embedded broker (amqtt, its own process) on {host}:{port}"
            self.process.start()
            self.client = replace(s.broker, host=host, port=port, username=HUB_USER, password=rules.hub_password,
                                  tls=False)
        logger.warning("the venue's broker: %s%s; %d tables declared (passwords in %s); serves about %d tables "
                       "within 250 ms", where, "" if s.mode == "external" else ", run by the hub", len(rules.tables),
                       state / "secrets", CAPACITY[s.mode])
        if not rules.tables:
            logger.warning("no table may publish: name them in the venue file's [tables] names (docs/web.md)")

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()


def build_hub(settings: HubSettings) -> tuple[Starlette, LiveRoom]:
    """The hub's app: its lifespan starts the broker (unless external), then the subscriber."""
    live = LiveRoom(Room(settings.broker.venue, settings.session))
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
    app, _ = build_hub(settings)
    host, port = settings.listen
    if _busy(host, port):
        raise SettingsError(f"the scoreboard cannot listen on {host}:{port}: the address is in use")
    logger.warning("the venue's scoreboard: http://%s:%s", host, port)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                            timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    try:
        server.run()
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
                    raise BadInput(f"the hub's MQTT broker cannot listen on {host}:{port} ({exc.strerror or exc}): "
                                   f"is a broker running there? `--broker {host}:{port}` uses it") from None
        time.sleep(0.2)


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
