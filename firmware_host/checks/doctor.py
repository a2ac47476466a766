"""``ecarte-table doctor``: check a table's file and hardware, and say how to fix it.

:func:`run_checks` returns one :class:`Check` per thing it looked at: the
table file, the tag registry, each pad's reader, each display, the buttons'
pin backend, the voice (espeak-ng, the speaker, the earpieces) and the user's
groups. Simulated devices pass without being touched, so the simulated table
passes anywhere::

    >>> from hardware.table import simulated_table
    >>> all(check.ok for check in run_checks(simulated_table()))
    True

Run it while the service is stopped (``sudo systemctl stop ecarte-table``):
a reader the service holds open does not answer anyone else. The hardware
probes (nfcpy, smbus2, the pin backends) are imported late and injected
keyword-only, so this module imports anywhere and tests fake them.
"""

from __future__ import annotations

import errno
import grp
import logging
import os
import pwd
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from catalogue import moment, os_reason, say, say_n
from catalogue.phrase import said
from drivers.device_events import Origin
from firmware_host.checks.serial_adapters import SerialAdapter, adapter_of, serial_adapters
from hardware.table import (
    DisplayConfig,
    PadConfig,
    TableConfig,
    TableFileError,
    load_table,
)

logger = logging.getLogger(__name__)

INSTALLED_TABLE = Path("/etc/ecarte-table/table.toml")


def _say(lang: str, key: str, /, **values: Any) -> str:
    """The doctor's words ``doctor.<key>`` in ``lang``."""
    return say(lang, "doctor." + key, **values)


def _usermod(lang: str, group: str, user: str) -> str:
    return _say(lang, "usermod", group=group, user=user)


@dataclass(frozen=True, slots=True)
class Check:
    """One thing the doctor looked at: ``ok``, what it saw, and how to fix it (worded in the
    language the checks ran in)."""

    name: str
    ok: bool
    detail: str
    fix: str = ""

    def line(self, lang: str = "en") -> str:
        """The check as the report prints it, its verdict and the advice in ``lang``: one line, two with the fix."""
        marks = (_say(lang, "mark_ok"), _say(lang, "mark_fail"))
        width = max(map(len, marks))
        text = f"[{marks[0 if self.ok else 1].ljust(width)}] {self.name}: {self.detail}"
        return f"{text}\n{' ' * (width + 3)}{_say(lang, 'fix', fix=self.fix)}" if self.fix and not self.ok else text

    def __str__(self) -> str:
        return self.line()


ReaderProbe = Callable[[PadConfig], str]
DisplayProbe = Callable[[int, int], None]
FactoryMaker = Callable[[str], Any]
SoundProbe = Callable[[str], None]
SpeechFinder = Callable[[], str | None]

_SILENCE = (b"RIFF" + (36 + 1102).to_bytes(4, "little") + b"WAVEfmt " + (16).to_bytes(4, "little")
            + (1).to_bytes(2, "little") + (1).to_bytes(2, "little") + (22050).to_bytes(4, "little")
            + (44100).to_bytes(4, "little") + (2).to_bytes(2, "little") + (16).to_bytes(2, "little")
            + b"data" + (1102).to_bytes(4, "little") + bytes(1102))
"""25 ms of silence, 16-bit mono at 22050 Hz: what the doctor plays to see a sound device open."""


def espeak_version() -> str | None:
    """``espeak-ng --version``'s first words, or None when it is not installed."""
    import shutil
    import subprocess

    program = shutil.which("espeak-ng")
    if program is None:
        return None
    done = subprocess.run([program, "--version"], capture_output=True, timeout=10, check=False)
    said = " ".join(done.stdout.decode("utf-8", "replace").split("Data at")[0].split())
    return said or program


