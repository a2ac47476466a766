"""``ecarte-table hub``: the venue's scoreboard (:mod:`venue.hub.scoreboard`)."""

from __future__ import annotations

import argparse
import logging
from typing import Any

__all__ = ["add_parser", "run"]

LOG_LEVEL = logging.INFO
"""The console's level: the hub's few start-up lines (its page, ...) said at INFO show by default."""


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``hub`` to the ``ecarte-table`` sub-commands."""
    hub: argparse.ArgumentParser = sub.add_parser(
        "hub", description=(
        "Subscribe to every table of the venue on MQTT and serve the scoreboard: tables live, results, "
        "standings, records. With no broker named, the hub runs its own Mosquitto on 127.0.0.1:1883."))
    hub.add_argument("venue_file", nargs="?", help="the venue file (TOML: [hub], [broker], [session])")
    hub.add_argument("--listen", metavar="ADDR:PORT", help="the scoreboard's address (default 127.0.0.1:8090)")
    hub.add_argument("--broker", metavar="HOST:PORT", help="the venue's running MQTT broker, instead of the hub's own")
    hub.add_argument("--venue", help="the venue's topic level (ecarte/<venue>/...; default: venue)")
    return hub


def run(args: argparse.Namespace) -> int:
    """Serve the venue's scoreboard; returns the exit status."""
    from venue.hub.scoreboard import load_hub_settings, run_hub

    return run_hub(load_hub_settings(args.venue_file, listen=args.listen, broker=args.broker, venue=args.venue))
