"""The jeu de règle table: every row over every hand it describes, with the exact odds.

    .venv/bin/python bench/regle.py                  # the whole table (minutes: see docs/coach.md)
    .venv/bin/python bench/regle.py --workers 2      # on two cores
    .venv/bin/python bench/regle.py --rows elder:1T+KQJ dealer:0T+3Q2 --no-write
    .venv/bin/python bench/regle.py --from-file      # the table of docs/coach.md from the written figures

One line per figure (``name: value unit``), then the table in Markdown. It writes the figures
to ``docs/jeu_de_regle.json`` (what ``tests/coach/test_regle_table.py`` checks rows of, and
``docs/coach.md`` is written from) unless ``--no-write`` or a subset of rows is asked for.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from coach import double_dummy as dd
from coach.jeu_de_regle import ROWS, Row
from coach.odds import TrickOdds
from coach.regle_table import Groups, OddsKey, Table, key_odds, key_proposal, row_groups
from engine.rules import rules

DATA = Path(__file__).resolve().parent.parent / "docs" / "jeu_de_regle.json"
RULES = "classic"


def _odds(job: tuple[str, OddsKey]) -> tuple[str, OddsKey, TrickOdds]:
    seat, key = job
    return seat, key, key_odds(rules(RULES), seat, key)


def _proposal(job: tuple[str, OddsKey, bool, int]) -> tuple[str, OddsKey, bool, float]:
    seat, key, king_turned, samples = job
    return seat, key, king_turned, key_proposal(rules(RULES), seat, key, king_turned, samples)


def _source(row: Row) -> str:
    if row.own:
        return "the project's own"
    if row.source == "source not found":
        return "**source not found**"
    return {"Prof": "Hoffmann 1909", "Ency": "Britannica 1911", "R. F": "Foster"}[row.source[:4]]


def markdown(figures: list[dict[str, float | int | str]], by_key: dict[str, Row]) -> str:
    """The table of docs/coach.md."""
    lines = ["| seat | row | the hand | source | hands | P(point) playing: min / mean / max | under 2:1 | "
             "play / other (pt) | playing better | with the king of trumps: playing better |",
             "|---|---|---|---|---:|---|---:|---|---:|---|"]
    for f in figures:
        row = by_key[str(f["row"])]
        hands, kings = int(f["hands"]), int(f["king_hands"])
        king = f"{int(f['king_play_better']) / kings:.0%} of {kings:,}" if kings else "—"
        lines.append(
            f"| {row.seat} | {row.name} | {row.text} | {_source(row)} | {hands:,} | "
            f"{f['p_min']:.3f} / {f['p_mean']:.3f} / {f['p_max']:.3f} | {int(f['below']) / hands:.1%} | "
            f"{f['stand']:+.2f} / {f['propose']:+.2f} | {int(f['play_better']) / hands:.0%} | {king} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--samples", type=int, default=400, help="exchanges sampled per key for proposing")
    parser.add_argument("--rows", nargs="*", help="seat:name of the rows to compute (default: all)")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--from-file", action="store_true", help="print the table of the written figures, no computing")
    args = parser.parse_args()
    chosen = [r for r in ROWS if not args.rows or r.key in args.rows]
    by_key = {r.key: r for r in ROWS}
    if args.from_file:
        print(markdown(json.loads(DATA.read_text(encoding="utf-8"))["rows"], by_key))
        return 0
    print(f"kernel: {'compiled' if dd.kernel is not None else 'missing (pure Python)'}")
    table = Table(rules(RULES), args.samples)
    start = time.perf_counter()
    groups: dict[str, Groups] = {row.key: row_groups(row) for row in chosen}
    print(f"regle_enumerate_s: {time.perf_counter() - start:.1f} s")
    odds_jobs = sorted({(row.seat, key) for row in chosen for key, _ in groups[row.key]})
    proposal_jobs = sorted({(row.seat, key, turned, args.samples) for row in chosen for key, turned in groups[row.key]})
    print(f"regle_keys: {len(odds_jobs)} (odds), {len(proposal_jobs)} (proposals)")
    with Pool(args.workers) as pool:
        begin = time.perf_counter()
        for seat, key, odds in pool.imap_unordered(_odds, odds_jobs, chunksize=16):
            table.odds[(seat, key)] = odds
        print(f"regle_odds_s: {time.perf_counter() - begin:.1f} s ({args.workers} workers)")
        begin = time.perf_counter()
        for seat, key, turned, value in pool.imap_unordered(_proposal, proposal_jobs, chunksize=16):
            table.proposals[(seat, key, turned)] = value
        print(f"regle_proposals_s: {time.perf_counter() - begin:.1f} s ({args.samples} samples a key)")
    figures = [table.figures(row, groups[row.key]) for row in chosen]
    print(f"regle_table_s: {time.perf_counter() - start:.1f} s")
    for f in figures:
        print(f"regle_{f.row}: {f.hands} hands, point {f.p_min:.3f}/{f.p_mean:.3f}/{f.p_max:.3f}, "
              f"below 2:1 {f.below}, stand {f.stand:+.3f} propose {f.propose:+.3f}, play better {f.play_better}")
    print(markdown([f.as_dict() for f in figures], by_key))
    if not args.no_write and not args.rows:
        DATA.write_text(json.dumps({"rules": RULES, "samples": args.samples,
                                    "rows": [f.as_dict() for f in figures]}, indent=1) + "\n", encoding="utf-8")
        print(f"written: {DATA}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
