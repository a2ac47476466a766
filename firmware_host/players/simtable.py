"""The simulated table: simulated PN532 pads, mock buttons, all on the real drivers.

Each pad of a table file whose device is ``sim`` gets an emulated PN532 on a
pseudo-terminal, read by the real nfcpy driver through :class:`drivers.nfc.pad.Pad`;
the buttons are gpiozero devices on gpiozero's mock pins. Code (the demo, the
tests, ``sim``) lays cards and presses buttons; the service sees exactly what it
would see on a real table.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from drivers.closing import Closing
from drivers.device_events import DeviceEvent
from drivers.nfc.pad import PadSet, PadTiming
from drivers.nfc.pad_contents import CardLookup
from drivers.nfc.pn532sim import DEFAULT_MISS, Pn532Simulator
from drivers.nfc.pn532sim.noise import of_level
from drivers.nfc.pn532sim.tag_signer import sim_signer
from drivers.seat_controls import SeatControls
from drivers.stalls import Deadline
from engine.cards import CARDS
from hardware.table import TableConfig
from hardware.table_devices import TableDevices, open_table_devices

logger = logging.getLogger(__name__)

_SIGNER = sim_signer()  # the TEST key's signer, made once (it derives the key at its first signature)


def sim_uid(card: str, pack: int = 1) -> str:
    """The UID of the simulated NTAG213 sticker of ``card`` in ``pack`` (7 bytes, hex).

    >>> sim_uid("KS")
    '04ECA701075A80'
    >>> len(bytes.fromhex(sim_uid("7C", 2)))
    7
    """
    index = next(c.index for c in CARDS if str(c) == card)
    return f"04ECA7{pack:02X}{index:02X}5A80"


def sim_tags(pack: int = 1) -> dict[str, str]:
    """The registry of a simulated pack: UID → card."""
    return {sim_uid(str(c), pack): str(c) for c in CARDS}


class SimulatedTable(Closing):
    """Simulated PN532 pads and mock buttons for a (simulated) table file.

    :param table: the table file; every ``sim`` pad gets a simulated reader.
    :param events: where the pads and buttons put their events.
    :param card_for: the tag registry lookup given to the pads (``TagRegistry.entry``; default:
        the simulated packs' cards).
    :param baud: pace the simulated readers like a UART at this many bit/s (None: no pacing).
    :param timing: the pads' poll timing.
    :param depth: how many cards of a stack each simulated pad reads: ``None``
        takes each pad's ``depth`` from the table file (2 unless it says); an
        integer sets every pad; a mapping pad name → depth sets those pads.
    :param miss: probability that a card of a stack misses one poll.
    :param seed: seeds the misses and the noise (pad ``i`` of the table gets ``seed + i``).
    :param noise: how noisy every simulated pad's radio is (times the noise model's default rates:
        :mod:`drivers.nfc.pn532sim.noise`); ``None``: each pad's ``noise`` in the table file (0 unless it says).
    :param signer: signs each genuine simulated tag's UID (its ``READ_SIG`` answer); default the
        TEST key of :func:`drivers.nfc.pn532sim.tag_signer.sim_signer` (trust it with ``trusted_key = "test"``,
        the default of a simulated table). Clones and counterfeits are not signed.
    :param pad_options: more options for every :class:`~drivers.nfc.pad.Pad` (``read_ndef=``,
        ``originality=``).
    :raises ValueError: a depth below 1, or a mapping naming a pad that is not simulated.
    """

    def __init__(
        self,
        table: TableConfig,
        *,
        events: queue.Queue[DeviceEvent] | Callable[[DeviceEvent], None],
        card_for: CardLookup | None = None,
        baud: int | None = None,
        timing: PadTiming | None = None,
        buttons: bool = True,
        depth: int | Mapping[str, int] | None = None,
        miss: float = DEFAULT_MISS,
        seed: int = 0,
        signer: Callable[[bytes], bytes] | None = None,
        noise: float | None = None,
        **pad_options: Any,
    ) -> None:
        self.table = table
        depths = {pad.name: pad.depth for pad in table.pads if pad.simulated}
        if isinstance(depth, int):
            depths = dict.fromkeys(depths, depth)
        elif depth is not None:
            unknown = set(depth) - set(depths)
            if unknown:
                raise ValueError(f"no simulated pad {', '.join(sorted(unknown))} on {table.name!r}")
            depths |= depth
        tags = sim_tags(1) | sim_tags(2)
        self._card_for = card_for or tags.get
        self.simulators: dict[str, Pn532Simulator] = {}
        self.devices = TableDevices()
        try:
            for index, pad in enumerate(table.pads):
                if pad.simulated:
                    self.simulators[pad.name] = Pn532Simulator(
                        baud=baud, name=f"pn532-{pad.name}", depth=depths[pad.name],
                        miss=miss, seed=seed + index, signer=signer or _SIGNER,
                        noise=of_level(pad.noise if noise is None else noise),
                    )
            self.devices = open_table_devices(
                table, {name: sim.path for name, sim in self.simulators.items()}, put=events,
                card_for=self._card_for, backend="mock", buttons=buttons, timing=timing or PadTiming(), **pad_options,
            )
        except BaseException:
            self.close()
            raise

    @property
    def pads(self) -> PadSet | None:
        """The pads, read by the real driver (None once closed)."""
        return self.devices.pads

    @property
    def buttons(self) -> SeatControls | None:
        """The seat controls on gpiozero's mock pins (None without buttons, or once closed)."""
        return self.devices.seat_controls

    def place(self, pad: str, card: str, pack: int = 1) -> str:
        """Lay ``card`` on top of whatever lies on ``pad``; its UID."""
        uid = sim_uid(card, pack)
        self.simulators[pad].place(uid)
        return uid

    def place_tag(self, pad: str, uid: str, *, kind: str = "genuine", ndef_text: str | None = None) -> str:
        """Lay any tag on top of ``pad``: a stranger, a ``clone`` of a card's UID, a
        ``counterfeit`` chip (see :meth:`Pn532Simulator.place`); its UID."""
        self.simulators[pad].place(uid, ndef_text, kind=kind)
        return uid

    def lift_tag(self, pad: str, uid: str) -> None:
        """Take the tag ``uid`` off ``pad`` (nothing if it is not there)."""
        sim = self.simulators[pad]
        if uid in sim.on_pad:
            sim.remove(uid)

    def place_stack(self, pad: str, cards: Sequence[str], pack: int = 1) -> list[str]:
        """Lay a packet of ``cards`` on ``pad`` at once, ``cards[0]`` lowest; their UIDs."""
        uids = [sim_uid(card, pack) for card in cards]
        self.simulators[pad].place_stack(uids)
        return uids

    def lift(self, pad: str, card: str, pack: int = 1) -> None:
        """Take ``card`` off ``pad``, wherever it lies (nothing if it is not there)."""
        uid = sim_uid(card, pack)
        sim = self.simulators[pad]
        if uid in sim.on_pad:
            sim.remove(uid)

    def lift_top(self, pad: str) -> str | None:
        """Take the top card off ``pad``; the card (``None``: the pad was empty or the tag unknown)."""
        sim = self.simulators[pad]
        if not sim.on_pad:
            return None
        return self._card(sim.lift_top())

    def lift_all(self, pad: str) -> list[str | None]:
        """Take every card off ``pad``; the cards, lowest first."""
        return [self._card(uid) for uid in self.simulators[pad].lift_all()]

    def on_pad(self, pad: str) -> list[str | None]:
        """The cards lying on ``pad``, lowest first (what the table holds, seen or not)."""
        return [self._card(uid) for uid in self.simulators[pad].on_pad]

    def _card(self, uid: str) -> str | None:
        """The card the pads' lookup names for tag ``uid`` (``None``: unknown)."""
        found = self._card_for(uid)
        return found if found is None or isinstance(found, str) else found.card

    def wait_seen(self, pad: str, card: str | None, pack: int = 1, timeout: float = 5.0) -> bool:
        """Wait until ``pad`` reports ``card`` among the tags present (None: the pad
        reports nothing). True when it does, False after ``timeout`` seconds."""
        if self.pads is None:
            raise RuntimeError("this simulated table is closed")
        want = sim_uid(card, pack) if card is not None else None
        reader = self.pads[pad]
        deadline = Deadline(timeout)  # the time this process was stopped does not count
        while not deadline.expired:
            present = reader.present
            if (want in present) if want is not None else not present:
                return True
            time.sleep(0.005)
        return False

    def wait_reported(self, pad: str, timeout: float = 5.0) -> bool:
        """Wait until ``pad`` reports exactly the tags coupled to its antenna (those its
        simulated reader can read: the lowest ``depth`` of the stack). True when it does."""
        if self.pads is None:
            raise RuntimeError("this simulated table is closed")
        reader, sim = self.pads[pad], self.simulators[pad]
        deadline = Deadline(timeout)  # the time this process was stopped (a laptop's lid) does not count
        while not deadline.expired:
            if reader.present == frozenset(sim.readable):
                return True
            time.sleep(0.005)
        return False

    def slide(self, pad: str, card: str, pack: int = 1, timeout: float = 5.0) -> None:
        """Slide ``card`` across ``pad``: laid, read, lifted, gone."""
        self.place(pad, card, pack)
        self.wait_seen(pad, card, pack, timeout)
        self.lift(pad, card, pack)
        self.wait_seen(pad, None, pack, timeout)

    def press(self, seat: str, button: str) -> None:
        """Press and release a seat's button (through the real debounce)."""
        if self.buttons is None:
            raise RuntimeError("this simulated table has no buttons")
        self.buttons.simulate_press(seat, button)

    def close(self) -> None:
        """Stop the buttons, the pads, then the simulators (safe to call twice)."""
        self.devices.close()
        for sim in reversed(list(self.simulators.values())):
            sim.close()
        self.simulators.clear()


def pass_the_pack(sim: SimulatedTable, pad: str, stopped: threading.Event) -> None:
    """The simulated table's operator at a deck check before the first deal
    (:func:`firmware_host.cards.deck_gate.deck_check_first`): passes pack 1 over ``pad``, card by card."""
    from hardware.tag_registry import CARDS

    for card in CARDS:
        if stopped.is_set():
            return
        sim.place(pad, card)
        sim.wait_seen(pad, card)
        sim.lift(pad, card)
        sim.wait_seen(pad, None)
