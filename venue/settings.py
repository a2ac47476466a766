"""The table file's ``[web]`` and ``[mqtt]`` sections (docs/web.md).

``hardware.table`` accepts the two sections and leaves them to this module, which
reads them from the file's TOML and reports every problem at once, with the table file's
own checks (:class:`hardware.table_checks.Problems`)::

    >>> web, mqtt = parse_sections({"web": {"listen": "127.0.0.1:8088", "reveal_delay": 30},
    ...                             "mqtt": {"venue": "club", "table": "t1"}}, table_name="T")
    >>> web.host, web.port, web.reveal_delay, mqtt.base_topic
    ('127.0.0.1', 8088, 30.0, 'ecarte/club/t1')
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from catalogue.phrase import Phrase, english, os_words
from firmware_host.errors import BadInput
from hardware.limits import FileProblem, read_text
from hardware.locks import MAX_SECRET_BYTES
from hardware.table_checks import Problem, Problems, listed

DEFAULT_LISTEN = "127.0.0.1:8080"
DEFAULT_BROKER_PORT = 1883


class SettingsError(BadInput):
    """A ``[web]`` or ``[mqtt]`` section (or a venue file) that cannot be used: every problem, with its key,
    said in the reader's language (:func:`hardware.table_checks.listed`)."""

    found: tuple[Problem, ...] = ()
    """The problems, each with its key (a listing's)."""

    @classmethod
    def listing(cls, source: str, found: list[Problem]) -> SettingsError:
        """The error listing ``found``, the problems of ``source``."""
        words = listed(source, found)
        error = cls(english(words), words=words)
        error.found = tuple(found)
        return error


class ListenError(ValueError):
    """An address to listen on whose port is not a port: ``words`` say why (``settings.port*``)."""

    def __init__(self, words: Phrase) -> None:
        super().__init__(english(words))
        self.words = words


def split_listen(text: str, *, default_port: int = 8080) -> tuple[str, int]:
    """``"127.0.0.1:8080"``, ``"[::1]:8080"``, ``"localhost"``, ``":8080"`` → host, port.

    :raises ListenError: for a port that is not a number from 0 to 65535.
    """
    text = text.strip()
    host, port_text = text, ""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    port = default_port
    if port_text or text.count(":") == 1:
        try:
            port = int(port_text)
        except ValueError:
            raise ListenError(Phrase.of("settings.port_number", port=repr(port_text))) from None
    if not 0 <= port <= 65535:
        raise ListenError(Phrase.of("settings.port_range", port=port))
    return host or "127.0.0.1", port


@dataclass(frozen=True, slots=True)
class WebSettings:
    """The table's page: where it listens, the token that allows changes, the reveal delay."""

    host: str = "127.0.0.1"
    port: int = 8080
    token: str | None = None
    reveal_delay: float = 0.0
    """Seconds between a hand's end and its hidden cards reaching the page and MQTT."""
    enabled: bool = False
    """A ``[web]`` section with ``enabled = true`` (or ``run --web``) starts the page."""


@dataclass(frozen=True, slots=True)
class MqttSettings:
    """The table's MQTT publisher (``[mqtt]``: present and not ``enabled = false`` starts it)."""

    host: str = "127.0.0.1"
    port: int = DEFAULT_BROKER_PORT
    venue: str = "venue"
    table: str = "table"
    username: str | None = None
    password: str | None = None
    tls: bool = False
    ca: str | None = None
    cert: str | None = None
    key: str | None = None
    insecure: bool = False
    keepalive: int = 30
    queue: int = 10_000
    """Messages kept while the broker is away (the oldest go first beyond this)."""
    reveal_delay: float = 0.0
    enabled: bool = False

    @property
    def base_topic(self) -> str:
        return f"ecarte/{self.venue}/{self.table}"


MAX_KEEPALIVE = 120
"""The longest MQTT keep-alive (s) the hub's Mosquitto lets a client ask for (``max_keepalive``): a client
silent for one and a half of it is cut off, and what the broker held for it freed. A keep-alive of 0
(never cut off) is refused with the rest: a reader that never reads and never pings held 293 MB for
300 MB published. (Mosquitto 2.0.11 holds MQTT 5 clients to it, with the server keep-alive of its
CONNACK; later versions refuse an MQTT 3.1.1 client asking for more, or for 0: docs/security.md.)"""


def slug(text: str) -> str:
    """A topic level from a name: lower case, letters, digits and hyphens (``"Table 3"`` → ``table-3``)."""
    out = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return out or "table"


_WEB_KEYS = ("enabled", "listen", "token", "token_file", "reveal_delay")
_MQTT_KEYS = ("enabled", "host", "port", "venue", "table", "username", "password", "password_file", "tls", "ca",
              "cert", "key", "insecure", "keepalive", "queue", "reveal_delay")


def _secret(problems: Problems, section: Mapping[str, Any], name: str, key: str, base: Path | None) -> str | None:
    value = problems.value(section, f"{name}.{key}", str, default=None)
    path = problems.value(section, f"{name}.{key}_file", str, default=None)
    if path is not None:
        file = Path(path).expanduser()
        if not file.is_absolute() and base is not None:
            file = base / file
        try:  # as the lock secret is read: a FIFO refused unread, /dev/zero and a long file never read whole
            value = read_text(file, limit=MAX_SECRET_BYTES).strip()
        except FileProblem as exc:
            problems.add(f"{name}.{key}_file", Phrase.of("settings.unreadable", path=exc.path, reason=exc.words))
        except OSError as exc:
            problems.add(f"{name}.{key}_file", Phrase.of("settings.unreadable", path=str(file), reason=os_words(exc)))
    return value if value else None


