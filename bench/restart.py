"""Benchmark: what a reader's serial rate costs, at a restart and at every poll.

A PN532 keeps the rate a host moved it to until its power is cut (nfcpy's ``init`` moves it to
921,600 baud, its ``close`` back to 115,200). Two ways to survive a host killed before it closed
(``drivers/nfc/hsu.py``), measured here on a simulated PN532 whose line is paced at the chip's
own rate (``Pn532Simulator(baud=921600)``: 10 bits a byte at 115,200 or 921,600, plus the RF
part's rough fixed time):

* ``link_921600``: nfcpy's move to 921,600, and after a kill a probe at the faster rates that
  sets the chip back (the first opening at 115,200 waits its ACK in vain first);
* ``link_115200``: the link kept at 115,200: a kill leaves the chip where the next start looks.

Figures (one line each, ``name: value unit``), medians of ``--runs`` runs::

    open_ms_link_115200: ...           a powered-on chip: the reader opened and its first poll answered
    open_ms_link_921600: ...
    first_poll_after_kill_ms_link_115200: ...   the host killed, a new reader opened, its first poll answered
    first_poll_after_kill_ms_link_921600: ...
    first_poll_after_close_ms_link_115200: ...  a reader closed (PowerDown), a new one opened: the chip woken
    first_poll_after_close_ms_link_921600: ...  (UM0701-02 §6.3.2.3: wake-up bytes, then 10 ms) and polled
    nfcpy_alone_after_close_answered: 0 of N    nfcpy's init on a chip its close put to sleep (one write)
    nfcpy_alone_after_kill_answered: 0 of N     before: nfcpy's init on a chip a killed host left at 921,600
    poll_ms_link_115200: ...           one poll cycle, one card on the pad (median; p99 beside it)
    poll_ms_link_921600: ...
    poll_empty_ms_link_115200: ...     one quick look at an empty pad
    poll_empty_ms_link_921600: ...
    readers_back_after_kill_s: ...     ``--service``: ``ecarte-table run`` on six chips of a chip host,
                                       killed with -9 and started again, until every chip is polled
    readers_back_after_stop_s: ...     the same after a clean stop (SIGTERM: the readers closed)

Run: ``.venv/bin/python bench/restart.py`` (``--runs N``, ``--service``).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import nfc.clf.pn532

from drivers.nfc.pn532_reader import NfcpyReader
from drivers.nfc.pn532sim import Pn532Simulator
from drivers.nfc.pn532sim.chip_host import ChipHost, chip_path
from drivers.nfc.reader import READER_ERRORS
from drivers.nfc.tty import RawTty

KS = "04A224B2C31D80"
LINKS = (115200, 921600)
LINE_CAP = 921600  # the simulator paces at the chip's own rate, up to this


def _first_poll_ms(path: str, link: int) -> tuple[float, NfcpyReader]:
    """Open a reader on ``path`` at ``link`` and poll once; ms until the poll answered, and the reader."""
    start = time.perf_counter()
    reader = NfcpyReader(path, link_baud=link)
    if reader.poll() != (KS,):
        raise RuntimeError(f"the first poll on {path} did not list {KS}")
    return 1000 * (time.perf_counter() - start), reader


def _killed(reader: NfcpyReader) -> None:
    """What the process's death does to its reader: the port closed, the chip never told."""
    reader._close_transport()


def restart_costs(runs: int) -> dict[str, list[float]]:
    figures: dict[str, list[float]] = {}
    for link in LINKS:
        for _ in range(runs):
            with Pn532Simulator(baud=LINE_CAP) as chip:
                chip.place(KS)
                opened, reader = _first_poll_ms(chip.path, link)
                figures.setdefault(f"open_ms_link_{link}", []).append(opened)
                _killed(reader)
                again, reader = _first_poll_ms(chip.path, link)
                figures.setdefault(f"first_poll_after_kill_ms_link_{link}", []).append(again)
                reader.close()  # PowerDown: the chip asleep
                woken, reader = _first_poll_ms(chip.path, link)
                figures.setdefault(f"first_poll_after_close_ms_link_{link}", []).append(woken)
                reader.close()
    return figures


def _nfcpy_alone_again(runs: int, leave: Callable[[str], None]) -> int:
    """How many of ``runs`` nfcpy inits answered on a chip that ``leave`` (given its port) left as a
    first host leaves it."""
    answered = 0
    for _ in range(runs):
        with Pn532Simulator(baud=LINE_CAP) as chip:
            leave(chip.path)
            again = RawTty(chip.path)
            try:
                nfc.clf.pn532.init(again).close()
                answered += 1
            except READER_ERRORS:
                pass
            finally:
                again.release()
    return answered