def probe_sound(device: str) -> None:
    """Play a moment of silence on the ALSA ``device`` (``aplay -D``).

    :raises OSError: aplay is missing, or the device does not open (its message).
    """
    import subprocess

    try:
        done = subprocess.run(["aplay", "-q", "-D", device, "-"], input=_SILENCE, capture_output=True,
                              timeout=10, check=False)
    except FileNotFoundError:
        raise OSError(errno.ENOENT, "aplay is not installed") from None
    except subprocess.TimeoutExpired:
        raise OSError(errno.ETIMEDOUT, "aplay did not finish within 10 s") from None
    if done.returncode != 0:
        raise OSError(errno.EIO, done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:][0]
                      if done.stderr.strip() else f"aplay failed ({done.returncode})")


LINK_LISTINGS = 40
"""Listings the doctor asks of each serial reader, as a pad polls: a link that loses or garbles
frames (a loose cable, a long one beside the mains) shows as frames retried."""


def read_reader_firmware(pad: PadConfig, listings: int = LINK_LISTINGS) -> str:
    """Open the pad's PN532 with nfcpy and return its chipset (``PN532v1.6``), and for a serial
    reader how its link held while it listed the tags on it ``listings`` times as the pads do
    (``PN532v1.6 (0 frames retried of 84 in 40 listings)``).

    Serial readers are opened on the resolved ``/dev`` node (so nfcpy's longer
    first wait for ``ttyUSB`` adapters on a Pi applies to udev symlinks too);
    USB readers through ``nfc.ContactlessFrontend``.

    :raises OSError: when the port cannot be opened or the chip does not answer (three listings in
        a row failed: a pad would call it offline).
    """
    import nfc
    import nfc.clf.transport

    port = pad.serial_port
    if port is None:
        frontend = nfc.ContactlessFrontend(pad.device)
        try:
            return str(frontend.device.chipset_name)
        finally:
            frontend.close()
    from drivers.nfc import hsu

    transport = nfc.clf.transport.TTY(hsu.node(port))
    try:
        hsu.wake_up(transport)  # the service's close left the chip in PowerDown
        device = hsu.init_at(transport, hsu.FAST)  # nfcpy's init, its stty probe without a shell
    except BaseException:
        transport.close()
        raise
    try:
        firmware = str(device.chipset_name)
    finally:
        device.close()
    return f"{firmware} ({_link(port, listings)})"


def _link(port: str, listings: int) -> str:
    """The frames a pad's own reader (:class:`~drivers.nfc.pn532_reader.NfcpyReader`) sent and retried
    listing the tags on ``port`` ``listings`` times; a failed listing is tried again, as a pad does.

    :raises OSError: three listings in a row failed.
    """
    from drivers.nfc.pn532_reader import NfcpyReader
    from drivers.nfc.reader import READER_ERRORS

    reader = NfcpyReader(port)
    try:
        failed = 0
        for _ in range(listings):
            try:
                reader.poll()
                failed = 0
            except READER_ERRORS as exc:
                failed += 1
                if failed == 3:
                    raise OSError(errno.EIO, f"three listings in a row failed ({reader.frames}): {exc}") from exc
                reader.resync()
    finally:
        reader.close()
    return f"{reader.frames} in {listings} listings"


def probe_display(bus: int, address: int) -> None:
    """Open ``/dev/i2c-<bus>`` with smbus2 and read one byte from ``address``.

    :raises ImportError: when smbus2 is not installed.
    :raises OSError: when the bus cannot be opened or nothing answers.
    """
    from smbus2 import SMBus

    with SMBus(bus) as smbus:
        smbus.read_byte(address)


def current_groups() -> set[str]:
    """The names of the groups this process runs with."""
    names: set[str] = set()
    for gid in {os.getgid(), *os.getgroups()}:
        try:
            names.add(grp.getgrgid(gid).gr_name)
        except KeyError:
            names.add(str(gid))
    return names


def _user() -> str:
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return str(os.getuid())


def _make_factory(backend: str) -> Any:
    from drivers.pin_backends import make_pin_factory

    return make_pin_factory(backend)


def _choose_pins(backend: str) -> Any:
    from drivers.pin_backends import choose_backend

    return choose_backend(backend)


