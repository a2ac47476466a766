"""Simulated PN532s in a process of their own, which outlives the service as real chips do.

A real PN532 keeps its state, its serial rate among it, while the service that
drives it is killed and started again; only a power cut resets it. A
:class:`~drivers.nfc.pn532sim.Pn532Simulator` served by a thread of the service's
own process dies with it. The chip host holds the simulators in its own process,
each at a stable path (``DIR/pn532-<pad>``, a symlink to its pty), so a table file
can name them as it names ``/dev/ttyUSB0``, and the tests and the booted unit
start it apart from the service::

    ecarte-table chips DIR --pads hand.A,hand.B,turnup
    ecarte-table chips DIR --ask '{"op": "place", "pad": "turnup", "uids": ["04ECA7010C5A80"]}'

It prints ``ready`` once every chip is plugged and its control socket
(``DIR/control``) listens; SIGTERM or SIGINT ends it (the chips' power cut: their
paths go). The control channel takes one JSON object a line and answers one:
``{"ok": ...}`` or ``{"error": "..."}``. Operations (``pad`` names a chip):

* ``pads``: ``{pad: path}``; ``states``: ``{pad: state}`` (``state`` below);
* ``place`` (``uids``, optional ``texts`` and ``kind``): a packet laid on top of the stack;
* ``remove`` (``uid``), ``lift_top``, ``lift_all``: cards taken off;
* ``state``: what lies on the pad (``on_pad``), what the antenna reads (``readable``), the
  chip's rate (``chip_baud``), the rate the host's side of the line is set to
  (``line_baud``), the ``commands`` it understood, the ``polls`` it answered (a poll waiting
  for a card on an empty pad answers none), the ``garbled`` frames, and what the radio's ``noise``
  did (tag answers ``garbled`` and ``lost``, listings spoilt by ``collisions``: ``--noise``);
* ``unplug``, ``replug``: the cable pulled and plugged back (the chip powers up again).

:class:`ChipHost` starts one and talks to it from Python (the tests);
:class:`RemoteChip` is one of its chips, with the card-laying part of
:class:`~drivers.nfc.pn532sim.Pn532Simulator`'s interface.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import socket
import socketserver
import subprocess
import sys
import threading
from collections.abc import Sequence
from typing import Any

from drivers.closing import Closing
from drivers.nfc.pn532sim.field import DEFAULT_DEPTH
from drivers.nfc.pn532sim.noise import of_level
from drivers.nfc.pn532sim.simulator import Pn532Simulator

logger = logging.getLogger(__name__)

CONTROL = "control"
"""The control socket's file name in the host's folder."""

READY = "ready"
"""What the host prints on its standard output once it serves."""


def chip_path(directory: str, pad: str) -> str:
    """The stable path of pad ``pad``'s chip in a chip host's ``directory``.

    >>> chip_path("/run/ecarte-chips", "hand.A")
    '/run/ecarte-chips/pn532-hand.A'
    """
    return os.path.join(directory, f"pn532-{pad}")


class ControlError(ValueError):
    """A request the chip host cannot carry out (an unknown pad or operation, a bad argument)."""


def carry_out(chips: dict[str, Pn532Simulator], request: dict[str, Any]) -> Any:
    """Carry out one control request on ``chips``; what to answer.

    :raises ControlError: an unknown operation or pad, or an argument the chip refuses.
    """
    op = request.get("op")
    if op == "pads":
        return {name: chip.path for name, chip in chips.items()}
    if op == "states":
        return {name: _state(chip) for name, chip in chips.items()}
    chip = chips.get(str(request.get("pad")))
    if chip is None:
        raise ControlError(f"no pad {request.get('pad')!r}: the pads are {', '.join(chips)}")
    try:
        if op == "place":
            texts = request.get("texts")
            chip.place_stack(list(request["uids"]), texts, kind=str(request.get("kind", "genuine")))
            return chip.on_pad
        if op == "remove":
            chip.remove(str(request["uid"]))
            return chip.on_pad
        if op == "lift_top":
            return chip.lift_top()
        if op == "lift_all":
            return chip.lift_all()
        if op == "unplug":
            chip.unplug()
            return True
        if op == "replug":
            chip.replug()
            return True
        if op == "state":
            return _state(chip)
    except (KeyError, ValueError, TypeError) as error:
        raise ControlError(f"{op}: {error}") from error
    raise ControlError(f"unknown operation {op!r}")


def _state(chip: Pn532Simulator) -> dict[str, Any]:
    stats = chip.stats
    noise = chip.noise
    return {"on_pad": chip.on_pad, "readable": chip.readable, "chip_baud": chip.chip_baud,
            "line_baud": chip.line_baud, "commands": stats.commands, "polls": stats.polls, "garbled": stats.garbled,
            "noise": {"garbled": noise.garbled, "lost": noise.lost, "collisions": noise.collisions}}


class _Handler(socketserver.StreamRequestHandler):
    server: _ControlServer

    def handle(self) -> None:
        for line in self.rfile:
            try:
                request = json.loads(line)
                if not isinstance(request, dict):
                    raise ControlError("a request is a JSON object")
                answer: dict[str, Any] = {"ok": carry_out(self.server.chips, request)}
            except (ControlError, json.JSONDecodeError) as error:
                answer = {"error": str(error)}
            self.wfile.write(json.dumps(answer).encode() + b"\n")
            self.wfile.flush()


class _ControlServer(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True

    def __init__(self, path: str, chips: dict[str, Pn532Simulator]) -> None:
        self.chips = chips
        super().__init__(path, _Handler)


def serve(directory: str, pads: Sequence[str], *, depth: int = DEFAULT_DEPTH, baud: int | None = None,
          miss: float = 0.0, signed: bool = True, noise: float = 0.0) -> int:
    """Run the chip host until SIGTERM or SIGINT; its exit status.

    :param directory: where the chips' paths and the control socket go (made if missing).
    :param baud: pace the chips' lines (at most this rate; ``None``: no pacing).
    :param signed: give the genuine tags the TEST key's originality signature.
    :param noise: how noisy each chip's radio is, times the noise model's default rates
        (:func:`drivers.nfc.pn532sim.noise.of_level`; 0: a perfect link).
    :raises OSError: the folder or a pty cannot be made.
    """
    os.makedirs(directory, exist_ok=True)
    signer = None
    if signed:
        from drivers.nfc.pn532sim.tag_signer import sim_signer
        signer = sim_signer()
    chips: dict[str, Pn532Simulator] = {}
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    control = os.path.join(directory, CONTROL)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(control)  # a host killed before it could remove it
    server: _ControlServer | None = None
    try:
        for index, pad in enumerate(pads):
            chips[pad] = Pn532Simulator(baud=baud, name=os.path.basename(chip_path(directory, pad)), depth=depth,
                                        miss=miss, seed=index, signer=signer, directory=directory,
                                        noise=of_level(noise))
        server = _ControlServer(control, chips)
        threading.Thread(target=server.serve_forever, name="chip-host-control", daemon=True).start()
        print(READY, flush=True)
        stop.wait()
    finally:
        if server is not None:
            server.shutdown()
            server.server_close()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(control)
        for chip in chips.values():
            chip.close()
    return 0


def ask(directory: str, request: dict[str, Any], timeout: float = 10.0) -> Any:
    """Send one request to the chip host serving ``directory``; its answer.

    :raises ControlError: the host refused the request.
    :raises OSError: no host serves there.
    """
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(os.path.join(directory, CONTROL))
        sock.sendall(json.dumps(request).encode() + b"\n")
        with sock.makefile("rb") as answers:
            line = answers.readline()
    if not line:
        raise OSError(f"the chip host in {directory} closed the control channel")
    answer = json.loads(line)
    if "error" in answer:
        raise ControlError(answer["error"])
    return answer["ok"]


class RemoteChip:
    """One chip of a chip host: lay and lift its cards, read its state (any thread).

    :param directory: the chip host's folder.
    :param pad: the chip's pad.
    """

    def __init__(self, directory: str, pad: str) -> None:
        self.directory, self.pad = directory, pad
        self.path = chip_path(directory, pad)
        """The chip's stable serial port path."""

    def _ask(self, op: str, **arguments: Any) -> Any:
        return ask(self.directory, {"op": op, "pad": self.pad, **arguments})

    def place(self, uid: str, ndef_text: str | None = None, *, kind: str = "genuine") -> None:
        """Lay tag ``uid`` on top of the stack (see :meth:`Pn532Simulator.place`)."""
        self.place_stack([uid], None if ndef_text is None else [ndef_text], kind=kind)

    def place_stack(self, uids: Sequence[str], ndef_texts: Sequence[str | None] | None = None,
                    *, kind: str = "genuine") -> None:
        """Lay a packet at once, ``uids[0]`` lowest (see :meth:`Pn532Simulator.place_stack`)."""
        self._ask("place", uids=list(uids), texts=None if ndef_texts is None else list(ndef_texts), kind=kind)

    def remove(self, uid: str) -> None:
        """Lift tag ``uid`` from wherever it lies. :raises ControlError: it is not on the pad."""
        self._ask("remove", uid=uid)

    def lift_top(self) -> str:
        """Lift the top tag; its UID. :raises ControlError: the pad is empty."""
        return str(self._ask("lift_top"))

    def lift_all(self) -> tuple[str, ...]:
        """Lift the whole stack; the UIDs, bottom first."""
        return tuple(self._ask("lift_all"))

    def unplug(self) -> None:
        """Pull the chip's cable (its power goes with it)."""
        self._ask("unplug")

    def replug(self) -> None:
        """Plug it back: the chip powers up at 115,200 baud."""
        self._ask("replug")

    def state(self) -> dict[str, Any]:
        """``on_pad``, ``readable``, ``chip_baud``, ``line_baud``, ``commands``, ``polls``, ``garbled``."""
        return dict(self._ask("state"))

    @property
    def on_pad(self) -> tuple[str, ...]:
        """UIDs on the pad, bottom first."""
        return tuple(self.state()["on_pad"])

    @property
    def chip_baud(self) -> int:
        """The chip's serial rate now."""
        return int(self.state()["chip_baud"])


