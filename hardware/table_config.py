"""What one physical table is made of, as its table file describes it.

The table (:class:`TableConfig`), its pads and their readers, each seat's
button pins, its OLEDs and the trust it puts in its tags: a tree of frozen
values, built by :mod:`hardware.table` from a checked table file. Nothing here
touches hardware; the devices are opened from these values by the service
(``firmware_host/app.py``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from catalogue.phrase import Phrase, english
from drivers.seat_controls import SeatPins
from engine.rules import RULE_SETS as ENGINE_RULE_SETS
from hardware.layout import BUTTONS, FULL_PADS, PAD_ZONES
from hardware.table_checks import unknown

__all__ = [
    "BUTTON_KEYS", "DEFAULT_ADDRESS", "MAX_DEPTH", "REAL_PAD_DEPTH", "RULE_SETS", "SIM", "SIM_PAD_DEPTH", "TTY_PATH",
    "VERBOSITIES", "ButtonsConfig", "DisplayConfig", "NoSuchPad", "PadConfig", "TableConfig", "TagPolicy",
    "VoiceConfig",
]

BUTTON_KEYS: tuple[str, ...] = (*BUTTONS, "led")
RULE_SETS: tuple[str, ...] = tuple(ENGINE_RULE_SETS)
"""Rule-set names accepted in ``[table] rules`` (the engine's registry)."""

DEFAULT_ADDRESS = 0x3C
SIM = "sim"

# nfcpy's own path grammar (nfc/clf/transport.py): port names are letters,
# digits and hyphens only.
TTY_PATH = re.compile(r"^tty:([A-Za-z0-9-]+)(?::([A-Za-z0-9]*))?$")

MAX_DEPTH = 10
"""The deepest a pad may be said to read (``depth``): no 13.56 MHz pad reads more."""
REAL_PAD_DEPTH = 1
"""Tags of a stack a real PN532 pad is taken to read when its ``depth`` is not set."""
SIM_PAD_DEPTH = 2
"""Tags of a stack a simulated pad reads when its ``depth`` is not set."""
MAX_NOISE = 100.0
"""The loudest a simulated pad's radio may be set (``noise``, times the noise model's default rates:
:mod:`drivers.nfc.pn532sim.noise`; every probability stops at 90 % anyway)."""


class NoSuchPad(KeyError):
    """A pad (or a zone) the table does not have: ``words`` say which, and the one meant (a ``KeyError``)."""

    def __init__(self, words: Phrase) -> None:
        super().__init__(english(words))
        self.words = words


@dataclass(frozen=True, slots=True)
class PadConfig:
    """One pad and the PN532 under it.

    ``device`` is an nfcpy path (``tty:USB0:pn532``, ``usb:054c:06c1``), a
    plain serial device path (``/dev/serial0``) or ``sim`` for a simulated reader.
    ``depth`` is how many tags of a stack the pad reads, counted from the
    cloth (:data:`REAL_PAD_DEPTH` for a real reader, :data:`SIM_PAD_DEPTH`
    for a simulated one, unless the table file says). ``noise`` is how noisy a simulated pad's
    radio is, times the noise model's default rates (:mod:`drivers.nfc.pn532sim.noise`; 0: a
    perfect link, 1: the rates the model takes for a real pad; a real pad's noise is its own).
    """

    name: str
    device: str
    depth: int = REAL_PAD_DEPTH
    noise: float = 0.0

    @property
    def simulated(self) -> bool:
        """Whether the reader is simulated (``device = "sim"``)."""
        return self.device == SIM

    @property
    def zones(self) -> tuple[str, ...]:
        """The transcript zones this pad stands for (see :data:`PAD_ZONES`)."""
        return PAD_ZONES[self.name]

    @property
    def serial_port(self) -> str | None:
        """The ``/dev`` node of a serial reader, or ``None`` (USB, simulated).

        >>> PadConfig("turnup", "tty:USB0:pn532").serial_port
        '/dev/ttyUSB0'
        >>> PadConfig("turnup", "tty:serial0:pn532").serial_port
        '/dev/serial0'
        """
        if self.device.startswith("/"):
            return self.device
        match = TTY_PATH.match(self.device)
        if match is None:
            return None
        port = match.group(1)
        if re.match(r"^(S|ACM|AMA|USB)\d+$", port):
            return f"/dev/tty{port}"
        return f"/dev/{port}"


@dataclass(frozen=True, slots=True)
class ButtonsConfig:
    """The pin backend, the debounce window (seconds) and each seat's pins.

    ``seats``: ``{"A": SeatPins(...), "B": ...}``, as :class:`drivers.seat_controls.SeatControls` takes
    them (``listen``, an optional fourth button for the voice: a press repeats the last announcement, a
    long press reads the seat its own cards in its earpiece, ``[voice]``)."""

    backend: str
    debounce: float
    seats: Mapping[str, SeatPins]


@dataclass(frozen=True, slots=True)
class DisplayConfig:
    """One OLED: its I2C ``bus`` number (or ``sim``), 7-bit ``address``, ``chip``.

    ``seat`` is the seat it faces (``None``: shared); ``rotate`` is in quarter
    turns clockwise (luma's convention: 0-3).
    """

    bus: int | str
    address: int = DEFAULT_ADDRESS
    chip: str = "ssd1306"
    seat: str | None = None
    rotate: int = 0

    @property
    def simulated(self) -> bool:
        """Whether the display is simulated (``bus = "sim"``)."""
        return self.bus == SIM

    @property
    def device_path(self) -> str | None:
        """``/dev/i2c-N`` for the bus, or ``None`` when simulated."""
        return None if self.simulated else f"/dev/i2c-{self.bus}"


VERBOSITIES = ("full", "brief")
"""``[voice] verbosity``: ``full`` says every bid, card and trick; ``brief`` the trump, faults and score."""


@dataclass(frozen=True, slots=True)
class VoiceConfig:
    """The table's voice (the ``[voice]`` section; ``docs/players.md``, *Listening to the table*).

    :param enabled: the table speaks.
    :param device: the ALSA device of the table's speaker (``aplay -L``), or ``sim``: WAV files
        (``run --voice DIR``).
    :param rate: words a minute (espeak-ng's ``-s``, 80-450).
    :param volume: espeak-ng's amplitude, 0-200 (100: its own default loudness).
    :param verbosity: ``full`` or ``brief`` (:data:`VERBOSITIES`).
    :param earpieces: per seat, the ALSA device of its earpiece, where the seat hears its own
        cards read (never on the table's speaker); a seat without one has no private reading.
    """

    enabled: bool = False
    device: str = "default"
    rate: int = 160
    volume: int = 100
    verbosity: str = "full"
    earpieces: tuple[tuple[str, str], ...] = ()

    @property
    def simulated(self) -> bool:
        return self.device == SIM


@dataclass(frozen=True, slots=True)
class TableConfig:
    """A whole table, as its table file describes it."""

    name: str
    layout: str
    rules: str
    target: int
    pads: tuple[PadConfig, ...]
    buttons: ButtonsConfig
    displays: tuple[DisplayConfig, ...]
    registry: Path | None = None
    source: Path | None = field(default=None, compare=False)
    sight: str = "full"
    tags: TagPolicy = field(default_factory=lambda: TagPolicy())
    language: str = "en"
    language_named: bool = field(default=False, compare=False)
    """The file names its ``language`` (not English by default): the language its refusals are said in when
    none is asked (``--language``), before the environment's."""
    players: tuple[str, str] | None = None
    locked: bool = False
    coach: bool = False
    """After each hand the OLED says where a seat lost what best play would have kept (docs/coach.md)."""
    hint: bool = False
    """Learners: before the elder decides, the OLED shows his odds of standing (it tells the table
    something of his hand: off by default)."""
    badges: Path | None = None
    voice: VoiceConfig = field(default_factory=lambda: VoiceConfig())

    def pad(self, name: str) -> PadConfig:
        """The pad called ``name``.

        :raises NoSuchPad: for a pad this table does not have.
        """
        for pad in self.pads:
            if pad.name == name:
                return pad
        raise NoSuchPad(unknown("pad", name, [p.name for p in self.pads]))

    def pad_for_zone(self, zone: str) -> PadConfig:
        """The pad that serves a transcript zone (``play.A`` is pad ``A`` when compact).

        :raises NoSuchPad: for a zone no pad serves.
        """
        for pad in self.pads:
            if zone in pad.zones:
                return pad
        raise NoSuchPad(unknown("zone", zone, FULL_PADS))

    @property
    def simulated(self) -> bool:
        """Whether nothing on this table is real hardware."""
        return (
            all(pad.simulated for pad in self.pads)
            and all(display.simulated for display in self.displays)
            and self.buttons.backend == "mock"
        )

    @property
    def simulated_pads(self) -> bool:
        """Whether every pad is simulated (their tags are signed with the simulator's TEST key)."""
        return all(pad.simulated for pad in self.pads)


@dataclass(frozen=True, slots=True)
class TagPolicy:
    """What the table trusts of its cards' tags (the ``[tags]`` section; ``docs/nfc.md``).

    :param require_signature: refuse in play a card whose tag fails NXP's originality check.
    :param trusted_key: whose signatures are genuine: ``"nxp"``, ``"test"`` (the simulator's
        TEST key) or a public key in hex; ``None``: ``nxp`` on a real table, ``test`` on a
        simulated one (:meth:`key_name`).
    :param ndef_pack: with a registry, read unknown tags' NDEF records (``ecarte:KS``) as the
        cards of this pack, which has no tags in the registry; ``None``: with a registry the
        NDEF fallback is off (without one it is always on).
    :param lock_secret_file: the file holding the secret each tag's password is derived from
        (``ecarte-table enroll --lock``); relative to the table file's folder.
    :param check_every_arrival: never remember a verdict: also check a tag that arrives while
        its UID still lies on another pad (without it a verdict lasts while the tag stays on its
        pad, so every arrival is checked anyway; ``docs/hardware.md``).
    :param deck_check_first: run the deck check (``ecarte-table deck``) before the first deal of
        every session: the service starts refereeing once a registered pack passed whole.
    """

    require_signature: bool = False
    trusted_key: str | None = None
    ndef_pack: int | None = None
    lock_secret_file: Path | None = None
    check_every_arrival: bool = False
    deck_check_first: bool = False

    def key_name(self, simulated: bool) -> str:
        """The trusted key's name: as configured, else ``test`` for a simulated table, ``nxp``."""
        if self.trusted_key is not None:
            return self.trusted_key
        return "test" if simulated else "nxp"

