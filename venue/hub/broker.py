"""The venue's broker: who may connect, what each may publish, and the broker the hub runs.

Each table of the venue file's ``[tables] names`` gets a password (kept in the hub's
``secrets`` folder as ``<table>.pass``: give that file to the table as its ``[mqtt]
password_file``) and may publish under ``ecarte/<venue>/<table>/`` only, its last will
included. The hub connects as ``ecarte-hub``: it reads the venue's topics, and may clear a
retained ``state``, ``record`` or ``availability`` it refused (never a result). A dashboard
named in ``[tables] readers`` reads the venue's topics with its own password and publishes
nothing. Nobody connects without a user name, and a client's id is its user name (Mosquitto's
``use_username_as_clientid``): nobody but table-2 can be table-2, so nobody else can knock it off
by taking its id.

From these rules the hub writes Mosquitto's password file (``mosquitto_passwd -U`` when it
is installed, otherwise PBKDF2-SHA512 hashes in Mosquitto's ``$7$`` format written here)
and its ACL file, for its own Mosquitto (:func:`mosquitto_broker`) or the venue's.

    >>> rules = Rules("club", {"t1": "pw"}, hub_password="hp", readers={"dash": "dp"})
    >>> acl = parse_acl(acl_text(rules))
    >>> allowed(acl, "t1", "write", "ecarte/club/t1/state"), allowed(acl, "t1", "write", "ecarte/club/t2/state")
    (True, False)
    >>> allowed(acl, "t1", "write", "ecarte/club/t1/games/3"), allowed(acl, "t1", "write", "ecarte/club/t1/junk/1")
    (True, False)
    >>> allowed(acl, "dash", "write", "ecarte/club/t1/state"), allowed(acl, "dash", "read", "ecarte/club/t1/state")
    (False, True)
    >>> allowed(acl, "ecarte-hub", "write", "ecarte/club/t1/state"), allowed(acl, "ecarte-hub", "write",
    ...                                                                      "ecarte/club/t1/games/9")
    (True, False)
    >>> verify_password("pw", hash_password("pw")), verify_password("no", hash_password("pw"))
    (True, False)
"""

from __future__ import annotations

import base64
import contextlib
import functools
import getpass
import hashlib
import hmac
import logging
import os
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from venue.hub.trust import TOPIC_LEVEL
from venue.settings import MAX_KEEPALIVE

logger = logging.getLogger(__name__)

HUB_USER = "ecarte-hub"
"""The hub's user name on the broker (no table may take it)."""


def check_table_name(name: object) -> str:
    """A table's name as a topic level and a broker user.

    :raises ValueError: for a name with ``/``, ``#``, ``+``, spaces or other characters, or the hub's.
    """
    if not isinstance(name, str) or not TOPIC_LEVEL.match(name):
        raise ValueError(f"table name {name!r}: must be 1 to 64 letters, digits, '-' or '_' (one topic level; "
                         "no '/', '#' or '+')")
    if name == HUB_USER:
        raise ValueError(f"table name {name!r} is the hub's own")
    return name


def mosquitto_path() -> str | None:
    """Mosquitto's broker, if installed (Debian puts it in /usr/sbin)."""
    found = shutil.which("mosquitto")
    if found is None and os.access("/usr/sbin/mosquitto", os.X_OK):
        found = "/usr/sbin/mosquitto"
    return found


# -- the rules -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rules:
    """Who may do what on the venue's broker."""

    venue: str
    tables: dict[str, str]
    """Each table's name and password."""
    hub_password: str
    bridges: dict[str, str] = field(default_factory=dict)
    """Each room broker bridged into this one (Mosquitto's bridging), by name, with its password."""
    readers: dict[str, str] = field(default_factory=dict)
    """Each dashboard that may read the venue's topics (``[tables] readers``), with its password."""

    def users(self) -> dict[str, str]:
        """Every user name with its password."""
        return {HUB_USER: self.hub_password, **self.tables, **self.bridges, **self.readers}


