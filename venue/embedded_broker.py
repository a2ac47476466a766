"""The embedded broker (amqtt) with the venue's rules: its configuration, its plugins that read
the hub's password and ACL files, and the door that checks each CONNECT before amqtt touches a session.

The hub writes the two files (:mod:`venue.broker`); Mosquitto reads them itself, amqtt through
:class:`VenueAuthPlugin` and :class:`VenueTopicPlugin`. Without files the embedded broker is open
to anyone (a table's tests, a table that carries its own broker). The hub runs it in a process of
its own (``python -m venue.embedded_broker HOST PORT PASSWD ACL``: :func:`venue.broker.embedded_broker`).

With the venue's rules it also takes a short way through amqtt for what tables send (a PUBLISH
acknowledged in one step, the ACL asked directly, what waits taken in one turn and written in one
write, one keep-alive timer a connection): amqtt's own machinery (a task or more a message at each
step) took two thirds of a core for 256 tables at ten times their pace, and the scoreboard fell
seconds behind; it now takes under half (README, *The embedded broker's short way*). The overrides
are of amqtt 0.12.1's private methods: pyproject.toml pins that version.

    >>> embedded_config("127.0.0.1", 1883)["listeners"]["default"]["bind"]
    '127.0.0.1:1883'
    >>> sorted(embedded_config("::1", 1883, "passwd", "acl")["plugins"])
    ['venue.embedded_broker.VenueAuthPlugin', 'venue.embedded_broker.VenueTopicPlugin']
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from venue.broker import Acl, allowed, parse_acl, read_password_file, verify_password

logger = logging.getLogger(__name__)


# -- the embedded broker's plugins -----------------------------------------------------------------


def embedded_config(host: str, port: int, password_file: str | None = None,
                    acl_file: str | None = None) -> dict[str, Any]:
    """amqtt's configuration: one TCP listener; with files, the venue's rules through our plugins
    (no anonymous client: :class:`ConnectDoor` refuses them first)."""
    bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    config: dict[str, Any] = {"listeners": {"default": {"type": "tcp", "bind": bind, "max_connections": 0}}}
    if password_file is None or acl_file is None:
        config["plugins"] = {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}}
    else:
        config["plugins"] = {
            "venue.embedded_broker.VenueAuthPlugin": {"password_file": password_file},
            "venue.embedded_broker.VenueTopicPlugin": {"acl_file": acl_file},
        }
    return config


try:
    from amqtt.contexts import Action
    from amqtt.plugins.base import BaseAuthPlugin, BaseTopicPlugin
except ImportError:  # pragma: no cover - amqtt is a dependency
    BaseAuthPlugin = BaseTopicPlugin = object
    Action = None


class VenueAuthPlugin(BaseAuthPlugin):  # type: ignore[misc]
    """amqtt authentication from Mosquitto's password file (``$7$`` hashes)."""

    @dataclass
    class Config:
        password_file: str = ""

    def __init__(self, context: Any) -> None:
        super().__init__(context)
        self.users = read_password_file(Path(self.config.password_file))

    async def authenticate(self, *, session: Any) -> bool | None:
        return session is not None and password_matches(self.users, session.username, session.password)


def password_matches(users: dict[str, str], username: str | None, password: str | bytes | None) -> bool:
    """Whether ``password`` is ``username``'s in ``users`` (each user's ``$7$`` hash, the password file)."""
    stored = users.get(username) if username else None
    if isinstance(password, bytes):
        password = password.decode("utf-8", "replace")
    return stored is not None and verify_password(password or "", stored)


