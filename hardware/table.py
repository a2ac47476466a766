"""The table file: what one physical table is made of (TOML).

A table file names the table, its layout and game defaults, says which reader
serves each pad, which GPIO pins each seat's buttons use, and which OLEDs are
on which I2C bus. ``docs/hardware.md`` documents every key; the shipped
tables are in ``hardware/tables/``::

    >>> table = simulated_table()
    >>> table.layout, table.target, [pad.name for pad in table.pads]
    ('full', 5, ['hand.A', 'hand.B', 'turnup', 'discard', 'play.A', 'play.B'])
    >>> table.pad("turnup").simulated, table.buttons.backend
    (True, 'mock')

Loading checks everything and reports every problem at once, each with its
key and, where one is close, a suggestion::

    >>> parse_table({"table": {"layout": "ful"}}, source="t.toml")
    Traceback (most recent call last):
    ...
    hardware.table.TableFileError: t.toml: 6 problems:
      table.layout: unknown layout 'ful': did you mean 'full'?
      pads: missing: the table needs a [pads] section
      buttons: missing: the table needs a [buttons] section
      buttons.A: missing: seat A needs its yes, no, king and led pins
      buttons.B: missing: seat B needs its yes, no, king and led pins
      displays: missing: the table needs at least one [[displays]] entry (bus, address, chip)

The result is a tree of frozen dataclasses (:mod:`hardware.table_config`, re-exported
here); the checks every section shares are in :mod:`hardware.table_checks`. The
vocabularies the file may use are imported from their owners: sights and languages
from the engine, pin backends from :mod:`drivers.pin_backends`, the debounce from
:mod:`drivers.seat_controls`, display chips from :mod:`drivers.display.chips`.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from catalogue import LANGUAGES
from catalogue.phrase import Joined, Phrase, english
from drivers.display.chips import CHIPS
from drivers.pin_backends import BACKENDS as PIN_BACKENDS
from drivers.seat_controls import DEFAULT_DEBOUNCE, SeatPins
from engine.sight import SIGHTS
from hardware.alsa_cards import card_of
from hardware.layout import COMPACT_PADS, FULL_PADS, LAYOUTS, SEATS
from hardware.limits import MAX_TABLE_NAME, FileProblem, name_words, nfc, quoted, read_text, twice_named
from hardware.table_checks import Problem, Problems, suggest, type_message, unknown
from hardware.table_config import (
    BUTTON_KEYS,
    DEFAULT_ADDRESS,
    MAX_DEPTH,
    MAX_NOISE,
    REAL_PAD_DEPTH,
    RULE_SETS,
    SIM,
    SIM_PAD_DEPTH,
    TTY_PATH,
    VERBOSITIES,
    ButtonsConfig,
    DisplayConfig,
    PadConfig,
    TableConfig,
    TagPolicy,
    VoiceConfig,
)

__all__ = [
    "ButtonsConfig", "DisplayConfig", "PadConfig", "TableConfig", "TableFileError", "TagPolicy",
    "load_table", "load_table_text", "parse_people", "parse_table", "shipped_table_path", "simulated_table",
]

# BCM GPIO numbers on the 40-pin header.
GPIO_RANGE = range(28)
# The HAT ID EEPROM's I2C bus: the firmware probes it at boot.
ID_EEPROM_PINS = {0: "ID_SD", 1: "ID_SC"}
I2C1_PINS = {2: "I2C1 SDA", 3: "I2C1 SCL"}
UART0_PINS = {14: "UART TXD", 15: "UART RXD"}
_PI_UART_DEVICES = re.compile(r"^(tty:(AMA0|S0|serial0)(:.*)?|/dev/(ttyAMA0|ttyS0|serial0))$")
_USB_PATH = re.compile(r"^usb(:[0-9A-Fa-f]{3,4}(:[0-9A-Fa-f]{3,4})?)?$")

_SECTIONS = ("table", "pads", "buttons", "displays", "tags", "voice",
             *("web", "mqtt"))  # the last two: read by venue.settings
_TABLE_KEYS = ("name", "layout", "rules", "target", "registry", "sight", "language", "players", "locked", "badges",
               "coach", "hint")
_PAD_KEYS = ("device", "depth", "noise")
_BUTTONS_KEYS = ("backend", "debounce", *SEATS)
_SEAT_KEYS = (*BUTTON_KEYS, "buzzer", "listen")
_VOICE_KEYS = ("enabled", "device", "rate", "volume", "verbosity", "earpieces")
_ALSA_DEVICE = re.compile(r"^[A-Za-z0-9_:,=.-]{1,80}$")
_DISPLAY_KEYS = ("bus", "address", "chip", "seat", "rotate")
_PLAYERS_SHOWN = 153
"""How much of a wrong ``players`` value a refusal shows (characters of its ``repr``)."""
_TAGS_KEYS = ("require_signature", "check_every_arrival", "trusted_key", "ndef_pack", "lock_secret_file",
              "deck_check_first")


class TableFileError(ValueError):
    """A table file that cannot describe a table; ``problems`` lists every reason.

    ``problems`` is a list of ``(key, message)`` in English, the key dotted from the top of
    the file (``pads.play.a``, ``displays[0].address``); ``found`` the same problems as data
    (:class:`~hardware.table_checks.Problem`), said in a reader's language by :meth:`said`.
    ``language`` is the table's own (``[table] language``) when the file names one it speaks.
    """

    def __init__(self, source: str, problems: Sequence[Problem | tuple[str, str]], *,
                 language: str | None = None) -> None:
        self.source = source
        self.found = [p if isinstance(p, Problem) else Problem(*p) for p in problems]
        self.problems = [(problem.key, problem.message()) for problem in self.found]
        self.language = language
        self.words = Joined((Phrase.of("table_file.problems", source=source, n=len(self.found)),
                             *(problem.line for problem in self.found)), "\n  ")
        """The problems: a line naming the file and their number, then one line each."""
        self.listing = Joined(tuple(problem.line for problem in self.found), "; ")
        """The problems on one line (``key: message; ...``), as the doctor shows them."""
        super().__init__(english(self.words))


# ---------------------------------------------------------------------------
# Loading


def load_table(
    path: str | Path, *, rule_sets: Iterable[str] = RULE_SETS
) -> TableConfig:
    """Read and check a table file.

    A relative ``registry`` path is taken from the table file's folder.

    :raises OSError: when the file cannot be read (``FileNotFoundError``...).
    :raises TableFileError: listing every problem in the file at once, TOML
        syntax errors included.
    """
    path = Path(path)
    try:
        text = read_text(path)
    except FileProblem as exc:
        raise TableFileError(str(path), [Problem("", exc.words)]) from None
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise TableFileError(str(path), [Problem("", Phrase.of("table_file.not_toml", detail=str(exc)))]) from exc
    return parse_table(data, source=path, rule_sets=rule_sets)


def load_table_text(
    text: str, *, source: str = "<table>", rule_sets: Iterable[str] = RULE_SETS
) -> TableConfig:
    """Check a table file given as text (tests, ``--table -``).

    :raises TableFileError: listing every problem at once.
    """
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise TableFileError(source, [Problem("", Phrase.of("table_file.not_toml", detail=str(exc)))]) from exc
    return parse_table(data, source=source, rule_sets=rule_sets)


def shipped_table_path(name: str) -> Path:
    """The path of a table shipped in ``hardware/tables`` (``reference``, ``simulated``...).

    :raises FileNotFoundError: for a name that is not shipped, with the names that are.
    """
    # the package's own folder, as installed (a wheel unpacks it whole): importlib.resources would import
    # tempfile, zipfile and their compressors at every start of the table (bench/instructions.py --startup)
    folder = Path(__file__).resolve().parent / "tables"
    candidate = folder / f"{name}.toml"
    if not candidate.is_file():
        names = sorted(p.name.removesuffix(".toml") for p in folder.iterdir()
                       if p.name.endswith(".toml"))
        raise FileNotFoundError(str(unknown("shipped_table", name, names)))
    return Path(str(candidate))


def simulated_table() -> TableConfig:
    """The shipped simulated table: sim pads, mock pins, a simulated display.

    :raises TableFileError: only if the shipped file is broken.
    """
    return load_table(shipped_table_path("simulated"))


def parse_table(
    data: Mapping[str, Any],
    *,
    source: str | Path = "<table>",
    rule_sets: Iterable[str] = RULE_SETS,
) -> TableConfig:
    """Check the parsed TOML of a table file and build the :class:`TableConfig`.

    :raises TableFileError: listing every problem at once.
    """
    problems = Problems()
    problems.unknown_keys("", data, _SECTIONS)

    table = problems.section(data, "table", required=False)
    name = problems.value(table, "table.name", str, default="Écarté table")
    if isinstance(name, str) and (len(name) > MAX_TABLE_NAME or not name.isprintable()):
        problems.add("table.name", Phrase.of("table_file.name", most=MAX_TABLE_NAME))
    layout = problems.choice(table, "table.layout", LAYOUTS, default="full")
    rules = problems.choice(table, "table.rules", tuple(rule_sets), default="classic")
    target = problems.value(table, "table.target", int, default=5)
    if isinstance(target, int) and not 1 <= target <= 100:
        problems.add("table.target", Phrase.of("table_file.target", target=target))
    registry_text = problems.value(table, "table.registry", str, default=None)
    sight = problems.choice(table, "table.sight", SIGHTS, default="full")
    problems.unknown_keys("table", table, _TABLE_KEYS)
    people = parse_people(problems, table, source)
    registry: Path | None = None
    if isinstance(registry_text, str):
        registry = Path(registry_text).expanduser()
        if not registry.is_absolute() and isinstance(source, Path):
            registry = source.parent / registry

    pads = _parse_pads(problems, data, layout if layout in LAYOUTS else None)
    buttons = _parse_buttons(problems, data)
    displays = _parse_displays(problems, data)
    _check_pins(problems, buttons, pads, displays)
    tags = _parse_tags(problems, data, source)
    voice = _parse_voice(problems, data)

    if problems:
        raise TableFileError(str(source), problems.found,
                             language=people["language"] if people["language_named"] else None)
    return TableConfig(
        name=name,
        layout=layout,
        rules=rules,
        target=target,
        pads=pads,
        buttons=buttons,
        displays=displays,
        registry=registry,
        source=source if isinstance(source, Path) else None,
        sight=sight,
        tags=tags,
        voice=voice,
        **people,
    )


def parse_people(problems: Problems, table: Mapping[str, Any] | None, source: str | Path) -> dict[str, Any]:
    """``[table]``'s keys for the people at the table: ``language`` of the OLED, the
    ``players``' names at A and B, ``locked`` house rules (the menu and rule cards change
    nothing), the ``badges`` file (players' badges and rule cards, beside the table file
    when relative)."""
    language = problems.choice(table, "table.language", LANGUAGES, default="en")
    locked = problems.value(table, "table.locked", bool, default=False)
    coach = problems.value(table, "table.coach", bool, default=False)
    hint = problems.value(table, "table.hint", bool, default=False)
    players = (table or {}).get("players")
    if players is not None and not (
        isinstance(players, list) and len(players) == 2 and all(isinstance(p, str) and p.strip() for p in players)
    ):
        problems.add("table.players", Phrase.of("table_file.players", example='["Anne", "Bruno"]',
                                                value=repr(players)[:_PLAYERS_SHOWN]))
        players = None
    for index, player in enumerate(players or ()):
        problem = name_words(player.strip())
        if problem is not None:
            problems.add(f"table.players[{index}]", problem)
            players = None
            break
    twice = twice_named(players or ())
    if twice is not None:
        problems.add("table.players", Phrase.of("table_file.twice", name=quoted(twice.strip())))
        players = None
    badges_text = problems.value(table, "table.badges", str, default=None)
    badges: Path | None = None
    if isinstance(badges_text, str):
        badges = Path(badges_text).expanduser()
        if not badges.is_absolute() and isinstance(source, Path):
            badges = source.parent / badges
    return {"language": language, "language_named": (table or {}).get("language") == language,
            "locked": bool(locked), "badges": badges, "coach": bool(coach), "hint": bool(hint),
            "players": (nfc(players[0].strip()), nfc(players[1].strip())) if players else None}


def _parse_pads(
    problems: Problems, data: Mapping[str, Any], layout: str | None
) -> tuple[PadConfig, ...]:
    section = problems.section(data, "pads", required=True)
    expected = COMPACT_PADS if layout == "compact" else FULL_PADS
    other = FULL_PADS if layout == "compact" else COMPACT_PADS
    # `hand.A = "..."` without quotes is a dotted key: TOML nests it.
    flat = dict(_flatten(section))
    pads: list[PadConfig] = []
    suggested: set[str | None] = set()
    for pad_name, device in flat.items():
        key = f"pads.{pad_name}"
        if pad_name not in expected:
            if layout is None:
                continue
            if pad_name in other:
                problems.add(key, Phrase.of(
                    "table_file.pad_of_layout", pad=f"`{pad_name}`", layout=_layout_of(pad_name), this=repr(layout),
                    setting=f"[table] layout = {_layout_of(pad_name)!r}", pads=", ".join(expected)))
            else:
                problems.add(key, unknown("pad", pad_name, expected))
                # The misspelt pad is not also reported missing.
                suggested.add(suggest(pad_name, expected))
            continue
        depth: Any = None
        noise: Any = 0.0
        if isinstance(device, dict):
            entry = device
            problems.unknown_keys(key, entry, _PAD_KEYS)
            device = entry.get("device")
            if device is None:
                problems.add(f"{key}.device", Phrase.of("table_file.missing_device", sim='"sim"'))
                continue
            depth = problems.value(entry, f"{key}.depth", int, default=None)
            if isinstance(depth, int) and not 1 <= depth <= MAX_DEPTH:
                problems.add(f"{key}.depth", Phrase.of("table_file.depth", most=MAX_DEPTH, depth=depth))
                continue
            if "depth" in entry and not isinstance(depth, int):
                continue
            noise = problems.value(entry, f"{key}.noise", float, default=0.0)
            if not isinstance(noise, float) or not 0 <= noise <= MAX_NOISE or (noise and device != SIM):
                if isinstance(noise, float):
                    problems.add(f"{key}.noise",
                                 Phrase.of("table_file.noise", most=MAX_NOISE, noise=noise, sim='"sim"'))
                continue
        if not isinstance(device, str):
            problems.add(key, type_message(device, str))
            continue
        message = _check_device(device)
        if message:
            problems.add(key, message)
            continue
        if depth is None:
            depth = SIM_PAD_DEPTH if device == SIM else REAL_PAD_DEPTH
        pads.append(PadConfig(pad_name, device, depth, noise))
    if section is not None and layout is not None:
        names = {pad.name for pad in pads} | set(flat) | suggested
        for pad_name in expected:
            if pad_name not in names:
                problems.add(f"pads.{pad_name}", Phrase.of("table_file.missing_pad", layout=layout, pad=f"`{pad_name}`",
                                                          sim='"sim"'))
    seen: dict[str, str] = {}
    for pad in pads:
        if pad.simulated:
            continue
        port = pad.serial_port or pad.device
        if port in seen:
            problems.add(f"pads.{pad.name}", Phrase.of("table_file.shared_reader", device=repr(pad.device),
                                                       pad=f"`{seen[port]}`"))
        seen.setdefault(port, pad.name)
    order: dict[str, int] = {name: i for i, name in enumerate(expected)}
    return tuple(sorted(pads, key=lambda pad: order[pad.name]))


def _check_device(device: str) -> Phrase | None:
    """What is wrong with a reader path, or ``None``."""
    if device == SIM or device.startswith("/"):
        return None
    if device.startswith("tty:"):
        match = TTY_PATH.match(device)
        if match is None:
            return Phrase.of("table_file.device.bad_tty", device=repr(device), example="`tty:USB0:pn532`")
        driver = match.group(2)
        if not driver:
            return Phrase.of("table_file.device.no_driver", device=repr(device), path=f"`{device.rstrip(':')}:pn532`")
        if driver != "pn532":
            return Phrase.of("table_file.device.driver", driver=repr(driver), device=repr(device),
                             path=f"`tty:{match.group(1)}:pn532`")
        return None
    if device.startswith("usb"):
        if _USB_PATH.match(device):
            return None
        return Phrase.of("table_file.device.bad_usb", device=repr(device), paths="`usb`, `usb:VID:PID`",
                         last="`usb:BUS:DEV`")
    unknown_reader = Phrase.of("table_file.device.unknown", device=repr(device))
    tty = re.match(r"^(?:/dev/)?tty(S|ACM|AMA|USB)(\d+)$", device)
    if tty:
        return Phrase.of("table_file.hinted", problem=unknown_reader,
                         hint=Phrase.of("table_file.mean", name=f"`tty:{tty[1]}{tty[2]}:pn532`"))
    close = difflib.get_close_matches(device.lower(), [SIM, "simulated", "simulator"], n=1)
    if close:
        return Phrase.of("table_file.hinted", problem=unknown_reader, hint=Phrase.of("table_file.mean", name='"sim"'))
    return Phrase.of("table_file.hinted", problem=unknown_reader, hint=Phrase.of(
        "table_file.device.give", nfcpy="`tty:USB0:pn532`, `usb:…`", path="`/dev/serial0`", sim='"sim"'))


def _parse_buttons(problems: Problems, data: Mapping[str, Any]) -> ButtonsConfig:
    section = problems.section(data, "buttons", required=True)
    backend = problems.choice(section, "buttons.backend", PIN_BACKENDS, default="auto")
    debounce = problems.value(section, "buttons.debounce", float, default=DEFAULT_DEBOUNCE)
    if isinstance(debounce, float) and not 0.0 <= debounce <= 0.5:
        problems.add("buttons.debounce", Phrase.of("table_file.debounce", debounce=debounce))
    problems.unknown_keys("buttons", section, _BUTTONS_KEYS)
    seats: dict[str, SeatPins] = {}
    for seat in SEATS:
        key = f"buttons.{seat}"
        pins = None if section is None else section.get(seat)
        if pins is None:
            problems.add(key, Phrase.of("table_file.missing_seat", seat=seat, **{k: k for k in BUTTON_KEYS}))
            continue
        if not isinstance(pins, dict):
            problems.add(key, type_message(pins, dict))
            continue
        problems.unknown_keys(key, pins, _SEAT_KEYS)
        values: dict[str, int | None] = {}
        for name in _SEAT_KEYS:
            pin = problems.value(pins, f"{key}.{name}", int, default=None)
            if pin is None and name not in ("buzzer", "listen") and name not in pins:
                problems.add(f"{key}.{name}", Phrase.of("table_file.missing_pin", seat=seat, name=name))
            if isinstance(pin, int) and pin not in GPIO_RANGE:
                problems.add(f"{key}.{name}", Phrase.of("table_file.off_header", pin=pin))
            values[name] = pin
        if all(isinstance(values[name], int) for name in BUTTON_KEYS):
            seats[seat] = SeatPins(
                yes=values["yes"],  # type: ignore[arg-type]
                no=values["no"],  # type: ignore[arg-type]
                king=values["king"],  # type: ignore[arg-type]
                led=values["led"],  # type: ignore[arg-type]
                buzzer=values["buzzer"],
                listen=values["listen"],
            )
    return ButtonsConfig(backend=backend, debounce=float(debounce or 0.0), seats=seats)


def _parse_displays(problems: Problems, data: Mapping[str, Any]) -> tuple[DisplayConfig, ...]:
    raw = data.get("displays")
    if raw is None:
        problems.add("displays", Phrase.of("table_file.no_displays", entry="[[displays]]", keys="bus, address, chip"))
        return ()
    if isinstance(raw, dict):
        raw = [raw]  # [displays] written for [[displays]]: one display
    if not isinstance(raw, list) or not all(isinstance(item, dict) for item in raw):
        problems.add("displays", Phrase.of("table_file.displays_list", entry="[[displays]]"))
        return ()
    if not raw:
        problems.add("displays", Phrase.of("table_file.displays_empty"))
    displays: list[DisplayConfig] = []
    seen_at: dict[tuple[int | str, int], str] = {}
    seen_seat: dict[str | None, str] = {}
    for index, item in enumerate(raw):
        key = f"displays[{index}]"
        problems.unknown_keys(key, item, _DISPLAY_KEYS)
        before = len(problems)
        bus = item.get("bus")
        if bus is None:
            problems.add(f"{key}.bus", Phrase.of("table_file.missing_bus", sim='"sim"'))
        elif isinstance(bus, str):
            if bus != SIM:
                number = re.fullmatch(r"(?:/dev/i2c-)?(\d+)", bus)
                hint = (Phrase.of("table_file.write", setting=f"bus = {number[1]}") if number
                        else Phrase.of("table_file.bus_number", sim='"sim"'))
                problems.add(f"{key}.bus", Phrase.of("table_file.hinted", hint=hint,
                                                     problem=Phrase.of("table_file.unknown_bus", bus=repr(bus))))
        elif not isinstance(bus, int) or isinstance(bus, bool) or bus < 0:
            problems.add(f"{key}.bus", Phrase.of("table_file.bus_type", sim='"sim"', bus=repr(bus)))
        address = problems.value(item, f"{key}.address", int, default=DEFAULT_ADDRESS)
        if isinstance(address, int):
            _check_address(problems, f"{key}.address", address)
        chip = problems.choice(item, f"{key}.chip", CHIPS, default="ssd1306")
        seat = problems.value(item, f"{key}.seat", str, default=None)
        if isinstance(seat, str) and seat not in SEATS:
            problems.add(f"{key}.seat", unknown("seat", seat, SEATS))
        rotate = problems.value(item, f"{key}.rotate", int, default=0)
        if isinstance(rotate, int) and rotate not in range(4):
            problems.add(f"{key}.rotate", Phrase.of("table_file.rotate_degrees", rotate=rotate, turns=rotate // 90)
                         if rotate in (90, 180, 270) else Phrase.of("table_file.rotate", rotate=rotate))
        if len(problems) != before:
            continue
        display = DisplayConfig(bus=bus, address=address, chip=chip, seat=seat, rotate=rotate)
        if not display.simulated:
            where = (bus, address)
            if where in seen_at:
                problems.add(key, Phrase.of("table_file.same_address", bus=bus, address=f"{address:#04x}",
                                            other=seen_at[where]))
            seen_at.setdefault(where, key)
        if seat in seen_seat:
            problems.add(f"{key}.seat", Phrase.of("table_file.faces_seat", other=seen_seat[seat], seat=seat) if seat
                         else Phrase.of("table_file.faces_both", other=seen_seat[seat]))
        seen_seat.setdefault(seat, key)
        displays.append(display)
    return tuple(displays)


def _check_address(problems: Problems, key: str, address: int) -> None:
    if address in (0x78, 0x7A):
        problems.add(key, Phrase.of("table_file.address_8bit", address=f"{address:#04x}",
                                    seven=f"{address >> 1:#04x}"))
    elif not 0x08 <= address <= 0x77:
        problems.add(key, Phrase.of("table_file.address_range", address=f"{address:#04x}"))
    elif address not in (0x3C, 0x3D):
        problems.add(key, Phrase.of("table_file.address_oled", address=f"{address:#04x}",
                                    command="`i2cdetect -y 1`"))


def _check_pins(
    problems: Problems,
    buttons: ButtonsConfig,
    pads: Sequence[PadConfig],
    displays: Sequence[DisplayConfig],
) -> None:
    uses_i2c1 = any(display.bus == 1 for display in displays)
    uses_uart = any(_PI_UART_DEVICES.match(pad.device) for pad in pads)
    owner: dict[int, str] = {}
    for seat, pins in buttons.seats.items():
        for name in _SEAT_KEYS:
            pin = getattr(pins, name)
            if pin is None:
                continue
            key = f"buttons.{seat}.{name}"
            if pin in owner:
                problems.add(key, Phrase.of("table_file.pin_shared", pin=pin, other=owner[pin]))
            owner.setdefault(pin, key)
            if pin in ID_EEPROM_PINS:
                problems.add(key, Phrase.of("table_file.pin_eeprom", pin=pin, line=ID_EEPROM_PINS[pin]))
            elif pin in I2C1_PINS and uses_i2c1:
                problems.add(key, Phrase.of("table_file.pin_i2c", pin=pin, line=I2C1_PINS[pin]))
            elif pin in UART0_PINS and uses_uart:
                problems.add(key, Phrase.of("table_file.pin_uart", pin=pin, line=UART0_PINS[pin]))


def _flatten(section: Mapping[str, Any] | None, prefix: str = "") -> Iterable[tuple[str, Any]]:
    if section is None:
        return
    for key, value in section.items():
        if isinstance(value, dict) and "device" not in value and "depth" not in value:
            yield from _flatten(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def _layout_of(pad_name: str) -> str:
    return "compact" if pad_name in COMPACT_PADS else "full"


def _parse_tags(problems: Problems, data: Mapping[str, Any], source: str | Path) -> TagPolicy:
    section = problems.section(data, "tags", required=False)
    problems.unknown_keys("tags", section, _TAGS_KEYS)
    require = problems.value(section, "tags.require_signature", bool, default=False)
    every = problems.value(section, "tags.check_every_arrival", bool, default=False)
    deck_first = problems.value(section, "tags.deck_check_first", bool, default=False)
    key = problems.value(section, "tags.trusted_key", str, default=None)
    if isinstance(key, str) and key not in ("nxp", "test") and not re.fullmatch(r"04[0-9A-Fa-f]{64}", key):
        problems.add("tags.trusted_key", Phrase.of("table_file.trusted_key", key=repr(key), nxp='"nxp"', test='"test"'))
    ndef_pack = problems.value(section, "tags.ndef_pack", int, default=None)
    if ndef_pack is not None and ndef_pack not in (1, 2):
        problems.add("tags.ndef_pack", Phrase.of("table_file.ndef_pack", pack=ndef_pack))
    secret_text = problems.value(section, "tags.lock_secret_file", str, default=None)
    secret: Path | None = None
    if isinstance(secret_text, str):
        secret = Path(secret_text).expanduser()
        if not secret.is_absolute() and isinstance(source, Path):
            secret = source.parent / secret
    return TagPolicy(bool(require), key, ndef_pack, secret, bool(every), bool(deck_first))



def _parse_voice(problems: Problems, data: Mapping[str, Any]) -> VoiceConfig:
    section = problems.section(data, "voice", required=False)
    problems.unknown_keys("voice", section, _VOICE_KEYS)
    enabled = problems.value(section, "voice.enabled", bool, default=False)
    device = problems.value(section, "voice.device", str, default="default")
    if isinstance(device, str) and not _ALSA_DEVICE.match(device):
        problems.add("voice.device", Phrase.of("table_file.voice_device", device=repr(device[:80]),
                                               names="`aplay -L`: default, plughw:1,0...", sim='"sim"'))
    rate = problems.value(section, "voice.rate", int, default=160)
    if isinstance(rate, int) and not 80 <= rate <= 450:
        problems.add("voice.rate", Phrase.of("table_file.voice_rate", rate=rate))
    volume = problems.value(section, "voice.volume", int, default=100)
    if isinstance(volume, int) and not 0 <= volume <= 200:
        problems.add("voice.volume", Phrase.of("table_file.voice_volume", volume=volume))
    verbosity = problems.choice(section, "voice.verbosity", VERBOSITIES, default="full")
    earpieces: list[tuple[str, str]] = []
    ears = (section or {}).get("earpieces", {})
    if not isinstance(ears, dict):
        problems.add("voice.earpieces", Phrase.of("table_file.earpieces", example='{ A = "plughw:2,0" }'))
        ears = {}
    problems.unknown_keys("voice.earpieces", ears, SEATS)
    # compared by the sound card each name plays on, not by the name: "default" is "sysdefault",
    # "plughw:1,0" is "hw:1,0" (hardware.alsa_cards)
    speaker = card_of(device) if isinstance(device, str) and device != SIM else None
    taken: dict[str, str] = {}
    for seat in SEATS:
        ear = problems.value(ears, f"voice.earpieces.{seat}", str, default=None)
        if isinstance(ear, str):
            card = card_of(ear) if ear != SIM else None
            if not _ALSA_DEVICE.match(ear):
                problems.add(f"voice.earpieces.{seat}", Phrase.of("table_file.voice_device", device=repr(ear[:80]),
                                                                  names="`aplay -L`", sim='"sim"'))
            elif card is not None and card == speaker:
                problems.add(f"voice.earpieces.{seat}", Phrase.of("table_file.earpiece_speaker", ear=repr(ear),
                                                                  device=repr(device), card=card))
            elif card is not None and card in taken:
                problems.add(f"voice.earpieces.{seat}", Phrase.of("table_file.earpiece_taken", ear=repr(ear),
                                                                  seat=taken[card], card=card))
            else:
                if card is not None:
                    taken[card] = seat
                earpieces.append((seat, ear))
    return VoiceConfig(enabled=bool(enabled), device=str(device), rate=int(rate or 160),
                       volume=int(volume if volume is not None else 100), verbosity=str(verbosity),
                       earpieces=tuple(earpieces))