def load_rules(venue: str, names: list[str], folder: Path, *, bridges: list[str] | None = None,
               readers: list[str] | None = None) -> Rules:
    """Every table's password from ``folder`` (``<name>.pass``), made there (mode 600) if missing,
    and the hub's (``ecarte-hub.pass``).

    :raises ValueError: for a name that cannot be a table's.
    :raises OSError: when the folder cannot be written.
    """
    for name in names:
        check_table_name(name)
    folder.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        folder.chmod(0o700)
    tables = {name: _secret(folder / f"{name}.pass") for name in names}
    rooms = {name: _secret(folder / f"{name}.pass") for name in bridges or []}
    dashboards = {name: _secret(folder / f"{name}.pass") for name in readers or []}
    return Rules(venue, tables, _secret(folder / f"{HUB_USER}.pass"), rooms, dashboards)


def _secret(path: Path) -> str:
    if path.exists():
        text = path.read_text(encoding="utf-8").strip()
        if text:
            return text
    text = secrets.token_urlsafe(24)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    return text


TABLE_TOPICS = ("state", "record", "availability", "event", "hand", "games/+")
"""What a table publishes (it reads its own topics: its ``availability`` comes back to it, :mod:`venue.table.mqtt`),
and all the broker lets it publish: Mosquitto keeps a retained message on any topic it accepts, with no
bound on their number, so a table granted ``<table>/#`` could pile up retained messages on subtopics
of its own (150 of 900 kB took the broker from 8 MB to 142 MB, and its database to 138 MB, back after a
restart)."""


def acl_text(rules: Rules) -> str:
    """Mosquitto's ACL file for the rules (no line for anonymous clients: they cannot connect).

    The hub may write a table's ``state``, ``record`` and ``availability`` (to clear a retained one it
    refused) and no result: a broker's ACL cannot look at a payload, so "only an empty one" could
    not be held to; a refused ``games/<n>`` stays on the broker and is refused again at each start."""
    base = f"ecarte/{rules.venue}"
    lines = ["# written by ecarte-table hub from the venue file: edits are lost at its next start", ""]
    lines += [f"user {HUB_USER}", f"topic read {base}/#"]
    lines += [f"topic write {base}/+/{kind}" for kind in ("state", "record", "availability")]
    for name in sorted(rules.tables):
        lines += ["", f"user {name}", f"topic read {base}/{name}/#"]
        lines += [f"topic write {base}/{name}/{kind}" for kind in TABLE_TOPICS]
    for name in sorted(rules.readers):
        lines += ["", "# a dashboard: reads the venue's topics, publishes nothing", f"user {name}",
                  f"topic read {base}/#"]
    for name in sorted(rules.bridges):
        lines += ["", "# a room's broker, bridged in: its own ACL holds each table to its topic", f"user {name}",
                  f"topic write {base}/#"]
    return "\n".join(lines) + "\n"


ITERATIONS = 101
"""Mosquitto's PBKDF2 iterations for ``$7$`` hashes (what ``mosquitto_passwd`` writes)."""


def hash_password(password: str, *, salt: bytes | None = None, iterations: int = ITERATIONS) -> str:
    """A password as Mosquitto stores it: ``$7$<iterations>$<salt>$<PBKDF2-SHA512>`` (base64)."""
    salt = salt if salt is not None else os.urandom(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, iterations)
    return f"$7${iterations}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def verify_password(password: str, stored: str) -> bool:
    """Whether ``password`` matches a ``$7$`` hash (``mosquitto_passwd``'s or :func:`hash_password`'s)."""
    try:
        _, kind, iterations, salt, digest = stored.split("$")
        if kind != "7":
            return False
        expected = base64.b64decode(digest)
        got = hashlib.pbkdf2_hmac("sha512", password.encode(), base64.b64decode(salt), int(iterations))
    except ValueError:
        return False
    return hmac.compare_digest(got, expected)