def run_checks(
    table: str | Path | TableConfig,
    *,
    read_reader: ReaderProbe = read_reader_firmware,
    probe_i2c: DisplayProbe = probe_display,
    make_factory: FactoryMaker = _make_factory,
    choose_pins: Callable[[str], Any] = _choose_pins,
    find_espeak: SpeechFinder = espeak_version,
    play_sound: SoundProbe = probe_sound,
    groups: Callable[[], set[str]] = current_groups,
    user: Callable[[], str] = _user,
    is_root: Callable[[], bool] = lambda: os.geteuid() == 0,
    dev: Path = Path("/dev"),
    lang: str | None = None,
) -> list[Check]:
    """Check a table file (or a loaded table) and the hardware it names, in ``lang``'s words (None:
    the table's language; English for a table file that does not load).

    Never raises for a failing device: every failure is a :class:`Check` with
    ``ok=False`` and a ``fix``. A table file that does not load gives that one
    failing check only. ``dev`` is where device nodes are looked up (tests
    point it at a folder of their own).
    """
    if isinstance(table, TableConfig):
        config = table
        lang = lang or config.language
        where = str(table.source) if table.source else _say(lang, "the_table")
        checks = [Check(_say(lang, "table_file"), True, f"{where}: {_summary(config, lang)}")]
    else:
        path = Path(table)
        try:
            config = load_table(path)
        except TableFileError as exc:
            lang = lang or exc.language or "en"
            return [Check(_say(lang, "table_file"), False, f"{path}: {said(exc.listing, lang)}",
                          _say(lang, "edit_table", path=path))]
        except OSError as exc:
            lang = lang or "en"
            return [Check(_say(lang, "table_file"), False,
                          _say(lang, "cannot_read", path=path, why=_describe(exc, lang)),
                          _say(lang, "copy_table", path=path))]
        lang = lang or config.language
        checks = [Check(_say(lang, "table_file"), True, f"{path}: {_summary(config, lang)}")]

    checks.append(_check_registry(config, lang))
    checks.append(_check_badges(config, lang))
    if config.registry is not None or config.tags.deck_check_first:
        checks.append(_check_deck(config, lang))
    spare = _spare_adapters(config, dev)
    checks += [_check_reader(pad, read_reader, dev, lang, spare) for pad in config.pads]
    checks += [_check_display(i, d, probe_i2c, dev, lang) for i, d in enumerate(config.displays)]
    checks.append(_check_buttons(config, make_factory, lang, choose_pins))
    if config.voice.enabled:
        checks += _check_voice(config, find_espeak, play_sound, lang)
    checks.append(_check_groups(config, groups(), user(), is_root(), lang))
    for check in checks:
        logger.debug("%s", check)
    return checks


def refusal(table: TableConfig, lang: str = "en") -> str | None:
    """Why the service must not start on ``table``: the first line of doctor's that fails among
    the checks of the configuration (the tag registry against the ``[tags]`` policy, the badges
    file, ``deck_check_first`` without a registry), in ``lang``, or ``None``.

    The hardware checks (readers, displays, pins, groups) are not among them: the service waits
    for a reader that is unplugged, and says so on the OLED.
    """
    failed = [check for check in (_check_registry(table, lang), _check_badges(table, lang), _check_deck(table, lang))
              if not check.ok]
    return failed[0].line(lang) if failed else None


@dataclass(frozen=True, slots=True)
class Refused:
    """The :func:`refusal` of ``table``, said in a reader's language where it is printed."""

    table: TableConfig

    def said(self, lang: str) -> str:
        """The failing check's line in ``lang`` (empty when none fails)."""
        return refusal(self.table, lang) or ""


def report_language(table: str | Path | TableConfig, given: str | None = None) -> str:
    """The language of the report on ``table``: ``given``, else the table's (a table file that does not
    load: the language it names, if it names one the table speaks; else English)."""
    if given is not None:
        return given
    if isinstance(table, TableConfig):
        return table.language
    try:
        return load_table(Path(table)).language
    except TableFileError as exc:
        return exc.language or "en"
    except OSError:
        return "en"


def all_ok(checks: Iterable[Check]) -> bool:
    """Whether every check passed (the CLI's exit status)."""
    return all(check.ok for check in checks)