def parse_sections(data: Mapping[str, Any], *, table_name: str, source: str = "<table>",
                   base: Path | None = None) -> tuple[WebSettings, MqttSettings]:
    """The two sections of a table file's TOML, checked as the table file's other sections are
    (:mod:`hardware.table_checks`).

    :raises SettingsError: listing every problem.
    """
    problems = Problems()
    web = problems.section(data, "web", required=False) or {}
    problems.unknown_keys("web", web, _WEB_KEYS)
    listen = problems.value(web, "web.listen", str, default=DEFAULT_LISTEN)
    try:
        host, port = split_listen(listen)
    except ListenError as exc:
        problems.add("web.listen", exc.words)
        host, port = "127.0.0.1", 8080
    delay = problems.value(web, "web.reveal_delay", float, default=0.0)
    if delay < 0:
        problems.add("web.reveal_delay", Phrase.of("settings.reveal_delay"))
    token = _secret(problems, web, "web", "token", base)
    enabled = bool(problems.value(web, "web.enabled", bool, default=False))
    web_settings = WebSettings(host, port, token, float(delay), enabled)

    mqtt_settings = MqttSettings(table=slug(table_name), reveal_delay=float(delay))
    mqtt = problems.section(data, "mqtt", required=False)
    if mqtt is not None:
        problems.unknown_keys("mqtt", mqtt, _MQTT_KEYS)
        topic_level = re.compile(r"^[A-Za-z0-9_-]+$")
        venue = problems.value(mqtt, "mqtt.venue", str, default="venue")
        table = problems.value(mqtt, "mqtt.table", str, default=slug(table_name))
        for key, value in (("venue", venue), ("table", table)):
            if not topic_level.match(value):
                problems.add(f"mqtt.{key}", Phrase.of("settings.topic_level", value=repr(value), dash="'-'",
                                                      underscore="'_'"))
        mqtt_delay = problems.value(mqtt, "mqtt.reveal_delay", float, default=delay)
        keepalive = problems.value(mqtt, "mqtt.keepalive", int, default=30)
        if not 1 <= keepalive <= MAX_KEEPALIVE:
            problems.add("mqtt.keepalive", Phrase.of("settings.keepalive", most=MAX_KEEPALIVE))
            keepalive = 30
        mqtt_settings = MqttSettings(
            host=problems.value(mqtt, "mqtt.host", str, default="127.0.0.1"),
            port=problems.value(mqtt, "mqtt.port", int, default=DEFAULT_BROKER_PORT),
            venue=venue, table=table,
            username=problems.value(mqtt, "mqtt.username", str, default=None),
            password=_secret(problems, mqtt, "mqtt", "password", base),
            tls=problems.value(mqtt, "mqtt.tls", bool, default=False),
            ca=problems.value(mqtt, "mqtt.ca", str, default=None),
            cert=problems.value(mqtt, "mqtt.cert", str, default=None),
            key=problems.value(mqtt, "mqtt.key", str, default=None),
            insecure=problems.value(mqtt, "mqtt.insecure", bool, default=False),
            keepalive=keepalive,
            queue=problems.value(mqtt, "mqtt.queue", int, default=10_000),
            reveal_delay=float(mqtt_delay),
            enabled=bool(problems.value(mqtt, "mqtt.enabled", bool, default=True)),
        )
    if problems:
        raise SettingsError.listing(source, problems.found)
    return web_settings, mqtt_settings


def load_sections(path: str | Path | None, *, table_name: str) -> tuple[WebSettings, MqttSettings]:
    """The sections of the table file at ``path`` (None: the simulated table, which has neither).

    :raises SettingsError: for a broken section or an unreadable file.
    """
    if path is None:
        return WebSettings(), MqttSettings(table=slug(table_name))
    path = Path(path)
    data = read_toml(path)
    return parse_sections(data, table_name=table_name, source=str(path), base=path.parent)


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML file at ``path`` (a table file's sections, the hub's venue file) through the table file's
    doors (:func:`hardware.limits.read_text`): a regular file of at most 1 MB, a FIFO refused unread,
    ``/dev/zero`` never read whole, UTF-8, nesting no deeper than Python's parser goes.

    :raises SettingsError: naming the file and the problem.
    """
    try:
        return tomllib.loads(read_text(path))
    except FileProblem as exc:
        raise SettingsError.listing(str(path), [Problem("", exc.words)]) from None
    except RecursionError as exc:  # nested deeper than Python's parser goes: as the table file says it
        raise SettingsError.listing(str(path), [Problem("", Phrase.of("table_file.not_toml", detail=str(exc)))]) \
            from None
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError.listing(str(path), [Problem("", unreadable(exc))]) from None


def unreadable(exc: OSError | tomllib.TOMLDecodeError | UnicodeDecodeError) -> Phrase | str:
    """Why a TOML file could not be read, as a phrase (the system's reason, the parser's, the byte that is
    not UTF-8)."""
    if isinstance(exc, OSError):
        return os_words(exc)
    if isinstance(exc, UnicodeDecodeError):
        return Phrase.of("limits.file.not_utf8", byte=exc.start + 1)
    return Phrase.of("table_file.not_toml", detail=str(exc))
