"""``ecarte-table deck``: the deck check on demand, before a game.

The pack is passed over one pad of the table, card by card (or laid in small packets):
:func:`firmware_host.cards.deck_check.check_deck` confirms the 32 cards of one registered pack,
nothing twice, nothing foreign, and (where the table requires it) nothing that fails the
originality check, and says what is missing on the OLED and the console. On the simulated
table a simulated operator passes the simulated pack (``--drop CARD`` leaves cards out, to
see the table say so).
"""

from __future__ import annotations

import argparse
import queue
import threading
import time
from pathlib import Path
from typing import Any

from cli.args import card_name, language_option, sim_registry
from drivers.device_events import DeviceEvent
from firmware_host.errors import BadInput


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``deck`` to the ``ecarte-table`` sub-commands."""
    deck: argparse.ArgumentParser = subparsers.add_parser(
        "deck", description="Pass the pack over one pad: the table confirms every card of one registered pack "
                    "and says what is missing, repeated, foreign or not genuine (exit 0 when whole).")
    deck.add_argument("table", nargs="?", help="the table file (default: the simulated table)")
    deck.add_argument("--pad", default=None, help="the pad to pass the cards over (default: the first)")
    deck.add_argument("--pack", type=int, choices=(1, 2), default=None, help="the pack to confirm (default: "
                      "the one most cards belong to)")
    deck.add_argument("--registry", type=Path, help="the tag registry (default: the table file's)")
    deck.add_argument("--drop", action="append", default=[], metavar="CARD", type=card_name,
                      help="simulated table only: the operator leaves this card out")
    deck.add_argument("--clone", action="append", default=[], metavar="CARD", type=card_name,
                      help="simulated table only: the operator passes a clone of this card (its UID copied "
                           "on a blank tag) instead of the card")
    language_option(deck, help="the console's and the OLED's language (default: the table file's language)")
    return deck


def run_deck(args: argparse.Namespace) -> int:
    """Run the deck check; 0 when the pack is whole and clean, 1 otherwise.

    :raises BadInput: no registry, an unknown pad, an absent reader.
    """
    from cli.enroll import one_pad, the_pad
    from firmware_host.app import load_table_or_exit
    from firmware_host.cards.deck_check import DeckReport, check_deck
    from firmware_host.cards.table_tags import TableTags
    from firmware_host.screens.deck import deck_lines
    from firmware_host.screens.panel import open_panel
    from hardware.deck_log import record_check
    from hardware.tag_registry import TagRegistry, TagRegistryError

    table = load_table_or_exit(args.table)
    lang = args.language or table.language
    path = args.registry or table.registry
    if path is None and table.simulated and sim_registry().exists():
        path = sim_registry()  # where `enroll` put the simulated pack
    if path is None:
        raise BadInput(msgid="error.no_registry")
    try:
        registry = TagRegistry.load(Path(path))
    except (OSError, ValueError, TagRegistryError) as exc:
        raise BadInput(msgid="error.tag_registry", path=path, reason=exc) from None
    pad_config = the_pad(table, args.pad)
    tags = TableTags.build(registry, table.tags, simulated=table.simulated_pads)  # the originality check
    panel = open_panel(table, tolerant=True)
    events: queue.Queue[DeviceEvent] = queue.Queue()

    def show(report: DeckReport) -> None:
        lines = deck_lines(report, lang)
        print(" | ".join(lines), flush=True)
        panel.message(lines)

    try:
        with one_pad(pad_config, events, "deck", originality=tags.originality) as (pad, sim):
            if sim is not None:
                threading.Thread(target=_pass_the_pack, args=(sim, pad, args.pack or 1, set(args.drop),
                                                               set(args.clone)), daemon=True).start()
            report = check_deck(events, registry, show, pack=args.pack, require_genuine=table.tags.require_signature,
                                quiet=1.0 if sim is not None else 3.0)
    finally:
        panel.close()
    for line in report.lines(lang):
        print(line)
    if report.ok and report.pack is not None:
        record_check(Path(path), report.pack)
    return 0 if report.ok else 1


def _pass_the_pack(sim: Any, pad: Any, pack: int, drop: set[str], clones: set[str]) -> None:
    """The simulated operator: passes each card of the simulated pack over the pad (a clone of
    the cards in ``clones``)."""
    from firmware_host.players.simtable import sim_uid
    from hardware.tag_registry import CARDS

    for card in CARDS:
        if card in drop:
            continue
        uid = sim_uid(card, pack)
        sim.place(uid, kind="clone" if card in clones else "genuine")
        deadline = time.monotonic() + 10
        while uid not in pad.present and time.monotonic() < deadline:
            time.sleep(0.005)
        sim.remove(uid)
        while pad.present and time.monotonic() < deadline:
            time.sleep(0.005)


run = run_deck
"""The command, as :mod:`cli.main` calls every command."""
