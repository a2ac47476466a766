"""The table on MQTT: its state, events and revealed hands under ``ecarte/<venue>/<table>/``.

Topics (Zigbee2MQTT's and Home Assistant's manner: one retained state topic, an
availability topic that the last will sets, events on their own subtopic; JSON
payloads, UTF-8; documented in docs/web.md):

=================================  ========  =======================================================
``…/availability``                 retained  ``online``, or ``offline`` (a clean stop, or the will)
``…/state``                        retained  the table now (:meth:`venue.table.public.PublicFeed.public_state`)
``…/event``                        —         one public table event (``trump``, ``trick``, ``fault``…)
``…/hand``                         —         a whole hand, hidden cards included, once revealed
``…/record``                       retained  the current game's record so far (``tags``, ``hands``, ``text``)
``…/games/<n>``                    retained  game ``n`` of the table's journal, finished: result and record
=================================  ========  =======================================================

Every message is QoS 1. :meth:`TablePublisher.publish` only puts the outcome on a
queue and returns: a worker thread makes the messages (the same :class:`PublicFeed`
as the page: no hidden card before its hand is over), and paho's network thread sends
them. While the broker is away the publisher keeps what it could not send, in order
(up to ``[mqtt] queue`` messages), and paho reconnects by itself; on reconnecting the
table says ``online``, sends what it kept, in order, once, then its retained topics
that were not among them, and then every finished game of its journal (the table's
journal is the truth: a game finished while the broker was away, or lost by a broker
that restarted, is published again from it). The game goes on either way.
"""

from __future__ import annotations

import json
import logging
import queue
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from engine.seats import SEATS, PerSeat
from firmware_host.referee import Outcome
from venue.clock import clock_set
from venue.mqtt_client import QOS, make_client
from venue.settings import MqttSettings
from venue.table.public import Message, PublicFeed
from venue.table.record import GameLog, write_record

logger = logging.getLogger(__name__)

RESEND_S = 12 * 3600.0
"""A finished game of the journal is (re)published on each connection while it ended less than this ago
(by the monotonic clock; a game of an earlier boot by the wall clock, once NTP has set it:
:meth:`TablePublisher._recent`)."""

ECHO_S = 5.0
"""Seconds within which the broker passes the table's own ``online`` back to it (else it is said)."""

_RESYNC = object()


def can_open_socket(host: str, port: int) -> None:
    """Whether this process may open a TCP socket of the broker's address family (a unit's
    ``RestrictAddressFamilies=`` may forbid it): returns, or raises the reason. A name that does
    not resolve yet (the network not up) is left to paho's retries.

    :raises OSError: no socket of any of the broker's families can be opened.
    """
    try:
        families = {info[0] for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)}
    except (socket.gaierror, UnicodeError):
        return
    problem: OSError | None = None
    for family in families:
        try:
            socket.socket(family, socket.SOCK_STREAM).close()
        except OSError as exc:
            problem = exc
        else:
            return
    if problem is not None:
        raise problem