def _killed_host(path: str) -> None:
    transport = RawTty(path)
    nfc.clf.pn532.init(transport)  # the chip moved to 921,600
    transport.release()  # and never closed: a killed host


def nfcpy_alone_after_kill(runs: int) -> int:
    """How many of ``runs`` nfcpy inits answered on a chip a killed nfcpy host left at 921,600."""
    return _nfcpy_alone_again(runs, _killed_host)


def nfcpy_alone_after_close(runs: int) -> int:
    """How many of ``runs`` nfcpy inits answered on a chip nfcpy's own close put in PowerDown."""
    return _nfcpy_alone_again(runs, lambda path: nfc.clf.pn532.init(RawTty(path)).close())


def poll_costs(polls: int) -> dict[str, list[float]]:
    figures: dict[str, list[float]] = {}
    for link in LINKS:
        with Pn532Simulator(baud=LINE_CAP) as chip, NfcpyReader(chip.path, link_baud=link) as reader:
            for name, cards in ((f"poll_empty_ms_link_{link}", ()), (f"poll_ms_link_{link}", (KS,))):
                chip.lift_all()
                if cards:
                    chip.place_stack(list(cards))
                times = []
                for _ in range(polls):
                    start = time.perf_counter()
                    if reader.poll() != cards:
                        raise RuntimeError(f"a poll at {link} baud did not list {cards}")
                    times.append(1000 * (time.perf_counter() - start))
                figures[name] = times
    return figures


PADS = ("hand.A", "hand.B", "turnup", "discard", "play.A", "play.B")


def _commands(host: ChipHost) -> dict[str, int]:
    return {pad: int(chip.state()["commands"]) for pad, chip in host.chips.items()}


def _wait_polled(host: ChipHost, since: dict[str, int], limit: float = 120.0) -> None:
    """Until every chip has understood a few commands more than ``since`` (its reader polls it)."""
    deadline = time.monotonic() + limit
    while any(count <= since[pad] + 2 for pad, count in _commands(host).items()):
        if time.monotonic() > deadline:
            raise RuntimeError(f"the readers did not answer within {limit:.0f} s")
        time.sleep(0.01)


def service_restarts_s(runs: int) -> dict[str, list[float]]:
    """Seconds from ``ecarte-table run`` started again until every reader polls, after a kill -9
    (``kill``) and after a clean stop (``stop``: SIGTERM, the readers closed)."""
    folder = Path(tempfile.mkdtemp(prefix="bench-restart-"))
    cli = Path(sys.executable).parent / "ecarte-table"
    text = (Path(__file__).resolve().parents[1] / "hardware/tables/simulated.toml").read_text(encoding="utf-8")
    for pad in PADS:
        quoted = f'"{pad}"' if "." in pad else pad
        text = text.replace(f'{quoted} = "sim"\n', f'{quoted} = "{chip_path(str(folder / "chips"), pad)}"\n')
    (folder / "table.toml").write_text(text, encoding="utf-8")
    command = [str(cli), "run", str(folder / "table.toml"), "--journal", str(folder / "table.sqlite")]
    times: dict[str, list[float]] = {"kill": [], "stop": []}
    try:
        with ChipHost(str(folder / "chips"), PADS) as host:
            service = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _wait_polled(host, _commands(host))
            for _ in range(runs):
                for how in ("kill", "stop"):
                    (service.kill if how == "kill" else service.terminate)()
                    service.wait()
                    since = _commands(host)
                    start = time.perf_counter()
                    service = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    _wait_polled(host, since)
                    times[how].append(time.perf_counter() - start)
            service.terminate()
            service.wait()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="restarts measured for each link rate")
    parser.add_argument("--polls", type=int, default=300, help="polls measured for each link rate")
    parser.add_argument("--service", action="store_true", help="also restart the service on a chip host")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.polls < 1:
        parser.error("--runs and --polls are 1 or more")
    restarts = restart_costs(args.runs)
    for name, values in restarts.items():
        print(f"{name}: {statistics.median(values):.1f} ms")
    print(f"nfcpy_alone_after_kill_answered: {nfcpy_alone_after_kill(args.runs)} of {args.runs}")
    print(f"nfcpy_alone_after_close_answered: {nfcpy_alone_after_close(args.runs)} of {args.runs}")
    for name, values in poll_costs(args.polls).items():
        ordered = sorted(values)
        p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
        print(f"{name}: {statistics.median(values):.2f} ms")
        print(f"{name.replace('_ms_', '_p99_ms_')}: {p99:.2f} ms")
    if args.service:
        for how, values in service_restarts_s(args.runs).items():
            print(f"readers_back_after_{how}_s: {statistics.median(values):.2f} s")
            print(f"# after {how}: {', '.join(f'{t:.2f}' for t in values)} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
