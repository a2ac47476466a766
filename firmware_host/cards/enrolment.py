"""A real table started with no cards enrolled (no tag registry): the OLED and the log say what to do,
and the service waits for a stop, READY for systemd and its watchdog pinged (exiting would only have
systemd start it again and again). The composition root opens the OLED and the stop signals.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from catalogue.phrase import Phrase, log_said

if TYPE_CHECKING:
    from hardware.table import TableConfig


class Panel(Protocol):
    """What the wait asks of the OLED (:class:`firmware_host.screens.panel.Panel`, which the cards room
    does not import): a few short lines."""

    def message(self, lines: list[str]) -> None: ...

logger = logging.getLogger(__name__)


def wait_for_enrolment(table: TableConfig, panel: Panel, notify: Callable[[str], None] | None,
                       stopped: threading.Event) -> int:
    """No tag registry yet on a real table: say what to do, on ``panel`` (the OLED) and in the log, and
    wait for ``stopped`` (exiting would only have systemd start the service again and again); ``notify``:
    systemd's (None: not under systemd)."""
    enroll = "sudo -u ecarte /opt/ecarte-table/venv/bin/ecarte-table enroll /etc/ecarte-table/table.toml"
    log_said(logger, logging.ERROR, Phrase.of("log.no_cards_enrolled", registry=str(table.registry),
                                              stop="sudo systemctl stop ecarte-table", enroll=f"{enroll} --pack 1",
                                              doc="docs/hardware.md"))
    panel.message(waiting_lines(table.language))
    if notify is not None:
        notify("READY=1")
        notify("STATUS=no cards enrolled: run ecarte-table enroll")
    while not stopped.wait(WAIT_PING_S):
        if notify is not None:
            notify("WATCHDOG=1")
    return 0


def waiting_lines(lang: str) -> list[str]:
    """The OLED's lines while the table waits for its cards, in ``lang`` (the command as typed)."""
    from catalogue import say

    return [say(lang, "enrol.wait_none"), say(lang, "enrol.wait_stop"), "ecarte-table enroll", "(docs/hardware.md)"]


WAIT_PING_S = 5.0
"""Seconds between watchdog pings while the table waits for its cards to be enrolled."""