def format_checks(checks: Iterable[Check], lang: str = "en") -> str:
    """The checks as the CLI prints them, one (or two, with the fix) lines each, verdicts in ``lang``."""
    checks = list(checks)
    failed = sum(not check.ok for check in checks)
    summary = _say(lang, "all_passed") if not failed else say_n(lang, "doctor.some_failed", failed, total=len(checks))
    return "\n".join([*(check.line(lang) for check in checks), summary])


# ---------------------------------------------------------------------------


def _when(lang: str, iso: str) -> str:
    """The deck log's moment (ISO 8601) as ``lang`` writes a date, or as it is if it is not one."""
    try:
        return moment(lang, iso)
    except ValueError:
        return iso


def _summary(config: TableConfig, lang: str) -> str:
    return _say(lang, "summary", name=repr(config.name), layout=_say(lang, "layout." + config.layout),
                sight=say(lang, "demo.sight." + config.sight), pads=len(config.pads),
                displays=say_n(lang, "count.displays", len(config.displays)),
                backend=config.buttons.backend)


def _depth(pad: PadConfig, lang: str) -> str:
    return say_n(lang, "doctor.depth", pad.depth)


def _check_registry(config: TableConfig, lang: str = "en") -> Check:
    from hardware.tag_registry import TagRegistry, TagRegistryError

    name = _say(lang, "registry")
    if config.registry is None:
        return Check(name, True, _say(lang, "registry_none"))
    path = config.registry
    try:
        registry = TagRegistry.load(path)
    except FileNotFoundError:
        return Check(name, False, _say(lang, "missing", path=path), _say(lang, "enrol_cards"))
    except PermissionError:
        return Check(name, False, _say(lang, "not_readable", path=path, user=_user()),
                     f"sudo chown ecarte: {path}; sudo chmod 0640 {path}")
    except (OSError, TagRegistryError) as exc:
        why = said(exc, lang)
        return Check(name, False, f"{path}: {why}", _say(lang, "fix_registry"))
    problems = _audit_registry(config, registry, lang)
    if problems:
        shown = "; ".join(problems[:5]) + (_say(lang, "and_more", n=len(problems) - 5) if len(problems) > 5 else "")
        return Check(name, False, f"{path}: {shown}", _say(lang, "enrol_again"))
    genuine = sum(entry.origin == Origin.GENUINE for entry in registry)
    locked = sum(entry.locked for entry in registry)
    limits = sorted({entry.auth_limit for entry in registry if entry.locked})
    limit = _say(lang, "auth_limit", n=limits[0]) if len(limits) == 1 and locked else ""
    sealed = sum(entry.seal is not None for entry in registry)
    more = limit + (_say(lang, "sealed", n=sealed) if sealed else "")
    return Check(name, True, _say(lang, "registry_ok", path=path, n=len(registry), genuine=genuine, locked=locked,
                                  more=more))


def _check_deck(config: TableConfig, lang: str = "en") -> Check:
    """When each registered pack last passed the deck check: a reminder for a pack never checked."""
    from hardware.deck_log import last_checks
    from hardware.tag_registry import TagRegistry, TagRegistryError

    name = _say(lang, "deck")
    first = _say(lang, "deck_first") if config.tags.deck_check_first else ""
    if config.registry is None and not config.tags.deck_check_first:
        return Check(name, True, _say(lang, "deck_no_registry"))
    if config.registry is None:
        return Check(name, False, _say(lang, "deck_needs_registry"), _say(lang, "enrol_packs"))
    try:
        packs = sorted({entry.pack for entry in TagRegistry.load(config.registry)})
    except (OSError, TagRegistryError):
        return Check(name, True, _say(lang, "deck_unreadable"))
    done = last_checks(config.registry)
    said = [_say(lang, "pack_checked", pack=p, when=_when(lang, done[p])) if p in done
            else _say(lang, "pack_never", pack=p)
            for p in packs]
    return Check(name, True, "; ".join(said or [_say(lang, "no_pack")]) + first)