def write_password_file(path: Path, rules: Rules) -> None:
    """Mosquitto's password file for the hub and every table (mode 600)."""
    users = rules.users()
    tool = shutil.which("mosquitto_passwd")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        for user, password in users.items():
            f.write(f"{user}:{password if tool else hash_password(password)}\n")
    if tool:
        done = subprocess.run([tool, "-U", str(path)], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            logger.warning("mosquitto_passwd -U failed (%s): hashing the passwords here", done.stderr.strip())
            with path.open("w", encoding="utf-8") as f:
                for user, password in users.items():
                    f.write(f"{user}:{hash_password(password)}\n")


def read_password_file(path: Path) -> dict[str, str]:
    users: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        user, sep, stored = line.strip().partition(":")
        if sep and not user.startswith("#"):
            users[user] = stored
    return users


Acl = dict[str | None, list[tuple[str, str]]]


def parse_acl(text: str) -> Acl:
    """An ACL file's ``topic`` lines by user (None: anonymous clients)."""
    acl: Acl = {None: []}
    user: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        if word == "user":
            user = rest.strip()
            acl.setdefault(user, [])
        elif word == "topic":
            access, _, topic = rest.strip().partition(" ")
            if access not in ("read", "write", "readwrite", "deny"):
                access, topic = "readwrite", rest.strip()
            acl[user].append((access, topic.strip()))
    return acl


def _covers(pattern: str, topic: str) -> bool:
    """Whether the filter ``pattern`` covers ``topic`` (a topic, or a subscription's filter)."""
    want, have = pattern.split("/"), topic.split("/")
    for i, level in enumerate(want):
        if level == "#":
            return not (i == 0 and have[0].startswith("$"))
        if i >= len(have):
            return False
        if level == "+":
            if have[i] == "#" or (i == 0 and have[0].startswith("$")):
                return False
            continue
        if level != have[i]:
            return False
    return len(want) == len(have)


def allowed(acl: Acl, user: str | None, access: str, topic: str) -> bool:
    """Whether ``user`` may ``read`` (subscribe, receive) or ``write`` (publish) ``topic``."""
    rules = acl.get(user, [])
    if any(a == "deny" and _covers(t, topic) for a, t in rules):
        return False
    return any(a in (access, "readwrite") and _covers(t, topic) for a, t in rules)


# -- Mosquitto, run by the hub ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BrokerFiles:
    """The files the hub writes for its broker, in its ``broker`` folder."""

    folder: Path
    password_file: Path
    acl_file: Path


def write_broker_files(folder: Path, rules: Rules) -> BrokerFiles:
    folder.mkdir(parents=True, exist_ok=True)
    files = BrokerFiles(folder, folder / "passwd", folder / "acl")
    write_password_file(files.password_file, rules)
    files.acl_file.write_text(acl_text(rules), encoding="utf-8")
    return files


@dataclass(frozen=True, slots=True)
class Tls:
    certfile: str
    keyfile: str
    port: int
    cafile: str | None = None


def _shared_conf(files: BrokerFiles, rules: Rules) -> list[str]:
    """What the hub's Mosquitto and a room's say alike: the user it runs as, who may connect and do
    what (the rules' files), and where it keeps its messages."""
    return [
        f"user {getpass.getuser()}",
        "per_listener_settings false",
        "allow_anonymous false",
        f"password_file {files.password_file}",
        f"acl_file {files.acl_file}",
        "persistence true",
        f"persistence_location {files.folder}/",
    ]


MAX_PACKET_BYTES = 1024 * 1024
"""Mosquitto's ``max_packet_size``: a whole MQTT packet, topic and headers included, at most this many
bytes, twice the largest payload the hub accepts (a record or a result, :data:`venue.hub.trust.MAX_RECORD_BYTES`).
mosquitto.conf(5): "If a client sends a packet which is larger than this value, it will be
disconnected. This applies to all clients regardless of the protocol version"; nothing of it is kept."""

MAX_QUEUED_BYTES = 8 * 1024 * 1024
"""Mosquitto's ``max_queued_bytes``: the bytes of QoS 1 messages waiting for one client beyond those in
flight, at most (mosquitto.conf(5): "Once this limit has been reached, subsequent messages will be
silently dropped"): a dashboard subscribed at QoS 1 that never reads costs the broker this much at most.
A reader keeps a QoS 1 session of 8 MB of states (several thousand) while away."""

MAX_QUEUED_MESSAGES = 100_000
"""Mosquitto's ``max_queued_messages``: QoS 1 messages waiting for one client, at most. In Mosquitto
2.0.11 it also bounds the QoS 0 packets waiting to be written to a client (``db__ready_for_flight``
counts ``out_packet_count`` against it): the hub reads at QoS 0, and takes every retained state,
record and result at its start (an evening's results of every table at once), so it stays this high."""

MAX_INFLIGHT_MESSAGES = 100
"""Mosquitto's ``max_inflight_messages``: QoS 1 messages sent to one client and not yet acknowledged."""

MAX_INFLIGHT_BYTES = 1024 * 1024
"""Mosquitto's ``max_inflight_bytes``: the bytes of those, at most (mosquitto.conf(5): "Outgoing QoS 1
and 2 messages will be allowed in flight until this byte limit is reached", a message larger than it
still goes, alone). Without it a reader that does not read holds 100 messages in flight, 100 MB of
packets at the largest (:data:`MAX_PACKET_BYTES`), beyond :data:`MAX_QUEUED_BYTES`."""

CONNECTIONS_SPARE = 64
"""Connections a listener of the hub's Mosquitto takes beyond two for each user of the rules: a
table reconnecting before its old connection is gone, the director's tools."""

DESCRIPTORS_KEPT = 32
"""Descriptors Mosquitto keeps for itself (its listeners, its database, its log) below its limit."""


def connection_cap(rules: Rules, descriptors: int | None = None) -> int:
    """Mosquitto's ``max_connections`` for each listener of the hub's broker: two for each user (tables,
    readers, bridges, the hub) and :data:`CONNECTIONS_SPARE`, and below the descriptors it may open
    (``descriptors``, the soft ``RLIMIT_NOFILE`` it inherits from the hub by default), so that a burst of
    connections is refused at the door (mosquitto.conf(5), *max_connections*: "Limit the total number of
    clients connected for the current listener"; Mosquitto 2.0.11 closes one past it as soon as it is
    accepted, ``net__socket_accept``) instead of taking every descriptor. A connection that sends no
    CONNECT is closed after 90 s (Mosquitto's default keep-alive of 60 s, 1.5 times).

        >>> rules = Rules("club", {"t1": "pw", "t2": "pw"}, hub_password="hp", readers={"dash": "dp"})
        >>> connection_cap(rules, descriptors=8192), connection_cap(rules, descriptors=64)
        (72, 32)
    """
    if descriptors is None:
        descriptors = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    wanted = 2 * len(rules.users()) + CONNECTIONS_SPARE
    if descriptors == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, descriptors - DESCRIPTORS_KEPT))


