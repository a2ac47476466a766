"""A pad that goes offline comes back on its own: the simulated table's real drivers
(nfcpy on an emulated PN532), the service's one loop and the OLED's screen, while the machine is
busy with other jobs; the reader stops answering (injected I/O errors: no ACK), is declared
offline, the OLED names the missing pad, and the pad is reopened with back-off until it answers."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest
from waiting import HANG_S

from firmware_host.journal.store import Journal
from firmware_host.players.simtable import SimulatedTable
from firmware_host.referee.controller import Controller
from firmware_host.referee.snapshot import Outcome, TableSnapshot
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.screens.chooser import screen_for
from firmware_host.service import TableService
from hardware.table import simulated_table

WAIT_S = HANG_S  # a hang's limit: a wait ends as soon as what it waits for comes


class Screens:
    """A service output keeping the headline the OLED shows after each outcome."""

    def __init__(self) -> None:
        self.headlines: list[str] = []
        self.snapshot: TableSnapshot | None = None

    def publish(self, outcome: Outcome) -> None:
        self.snapshot = outcome.snapshot
        self.headlines.append(screen_for(outcome.snapshot).headline)


@pytest.mark.allow_error_log  # nfcpy logs each unanswered command at ERROR (its logger, not ours)
def test_an_offline_pad_comes_back_on_its_own_while_the_machine_is_busy(wait_for, tmp_path: Path) -> None:
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(1)]
    table = simulated_table()
    screens = Screens()
    try:
        with Journal(tmp_path / "j.sqlite") as journal:
            controller = Controller(TableDefaults(sight=table.sight))
            service = TableService(journal=journal, controller=controller, outputs=[screens])
            loop = threading.Thread(target=service.run, daemon=True)
            loop.start()
            with SimulatedTable(table, events=service.put_device_event, baud=115200) as sim:
                wait_for(lambda: screens.snapshot is not None, "the first screen")
                sim.simulators["turnup"].ignore_commands(8)  # the chip stops answering for a while
                wait_for(lambda: screens.snapshot is not None and "turnup" in screens.snapshot.offline,
                         "the turn-up pad to be declared offline")
                assert "reader offline: turn-up" in screens.headlines
                wait_for(lambda: screens.snapshot is not None and not screens.snapshot.offline,
                         "the turn-up pad to come back on its own")
                sim.place("turnup", "KS")
                assert sim.wait_seen("turnup", "KS", timeout=WAIT_S)  # it reads cards again
            service.stop()
            loop.join(timeout=WAIT_S)
    finally:
        for job in busy:
            job.kill()
            job.wait()


@pytest.mark.allow_error_log  # nfcpy logs each unanswered command at ERROR (its logger, not ours)
def test_a_lost_reader_is_said_once_in_the_tables_language(wait_for, tmp_path: Path,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    """A reader that stops answering was said twice at the console, both times with the C library's
    English: ``pad turnup: reader on /tmp/… lost: [Errno 5] Input/output error``, then ``reader turnup is
    offline: [Errno 5] Input/output error``. Now once, in each of the five languages, with no errno."""
    import logging

    import catalogue
    from catalogue.phrase import SaidFormatter

    table = simulated_table()
    screens = Screens()
    caplog.set_level(logging.DEBUG)
    with Journal(tmp_path / "j.sqlite") as journal:
        service = TableService(journal=journal, controller=Controller(TableDefaults(sight=table.sight)),
                               outputs=[screens])
        loop = threading.Thread(target=service.run, daemon=True)
        loop.start()
        with SimulatedTable(table, events=service.put_device_event, baud=115200) as sim:
            wait_for(lambda: screens.snapshot is not None, "the first screen")
            # the reader open and polling (its opening done: a chip silent while it opens never answered)
            pads = sim.pads
            assert pads is not None
            wait_for(lambda: pads["turnup"].online, "the turn-up pad's reader open")
            sim.simulators["turnup"].ignore_commands(8)  # the chip stops answering for a while
            wait_for(lambda: screens.snapshot is not None and "turnup" in screens.snapshot.offline,
                     "the turn-up pad to be declared offline")
        service.stop()
        loop.join(timeout=WAIT_S)
    shown = [record for record in caplog.records if record.levelno >= logging.INFO]
    for lang in catalogue.LANGUAGES:
        console = SaidFormatter(lang, logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        lines = [console.format(record) for record in shown]
        offline = [line for line in lines if "turnup" in line and line.startswith("WARNING")]
        assert len(offline) == 1, lines
        assert offline[0].endswith(catalogue.say(lang, "log.reader_failed", pad="turnup")), offline
        assert not any("Errno" in line or "Input/output" in line for line in lines), lines
