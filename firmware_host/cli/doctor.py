"""``ecarte-table doctor``: check the table and say how to fix what fails (:mod:`firmware_host.checks.doctor`)."""

from __future__ import annotations

import argparse
from typing import Any

from firmware_host.cli.args import THE_TABLE_FILES, language_option

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``doctor`` to the ``ecarte-table`` sub-commands."""
    doctor: argparse.ArgumentParser = sub.add_parser(
        "doctor", help="check the table and say how to fix what fails", description=(
            "Check the table's parts one by one (readers, display, buttons, permissions, the tag registry) "
            "and say how to fix what fails; exit 1 when something does."))
    doctor.add_argument("table", nargs="?", help="the table file (default: the simulated table)")
    language_option(doctor, help="the report's language", default=THE_TABLE_FILES)
    return doctor


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from firmware_host.checks.doctor import all_ok, format_checks, report_language, run_checks
    from firmware_host.cli.args import sim_registry
    from hardware.table import simulated_table

    table = simulated_table()
    if table.registry is None and sim_registry().exists():
        table = replace(table, registry=sim_registry())  # where `enroll` put the simulated pack
    checked = args.table if args.table else table
    lang = report_language(checked, args.language)
    checks = run_checks(checked, lang=lang)
    print(format_checks(checks, lang))
    return 0 if all_ok(checks) else 1
