"""The pads and seat controls a table file describes, opened on their drivers: one function for the
real table and the simulated one (which gives its simulated readers' ports and gpiozero's mock pins).

    >>> from hardware.table import simulated_table
    >>> seen = []
    >>> with open_table_devices(simulated_table(), {}, put=seen.append, backend="mock") as devices:
    ...     devices.seat_controls.simulate_press("A", "yes")
    ...     import time; time.sleep(0.2)
    >>> [(e.seat, e.button) for e in seen]
    [('A', 'yes')]
"""

from __future__ import annotations

import queue
from collections.abc import Callable, Mapping
from typing import Any

from drivers.closing import Closing
from drivers.device_events import DeviceEvent
from drivers.nfc.pad import PadSet
from drivers.nfc.pad_contents import CardLookup
from drivers.pin_backends import make_pin_factory
from drivers.seat_controls import SeatControls
from hardware.table import TableConfig


class TableDevices(Closing):
    """A table's pads (:class:`~drivers.nfc.pad.PadSet`), its pin factory and its seat controls
    (``None`` without buttons); :meth:`close` closes them in reverse (safe twice)."""

    def __init__(self, pads: PadSet | None = None, pin_factory: Any = None,
                 seat_controls: SeatControls | None = None) -> None:
        self.pads = pads
        self.pin_factory = pin_factory
        self.seat_controls = seat_controls

    def close(self) -> None:
        for part in (self.seat_controls, self.pin_factory, self.pads):
            if part is not None:
                part.close()
        self.pads = self.pin_factory = self.seat_controls = None


def open_table_devices(
    table: TableConfig,
    ports: Mapping[str, str],
    *,
    put: queue.Queue[DeviceEvent] | Callable[[DeviceEvent], None],
    card_for: CardLookup | None = None,
    backend: str | None = None,
    buttons: bool = True,
    **pad_options: Any,
) -> TableDevices:
    """The pads on ``ports`` (pad name → serial port) and ``table``'s seat controls, putting their
    events with ``put`` (a queue, or a callable).

    :param card_for: the tag registry's lookup the pads name cards with (``TagRegistry.entry``:
        card and pack).
    :param backend: the pins' backend (None: the table file's ``[buttons] backend``; ``mock`` on the
        simulated table).
    :param buttons: open the seat controls too.
    :param pad_options: more for every :class:`~drivers.nfc.pad.Pad` (``read_ndef=``, ``originality=``,
        ``timing=``).
    """
    devices = TableDevices()
    emit: dict[str, Any] = {"events": put} if isinstance(put, queue.Queue) else {"on_event": put}
    try:
        devices.pads = PadSet(ports, card_for=card_for, **emit, **pad_options)
        if buttons:
            devices.pin_factory = make_pin_factory(backend or table.buttons.backend)
            devices.seat_controls = SeatControls(table.buttons.seats, pin_factory=devices.pin_factory,
                                                 on_press=put, debounce=table.buttons.debounce)
    except BaseException:
        devices.close()
        raise
    return devices
