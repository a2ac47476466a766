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

from hardware.table import (
    DisplayConfig,
    PadConfig,
    TableConfig,
    TableFileError,
    load_table,
)

logger = logging.getLogger(__name__)

INSTALLED_TABLE = Path("/etc/ecarte-table/table.toml")
_USERMOD = "sudo usermod -aG {group} {user}, then log out and in again (or reboot)"


@dataclass(frozen=True, slots=True)
class Check:
    """One thing the doctor looked at: ``ok``, what it saw, and how to fix it."""

    name: str
    ok: bool
    detail: str
    fix: str = ""

    def __str__(self) -> str:
        mark = "ok  " if self.ok else "FAIL"
        text = f"[{mark}] {self.name}: {self.detail}"
        return f"{text}\n       fix: {self.fix}" if self.fix and not self.ok else text


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
    import nfc.clf.pn532
    import nfc.clf.transport

    port = pad.serial_port
    if port is None:
        frontend = nfc.ContactlessFrontend(pad.device)
        try:
            return str(frontend.device.chipset_name)
        finally:
            frontend.close()
    transport = nfc.clf.transport.TTY(os.path.realpath(port))
    try:
        device = nfc.clf.pn532.init(transport)
    except BaseException:
        transport.close()
        raise
    try:
        firmware = str(device.chipset_name)
    finally:
        device.close()
    return f"{firmware} ({_link(os.path.realpath(port), listings)})"


def _link(port: str, listings: int) -> str:
    """The frames a pad's own reader (:class:`~drivers.nfc.reader.NfcpyReader`) sent and retried
    listing the tags on ``port`` ``listings`` times; a failed listing is tried again, as a pad does.

    :raises OSError: three listings in a row failed.
    """
    from drivers.nfc.reader import READER_ERRORS, NfcpyReader

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


def run_checks(
    table: str | Path | TableConfig,
    *,
    read_reader: ReaderProbe = read_reader_firmware,
    probe_i2c: DisplayProbe = probe_display,
    make_factory: FactoryMaker = _make_factory,
    find_espeak: SpeechFinder = espeak_version,
    play_sound: SoundProbe = probe_sound,
    groups: Callable[[], set[str]] = current_groups,
    user: Callable[[], str] = _user,
    is_root: Callable[[], bool] = lambda: os.geteuid() == 0,
    dev: Path = Path("/dev"),
) -> list[Check]:
    """Check a table file (or a loaded table) and the hardware it names.

    Never raises for a failing device: every failure is a :class:`Check` with
    ``ok=False`` and a ``fix``. A table file that does not load gives that one
    failing check only. ``dev`` is where device nodes are looked up (tests
    point it at a folder of their own).
    """
    if isinstance(table, TableConfig):
        config = table
        where = str(table.source) if table.source else "the table"
        checks = [Check("table file", True, f"{where}: {_summary(config)}")]
    else:
        path = Path(table)
        try:
            config = load_table(path)
        except TableFileError as exc:
            lines = "; ".join(f"{key}: {message}" if key else message
                              for key, message in exc.problems)
            return [Check("table file", False, f"{path}: {lines}",
                          f"edit {path} (every key is described in docs/hardware.md)")]
        except OSError as exc:
            return [Check("table file", False, f"cannot read {path}: {exc.strerror or exc}",
                          f"copy hardware/tables/reference.toml to {path} and edit it "
                          "(systemd/install.sh does this)")]
        checks = [Check("table file", True, f"{path}: {_summary(config)}")]

    checks.append(_check_registry(config))
    checks.append(_check_badges(config))
    if config.registry is not None or config.tags.deck_check_first:
        checks.append(_check_deck(config))
    checks += [_check_reader(pad, read_reader, dev) for pad in config.pads]
    checks += [_check_display(i, d, probe_i2c, dev) for i, d in enumerate(config.displays)]
    checks.append(_check_buttons(config, make_factory))
    if config.voice.enabled:
        checks += _check_voice(config, find_espeak, play_sound)
    checks.append(_check_groups(config, groups(), user(), is_root()))
    for check in checks:
        logger.debug("%s", check)
    return checks


def refusal(table: TableConfig) -> str | None:
    """Why the service must not start on ``table``: the first line of doctor's that fails among
    the checks of the configuration (the tag registry against the ``[tags]`` policy, the badges
    file, ``deck_check_first`` without a registry), or ``None``.

    The hardware checks (readers, displays, pins, groups) are not among them: the service waits
    for a reader that is unplugged, and says so on the OLED.
    """
    failed = [check for check in (_check_registry(table), _check_badges(table), _check_deck(table)) if not check.ok]
    return str(failed[0]) if failed else None