class VenueTopicPlugin(BaseTopicPlugin):  # type: ignore[misc]
    """amqtt topic checks from Mosquitto's ACL file (as :func:`allowed` reads it)."""

    @dataclass
    class Config:
        acl_file: str = ""

    def __init__(self, context: Any) -> None:
        super().__init__(context)
        self.acl = parse_acl(Path(self.config.acl_file).read_text(encoding="utf-8"))
        self._answers: dict[tuple[str | None, str, str], bool] = {}

    async def topic_filtering(self, *, session: Any = None, topic: str | None = None,
                              action: Any = None) -> bool | None:
        return self.may(session, topic, action)

    def may(self, session: Any, topic: str | None, action: Any) -> bool:
        """Whether ``session``'s user may publish on ``topic`` (amqtt's ``Action.PUBLISH``) or receive
        from it; each answer kept once asked (a table asks the same few questions thousands of times
        an evening)."""
        if not topic:
            return False
        key = (session.username if session else None, "write" if action == Action.PUBLISH else "read", topic)
        answer = self._answers.get(key)
        if answer is None:
            if len(self._answers) > 100_000:
                self._answers.clear()
            answer = self._answers[key] = allowed(self.acl, *key)
        return answer


@dataclass
class ConnectDoor:
    """What the embedded broker checks of a CONNECT before it touches any session (amqtt itself drops
    the session of the client id a CONNECT names, and takes over a connected one, before it
    authenticates, and publishes a will without its topic check): a user name and its password, and
    a will only on a topic that user may write, as a PUBLISH would be checked. A client accepted
    gets its user name as its client id (Mosquitto's ``use_username_as_clientid``)."""

    users: dict[str, str]
    """Each user's ``$7$`` hash (the password file)."""
    acl: Acl

    @classmethod
    def from_files(cls, password_file: str, acl_file: str) -> ConnectDoor:
        return cls(read_password_file(Path(password_file)), parse_acl(Path(acl_file).read_text(encoding="utf-8")))

    def refusal(self, username: str | None, password: str | bytes | None, will_topic: str | None) -> Refusal | None:
        """Why this CONNECT is refused (None: it is accepted)."""
        if not username:
            return Refusal("no user name (anonymous clients may not connect)", bad_password=False)
        if not password_matches(self.users, username, password):
            return Refusal(f"a wrong password for {username[:40]!r}", bad_password=True)
        if will_topic is not None and not allowed(self.acl, username, "write", will_topic):
            return Refusal(f"{username} may not publish its will on {will_topic[:120]}", bad_password=False)
        return None


@dataclass(frozen=True)
class Refusal:
    """A CONNECT refused: why (for the log), and whether for its password (the CONNACK's code says so)."""

    why: str
    bad_password: bool


class CountedReads:
    """A client's reader (amqtt's adapter), its reads counted: the embedded broker's keep-alive
    watch sees whether a client has said anything since it last looked."""

    def __init__(self, reader: Any) -> None:
        self.reader = reader
        self.reads = 0

    async def read(self, n: int = -1) -> bytes:
        self.reads += 1
        data: bytes = await self.reader.read(n)
        return data

    def feed_eof(self) -> None:
        self.reader.feed_eof()


class Subscriptions(dict[str, Any]):
    """amqtt's table of subscriptions (topic filter → sessions), iterated over a copy: amqtt 0.12
    walks it with an ``await`` in the loop (the retained messages sent to a client that connects,
    each broadcast), so a client subscribing or leaving meanwhile raised "dictionary changed size
    during iteration" and dropped the connecting client. Tables that connect together, each
    subscribing to its own ``availability`` for a moment (:class:`venue.mqtt.TablePublisher`'s
    echo), were knocked off again and again (32 tables: 68 disconnections in 12 s)."""

    def __iter__(self) -> Iterator[str]:
        return iter(list(super().keys()))

    def items(self) -> list[tuple[str, Any]]:  # type: ignore[override]
        """The filters someone holds. amqtt's unsubscribe leaves a filter nobody holds (an empty
        list) in the table, and each message is matched against every filter: after 256 tables'
        moment on their own ``availability``, 260 filters a message instead of the hub's 4. Those
        are dropped here (amqtt makes a filter's list again when someone subscribes to it)."""
        for topic in [topic for topic, sessions in super().items() if not sessions]:
            del self[topic]
        return list(super().items())


HELD_BYTES = 8 * 1024 * 1024
"""What the embedded broker holds for one subscriber that does not read (its socket's unsent bytes):
past it, what goes to that subscriber at QoS 0 is dropped (QoS 0 may be lost; what is retained comes
back whole when it connects again), so that a dashboard stalled on the club's Wi-Fi cannot fill the
broker's memory and stop it for every table."""