def mosquitto_conf(files: BrokerFiles, rules: Rules, host: str, port: int, tls: Tls | None = None) -> str:
    """The configuration of the hub's own Mosquitto, with Mosquitto's own limits (each one's constant
    says what it holds and why)."""
    cap = connection_cap(rules)
    lines = [
        "# written by ecarte-table hub at each start",
        *_shared_conf(files, rules),
        "autosave_interval 30",
        f"max_queued_messages {MAX_QUEUED_MESSAGES}",
        f"max_queued_bytes {MAX_QUEUED_BYTES}",
        f"max_inflight_messages {MAX_INFLIGHT_MESSAGES}",
        f"max_inflight_bytes {MAX_INFLIGHT_BYTES}",
        f"max_packet_size {MAX_PACKET_BYTES}",
        f"max_keepalive {MAX_KEEPALIVE}",
        "log_dest stderr",
        "log_type error",
        "log_type warning",
        f"listener {port} {host}",
        "use_username_as_clientid true",
        f"max_connections {cap}",
    ]
    if tls is not None:
        lines += [f"listener {tls.port} {host}", "use_username_as_clientid true", f"max_connections {cap}",
                  f"certfile {tls.certfile}", f"keyfile {tls.keyfile}"]
        if tls.cafile:
            lines.append(f"cafile {tls.cafile}")
    return "\n".join(lines) + "\n"


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def in_use(host: str, port: int) -> bool:
    """Something listens on ``host:port`` (a connection is accepted within 0.3 s)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.settimeout(0.3)
        return sock.connect_ex((host, port)) == 0


def wait_listening(host: str, port: int, timeout: float, alive: Any = None) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if alive is not None and not alive():
            return False
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
            s.settimeout(0.5)
            if s.connect_ex((host, port)) == 0:
                return True
        time.sleep(0.02)
    return False


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """The child gets SIGTERM when the hub dies, even by kill -9 (Linux's PR_SET_PDEATHSIG)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)


def _child_setup(descriptors: int | None) -> None:  # pragma: no cover - runs in the child between fork and exec
    """In the child: :func:`_die_with_parent`, and at most ``descriptors`` open files (None: the hub's limit)."""
    _die_with_parent()
    if descriptors is not None:
        # lowering a limit needs no privilege; glibc makes it the prlimit64 system call, which
        # systemd's @default set allows (ecarte-hub.service filters @resources, whose setrlimit it is not)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (descriptors, descriptors))


@dataclass
class Supervised:
    """A broker in a process of its own, restarted if it dies (at most ``restarts`` times a minute).

    ``command`` is run as is; the broker is up when ``host:port`` accepts connections."""

    command: list[str]
    host: str
    port: int
    name: str
    log: Path | None = None
    """Where the broker's own messages go (appended; its last lines are quoted when it fails)."""
    restarts: int = 5
    descriptors: int | None = None
    """The files the broker may open, at most (its ``RLIMIT_NOFILE``; None: the hub's own limit)."""
    proc: subprocess.Popen[bytes] | None = None
    _stopping: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _starts: list[float] = field(default_factory=list)

    def start(self, timeout: float = 15.0) -> None:
        """Start and wait until it listens. The broker is started, and restarted, from one thread that
        lives as long as the supervision: Linux ends the broker when that thread's process dies.

        :raises OSError: when it does not listen.
        """
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and wait_listening(self.host, self.port, 0.1):
            time.sleep(0.2)  # a broker of ours that the system is still ending (the hub killed and restarted)
        spawned = threading.Event()
        self._thread = threading.Thread(target=self._watch, args=(spawned,), name=f"watch-{self.name}", daemon=True)
        self._thread.start()
        spawned.wait(timeout)
        if not wait_listening(self.host, self.port, timeout, alive=lambda: self.proc and self.proc.poll() is None):
            self._stopping.set()
            err = self._stop_proc()
            raise OSError(f"{self.name} does not listen on {self.host}:{self.port}: {err or 'no answer'}")

    def _spawn(self) -> None:
        self._starts = [t for t in self._starts if t > time.monotonic() - 60] + [time.monotonic()]
        err: Any = subprocess.DEVNULL
        if self.log is not None:
            err = self.log.open("ab")
        try:
            # a session of its own: a Ctrl-C at the hub's terminal is the hub's to handle (it stops the
            # broker), not the broker's too (it stopped first, and the hub said "restarting it")
            self.proc = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=err, stderr=err,
                                         preexec_fn=functools.partial(_child_setup, self.descriptors)
                                         if sys.platform == "linux" else None,
                                         start_new_session=True)
        finally:
            if self.log is not None:
                err.close()

    def _tail(self) -> str:
        if self.log is None or not self.log.exists():
            return ""
        with self.log.open("rb") as f:
            f.seek(max(0, self.log.stat().st_size - 300))
            return f.read().decode(errors="replace").strip()

    def _watch(self, spawned: threading.Event) -> None:
        try:
            self._spawn()
        finally:
            spawned.set()
        while not self._stopping.is_set():
            proc = self.proc
            if proc is None:
                return
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(0.5)
            if proc.poll() is not None and not self._stopping.is_set():
                err = self._tail()
                if len(self._starts) >= self.restarts:
                    logger.error("%s keeps stopping (%s): not restarted", self.name, err)
                    return
                logger.warning("%s stopped (status %s, %s): restarting it", self.name, proc.returncode, err)
                self._spawn()
                wait_listening(self.host, self.port, 10)
        # the broker ends with this thread (PR_SET_PDEATHSIG): stop() has stopped it already

    def _stop_proc(self) -> str:
        proc, self.proc = self.proc, None
        if proc is None:
            return ""
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        return self._tail()

    def stop(self) -> None:
        """Stop (safe to call twice)."""
        self._stopping.set()
        self._stop_proc()
        if self._thread is not None:
            self._thread.join(5)

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None