def all_ok(checks: Iterable[Check]) -> bool:
    """Whether every check passed (the CLI's exit status)."""
    return all(check.ok for check in checks)


def format_checks(checks: Iterable[Check]) -> str:
    """The checks as the CLI prints them, one (or two, with the fix) lines each."""
    checks = list(checks)
    failed = sum(not check.ok for check in checks)
    summary = "all checks passed" if not failed else f"{failed} of {len(checks)} checks failed"
    return "\n".join([*(str(check) for check in checks), summary])


# ---------------------------------------------------------------------------


def _summary(config: TableConfig) -> str:
    return (f"{config.name!r}, {config.layout} layout, {config.sight} sight, {len(config.pads)} pads, "
            f"{len(config.displays)} display(s), pins via {config.buttons.backend}")


def _depth(pad: PadConfig) -> str:
    return f"reads {pad.depth} card{'s' if pad.depth != 1 else ''} of a stack"


def _check_registry(config: TableConfig) -> Check:
    from hardware.tag_registry import TagRegistry, TagRegistryError

    name = "tag registry"
    if config.registry is None:
        return Check(name, True, "none configured: tags are named by their NDEF record or "
                                 "the transcript's setup line")
    path = config.registry
    try:
        registry = TagRegistry.load(path)
    except FileNotFoundError:
        return Check(name, False, f"{path} does not exist",
                     "enrol the cards (docs/nfc.md) or copy a registry there; the service "
                     "may only write under /var/lib/ecarte-table")
    except PermissionError:
        return Check(name, False, f"{path} is not readable by {_user()}",
                     f"sudo chown ecarte: {path}; sudo chmod 0640 {path}")
    except (OSError, TagRegistryError) as exc:
        return Check(name, False, f"{path}: {exc}",
                     "fix the file or enrol the cards again (the format is in docs/nfc.md)")
    problems = _audit_registry(config, registry)
    if problems:
        shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
        return Check(name, False, f"{path}: {shown}",
                     "enrol those cards again with genuine NTAG stickers (ecarte-table enroll), "
                     "and find out who edited the registry")
    genuine = sum(entry.origin == "genuine" for entry in registry)
    locked = sum(entry.locked for entry in registry)
    limits = sorted({entry.auth_limit for entry in registry if entry.locked})
    limit = (f", each giving up after {limits[0]} wrong passwords (AUTHLIM, configuration locked: CFGLCK)"
             if len(limits) == 1 and locked else "")
    sealed = sum(entry.seal is not None for entry in registry)
    return Check(name, True, f"{path}: {len(registry)} tags ({genuine} genuine, {locked} locked{limit}"
                             f"{f', {sealed} sealed' if sealed else ''})")


def _check_deck(config: TableConfig) -> Check:
    """When each registered pack last passed the deck check: a reminder for a pack never checked."""
    from hardware.deck_log import last_checks
    from hardware.tag_registry import TagRegistry, TagRegistryError

    name = "deck check"
    first = " (before the first deal of each session: deck_check_first)" if config.tags.deck_check_first else ""
    if config.registry is None and not config.tags.deck_check_first:
        return Check(name, True, "no tag registry: no pack to check")
    if config.registry is None:
        return Check(name, False, "deck_check_first needs a tag registry: the check confirms registered packs",
                     "enrol the packs (ecarte-table enroll) and name the registry in [table], or drop deck_check_first")
    try:
        packs = sorted({entry.pack for entry in TagRegistry.load(config.registry)})
    except (OSError, TagRegistryError):
        return Check(name, True, "no readable registry: nothing to check yet")
    done = last_checks(config.registry)
    said = [f"pack {p} checked {done[p]}" if p in done else
            f"pack {p} NEVER CHECKED: pass it over a pad with `ecarte-table deck --pack {p}`" for p in packs]
    return Check(name, True, "; ".join(said or ["no pack registered"]) + first)


def _check_badges(config: TableConfig) -> Check:
    from hardware.badges import Badges, badges_path
    from hardware.tag_registry import TagRegistryError

    path = badges_path(config)
    if path is None or not path.exists():
        return Check("badges", True, "none: players name their seats with the menu or the page")
    try:
        badges = Badges.load(path)
    except TagRegistryError as exc:
        return Check("badges", False, str(exc),
                     "enrol the badges again (ecarte-table enroll --badge) or fix the file (docs/players.md)")
    return Check("badges", True, f"{path}: {len(badges.tags)} badge(s) and rule card(s)")


