"""The table file: shipped tables load, bad ones report every problem at once."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

import drivers.seat_controls
import hardware.table
import hardware.table_config
from hardware.layout import FULL_PADS
from hardware.table import (
    TableFileError,
    load_table,
    load_table_text,
    shipped_table_path,
    simulated_table,
)
from hardware.table_config import PadConfig, TableConfig

GOOD = """
[table]
name = "Test table"
layout = "full"
rules = "classic"
target = 5

[pads]
"hand.A" = "tty:USB0:pn532"
"hand.B" = "tty:USB1:pn532"
turnup = "tty:USB2:pn532"
discard = "tty:USB3:pn532"
"play.A" = "tty:USB4:pn532"
"play.B" = "tty:USB5:pn532"

[buttons]
backend = "auto"

[buttons.A]
yes = 5
no = 6
king = 13
led = 12

[buttons.B]
yes = 17
no = 27
king = 22
led = 23

[[displays]]
bus = 1
address = 0x3C
chip = "sh1106"
"""


def edit(text: str, old: str, new: str) -> str:
    if old not in text:
        raise LookupError(old)
    return text.replace(old, new, 1)


def problems_of(text: str) -> list[tuple[str, str]]:
    with pytest.raises(TableFileError) as info:
        load_table_text(text, source="bad.toml")
    assert str(info.value).startswith("bad.toml: ")
    for key, message in info.value.problems:
        assert message in str(info.value)
        assert key in str(info.value)
    return info.value.problems


@pytest.mark.parametrize("name", ["reference", "simulated", "compact"])
def test_shipped_tables_load(name: str) -> None:
    table = load_table(shipped_table_path(name))
    assert isinstance(table, TableConfig)
    assert table.source == shipped_table_path(name)
    assert {pad.zones for pad in table.pads} and table.displays
    zones = {zone for pad in table.pads for zone in pad.zones}
    assert zones == set(FULL_PADS)


def test_simulated_table_is_all_simulated() -> None:
    table = simulated_table()
    assert table.simulated
    assert table.buttons.backend == "mock"
    assert all(pad.simulated for pad in table.pads)
    assert table.displays[0].simulated and table.displays[0].device_path is None


def test_reference_table_avoids_bus_pins() -> None:
    table = load_table(shipped_table_path("reference"))
    pins = [
        pin
        for seat in table.buttons.seats.values()
        for pin in (seat.yes, seat.no, seat.king, seat.led, seat.buzzer)
        if pin is not None
    ]
    assert len(pins) == len(set(pins)) == 10
    assert not set(pins) & {0, 1, 2, 3, 14, 15}
    assert table.displays[0].device_path == "/dev/i2c-1"
    assert table.pad("turnup").serial_port == (  # the hub's third port
        "/dev/serial/by-path/platform-fd500000.pcie-pci-0000:01:00.0-usb-0:1.3.3:1.0-port0")
    assert not table.simulated


def test_compact_table_maps_pads_to_zones() -> None:
    table = load_table(shipped_table_path("compact"))
    assert [pad.name for pad in table.pads] == ["A", "B", "centre"]
    assert table.pad("A").zones == ("hand.A", "play.A")
    assert table.pad_for_zone("discard").name == "centre"
    assert table.pad_for_zone("play.B").name == "B"
    assert table.pad("centre").serial_port == "/dev/serial0"
    assert [d.seat for d in table.displays] == ["A", "B"]


def test_good_text_loads_and_is_frozen() -> None:
    table = load_table_text(GOOD)
    assert table.name == "Test table" and table.target == 5
    assert table.buttons.debounce == 0.05
    with pytest.raises(AttributeError):
        table.target = 7  # type: ignore[misc]
    with pytest.raises(KeyError, match=r"did you mean `play\.A`"):
        table.pad("play.a")


def test_dotted_pad_keys_without_quotes() -> None:
    text = GOOD.replace('"hand.A"', "hand.A").replace('"play.B"', "play.B")
    table = load_table_text(text)
    assert table.pad("hand.A").device == "tty:USB0:pn532"


def test_seat_buttons_fit_the_buttons_driver() -> None:
    from gpiozero.pins.mock import MockFactory

    table = simulated_table()
    seen: list[object] = []
    with drivers.seat_controls.SeatControls(
        table.buttons.seats,
        pin_factory=MockFactory(),
        on_press=seen.append,
        debounce=table.buttons.debounce,
    ) as buttons:
        buttons.pin("B", "king").drive_low()
        buttons.led_on("A")
        assert buttons.is_lit("A")
    assert len(seen) == 1


def test_the_table_file_s_listen_button_reaches_the_buttons_driver() -> None:
    """A seat's pins are one type from the table file to the driver: the ``listen`` pin is claimed
    and pressed like the others (a second description of the pins once lacked it)."""
    from gpiozero.pins.mock import MockFactory

    table = load_table_text(edit(GOOD, "led = 12", "led = 12\nlisten = 19"))
    assert list(table.buttons.seats) == ["A", "B"]
    seen: list[object] = []
    with drivers.seat_controls.SeatControls(table.buttons.seats, pin_factory=MockFactory(), on_press=seen.append,
                                            debounce=0.0, clock=lambda: 1.0) as buttons:
        assert buttons.pin("A", "listen").info.name == "GPIO19"
        buttons.pin("A", "listen").drive_low()
        buttons.pin("A", "listen").drive_high()
    assert [(event.seat, event.button) for event in seen] == [("A", "listen")]  # type: ignore[attr-defined]


def test_registry_relative_to_the_file(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(edit(GOOD, 'target = 5', 'target = 5\nregistry = "tags.json"'))
    assert load_table(path).registry == tmp_path / "tags.json"


def test_missing_file_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_table(tmp_path / "nope.toml")


def test_toml_syntax_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text("[table\nname = 1\n")
    with pytest.raises(TableFileError, match=r"broken\.toml: 1 problem:\n  not valid TOML"):
        load_table(path)


def test_depth_and_sight_defaults() -> None:
    table = load_table_text(GOOD)
    assert table.sight == "full"
    assert {pad.depth for pad in table.pads} == {hardware.table_config.REAL_PAD_DEPTH} == {1}
    sim = load_table_text(GOOD.replace('"tty:USB0:pn532"', '"sim"'))
    assert sim.pad("hand.A").depth == hardware.table_config.SIM_PAD_DEPTH == 2
    assert simulated_table().sight == "partial"
    assert all(pad.depth == 2 for pad in simulated_table().pads)


SUBTABLE = edit(
    edit(GOOD, '"hand.A" = "tty:USB0:pn532"\n', ""),
    '"play.B" = "tty:USB5:pn532"\n',
    '"play.B" = "tty:USB5:pn532"\n\n[pads."hand.A"]\ndevice = "tty:USB0:pn532"\ndepth = 3\n',
)


@pytest.mark.parametrize("text", [
    edit(GOOD, '"hand.A" = "tty:USB0:pn532"', '"hand.A" = { device = "tty:USB0:pn532", depth = 3 }'),
    edit(GOOD, '"hand.A" = "tty:USB0:pn532"', 'hand.A = { device = "tty:USB0:pn532", depth = 3 }'),
    SUBTABLE,
], ids=["inline", "dotted", "subtable"])
def test_a_pad_with_its_depth(text: str) -> None:
    table = load_table_text(text)
    assert table.pad("hand.A") == PadConfig("hand.A", "tty:USB0:pn532", 3)
    assert table.pad("hand.B").depth == 1


def test_a_simulated_pad_with_its_noise() -> None:
    table = load_table_text(edit(GOOD, '"hand.A" = "tty:USB0:pn532"', '"hand.A" = { device = "sim", noise = 3 }'))
    assert table.pad("hand.A") == PadConfig("hand.A", "sim", 2, 3.0)
    assert table.pad("hand.B").noise == 0.0  # a real pad's noise is its own


def test_sight_partial() -> None:
    assert load_table_text(edit(GOOD, "target = 5", 'target = 5\nsight = "partial"')).sight == "partial"


BAD_CASES = [
    pytest.param(
        edit(GOOD, "target = 5", 'target = 5\nsight = "half"'),
        [("table.sight", "unknown sight 'half': expected one of 'full', 'partial'")],
        id="sight",
    ),
    pytest.param(
        edit(GOOD, "target = 5", 'target = 5\nsight = "parital"'),
        [("table.sight", "did you mean 'partial'?")],
        id="sight-typo",
    ),
    pytest.param(
        edit(edit(edit(edit(GOOD, '"hand.A" = "tty:USB0:pn532"', '"hand.A" = { device = "tty:USB0:pn532", depth = 0 }'),
                       '"hand.B" = "tty:USB1:pn532"', '"hand.B" = { device = "tty:USB1:pn532", deep = 3 }'),
                  'turnup = "tty:USB2:pn532"', "turnup = { depth = 2 }"),
             'discard = "tty:USB3:pn532"', 'discard = { device = "tty:USB3:pn532", depth = "2" }'),
        [
            ("pads.hand.A.depth", "1 to 10, not 0"),
            ("pads.hand.B.deep", "did you mean `depth`?"),
            ("pads.turnup.device", "missing"),
            ("pads.discard.depth", "write 2 without quotes"),
        ],
        id="pad-depths",
    ),
    pytest.param(
        edit(GOOD, '"play.B" = "tty:USB5:pn532"', '"play.B" = { device = "tty:USB5:pn532", depth = 11 }'),
        [("pads.play.B.depth", "not 11")],
        id="too-deep",
    ),
    pytest.param(
        edit(edit(GOOD, '"play.B" = "tty:USB5:pn532"', '"play.B" = { device = "tty:USB5:pn532", noise = 2 }'),
             '"play.A" = "tty:USB4:pn532"', '"play.A" = { device = "sim", noise = -1.5 }'),
        [("pads.play.B.noise", 'only a "sim" pad has one; not 2.0'), ("pads.play.A.noise", "0 to 100.0 times")],
        id="pad-noise",
    ),
    pytest.param(
        edit(GOOD, '"play.A" =', '"play.a" ='),
        [("pads.play.a", "unknown pad `play.a`: did you mean `play.A`?")],
        id="pad-case",
    ),
    pytest.param(
        edit(GOOD, "turnup =", "turnpu ="),
        [
            ("pads.turnpu", "did you mean `turnup`?"),
        ],
        id="pad-typo",
    ),
    pytest.param(
        edit(GOOD, 'discard = "tty:USB3:pn532"\n', ""),
        [("pads.discard", "missing: the full layout needs a reader for pad `discard`")],
        id="missing-pad",
    ),
    pytest.param(
        edit(GOOD, 'turnup = "tty:USB2:pn532"', 'centre = "tty:USB2:pn532"'),
        [
            ("pads.centre", "is a pad of the compact layout"),
            ("pads.turnup", "missing"),
        ],
        id="compact-pad-on-full-table",
    ),
    pytest.param(
        edit(GOOD, 'layout = "full"', 'layout = "compact"'),
        [("pads.hand.A", "is a pad of the full layout")] * 6
        + [("pads.A", "missing"), ("pads.B", "missing"), ("pads.centre", "missing")],
        id="layout-mismatch",
    ),
    pytest.param(
        edit(GOOD, 'layout = "full"', 'layout = "ful"'),
        [("table.layout", "unknown layout 'ful': did you mean 'full'?")],
        id="layout-typo",
    ),
    pytest.param(
        edit(GOOD, 'rules = "classic"', 'rules = "clasic"'),
        [("table.rules", "did you mean 'classic'?")],
        id="rules-typo",
    ),
    pytest.param(
        edit(GOOD, "target = 5", 'target = "5"'),
        [("table.target", "must be an integer, not a string ('5'): write 5 without quotes")],
        id="quoted-number",
    ),
    pytest.param(
        edit(GOOD, "target = 5", "target = 0\ncolour = 'green'"),
        [
            ("table.target", "between 1 and 100"),
            ("table.colour", "unknown key `colour`"),
        ],
        id="target-range-and-unknown-key",
    ),
    pytest.param(
        edit(GOOD, '"hand.B" = "tty:USB1:pn532"', '"hand.B" = "tty:USB0:pn532"'),
        [("pads.hand.B", "is also the reader of pad `hand.A`")],
        id="same-reader-twice",
    ),
    pytest.param(
        edit(
            edit(GOOD, '"tty:USB4:pn532"', '"ttyUSB4"'),
            '"tty:USB5:pn532"',
            '"tty:USB5"',
        ),
        [
            ("pads.play.A", "did you mean `tty:USB4:pn532`?"),
            ("pads.play.B", "names no driver: write `tty:USB5:pn532`"),
        ],
        id="device-paths",
    ),
    pytest.param(
        edit(GOOD, '"tty:USB2:pn532"', '"simulated"'),
        [("pads.turnup", 'did you mean "sim"?')],
        id="sim-typo",
    ),
    pytest.param(
        edit(GOOD, '"tty:USB2:pn532"', '"tty:USB2:pn533"'),
        [("pads.turnup", "the pads are PN532s")],
        id="wrong-driver",
    ),
    pytest.param(
        edit(GOOD, "no = 27", "no = 5"),
        [("buttons.B.no", "GPIO5 is also buttons.A.yes")],
        id="duplicate-pin",
    ),
    pytest.param(
        edit(GOOD, "led = 23", "led = 23\nbuzzer = 12"),
        [("buttons.B.buzzer", "GPIO12 is also buttons.A.led")],
        id="buzzer-on-led-pin",
    ),
    pytest.param(
        edit(edit(GOOD, "yes = 17", "yes = 2"), "king = 13", "king = 40"),
        [
            ("buttons.A.king", "not on the 40-pin header"),
            ("buttons.B.yes", "I2C1 SDA, which the display on bus 1 uses"),
        ],
        id="i2c-pin-and-out-of-range",
    ),
    pytest.param(
        edit(edit(GOOD, '"tty:USB2:pn532"', '"/dev/serial0"'), "led = 12", "led = 14"),
        [("buttons.A.led", "UART TXD")],
        id="uart-pin",
    ),
    pytest.param(
        edit(GOOD, "led = 12\n", "lde = 12\n"),
        [
            ("buttons.A.lde", "unknown key `lde`: did you mean `led`?"),
            ("buttons.A.led", "missing"),
        ],
        id="seat-key-typo",
    ),
    pytest.param(
        edit(GOOD, 'backend = "auto"', 'backend = "gpio"\ndebounce = 2'),
        [
            ("buttons.backend", "unknown backend 'gpio'"),
            ("buttons.debounce", "0 to 0.5 seconds"),
        ],
        id="backend-and-debounce",
    ),
    pytest.param(
        edit(GOOD, "[buttons.B]", "[buttons.C]"),
        [
            ("buttons.C", "unknown key `C`"),
            ("buttons.B", "missing: seat B"),
        ],
        id="unknown-seat",
    ),
    pytest.param(
        edit(GOOD, "address = 0x3C", "address = 0x78"),
        [("displays[0].address", "8-bit write address printed on many boards: write 0x3c")],
        id="eight-bit-address",
    ),
    pytest.param(
        edit(GOOD, "address = 0x3C", "address = 0x50"),
        [("displays[0].address", "answer at 0x3C or 0x3D only")],
        id="wrong-address",
    ),
    pytest.param(
        edit(GOOD, "address = 0x3C", "address = 0x200"),
        [("displays[0].address", "not a 7-bit I2C address")],
        id="address-out-of-range",
    ),
    pytest.param(
        edit(GOOD, "address = 0x3C", 'address = "0x3C"'),
        [("displays[0].address", "write 0x3c without quotes")],
        id="quoted-address",
    ),
    pytest.param(
        edit(GOOD, 'chip = "sh1106"', 'chip = "sh1107"\nrotate = 180\nseat = "C"'),
        [
            ("displays[0].chip", "did you mean 'sh1106'?"),
            ("displays[0].seat", "unknown seat `C`"),
            ("displays[0].rotate", "180 degrees is 2"),
        ],
        id="chip-seat-rotate",
    ),
    pytest.param(
        edit(GOOD, "bus = 1", 'bus = "/dev/i2c-1"'),
        [("displays[0].bus", "write bus = 1")],
        id="bus-as-path",
    ),
    pytest.param(
        GOOD + "\n[[displays]]\nbus = 1\naddress = 0x3C\n",
        [
            ("displays[1]", "bus 1 address 0x3c is also displays[0]"),
            ("displays[1].seat", "already faces both seats"),
        ],
        id="two-displays-one-address",
    ),
    pytest.param(
        GOOD.split("[[displays]]")[0] + "[display]\nbus = 1\n",
        [
            ("display", "unknown key `display`: did you mean `displays`?"),
            ("displays", "missing"),
        ],
        id="display-singular",
    ),
    pytest.param(
        "pads = 3\n[table]\nname = 7\n",
        [
            ("pads", "must be a table"),
            ("table.name", "must be a string, not an integer"),
            ("buttons", "missing"),
            ("buttons.A", "missing"),
            ("buttons.B", "missing"),
            ("displays", "missing"),
        ],
        id="wrong-types",
    ),
    pytest.param(
        edit(GOOD, "rules = ", 'players = ["Ann", " ann "]\nrules = '),
        [("table.players", "each name once, got 'ann' twice")],
        id="one-player-on-both-seats",
    ),
]


@pytest.mark.parametrize(("text", "expected"), BAD_CASES)
def test_every_problem_is_reported_at_once(
    text: str, expected: list[tuple[str, str]]
) -> None:
    problems = problems_of(text)
    for key, fragment in expected:
        assert any(k == key and fragment in m for k, m in problems), (key, fragment, problems)
    assert len(problems) == len(expected), problems


def test_many_problems_in_one_file() -> None:
    text = edit(GOOD, '"play.A" =', '"play.a" =')
    text = edit(text, "target = 5", 'target = "five"')
    text = edit(text, "no = 27", "no = 5")
    text = edit(text, "address = 0x3C", "address = 0x78")
    problems = problems_of(text)
    assert [key for key, _ in problems] == [
        "table.target",
        "pads.play.a",
        "displays[0].address",
        "buttons.B.no",
    ]
    with pytest.raises(TableFileError, match=r"^bad\.toml: 4 problems:\n  table\.target: "):
        load_table_text(text, source="bad.toml")


def test_table_file_error_is_a_value_error() -> None:
    error = TableFileError("x.toml", [("pads", "missing")])
    assert isinstance(error, ValueError)
    assert error.problems == [("pads", "missing")]
    assert str(error) == "x.toml: 1 problem:\n  pads: missing"


def test_custom_rule_sets() -> None:
    text = edit(GOOD, 'rules = "classic"', 'rules = "house"')
    assert load_table_text(text, rule_sets=("classic", "house")).rules == "house"


@pytest.mark.parametrize(
    ("device", "port"),
    [
        ("tty:USB0:pn532", "/dev/ttyUSB0"),
        ("tty:AMA0:pn532", "/dev/ttyAMA0"),
        ("tty:ecarte-hand-A:pn532", "/dev/ecarte-hand-A"),
        ("/dev/serial0", "/dev/serial0"),
        ("usb:054c:06c1", None),
        ("sim", None),
    ],
)
def test_serial_port(device: str, port: str | None) -> None:
    assert PadConfig("turnup", device).serial_port == port


@pytest.mark.parametrize("module", [hardware.table, hardware.table_config, drivers.seat_controls])
def test_doctests(module: object) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)  # type: ignore[arg-type]
    assert result.attempted > 0 and result.failed == 0


def test_docs_describe_every_key() -> None:
    docs = Path(__file__).resolve().parents[2] / "docs" / "hardware.md"
    if not docs.exists():
        pytest.skip("docs/hardware.md not written yet")
    text = docs.read_text()
    for key in (
        "name", "layout", "rules", "target", "registry", "sight", "depth", "backend", "debounce",
        "yes", "no", "king", "led", "buzzer", "bus", "address", "chip", "seat", "rotate",
    ):
        assert f"`{key}`" in text, key
    assert "nfc.md" in text and "display.md" in text


VOICE = """
[voice]
enabled = true
device = "plughw:CARD=Device,DEV=0"
rate = 180
volume = 120
verbosity = "brief"
earpieces = { A = "plughw:2,0" }
"""


def test_the_voice_section_is_read() -> None:
    table = load_table_text(GOOD + VOICE)
    assert table.voice.enabled and table.voice.device == "plughw:CARD=Device,DEV=0"
    assert (table.voice.rate, table.voice.volume, table.voice.verbosity) == (180, 120, "brief")
    assert table.voice.earpieces == (("A", "plughw:2,0"),)
    silent = load_table_text(GOOD).voice
    assert not silent.enabled and silent.device == "default" and silent.earpieces == ()


def test_a_bad_voice_section_is_refused_at_the_door_with_every_problem() -> None:
    bad = (VOICE.replace("rate = 180", "rate = 20").replace("volume = 120", "volume = 300")
           .replace('"brief"', '"chatty"')
           .replace('{ A = "plughw:2,0" }', '{ A = "plughw:CARD=Device,DEV=0", C = "x" }')
           .replace("enabled = true", "enabled = true\npitch = 50"))
    keys = {key: message for key, message in problems_of(GOOD + bad)}
    assert "80 to 450" in keys["voice.rate"]
    assert "0 to 200" in keys["voice.volume"]
    assert "full" in keys["voice.verbosity"]
    assert "table's speaker" in keys["voice.earpieces.A"]
    assert any(key.startswith("voice.earpieces") and "C" in key + message for key, message in keys.items())
    assert any("pitch" in key + message for key, message in keys.items())
    odd = dict(problems_of(GOOD + VOICE.replace('device = "plughw:CARD=Device,DEV=0"', 'device = "x; rm -rf /"')))
    assert "aplay -L" in odd["voice.device"]


def test_a_listen_pin_is_checked_like_every_pin() -> None:
    problems = dict(problems_of(edit(GOOD, "led = 12", "led = 12\nlisten = 6")))
    assert "GPIO6 is also" in problems["buttons.A.listen"]
    assert load_table_text(edit(GOOD, "led = 12", "led = 12\nlisten = 19")).buttons.seats["A"].listen == 19


@pytest.mark.parametrize(("device", "ears", "refused"), [
    ("default", 'A = "plughw:2,0", B = "plughw:2,0"', "seat A's earpiece too"),  # two seats, one card
    ("default", 'A = "sysdefault"', "table's speaker"),  # the speaker under another name
    ("plughw:1,0", 'A = "hw:1,0"', "table's speaker"),
    ("default", 'A = "plughw:0,0"', "table's speaker"),  # default is card 0 (alsa.conf)
    ("hw:CARD=1,DEV=0", 'B = "plughw:1"', "table's speaker"),
    ("default", 'A = "plughw:1,0", B = "dmix:CARD=1"', "seat A's earpiece too"),
])
def test_an_earpiece_on_another_seats_or_the_speakers_card_is_refused(
        device: str, ears: str, refused: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each seat would hear the other's cards: the earpieces are compared by the sound card their ALSA
    name plays on (hardware.alsa_cards), not by the name."""
    monkeypatch.delenv("ALSA_CARD", raising=False)
    monkeypatch.delenv("ALSA_PCM_CARD", raising=False)
    text = GOOD + f'\n[voice]\nenabled = true\ndevice = "{device}"\nearpieces = {{ {ears} }}\n'
    problems = dict(problems_of(text))
    assert any(refused in message for key, message in problems.items() if key.startswith("voice.earpieces")), problems


def test_earpieces_on_their_own_cards_are_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ALSA_CARD", raising=False)
    monkeypatch.delenv("ALSA_PCM_CARD", raising=False)
    text = GOOD + '\n[voice]\nenabled = true\ndevice = "default"\nearpieces = { A = "plughw:1,0", B = "plughw:2,0" }\n'
    assert load_table_text(text).voice.earpieces == (("A", "plughw:1,0"), ("B", "plughw:2,0"))


@pytest.mark.parametrize("key", ["reference", "compact"])
def test_the_shipped_tables_name_each_usb_adapter_by_the_port_it_is_plugged_into(key: str) -> None:
    """ttyUSBn follows the order adapters are found at boot, and CH340s have no serial number: the
    pads are named by udev's by-path names, each its own USB port; the Pi's UART stays serial0."""
    table = hardware.table.load_table(hardware.table.shipped_table_path(key))
    ports = [pad.serial_port for pad in table.pads]
    usb = [port for port in ports if port != "/dev/serial0"]
    assert usb and all(port is not None and port.startswith("/dev/serial/by-path/") for port in usb), ports
    assert len(set(usb)) == len(usb)
    assert all(port is not None and port.endswith(":1.0-port0") for port in usb)  # the adapter's first interface