def dumps(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


class TablePublisher:
    """The table's MQTT output (a :class:`~firmware_host.service.TableOutput`).

    :param settings: the table file's ``[mqtt]`` section.
    :param table_name: the table's name (in the state and the record).
    """

    def __init__(self, settings: MqttSettings, *, table_name: str, journal: Path | None = None,
                 clock_is_set: Callable[[], bool] = clock_set) -> None:
        self.settings = settings
        self.clock_is_set = clock_is_set
        """Whether the wall clock is set (NTP answered): a game of an earlier boot is resent only then."""
        self.base = settings.base_topic
        self.feed = PublicFeed(table=settings.table, reveal_delay=settings.reveal_delay)
        self.table_name = table_name
        self.client = make_client(settings, f"ecarte-{settings.venue}-{settings.table}")
        self.client.will_set(f"{self.base}/availability", "offline", qos=QOS, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_connect_fail = self._on_connect_fail
        self.client.on_subscribe = self._on_subscribe
        self.client.on_message = self._on_message
        self.refused = False
        """The broker does not pass this table's own messages back (said once a connection)."""
        self._echoed = threading.Event()
        self.connected = threading.Event()
        self.unreachable = False
        """The broker could not be reached (said once; said again when it is reached)."""
        self.dropped = 0
        self.journal = journal
        self._inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._backlog: deque[tuple[str, bytes, bool]] = deque()
        self._games_sent: set[int] = set()
        self._history: Any = None
        self._retry_games: float | None = None
        self._worker = threading.Thread(target=self._work, name=f"mqtt-{settings.table}", daemon=True)
        self._retained: dict[str, bytes] = {}
        self._lock = threading.Lock()
        self._refusal_lock = threading.Lock()
        self._started = False

    # -- the service's side (the event loop's thread) --------------------------------------------

    def publish(self, outcome: Outcome) -> None:
        """Queue the outcome for the worker (returns at once)."""
        self._inbox.put(outcome)

    # -- life --------------------------------------------------------------------------------------

    def start(self) -> None:
        """Connect in the background (no wait: an absent broker is retried) and start the worker.

        :raises OSError: this process cannot open a socket to the broker at all (IP sockets
            forbidden: retrying would never help), or paho cannot start its loop.
        """
        if self._started:
            return
        can_open_socket(self.settings.host, self.settings.port)
        self.client.connect_async(self.settings.host, self.settings.port, keepalive=self.settings.keepalive)
        self.client.loop_start()  # its wake-up socket pair: an OSError where IP sockets are forbidden
        self._started = True
        self._worker.start()

    def close(self, timeout: float = 2.0) -> None:
        """Drain the queue, say ``offline``, disconnect (safe to call twice)."""
        if not self._started:
            return
        self._started = False
        self._inbox.put(None)
        self._worker.join(timeout)
        if self.connected.is_set():
            info = self.client.publish(f"{self.base}/availability", "offline", qos=QOS, retain=True)
            deadline = time.monotonic() + timeout
            # the connection lost meanwhile: paho refused the message (its will says offline instead)
            while info.rc == mqtt.MQTT_ERR_SUCCESS and not info.is_published() and time.monotonic() < deadline \
                    and self.connected.is_set():
                time.sleep(0.01)
        self.connected.clear()
        self.client.disconnect()
        self.client.loop_stop()

    def __enter__(self) -> TablePublisher:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- paho's thread -----------------------------------------------------------------------------

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if getattr(reason, "is_failure", False):
            logger.warning("MQTT broker %s:%s refused the table: %s", self.settings.host, self.settings.port, reason)
            return
        if self.unreachable:  # the person was told it could not be: say it now is
            logger.info("MQTT: reached the broker %s:%s; publishing as %s",
                        self.settings.host, self.settings.port, self.base)
            self.unreachable = False
        else:
            logger.info("MQTT: connected to %s:%s as %s", self.settings.host, self.settings.port, self.base)
        # a broker holding tables to their own topics refuses this subscription when the table file's
        # venue or table is not the one the hub's venue file gives this user: said at once (a publish
        # it refuses is dropped in silence, so that nothing would say it)
        self._echoed.clear()
        client.subscribe(f"{self.base}/availability", qos=QOS)
        with self._lock:
            online = client.publish(f"{self.base}/availability", "online", qos=QOS, retain=True)
            threading.Thread(target=self._check_echo, args=(online,), name=f"echo-{self.settings.table}",
                             daemon=True).start()
            sent: dict[str, bytes] = {}
            while self._backlog:
                topic, payload, retain = self._backlog.popleft()
                client.publish(topic, payload, qos=QOS, retain=retain)
                if retain:
                    sent[topic] = payload
            for topic, payload in self._retained.items():
                if sent.get(topic) != payload:
                    client.publish(topic, payload, qos=QOS, retain=True)
            self.connected.set()
        self._inbox.put(_RESYNC)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if message.topic == f"{self.base}/availability" and not self._echoed.is_set():
            self._echoed.set()
            self.refused = False
            # heard: a subscription the broker matches every message against is no longer needed
            client.unsubscribe(f"{self.base}/availability")

    def _check_echo(self, online: mqtt.MQTTMessageInfo) -> None:
        """Once the broker has acknowledged the table's ``online`` (Mosquitto acknowledges a message its
        ACL drops), it should pass it back within :data:`ECHO_S`: if not, it dropped it."""
        try:
            online.wait_for_publish(60)
        except (RuntimeError, ValueError):
            return
        if online.is_published() and not self._echoed.wait(ECHO_S) and self.connected.is_set():
            self._say_refused()
            self.client.unsubscribe(f"{self.base}/availability")

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any, properties: Any) -> None:
        if any(getattr(r, "is_failure", False) for r in reasons):
            self._say_refused()

    def _say_refused(self) -> None:
        """Say the refusal once (from paho's thread or the echo's), then show it in :attr:`refused`: one
        who sees the flag finds the warning already logged."""
        with self._refusal_lock:
            if self.refused:
                return
            logger.warning("MQTT: the broker %s:%s does not let this table use %s/: is [mqtt] venue %r the "
                           "hub's venue, and table %r the name the hub's venue file gives user %r? Nothing this "
                           "table publishes reaches the hub", self.settings.host, self.settings.port, self.base,
                           self.settings.venue, self.settings.table, self.settings.username)
            self.refused = True

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        if not self.unreachable:  # paho's thread alone: said, then shown
            logger.warning("MQTT: the broker %s:%s cannot be reached; the table keeps trying (the game goes on)",
                           self.settings.host, self.settings.port)
            self.unreachable = True

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if self.connected.is_set():
            logger.warning("MQTT: lost the broker %s:%s (%s); reconnecting, the game goes on",
                           self.settings.host, self.settings.port, reason)
        self.connected.clear()

    # -- the worker --------------------------------------------------------------------------------

    def _work(self) -> None:
        while True:
            due = min((t for t in (self.feed.next_due(), self._retry_games) if t is not None), default=None)
            timeout = None if due is None else max(0.0, due - time.monotonic())
            try:
                outcome = self._inbox.get(timeout=timeout)
            except queue.Empty:
                self._send(self.feed.due(time.monotonic()))
                if self._retry_games is not None and self._retry_games <= time.monotonic():
                    self._retry_games = None
                    self._send_games()
                continue
            if outcome is None:
                return
            try:
                if outcome is _RESYNC:
                    self._games_sent.clear()
                    self._send_games()
                else:
                    self._send(self.feed.take(outcome, time.monotonic(), wall=time.time()))
            except Exception:  # a bug here must not stop the table's messages for good
                logger.exception("MQTT: cannot publish an outcome")

    def _send(self, messages: list[Message]) -> None:
        for message in messages:
            if message.kind == "state":
                self._put(f"{self.base}/state", dumps(message.data), retain=True)
            elif message.kind == "event":
                self._put(f"{self.base}/event", dumps(message.data), retain=False)
            elif message.kind == "hand":
                self._put(f"{self.base}/hand", dumps(message.data), retain=False)
                self._put(f"{self.base}/record", dumps(self.record_payload()), retain=True)
        if messages and messages[-1].kind == "state" and any(
                m.kind == "event" and m.data.get("event") == "new_game" for m in messages):
            self._put(f"{self.base}/record", dumps(self.record_payload()), retain=True)
        if any(m.kind == "hand" or (m.kind == "event" and m.data.get("event") in ("game_end", "new_game"))
               for m in messages):
            self._send_games()

    def _send_games(self) -> None:
        """Every finished game of the journal not yet sent on this connection, fully revealed, in order."""
        if self.journal is None or not self.connected.is_set():
            return
        from venue.table.page_history import JournalHistory

        if self._history is None:
            self._history = JournalHistory(self.journal, table=self.table_name, reveal_delay=self.settings.reveal_delay)
        now = time.monotonic()  # how long ago: the monotonic clock and the journal's order, never the wall clock
        try:
            rows = self._history.rows()
        except Exception as exc:  # a journal being written or damaged: the next game end tries again
            logger.warning("MQTT: cannot read the journal's games: %s", exc)
            return
        for i, (number, started, lines) in enumerate(rows):
            if number in self._games_sent:
                continue
            if i == len(rows) - 1 and not self.feed.state.get("winner"):
                break  # the game in play
            played = self._history.played(number, started, lines)
            if played is None or played.winner is None or not played.hands:
                # abandoned, or its last line not yet committed by the table's thread: looked at again
                # at the next game end, hand or connection (replays are cached while the lines stay)
                if i == len(rows) - 1:
                    self._retry_games = now + 1.0
                continue
            ended = played.hands[-1][1]  # the wall clock's word, for the payload only
            if len(played.shown(now, self.settings.reveal_delay)) < len(played.hands):
                self._retry_games = played.due(self.settings.reveal_delay)
                continue  # its last hand is still held back
            self._games_sent.add(number)
            if not self._recent(played, now):
                continue
            log = played.log(table=self.table_name, now=now, delay=self.settings.reveal_delay)
            payload = {"table": self.settings.table, "game": played.game, "players": list(played.players),
                       "score": PerSeat.of(played.score).to_json(), "winner": played.winner,
                       "ended": round(ended, 3), "hands": [h.to_json() for h in log.hands],
                       "text": write_record(log)}
            self._put(f"{self.base}/games/{played.game}", dumps(payload), retain=True, keep=False)

    def _recent(self, played: Any, now: float) -> bool:
        """Whether a finished game ended within :data:`RESEND_S`: a game of this boot by the monotonic
        clock; a game of an earlier boot by the wall clock, and only once it is set (a Pi without a
        real-time clock reads last night's time until NTP answers: then nothing of an earlier boot is
        resent). It used to take an earlier boot's game as written when this boot began, so that a
        table switched on at the club sent its whole journal again."""
        written = played.written[-1] if played.written else None
        if written is not None:
            return bool(now - written <= RESEND_S)
        if not self.clock_is_set():
            return False
        return bool(0 <= time.time() - played.hands[-1][1] <= RESEND_S)

    def record_payload(self) -> dict[str, Any]:
        """The current game's record so far (only hands already revealed)."""
        state = self.feed.state
        players = state.get("players", list(SEATS))
        view = state.get("view", {})
        score = view.get("score", [0, 0])
        winner = state.get("winner") or ""
        hands = tuple(self.feed.revealed)
        tags = (
            ("Event", "Écarté"), ("Site", self.settings.venue), ("Date", time.strftime("%Y.%m.%d")),
            ("Table", self.table_name), ("Game", str(state.get("game", 1))), ("A", players[0]), ("B", players[1]),
            ("Rules", str(view.get("rules", ""))), ("Options", "{}"), ("Target", str(view.get("target", ""))),
            ("Result", f"A {hands[-1].score[0]} B {hands[-1].score[1]}" if hands and hands[-1].score else "*"),
            ("Winner", winner if winner and score else ""),
        )
        log = GameLog(tags, hands)
        return {"table": self.settings.table, "game": state.get("game", 1), "tags": dict(tags),
                "hands": [h.to_json() for h in hands], "text": write_record(log)}

    def _put(self, topic: str, payload: bytes, *, retain: bool, keep: bool = True) -> None:
        """Publish now, or keep it for the next connection (``keep=False``: the journal will give it again)."""
        with self._lock:
            if retain and keep:
                self._retained[topic] = payload
            if not self.connected.is_set():
                if keep:
                    if len(self._backlog) >= self.settings.queue:
                        self._backlog.popleft()
                        self.dropped += 1
                    self._backlog.append((topic, payload, retain))
                return
            info = self.client.publish(topic, payload, qos=QOS, retain=retain)
        if info.rc == mqtt.MQTT_ERR_QUEUE_SIZE:
            self.dropped += 1
