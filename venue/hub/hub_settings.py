"""The venue file (TOML) of ``ecarte-table hub``: ``[hub]``, ``[broker]``, ``[tables]``, ``[session]``
(docs/web.md), with the command line's overrides, checked at once (every problem in one error).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from catalogue.phrase import Phrase
from hardware.limits import nfc
from hardware.table_checks import Problems
from venue.hub.broker import Tls, check_table_name, free_port, in_use, mosquitto_path
from venue.hub.session import Session
from venue.hub.trust import TOPIC_LEVEL
from venue.settings import ListenError, MqttSettings, SettingsError, parse_sections, read_toml, split_listen

MODES = ("mosquitto", "external")
"""The hub's broker: its own Mosquitto (a child process), or the venue's running broker."""

RETIRED = "embedded"
"""The embedded broker (amqtt) the hub once ran: a venue file that still asks for it gets the hub's own
Mosquitto, and the hub says so when it starts (docs/web.md, *Leaving the embedded broker*)."""

INSTALL = Phrase.of("hub.install", install="`sudo apt-get install mosquitto`", setup="`bash scripts/setup.sh venue`",
                    host="[broker] host", broker="--broker HOST:PORT")
"""What to do, in one line, when the hub should run its own Mosquitto and cannot find it."""

CAPACITY = {"mosquitto": 1024, "external": 1024}
"""Tables a broker mode serves within the page's latency goal on a 2-core machine, as the hub says when it
starts (measured by ``bench/venue.py``: docs/benchmarks.md)."""


@dataclass(frozen=True, slots=True)
class HubSettings:
    """The venue file (TOML): ``[hub]`` listen, venue, state; ``[broker]`` mode, listen, TLS, or a
    running broker's host/port with credentials (as a table's ``[mqtt]``); ``[tables]`` names,
    anonymous_read; ``[session]`` name, players, cycles."""

    listen: tuple[str, int] = ("127.0.0.1", 8090)
    broker: MqttSettings = field(default_factory=MqttSettings)
    mode: str = "mosquitto"
    broker_listen: tuple[str, int] = ("127.0.0.1", 1883)
    session: Session = field(default_factory=Session)
    tables: tuple[str, ...] = ()
    state: Path | None = None
    """The hub's folder: ``secrets/`` (each table's password), ``broker/`` (its files and database)."""
    anonymous_read: bool = False
    """Asked for by the venue file (``[tables] anonymous_read``): no longer offered (said at the hub's start)."""
    tls: Tls | None = None
    bridges: tuple[str, ...] = ()
    """Room brokers bridged into the hub's (``[tables] bridges``): each gets a password and a folder."""
    readers: tuple[str, ...] = ()
    """Dashboards that may read the venue's topics (``[tables] readers``), each with its own password."""
    retired: str | None = None
    """The retired mode the venue file asked for (``"embedded"``), answered with the hub's own Mosquitto
    (said at the hub's start); None when it asked for none."""


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
    data: dict[str, Any] = {}
    source = str(path or "hub")
    if path is not None:
        data = read_toml(Path(path))
    problems = Problems()
    sections = {}
    for name in ("hub", "broker", "tables", "session"):
        value = data.get(name, {})
        if not isinstance(value, dict):
            problems.add(name, Phrase.of("hub.section", section=f"[{name}]"))
            value = {}
        sections[name] = dict(value)
    hub, broker_section, tables_section, s = (sections[n] for n in ("hub", "broker", "tables", "session"))
    for section, keys, known in (("hub", hub, "listen, venue, state"),
                                 ("tables", tables_section, "names, readers, bridges, anonymous_read"),
                                 ("session", s, "name, players, cycles, system, rounds")):
        for key in keys:
            if key not in known.split(", "):
                problems.add(f"{section}.{key}", Phrase.of("hub.unknown_key", known=known))
    mode = broker_section.pop("mode", None)
    if "embedded" in broker_section:  # the older spelling
        mode = mode or (RETIRED if broker_section.pop("embedded") else "external")
    retired = None
    if mode == RETIRED:
        retired, mode = RETIRED, "mosquitto"
    own_listen = broker_section.pop("listen", None)
    tls_keys = {k: broker_section.pop(k) for k in ("tls_listen", "certfile", "keyfile", "cafile")
                if k in broker_section}
    if broker:
        mode = "external"
    elif mode is None:
        mode = "external" if "host" in broker_section else "mosquitto"
    if mode not in MODES:
        problems.add("broker.mode", Phrase.of("hub.mode", mode=repr(mode), modes=", ".join(MODES)))
        mode = "mosquitto"
    if mode == "mosquitto" and mosquitto_path() is None:
        problems.add("broker.mode", Phrase.of("hub.no_mosquitto", install=INSTALL))
    venue_name = venue or hub.get("venue", broker_section.get("venue", "venue"))
    broker_section["venue"] = venue_name
    broker_section.setdefault("table", "hub")
    mqtt_settings = MqttSettings()
    try:
        _, mqtt_settings = parse_sections({"mqtt": broker_section}, table_name="hub", source=source,
                                          base=Path(path).parent if path else None)
    except SettingsError as exc:
        for found in exc.found:
            problems.add(found.key.replace("mqtt.", "broker.", 1), found.words)
    host, port = "127.0.0.1", 8090
    own = ("127.0.0.1", 1883)
    try:
        host, port = split_listen(listen or str(hub.get("listen", "127.0.0.1:8090")), default_port=8090)
    except ListenError as exc:
        problems.add("hub.listen", exc.words)
    if own_listen is not None:
        try:
            own = split_listen(str(own_listen), default_port=1883)
        except ListenError as exc:
            problems.add("broker.listen", exc.words)
    elif mode != "external" and in_use(*own):
        own = (own[0], free_port(own[0]))
    if broker:
        try:
            b_host, b_port = split_listen(broker, default_port=1883)
            mqtt_settings = replace(mqtt_settings, host=b_host, port=b_port)
        except ListenError as exc:
            problems.add("--broker", exc.words)
    tls = None
    if tls_keys:
        if "certfile" not in tls_keys or "keyfile" not in tls_keys or "tls_listen" not in tls_keys:
            problems.add("broker", Phrase.of("hub.tls", keys="tls_listen, certfile", last="keyfile"))
        else:
            try:
                _, tls_port = split_listen(str(tls_keys["tls_listen"]), default_port=8883)
                tls = Tls(str(tls_keys["certfile"]), str(tls_keys["keyfile"]), tls_port,
                          str(tls_keys["cafile"]) if "cafile" in tls_keys else None)
            except ListenError as exc:
                problems.add("broker.tls_listen", exc.words)
    names = _names(tables_section, "names", "table", problems)
    bridges = _names(tables_section, "bridges", "room", problems)
    readers = _names(tables_section, "readers", "reader", problems)
    if len(set(map(str, names + bridges + readers))) != len(names) + len(bridges) + len(readers):
        problems.add("tables.names, tables.bridges, tables.readers", Phrase.of("hub.name_twice"))
    anonymous_read = tables_section.get("anonymous_read", False)
    if not isinstance(anonymous_read, bool):
        problems.add("tables.anonymous_read", Phrase.of("hub.bool"))
    players = s.get("players", [])
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        problems.add("session.players", Phrase.of("hub.players_list"))
        players = []
    for problem in _player_problems(players):
        problems.add("session.players", problem)
    cycles = s.get("cycles", 1)
    if not isinstance(cycles, int) or isinstance(cycles, bool) or not 1 <= cycles <= 100:
        problems.add("session.cycles", Phrase.of("hub.number", low=1, high=100))
        cycles = 1
    from venue.hub.pairing import SYSTEMS

    system = s.get("system", "round-robin")
    if system not in SYSTEMS:
        problems.add("session.system", Phrase.of("hub.system", systems=", ".join(SYSTEMS), system=repr(system)))
        system = "round-robin"
    rounds = s.get("rounds", 0)
    if not isinstance(rounds, int) or isinstance(rounds, bool) or not 0 <= rounds <= 100:
        problems.add("session.rounds", Phrase.of("hub.number", low=0, high=100))
        rounds = 0
    state = hub.get("state")
    if state is not None and not isinstance(state, str):
        problems.add("hub.state", Phrase.of("hub.state"))
        state = None
    if problems:
        raise SettingsError.listing(source, problems.found)
    if mode != "external":
        mqtt_settings = replace(mqtt_settings, host=own[0], port=own[1], tls=False)
    state_path = Path(state).expanduser() if state else default_state(path)
    if state and path is not None and not state_path.is_absolute():
        state_path = Path(path).parent / state_path
    session = Session(str(s.get("name", "session")), tuple(nfc(p) for p in players), cycles, system, rounds)
    return HubSettings((host, port), mqtt_settings, mode, own, session, tuple(names), state_path,
                       bool(anonymous_read), tls, tuple(bridges), tuple(readers), retired)


def _player_problems(players: list[str]) -> list[Phrase]:
    """``[session] players``: each a player's name (as a table takes it: no control character, so
    none is the pairing's bye marker), and none twice (a round-robin would pair Ann with Ann)."""
    from hardware.limits import name_words, quoted, same_name

    problems = []
    for player in players:
        why = name_words(player)
        if why is not None:
            problems.append(Phrase.of("hub.player", player=quoted(player), why=why))
    keys = [same_name(p) for p in players]  # "José" twice, one of them NFD; "Ann" and "Ａnn"
    twice = sorted({p for p, key in zip(players, keys, strict=True) if keys.count(key) > 1})
    if twice:
        problems.append(Phrase.of("hub.players_twice", players=", ".join(quoted(p) for p in twice[:5])))
    return problems



def _names(section: dict[str, Any], key: str, kind: str, problems: Problems) -> list[Any]:
    """``[tables] <key>``: a list of names, each one topic level (every problem in ``problems``); ``kind``
    names one (``table``, ``room``, ``reader``: ``hub.kind.*``)."""
    names = section.get(key, [])
    if not isinstance(names, list):
        problems.add(f"tables.{key}", Phrase.of("hub.names_list", kind=Phrase.of(f"hub.kind.{kind}")))
        return []
    for name in names:
        try:
            check_table_name(name)
        except ValueError:
            hub = isinstance(name, str) and TOPIC_LEVEL.match(name)
            problems.add(f"tables.{key}", Phrase.of("hub.hubs_name" if hub else "hub.topic_name", name=repr(name),
                                                    kind=Phrase.of(f"hub.kind.{kind}")))
    return names
