"""``ecarte-table chips``: simulated PN532s in a process of their own (:mod:`drivers.nfc.pn532sim.chip_host`).

``chips DIR --pads hand.A,hand.B,...`` serves one simulated PN532 a pad at
``DIR/pn532-<pad>`` until SIGTERM, so a table file can name them as real ports and the
service can be killed and started again on chips that outlive it; ``chips DIR --ask JSON``
lays and lifts cards and reads a chip's state through its control socket.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cli.args import depth, noise_level
from cli.words import asked, said
from firmware_host.errors import BadInput

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``chips`` to the ``ecarte-table`` sub-commands."""
    chips: argparse.ArgumentParser = sub.add_parser(
        "chips", description=(
            "Simulated PN532 readers in a process of their own, at stable paths a table file can name, "
            "keeping their state (their serial rate among it) while the service is killed and restarted. "
            "With --pads: serve one chip a pad until SIGTERM (prints 'ready'); with --ask: send one JSON "
            "request to the chip host serving DIR and print its answer."))
    chips.add_argument("directory", help="the chips' folder: DIR/pn532-<pad>, and DIR/control")
    action = chips.add_mutually_exclusive_group(required=True)
    action.add_argument("--pads", type=_pads, help="serve these pads' chips, comma-separated (hand.A,hand.B,...)")
    action.add_argument("--ask", metavar="JSON",
                        help='one request, a JSON object: its "op" (place, remove, state...), its "pad", its "uids"')
    chips.add_argument("--depth", type=depth, default=2, help="cards of a stack each chip's antenna reads (2)")
    chips.add_argument("--noise", type=noise_level, default=0.0, metavar="LEVEL",
                       help="how noisy each chip's radio is: answers garbled or lost, listings garbled by a "
                            "collision, LEVEL times the noise model's rates (0: a perfect link, the default; 1: "
                            "the rates it takes for a real pad)")
    chips.add_argument("--baud", type=int, default=None,
                       help="pace each line at the chip's rate, at most this many bits per second (default: no pacing)")
    return chips


def _pads(text: str) -> list[str]:
    pads = [pad.strip() for pad in text.split(",") if pad.strip()]
    if not pads:
        raise argparse.ArgumentTypeError(said("error.no_pad_named"))
    if len(set(pads)) != len(pads):
        raise argparse.ArgumentTypeError(said("error.pad_twice", text=repr(text)))
    return pads


def run(args: argparse.Namespace) -> int:
    from drivers.nfc.pn532sim import chip_host

    if args.pads is not None:
        return chip_host.serve(args.directory, args.pads, depth=args.depth, baud=args.baud, noise=args.noise)
    try:
        request = json.loads(args.ask)
    except json.JSONDecodeError as error:
        raise BadInput(msgid="error.not_json", line=error.lineno, column=error.colno) from None
    if not isinstance(request, dict):
        raise BadInput(msgid="error.not_a_json_object")
    try:
        answer = chip_host.ask(args.directory, request)
    except chip_host.ControlError as error:
        raise BadInput.of(error) from None
    except OSError as error:
        from catalogue import phrase

        print("ecarte-table chips: " + phrase.said(phrase.Phrase.of("error.no_chip_host", directory=args.directory,
                                                                    reason=error), asked(args)), file=sys.stderr)
        return 1
    print(json.dumps(answer))
    return 0
