"""``ecarte-table doctor``: check the table and say how to fix what fails (:mod:`firmware_host.checks.doctor`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from cli.args import language_option

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``doctor`` to the ``ecarte-table`` sub-commands."""
    doctor: argparse.ArgumentParser = sub.add_parser(
        "doctor", description=(
            "Check the table's parts one by one (readers, display, buttons, permissions, the tag registry) "
            "and say how to fix what fails; exit 1 when something does."))
    doctor.add_argument("table", nargs="?", help="the table file (default: the simulated table)")
    language_option(doctor, help="the report's language (default: the table file's language)")
    doctor.add_argument("--probe", action="store_true", help=(
        "bring up each reader instead (docs/hardware.md): its firmware, a poll, then one, two and three cards "
        "laid on it as asked, each tag's GET_VERSION and READ_SIG; every PN532 frame written to --frames; "
        "on the simulated table a simulated maker lays the cards"))
    doctor.add_argument("--frames", type=Path, default=Path("pn532-frames.txt"), metavar="FILE",
                        help="where --probe writes every PN532 frame (default: %(default)s)")
    return doctor


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from cli.args import sim_registry
    from firmware_host.checks.doctor import all_ok, format_checks, report_language, run_checks
    from hardware.table import simulated_table

    table = simulated_table()
    if table.registry is None and sim_registry().exists():
        table = replace(table, registry=sim_registry())  # where `enroll` put the simulated pack
    checked = args.table if args.table else table
    lang = report_language(checked, args.language)
    if args.probe:
        return _probe(checked, args.frames, lang)
    checks = run_checks(checked, lang=lang)
    print(format_checks(checks, lang))
    return 0 if all_ok(checks) else 1


def _probe(table: Any, frames: Path, lang: str) -> int:
    """``doctor --probe``: the probe's lines, exit 1 when one fails; a table file that does not load
    is said as the doctor says it (exit 1)."""
    from firmware_host.checks.doctor import all_ok, format_checks, run_checks
    from firmware_host.checks.probe import ask_at_the_console, run_probe, simulated_readers
    from hardware.table import TableConfig, TableFileError, load_table

    if isinstance(table, TableConfig):
        config = table
    else:
        try:
            config = load_table(Path(table))
        except (TableFileError, OSError):
            checks = run_checks(table, lang=lang)  # says what is wrong with the file, and how to fix it
            print(format_checks(checks, lang))
            return 1
    console = ask_at_the_console(lang)
    with simulated_readers(config) as (ports, maker):
        checks = run_probe(config, frames, lang=lang, ports=ports,
                           ask=lambda pad, laid: (maker if pad.simulated else console)(pad, laid))
    print(format_checks(checks, lang))
    return 0 if all_ok(checks) else 1