def _audit_registry(config: TableConfig, registry: Any) -> list[str]:
    """The registry's problems against the table's [tags] policy (hardware/registry_audit.py)."""
    from hardware import locks, ntag_signature
    from hardware.registry_audit import audit_registry

    policy = config.tags
    try:
        key = ntag_signature.trusted_key(policy.key_name(config.simulated_pads))
    except ntag_signature.OriginalityError as exc:
        return [f"[tags] trusted_key: {exc}"]
    problems = []
    lock_id = secret = None
    if policy.lock_secret_file is not None:
        try:
            secret = locks.load_secret(policy.lock_secret_file)
            lock_id = locks.lock_id(secret)
        except locks.LockSecretError as exc:
            problems.append(str(exc))
    problems += audit_registry(registry, key, require_signature=policy.require_signature,
                               lock_id=lock_id, ndef_pack=policy.ndef_pack, secret=secret)
    return problems


def _dev_path(port: str, dev: Path) -> Path:
    """``/dev/ttyUSB0`` under ``dev`` (tests give a folder of their own)."""
    return dev / port.removeprefix("/dev/") if port.startswith("/dev/") else Path(port)


def _check_reader(pad: PadConfig, read_reader: ReaderProbe, dev: Path) -> Check:
    name = f"reader {pad.name}"
    if pad.simulated:
        return Check(name, True, f"simulated PN532, {_depth(pad)}: nothing to open")
    port = pad.serial_port
    if port is not None:
        node = _dev_path(port, dev)
        if not node.exists():
            return Check(name, False, f"{port} does not exist ({pad.device})",
                         _missing_port_fix(port))
        if not os.access(node, os.R_OK | os.W_OK):
            return Check(name, False, f"{port} exists but {_user()} may not open it",
                         _USERMOD.format(group="dialout", user=_user()))
    try:
        firmware = read_reader(pad)
    except ImportError as exc:
        return Check(name, False, f"nfcpy is missing: {exc}",
                     "pip install the table with `pip install '.[pi]'` in its venv")
    except Exception as exc:
        # Whatever goes wrong with one reader is reported, and the doctor goes
        # on to the next one: that is its whole point.
        logger.debug("reader %s: %r", pad.name, exc, exc_info=True)
        return Check(name, False, f"{pad.device}: {_describe(exc)}", _reader_fix(pad, exc))
    return Check(name, True, f"{pad.device}: {firmware}, {_depth(pad)}")


def _missing_port_fix(port: str) -> str:
    if "ttyUSB" in port or "ttyACM" in port:
        return ("plug in the pad's USB-serial adapter and check `ls -l /dev/ttyUSB*` and "
                "`dmesg | tail`; the numbers follow the order adapters are found: give them "
                "stable names with systemd/99-ecarte-table.rules")
    if port in ("/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0"):
        return ("enable the UART: enable_uart=1 in /boot/firmware/config.txt and "
                "`sudo raspi-config nonint do_serial_cons 1` (console off), then reboot")
    return (f"check the path in the table file; if it is a udev name, check "
            f"systemd/99-ecarte-table.rules is installed (`udevadm trigger`, `ls -l {port}`)")


def _reader_fix(pad: PadConfig, exc: BaseException) -> str:
    code = getattr(exc, "errno", None)
    if code == errno.EACCES:
        return _USERMOD.format(group="dialout", user=_user())
    if code == errno.EBUSY:
        return "another program holds the port: sudo systemctl stop ecarte-table, then retry"
    if pad.device.startswith("usb"):
        return "check the reader is plugged in (`lsusb`) and the path's vendor:product"
    return ("the PN532 did not answer: set its DIP switches to HSU/UART (both off on most "
            "boards), cross TX to RX, power it from 3.3 V or 5 V as the board says, and stop "
            "the service if it is running (sudo systemctl stop ecarte-table)")