def room_conf(files: BrokerFiles, rules: Rules, room: str, central: tuple[str, int],
              listen: tuple[str, int] = ("0.0.0.0", 1883)) -> str:
    """The configuration of a room's Mosquitto bridged into the hub's (Mosquitto's own bridging):
    the room's tables connect to it with the same passwords and ACL; it forwards the venue's
    topics to the hub's broker (``out``, QoS 1), keeping them while the hub's broker is away.
    Its folder is ``files.folder`` (the hub's ``broker/bridges/<room>/``, copied to the room's machine)."""
    host, port = central
    lines = [
        f"# the room {room}'s broker, bridged into the hub's at {host}:{port}: written by ecarte-table hub",
        "# the user it runs as, who must read this folder (mosquitto started as root switches to it)",
        *_shared_conf(files, rules),
        "max_queued_messages 100000",
        f"listener {listen[1]} {listen[0]}",
        "use_username_as_clientid true",
        "",
        f"connection {room}",
        f"address {host}:{port}",
        f"remote_username {room}",
        f"remote_password {rules.bridges[room]}",
        f"remote_clientid ecarte-bridge-{room}",
        "bridge_protocol_version mqttv311",
        "cleansession false",
        "notifications false",
        "restart_timeout 1 10",
        f"topic ecarte/{rules.venue}/# out 1",
    ]
    return "\n".join(lines) + "\n"