def transport_of(writer: Any) -> Any:
    """The asyncio transport under ``writer`` (amqtt's adapter of a client's TCP connection), or None."""
    return getattr(getattr(writer, "_writer", None), "transport", None)


def buffered(writer: Any) -> int:
    """The bytes ``writer`` (amqtt's adapter of a client's connection) has not sent yet."""
    transport = transport_of(writer)
    return int(transport.get_write_buffer_size()) if transport is not None else 0


def _venue_amqtt_broker(config: dict[str, Any], door: ConnectDoor) -> Any:
    """amqtt's broker with :class:`ConnectDoor` at its CONNECT (the embedded broker with the venue's rules)."""
    from amqtt.broker import Broker
    from amqtt.errors import AMQTTError, MQTTError, NoDataError
    from amqtt.mqtt.connack import BAD_USERNAME_PASSWORD, NOT_AUTHORIZED, ConnackPacket
    from amqtt.mqtt.constants import QOS_0, QOS_1
    from amqtt.mqtt.protocol.broker_handler import BrokerProtocolHandler
    from amqtt.mqtt.puback import PubackPacket
    from amqtt.mqtt.publish import PublishPacket
    from amqtt.session import IncomingApplicationMessage

    class VenueHandler(BrokerProtocolHandler):  # type: ignore[misc]
        """amqtt's handler of a client's connection, with a short way for what tables send: a PUBLISH at
        QoS 0 or 1 is queued for delivery and acknowledged in one step, its PUBACK written at once
        (amqtt queues it, then sends the PUBACK through its write lock, a keep-alive timer set again
        and a plugin event, each message)."""

        reader: Any

        async def _reader_loop(self) -> None:
            """amqtt's, the client's keep-alive kept by one timer a connection: amqtt reads each packet
            under a timeout of its own (a task and a timer a packet) and, when it fires, does nothing,
            so a table whose power was cut stayed connected for ever and its will was never said. A
            client silent for one and a half keep-alives is cut off (MQTT-3.1.2-24), as Mosquitto does."""
            session: Any = self.session
            if session is None or self.reader is None or session.keep_alive <= 0:
                await super()._reader_loop()
                return
            keep_alive = session.keep_alive
            counted = self.reader = CountedReads(self.reader)
            session.keep_alive = 0  # amqtt's loop then waits for each packet without a timeout of its own
            watch = asyncio.get_running_loop().call_later(1.5 * keep_alive, self._watch, counted, 1.5 * keep_alive, 0)
            try:
                await super()._reader_loop()
            finally:
                watch.cancel()
                session.keep_alive = keep_alive

        def _watch(self, counted: CountedReads, limit: float, reads: int) -> None:
            if counted.reads != reads:
                asyncio.get_running_loop().call_later(limit, self._watch, counted, limit, counted.reads)
                return
            transport = transport_of(self.writer)
            if transport is not None:
                logger.info("the embedded broker: %s said nothing for %.0f s, its connection is closed",
                            self.session.client_id if self.session else "?", limit)
                transport.abort()

        async def handle_publish(self, publish_packet: Any) -> None:
            session, writer, qos = self.session, self.writer, publish_packet.qos
            header = publish_packet.variable_header
            packet_id = header.packet_id if header is not None else None
            plain = (qos == QOS_0 and not publish_packet.dup_flag) or (qos == QOS_1 and packet_id is not None)
            if (not plain or session is None or writer is None or publish_packet.topic_name is None
                    or publish_packet.data is None):
                await super().handle_publish(publish_packet)  # QoS 2, and what amqtt warns of or refuses
                return
            message = IncomingApplicationMessage(packet_id, publish_packet.topic_name, qos, publish_packet.data,
                                                 publish_packet.retain_flag)
            message.publish_packet = publish_packet
            session.delivered_message_queue.put_nowait(message)
            if qos == QOS_1:
                message.puback_packet = PubackPacket.build(packet_id)
                writer.write(message.puback_packet.to_bytes())

    class VenueAmqttBroker(Broker):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._slow: weakref.WeakKeyDictionary[Any, list[Any]] = weakref.WeakKeyDictionary()
            """Each subscriber past :data:`HELD_BYTES`: its client id and the messages dropped since."""
            # by name: run as ``python -m venue.embedded_broker``, amqtt's plugin is this module's class
            # imported again as venue.embedded_broker, not __main__'s
            self._acl: Any = self.plugins_manager.get_plugin(VenueTopicPlugin.__name__)
            if self._acl is None:
                raise RuntimeError("the embedded broker with the venue's rules needs VenueTopicPlugin")

        async def _topic_filtering(self, session: Any, topic: str, action: Any) -> bool:
            """The venue's topic plugin, asked directly (amqtt asks each topic plugin in a task of its
            own, twice a message)."""
            return bool(self._acl.may(session, topic, action))

        async def _handle_message_delivery(self, client_session: Any, handler: Any, wait_deliver: Any) -> bool:
            """amqtt's, then each message already waiting from the same client (a table's state and
            event come together): one wake of amqtt's loop for them (it waits on four futures a
            message), not one each."""
            if not await super()._handle_message_delivery(client_session, handler, wait_deliver):
                return False
            waiting = client_session.delivered_message_queue
            while not waiting.empty():
                ready = asyncio.get_running_loop().create_future()
                ready.set_result(waiting.get_nowait())
                if not await super()._handle_message_delivery(client_session, handler, ready):
                    return False
            return True

        async def _run_broadcast(self, running_tasks: Any) -> None:
            """Every message waiting to be passed on, in one turn (amqtt takes one a turn, each in a
            task of its own that it waits for beside its shutdown), what goes to a subscriber at QoS 0
            written to it in one write (amqtt writes each message in a task of its own, through the
            write lock: a system call each)."""
            deliver = self._deliver
            written: dict[Any, list[bytes]] = {}
            deliver(await self._broadcast_queue.get(), running_tasks, written)
            while not self._broadcast_queue.empty():
                deliver(self._broadcast_queue.get_nowait(), running_tasks, written)
            for writer, packets in written.items():
                if buffered(writer) > HELD_BYTES:
                    self._held_back(writer, len(packets))
                    continue
                if writer in self._slow:
                    logger.warning("the embedded broker: %s reads again (%d messages at QoS 0 were dropped)",
                                   self._slow[writer][0], self._slow.pop(writer)[1])
                writer.write(b"".join(packets))  # one write each subscriber, whatever the turn had for it

        def _held_back(self, writer: Any, count: int) -> None:
            if writer not in self._slow:
                name = next((s.client_id for s, h in self._sessions.values() if h is not None and h.writer is writer),
                            "?")
                logger.warning("the embedded broker: %s does not read (%d MB unsent): what goes to it at QoS 0 "
                               "is dropped until it reads again", name, buffered(writer) // 1_000_000)
                self._slow[writer] = [name, 0]
            self._slow[writer][1] += count

        def _deliver(self, broadcast: dict[str, Any], running_tasks: Any, written: dict[Any, list[bytes]]) -> None:
            """One message to the sessions subscribed to its topic, as amqtt's ``_run_broadcast`` does,
            its QoS 0 packets added to ``written`` (each subscriber's writer: what to write it)."""
            topic = broadcast["topic"]
            for a_filter, subscriptions in self._subscriptions.items():
                if not self._matches(topic, a_filter):
                    continue
                for target, sub_qos in subscriptions:
                    qos = broadcast.get("qos", sub_qos)
                    if not self._acl.may(target, topic, Action.RECEIVE):
                        continue
                    connected = target.transitions.state == "connected"
                    if not connected and not target.clean_session and qos != QOS_0 and not target.is_anonymous:
                        running_tasks.append(asyncio.ensure_future(
                            self._retain_broadcast_message(broadcast, qos, target)))
                        continue
                    handler = self._get_handler(target) if connected else None
                    if handler is None:
                        continue
                    if qos == QOS_0 and handler.writer is not None:
                        packet = PublishPacket.build(topic, broadcast["data"], None, False, QOS_0, False)
                        written.setdefault(handler.writer, []).append(packet.to_bytes())
                    else:
                        running_tasks.append(asyncio.ensure_future(
                            handler.mqtt_publish(topic, broadcast["data"], qos, retain=False)))

        async def _initialize_client_session(self, reader: Any, writer: Any, remote_address: str,
                                             remote_port: int) -> tuple[Any, Any]:
            try:
                handler, session = await VenueHandler.init_from_connect(reader, writer, self.plugins_manager)
            except MQTTError:
                await writer.close()
                raise
            except (AMQTTError, NoDataError) as exc:
                raise AMQTTError(exc) from exc
            refused = door.refusal(session.username, session.password,
                                   session.will_topic if session.will_flag else None)
            if refused is not None:
                logger.warning("the embedded broker refused a connection from %s:%s: %s", remote_address,
                               remote_port, refused.why)
                code = BAD_USERNAME_PASSWORD if refused.bad_password else NOT_AUTHORIZED
                with contextlib.suppress(Exception):
                    await ConnackPacket.build(0, code).to_stream(writer)
                await writer.close()
                raise MQTTError(refused.why)
            session.client_id = session.username
            old = self._sessions.get(session.client_id)
            if old is not None and old[0].transitions.is_connected() and old[1] is not None:
                # the same user connecting again (a table that restarted): its old connection is closed,
                # as Mosquitto closes it, rather than left open without its subscriptions
                logger.info("the embedded broker: %s connected again, closing its old connection", session.client_id)
                await old[1].handle_connection_closed()
                await old[1].stop()
            if session.clean_session:
                await self._delete_session(session.client_id)
                session.parent = 0
            elif session.client_id in self._sessions:  # the same user's own session, resumed
                existing, _ = self._sessions[session.client_id]
                for name in ("will_flag", "will_message", "will_topic", "will_qos", "will_retain", "keep_alive",
                             "username", "password"):
                    setattr(existing, name, getattr(session, name))
                session = existing
                session.parent = 1
            else:
                session.parent = 0
            return handler, session

    return VenueAmqttBroker(config)


class EmbeddedBroker:
    """amqtt's broker on the current event loop: open to anyone (for :class:`venue.hub.BrokerThread`: a
    table's tests and a table that carries its own broker), or with the venue's rules from the two files
    (the hub's embedded broker, run in a process of its own by :func:`embedded_broker`)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 1883, password_file: str | None = None,
                 acl_file: str | None = None) -> None:
        self.host, self.port = host, port
        self._config = embedded_config(host, port, password_file, acl_file)
        self._door = (ConnectDoor.from_files(password_file, acl_file) if password_file is not None
                      and acl_file is not None else None)
        self._broker: Any = None

    async def start(self) -> None:
        from amqtt.broker import Broker

        for name in ("amqtt", "transitions"):
            logging.getLogger(name).setLevel(logging.ERROR)
        self._broker = Broker(self._config) if self._door is None else _venue_amqtt_broker(self._config, self._door)
        self._broker._subscriptions = Subscriptions(self._broker._subscriptions)
        await self._broker.start()

    async def stop(self) -> None:
        if self._broker is not None:
            broker, self._broker = self._broker, None
            with contextlib.suppress(Exception):
                await broker.shutdown()


def _serve(host: str, port: int, password_file: str, acl_file: str) -> None:  # pragma: no cover
    """``python -m venue.embedded_broker HOST PORT PASSWD ACL``: the embedded broker, until SIGTERM,
    on uvloop where it is installed (a dependency but on 32-bit ARM, where PyPI has no wheel of it):
    256 tables at ten times their pace took 41-42 % of a core instead of 49 %, p99 166-175 ms
    instead of 217-251 ms (README, *The embedded broker's short way*)."""

    async def main() -> None:
        broker = EmbeddedBroker(host, port, password_file, acl_file)
        await broker.start()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await broker.stop()

    try:
        import uvloop
    except ImportError:
        asyncio.run(main())
    else:
        uvloop.run(main())


if __name__ == "__main__":  # pragma: no cover
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    _serve(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4])