def _check_display(index: int, display: DisplayConfig, probe: DisplayProbe, dev: Path) -> Check:
    facing = f" ({display.seat})" if display.seat else ""
    name = f"display {index}{facing}"
    if display.simulated:
        return Check(name, True, f"simulated {display.chip}: nothing to open")
    path = display.device_path or ""
    node = _dev_path(path, dev)
    if not node.exists():
        return Check(name, False, f"{path} does not exist",
                     "enable I2C: dtparam=i2c_arm=on and dtparam=i2c_arm_baudrate=400000 in "
                     "/boot/firmware/config.txt (or `sudo raspi-config nonint do_i2c 0`), "
                     "then reboot")
    if not os.access(node, os.R_OK | os.W_OK):
        return Check(name, False, f"{path} exists but {_user()} may not open it",
                     _USERMOD.format(group="i2c", user=_user()))
    try:
        probe(int(display.bus), display.address)
    except ImportError:
        return Check(name, False, "smbus2 is not installed",
                     "pip install smbus2 (part of the `.[pi]` extra) in the table's venv")
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM):
            return Check(name, False, f"{path}: {_describe(exc)}",
                         _USERMOD.format(group="i2c", user=_user()))
        return Check(
            name, False,
            f"nothing answers at {display.address:#04x} on {path}: {_describe(exc)}",
            f"check the wiring (VCC, GND, SDA to pin 3, SCL to pin 5) and run "
            f"`i2cdetect -y {display.bus}`: put the address it shows in the table file",
        )
    return Check(name, True, f"{display.chip} answers at {display.address:#04x} on "
                             f"{path}")


def _check_buttons(config: TableConfig, make_factory: FactoryMaker) -> Check:
    from drivers.device_errors import DriverError

    name = "buttons"
    backend = config.buttons.backend
    try:
        factory = make_factory(backend)
    except DriverError as exc:
        # Our pin-backend errors already say what to do.
        return Check(name, False, f"pin backend {backend!r} cannot start", str(exc))
    except (ImportError, OSError, RuntimeError) as exc:
        return Check(name, False, f"pin backend {backend!r}: {exc}",
                     "pip install the table with `pip install '.[pi]'` in its venv")
    kind = type(factory).__name__
    close = getattr(factory, "close", None)
    if callable(close):
        close()
    seats = ", ".join(
        f"{s.seat}: yes={s.yes} no={s.no} king={s.king} led={s.led}" for s in config.buttons.seats
    )
    return Check(name, True, f"{kind} ({backend}); {seats}")


def _check_voice(config: TableConfig, find_espeak: SpeechFinder, play_sound: SoundProbe) -> list[Check]:
    """espeak-ng is there, and the speaker and each earpiece open (``[voice]``)."""
    voice = config.voice
    version = find_espeak()
    checks = [Check("voice", False, "espeak-ng is not installed: the table cannot speak",
                    "sudo apt-get install espeak-ng alsa-utils (sudo bash scripts/system-deps.sh TABLE-FILE "
                    "does it for a table file that asks for a voice)")
              if version is None else
              Check("voice", True, f"{version}; {config.language} at {voice.rate} words a minute, volume "
                                   f"{voice.volume}, {voice.verbosity}")]
    for what, device in (("speaker", voice.device), *((f"earpiece {seat}", d) for seat, d in voice.earpieces)):
        name = f"voice {what}"
        if device == "sim":
            checks.append(Check(name, True, "WAV files (--voice DIR): nothing to open"))
            continue
        try:
            play_sound(device)
        except OSError as exc:
            checks.append(Check(name, False, f"{device}: {_describe(exc)}",
                                "plug in the sound card; `aplay -L` lists the devices: write one in [voice] "
                                f"{'device' if what == 'speaker' else 'earpieces'}; the service's user must be "
                                "in the audio group (" + _USERMOD.format(group="audio", user=_user()) + ")"))
            continue
        checks.append(Check(name, True, f"{device} opens"))
    return checks


def _check_groups(config: TableConfig, have: set[str], user: str, root: bool) -> Check:
    name = "permissions"
    need: dict[str, str] = {}
    if any(not display.simulated for display in config.displays):
        need["i2c"] = "the displays"
    if any(pad.serial_port for pad in config.pads if not pad.simulated):
        need["dialout"] = "the serial readers"
    if config.buttons.backend != "mock":
        need["gpio"] = "the buttons"
    if config.voice.enabled and any(d != "sim" for d in (config.voice.device, *dict(config.voice.earpieces).values())):
        need["audio"] = "the voice"
    if root:
        return Check(name, True, "running as root (the service runs as `ecarte`; check that "
                                 "user's groups with `id ecarte`)")
    if not need:
        return Check(name, True, f"{user}: nothing on this table needs a group")
    missing = sorted(group for group in need if group not in have)
    if missing:
        why = ", ".join(f"{group} for {need[group]}" for group in missing)
        return Check(name, False, f"{user} is not in {why}",
                     _USERMOD.format(group=",".join(missing), user=user))
    return Check(name, True, f"{user} is in {', '.join(sorted(need))}")


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__
