"""A Ctrl-C that comes while readers open reaches the table.

nfcpy's ``pn532.init`` asks whether a port takes 921,600 with ``os.system("stty -F PORT RATE")``, which
is C's ``system()``: it ignores SIGINT (and SIGQUIT) in the whole process until the shell ends (POSIX,
``system``). A table opens six readers at once, twice that many shells, so a Ctrl-C that came then was
dropped by the kernel, and ``run`` went on until a second one (seen in ``test_slips``: 1 run in 30). The
reader asks the port as ``stty`` does, without a shell (:func:`drivers.nfc.port_takes`).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from waiting import HANG_S

from drivers.nfc import hsu
from drivers.nfc.pn532_reader import NfcpyReader
from drivers.nfc.pn532sim import Pn532Simulator
from drivers.nfc.tty import port_takes

ROOT = Path(__file__).resolve().parents[2]

SIGNALS = 60

_OPENING = f"""
import os, signal, sys, threading, time
from drivers.nfc.pn532_reader import NfcpyReader
from drivers.nfc.pn532sim import Pn532Simulator

taken = []
signal.signal(signal.SIGINT, lambda signum, frame: taken.append(signum))
done = threading.Event()

def opening(chip):
    while not done.is_set():
        with NfcpyReader(chip.path, link_baud=921600):
            pass

with Pn532Simulator() as a, Pn532Simulator() as b, Pn532Simulator() as c:
    threads = [threading.Thread(target=opening, args=(chip,), daemon=True) for chip in (a, b, c)]
    for thread in threads:
        thread.start()
    time.sleep(0.3)  # the readers opening and closing, over and over
    lost = 0
    for _ in range({SIGNALS}):
        before = len(taken)
        os.kill(os.getpid(), signal.SIGINT)
        deadline = time.monotonic() + 1.0
        while len(taken) == before and time.monotonic() < deadline:
            time.sleep(0.001)
        lost += len(taken) == before
        time.sleep(0.005)
    done.set()
    for thread in threads:
        thread.join()
print(lost)
"""


def test_no_ctrl_c_is_lost_while_readers_open_at_921600() -> None:
    said = subprocess.run([sys.executable, "-c", _OPENING], cwd=ROOT, capture_output=True, text=True,
                          timeout=HANG_S, check=False)
    assert said.returncode == 0, said.stderr
    assert int(said.stdout) == 0, f"{said.stdout.strip()} of {SIGNALS} SIGINTs lost while readers opened"


def test_the_port_is_asked_as_stty_asks_it_and_left_as_it_was() -> None:
    with Pn532Simulator() as chip:
        assert port_takes(chip.path, 921600)  # a pty takes every rate (stty -F says so too)
        assert not port_takes(chip.path, 1288000)  # no termios speed: stty refuses it
        assert not port_takes("/dev/ttyUSB-none", 921600)  # no such port: stty fails
        with NfcpyReader(chip.path, link_baud=921600):
            assert (chip.chip_baud, chip.line_baud) == (921600, 921600)  # nfcpy's move, still made
        with NfcpyReader(chip.path, link_baud=hsu.POWER_ON):
            assert (chip.chip_baud, chip.line_baud) == (115200, 115200)
