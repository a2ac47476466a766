"""The deck check before the first deal (``[tags] deck_check_first``): the pads' events held back
(:class:`DeckGate`) while a pack passes over a pad, again until a registered pack passes whole and clean,
then let through to the service. The composition root (:mod:`firmware_host.app`) opens the gate on the
pads, shows each report on the OLED and, on the simulated table, starts its operator
(:func:`firmware_host.players.simtable.pass_the_pack`).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from drivers.device_events import DeviceEvent
    from firmware_host.cards.deck_check import DeckReport
    from hardware.table import TableConfig
    from hardware.tag_registry import TagRegistry

logger = logging.getLogger(__name__)


class DeckGate:
    """The pads' ``put`` while the deck check runs (their events go to :attr:`events`), then
    the service's once :meth:`open`."""

    def __init__(self, then: Callable[[DeviceEvent], None]) -> None:
        self.events: queue.Queue[DeviceEvent] = queue.Queue()
        self._then = then
        self._open = False

    def put(self, event: DeviceEvent) -> None:
        if self._open:
            self._then(event)
        else:
            self.events.put(event)

    def open(self) -> None:
        self._open = True


def deck_check_first(table: TableConfig, registry: TagRegistry, gate: DeckGate, show: Callable[[DeckReport], None],
                     *, simulated: bool, stopped: threading.Event) -> bool:
    """``[tags] deck_check_first``: the deck check on the table's pads before the first deal,
    again until a registered pack passes whole and clean (each report to ``show``: the OLED);
    ``simulated``: the simulated table's operator passes the pack (a shorter quiet). ``False``: stopped.
    """
    from firmware_host.cards.deck_check import check_deck
    from hardware.deck_log import record_check

    while not stopped.is_set():
        report = check_deck(gate.events, registry, show, require_genuine=table.tags.require_signature,
                            quiet=1.0 if simulated else 3.0, cancel=stopped)
        logger.info("deck check before the first deal: %s", "; ".join(report.lines()))
        if report.ok and report.pack is not None:
            assert table.registry is not None  # doctor.refusal refuses deck_check_first without one
            record_check(table.registry, report.pack)
            gate.open()
            return True
        stopped.wait(2.0)  # the report stays on the OLED a moment, then the check starts again
    return False