def _check_badges(config: TableConfig, lang: str = "en") -> Check:
    from hardware.badges import Badges, badges_path
    from hardware.tag_registry import TagRegistryError

    name = _say(lang, "badges")
    path = badges_path(config)
    if path is None or not path.exists():
        return Check(name, True, _say(lang, "badges_none"))
    try:
        badges = Badges.load(path)
    except TagRegistryError as exc:
        return Check(name, False, said(exc, lang), _say(lang, "enrol_badges"))
    return Check(name, True, _say(lang, "badges_ok", path=path, n=len(badges.tags)))


def _audit_registry(config: TableConfig, registry: Any, lang: str = "en") -> list[str]:
    """The registry's problems against the table's [tags] policy (hardware/registry_audit.py), in ``lang``."""
    from hardware import locks, ntag_signature
    from hardware.registry_audit import audit_registry

    policy = config.tags
    try:
        key = ntag_signature.trusted_key(policy.key_name(config.simulated_pads))
    except ntag_signature.OriginalityError as exc:
        return [say(lang, "error.trusted_key", why=said(exc, lang))]
    problems = []
    lock_id = secret = None
    if policy.lock_secret_file is not None:
        try:
            secret = locks.load_secret(policy.lock_secret_file)
            lock_id = locks.lock_id(secret)
        except locks.LockSecretError as exc:
            problems.append(said(exc, lang))
    problems += [said(problem, lang) for problem in audit_registry(
        registry, key, require_signature=policy.require_signature, lock_id=lock_id, ndef_pack=policy.ndef_pack,
        secret=secret)]
    return problems


def _dev_path(port: str, dev: Path) -> Path:
    """``/dev/ttyUSB0`` under ``dev`` (tests give a folder of their own)."""
    return dev / port.removeprefix("/dev/") if port.startswith("/dev/") else Path(port)


def _spare_adapters(config: TableConfig, dev: Path) -> tuple[SerialAdapter, ...]:
    """The USB-serial adapters plugged in (udev's ``/dev/serial``) that no pad of the table names."""
    found = serial_adapters(dev)
    named = {adapter.node for pad in config.pads if pad.serial_port
             if (adapter := adapter_of(pad.serial_port, dev)) is not None}
    return tuple(adapter for node, adapter in found.items() if node not in named)


def _where(adapter: SerialAdapter, lang: str) -> str:
    """Which adapter: its node, the USB port it is plugged into, its own name (``by-id``)."""
    parts = [adapter.node]
    if adapter.usb_port is not None:
        parts.append(_say(lang, "usb_port", port=adapter.usb_port))
    if adapter.by_id is not None:
        parts.append(adapter.by_id)
    return ", ".join(parts)


def _check_reader(
    pad: PadConfig, read_reader: ReaderProbe, dev: Path, lang: str = "en", spare: tuple[SerialAdapter, ...] = ()
) -> Check:
    """One pad's reader; for a serial one, which adapter it is (the node, the USB port, the adapter's
    own name: :mod:`firmware_host.checks.serial_adapters`), and where its port is missing, the adapters
    plugged in that no pad names (``spare``)."""
    name = _say(lang, "reader", pad=pad.name)
    if pad.simulated:
        return Check(name, True, _say(lang, "simulated_reader", depth=_depth(pad, lang)))
    port = pad.serial_port
    adapter = None if port is None else adapter_of(port, dev)
    if port is not None:
        node = _dev_path(port, dev)
        if not node.exists():
            fix = _missing_port_fix(port, lang)
            if spare:
                fix = _say(lang, "spare_adapters", fix=fix,
                           adapters="; ".join(f"/dev/serial/by-path/{a.by_path}" if a.by_path else a.node
                                              for a in spare))
            return Check(name, False, _say(lang, "missing_device", path=port, device=pad.device), fix)
        if not os.access(node, os.R_OK | os.W_OK):
            refused = _open_errno(node)
            if refused == errno.EPERM:  # the device cgroup (a unit's DevicePolicy=), not the node's mode
                return Check(name, False, f"{port}: {os_reason(lang, OSError(refused, ''))}",
                             _say(lang, "device_policy"))
            return Check(name, False, _say(lang, "no_access", path=port, user=_user()),
                         _usermod(lang, "dialout", _user()))
    try:
        firmware = read_reader(pad)
    except ImportError as exc:
        return Check(name, False, _say(lang, "nfcpy_missing", why=exc), _say(lang, "pip_pi"))
    except Exception as exc:
        # Whatever goes wrong with one reader is reported, and the doctor goes
        # on to the next one: that is its whole point.
        logger.debug("reader %s: %r", pad.name, exc, exc_info=True)
        failed = f"{pad.device}: {_describe(exc, lang)}"
        if adapter is not None:
            failed = _say(lang, "reader_adapter", reader=failed, where=_where(adapter, lang))
        return Check(name, False, failed, _reader_fix(pad, exc, lang))
    said = _say(lang, "reader_ok", device=pad.device, firmware=firmware, depth=_depth(pad, lang))
    if adapter is not None:
        said = _say(lang, "reader_adapter", reader=said, where=_where(adapter, lang))
    return Check(name, True, said)