def write_room_files(folder: Path, rules: Rules, room: str, central: tuple[str, int],
                     listen: tuple[str, int] = ("0.0.0.0", 1883)) -> Path:
    """A room's folder (``mosquitto.conf``, ``passwd``, ``acl``); its configuration file."""
    files = write_broker_files(folder, rules)
    conf = folder / "mosquitto.conf"
    conf.write_text(room_conf(files, rules, room, central, listen), encoding="utf-8")
    os.chmod(conf, 0o600)
    return conf


def mosquitto_broker(files: BrokerFiles, rules: Rules, host: str, port: int, tls: Tls | None = None) -> Supervised:
    """The hub's own Mosquitto (not started)."""
    exe = mosquitto_path()
    if exe is None:
        raise OSError("Mosquitto is not installed")
    conf = files.folder / "mosquitto.conf"
    conf.write_text(mosquitto_conf(files, rules, host, port, tls), encoding="utf-8")
    # its own limit of descriptors a little above its connections: Mosquitto 2.0.11 (Debian 12's) counts
    # max_connections wrong once clients have left (each leaving is counted twice, so the cap is soon
    # never reached: fixed in 2.0.12, eclipse/mosquitto 79542158); past this limit it takes each new
    # connection on a spare descriptor and closes it at once (net__socket_accept), and the hub's own
    # descriptors are the hub's
    return Supervised([exe, "-c", str(conf)], host, port, "mosquitto", files.folder / "mosquitto.log",
                      descriptors=connection_cap(rules) + DESCRIPTORS_KEPT)