class ChipHost(Closing):
    """A chip host process started from Python (tests, benchmarks); closing it stops it.

    :param directory: its folder (the chips' paths, the control socket).
    :param pads: one chip a pad.
    :param baud: pace the chips' lines at most at this rate (``None``: no pacing).
    :param noise: how noisy each chip's radio is (``--noise``; 0: a perfect link).
    :param timeout: seconds to wait for it to serve (a hang, not a measure).
    :raises RuntimeError: it ended or did not say ``ready`` in time.
    """

    def __init__(self, directory: str, pads: Sequence[str], *, depth: int = DEFAULT_DEPTH,
                 baud: int | None = None, timeout: float = 60.0, noise: float = 0.0) -> None:
        self.directory = directory
        config = {"directory": directory, "pads": list(pads), "depth": depth, "baud": baud, "noise": noise}
        command = [sys.executable, "-m", __name__, json.dumps(config)]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        self.chips = {pad: RemoteChip(directory, pad) for pad in pads}
        """The chips by pad."""
        ready = threading.Event()

        def wait_ready() -> None:
            assert self.process.stdout is not None
            if self.process.stdout.readline().strip() == READY:
                ready.set()

        threading.Thread(target=wait_ready, daemon=True).start()
        if not ready.wait(timeout):
            self.close()
            raise RuntimeError(f"the chip host in {directory} did not start (exit {self.process.poll()})")

    def close(self) -> None:
        """Stop the host (the chips lose their power). Safe to call twice."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def main(argv: Sequence[str] | None = None) -> int:
    """The process :class:`ChipHost` starts: its one argument, a JSON object of :func:`serve`'s
    arguments (plain values; people start one with ``ecarte-table chips DIR --pads ...``)."""
    config = json.loads((sys.argv[1:] if argv is None else list(argv))[0])
    return serve(config["directory"], config["pads"], depth=config["depth"], baud=config["baud"],
                 noise=config.get("noise", 0.0))


if __name__ == "__main__":
    sys.exit(main())