def _open_errno(node: Path) -> int | None:
    """Why ``node`` does not open for reading and writing: EACCES is its mode (a group missing), EPERM
    the kernel's device cgroup, which ``access()`` obeys too (systemd's ``DeviceAllow=``); None if it opens."""
    try:
        fd = os.open(node, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError as exc:
        return exc.errno
    os.close(fd)
    return None


def _missing_port_fix(port: str, lang: str) -> str:
    if port.startswith("/dev/serial/by-path/"):
        return _say(lang, "plug_usb_port", port=port)
    if "ttyUSB" in port or "ttyACM" in port or port.startswith("/dev/serial/by-id/"):
        return _say(lang, "plug_usb_serial")
    if port in ("/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0"):
        return _say(lang, "enable_uart")
    return _say(lang, "check_path", port=port)


def _reader_fix(pad: PadConfig, exc: BaseException, lang: str) -> str:
    code = getattr(exc, "errno", None)
    if code == errno.EPERM and pad.serial_port is not None:
        # the device cgroup's refusal (a unit's DevicePolicy=), not the node's mode: no group mends it
        return _say(lang, "device_policy")
    if code == errno.EACCES:
        return _usermod(lang, "dialout", _user())
    if code == errno.EBUSY:
        return _say(lang, "port_busy")
    if pad.device.startswith("usb"):
        return _say(lang, "check_usb")
    return _say(lang, "pn532_silent")


def _check_display(index: int, display: DisplayConfig, probe: DisplayProbe, dev: Path, lang: str = "en") -> Check:
    name = _say(lang, "display_seat", n=index, seat=display.seat) if display.seat else _say(lang, "display", n=index)
    if display.simulated:
        return Check(name, True, _say(lang, "simulated_display", chip=display.chip))
    path = display.device_path or ""
    node = _dev_path(path, dev)
    if not node.exists():
        return Check(name, False, _say(lang, "missing", path=path), _say(lang, "enable_i2c"))
    if not os.access(node, os.R_OK | os.W_OK):
        return Check(name, False, _say(lang, "no_access", path=path, user=_user()), _usermod(lang, "i2c", _user()))
    try:
        probe(int(display.bus), display.address)
    except ImportError:
        return Check(name, False, _say(lang, "no_smbus"), _say(lang, "pip_smbus"))
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM):
            return Check(name, False, f"{path}: {_describe(exc, lang)}", _usermod(lang, "i2c", _user()))
        return Check(name, False, _say(lang, "silent_display", address=f"{display.address:#04x}", path=path,
                                       why=_describe(exc, lang)), _say(lang, "check_wiring", bus=display.bus))
    return Check(name, True, _say(lang, "display_ok", chip=display.chip, address=f"{display.address:#04x}", path=path))


def _check_buttons(config: TableConfig, make_factory: FactoryMaker, lang: str = "en",
                   choose_pins: Callable[[str], Any] = _choose_pins) -> Check:
    """The buttons' pin backend starts; which one was chosen for this board, and why
    (:func:`drivers.pin_backends.choose_backend`)."""
    from drivers.device_errors import DriverError

    name = _say(lang, "buttons")
    backend = config.buttons.backend
    chosen = repr(backend)
    try:
        choice = choose_pins(backend)
        # e.g. "lgpio, chosen for the Raspberry Pi 4 Model B Rev 1.5: ..."
        chosen = _say(lang, "backend_why." + choice.why.value, backend=choice.backend, model=choice.model)
        factory = make_factory(choice.backend)
    except DriverError as exc:
        # Our pin-backend errors already say what to do.
        return Check(name, False, _say(lang, "pins_cannot_start", backend=chosen), str(exc))
    except (ImportError, OSError, RuntimeError) as exc:
        return Check(name, False, _say(lang, "pins_failed", backend=chosen, why=exc), _say(lang, "pip_pi"))
    kind = type(factory).__name__
    close = getattr(factory, "close", None)
    if callable(close):
        close()
    seats = ", ".join(_say(lang, "seat_pins", seat=seat, yes=s.yes, no=s.no, king=s.king, led=s.led)
                      for seat, s in config.buttons.seats.items())
    return Check(name, True, _say(lang, "buttons_ok", kind=kind, backend=chosen, seats=seats))


def _check_voice(config: TableConfig, find_espeak: SpeechFinder, play_sound: SoundProbe,
                 lang: str = "en") -> list[Check]:
    """espeak-ng is there, and the speaker and each earpiece open (``[voice]``)."""
    voice = config.voice
    version = find_espeak()
    name = _say(lang, "voice")
    checks = [Check(name, False, _say(lang, "no_espeak"), _say(lang, "install_espeak"))
              if version is None else
              Check(name, True, _say(lang, "voice_ok", version=version, language=config.language, rate=voice.rate,
                                     volume=voice.volume, verbosity=_say(lang, "verbosity." + voice.verbosity)))]
    outputs = [(_say(lang, "speaker"), "device", voice.device),
               *((_say(lang, "earpiece", seat=seat), "earpieces", d) for seat, d in voice.earpieces)]
    for name, key, device in outputs:
        if device == "sim":
            checks.append(Check(name, True, _say(lang, "wav_files")))
            continue
        try:
            play_sound(device)
        except OSError as exc:
            checks.append(Check(name, False, f"{device}: {_describe(exc, lang)}",
                                _say(lang, "plug_sound", key=key, usermod=_usermod(lang, "audio", _user()))))
            continue
        checks.append(Check(name, True, _say(lang, "opens", device=device)))
    return checks


def _check_groups(config: TableConfig, have: set[str], user: str, root: bool, lang: str = "en") -> Check:
    name = _say(lang, "permissions")
    need: set[str] = set()  # the groups, each worded doctor.need.<group> (what it is needed for)
    if any(not display.simulated for display in config.displays):
        need.add("i2c")
    if any(pad.serial_port for pad in config.pads if not pad.simulated):
        need.add("dialout")
    if config.buttons.backend != "mock":
        need.add("gpio")
    if config.voice.enabled and any(d != "sim" for d in (config.voice.device, *dict(config.voice.earpieces).values())):
        need.add("audio")
    if root:
        return Check(name, True, _say(lang, "root"))
    if not need:
        return Check(name, True, _say(lang, "no_group_needed", user=user))
    missing = sorted(group for group in need if group not in have)
    if missing:
        why = ", ".join(_say(lang, "group_for", group=group, what=_say(lang, "need." + group)) for group in missing)
        return Check(name, False, _say(lang, "not_in_groups", user=user, groups=why),
                     _usermod(lang, ",".join(missing), user))
    return Check(name, True, _say(lang, "in_groups", user=user, groups=", ".join(sorted(need))))


def _describe(exc: BaseException, lang: str = "en") -> str:
    """Why a part refused: the system's reason in ``lang``'s words (an errno), else the library's own."""
    if isinstance(exc, OSError) and exc.errno is not None:
        return os_reason(lang, exc)
    return str(exc) or type(exc).__name__
