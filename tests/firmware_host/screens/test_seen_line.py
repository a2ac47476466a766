"""The "seen" line (partial sight): how much of each hand the table has read, at a glance.

A hand holds five cards, so the line counts out of five, also during the exchange (where
the table forgets both hands at the acceptance and counts the replacements it sees arrive).
Every value the line can take is drawn in one golden sheet (``tests/golden/seen_lines.png``,
regenerated with ``ECARTE_REGEN_GOLDEN=1`` after a deliberate change); games played with
packets on pads of every readable depth show no other value.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops

import engine
from catalogue import LANGUAGES
from firmware_host.players.packets import ModelTable, PacketPlayers
from firmware_host.referee.controller import Controller
from firmware_host.referee.snapshot import Sight, TableSnapshot
from firmware_host.referee.transcript import CardEvent, Setup
from firmware_host.screens.chooser import screen_for
from firmware_host.screens.drawing import clipped, render

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "seen_lines.png"

SEEN_VALUES = [(a, b) for a in range(6) for b in range(6) if (a, b) != (5, 5)]
"""What the table knows of A's and B's five cards whenever the line is shown (not both whole)."""


def _dealt() -> TableSnapshot:
    table = Controller()
    table.handle(Setup(rules="classic", dealer="B", sight="partial"))
    for i, card in enumerate(["KH", "QH", "JH", "AH", "TH", "7S", "8S", "9S", "TS", "AS"]):
        table.handle(CardEvent("hand.A" if i < 5 else "hand.B", card))
    table.handle(CardEvent("turnup", "7D"))
    return table.snapshot()


def _with(snapshot: TableSnapshot, seen: tuple[int, int]) -> TableSnapshot:
    return dataclasses.replace(snapshot, sight=Sight("partial", seen, (5, 5)))


def _sheet(snapshot: TableSnapshot) -> Image.Image:
    """Every value's frame, six to a row, on a 2-pixel grid."""
    cols = 6
    rows = -(-len(SEEN_VALUES) // cols)
    sheet = Image.new("1", (cols * 130, rows * 66), 1)
    for n, seen in enumerate(SEEN_VALUES):
        sheet.paste(render(screen_for(_with(snapshot, seen))), ((n % cols) * 130 + 1, (n // cols) * 66 + 1))
    return sheet


def test_every_value_of_the_seen_line_matches_the_golden_sheet() -> None:
    snapshot = _dealt()
    assert screen_for(snapshot).status == "seen A 5/5 · B 5/5" or snapshot.sight.complete
    statuses = [screen_for(_with(snapshot, seen)).status for seen in SEEN_VALUES]
    assert statuses[0] == "seen A 0/5 · B 0/5" and statuses[-1] == "seen A 5/5 · B 4/5"
    assert len(set(statuses)) == len(SEEN_VALUES)
    sheet = _sheet(snapshot)
    if os.environ.get("ECARTE_REGEN_GOLDEN"):
        sheet.save(GOLDEN)
    golden = Image.open(GOLDEN)
    assert ImageChops.difference(sheet.convert("L"), golden.convert("L")).getbbox() is None, (
        f"the seen line differs from {GOLDEN}: ECARTE_REGEN_GOLDEN=1 regenerates it if the change is wanted"
    )


def test_every_value_fits_in_every_language_with_initials() -> None:
    snapshot = dataclasses.replace(_dealt(), players=("Marguerite", "Wilhelmina", ""))
    for lang in LANGUAGES:
        for seen in SEEN_VALUES:
            screen = screen_for(_with(snapshot, seen), lang)
            assert screen.status.endswith(f"W {seen[1]}/5"), screen.status
            assert not clipped(screen), (lang, screen.status)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), depth=st.integers(1, 3), faults=st.sampled_from([0.0, 0.3]))
def test_a_game_on_pads_that_miss_cards_shows_only_those_values(seed: int, depth: int, faults: float) -> None:
    """Packets of three and two, discards and replacements, on pads reading ``depth`` cards of a
    stack: every frame's seen line is one of the golden sheet's (never ``1/6`` in the exchange)."""
    table = ModelTable(Controller(), depth=depth, setup=Setup(rules="classic", dealer="A", sight="partial"))
    PacketPlayers(table, engine.new_game("classic", dealer="A"), seed=seed, faults=faults).play_game()
    referee = Controller()
    allowed = {screen_for(_with(_dealt(), seen)).status for seen in SEEN_VALUES}
    shown: set[str] = set()
    for line in table.lines:
        snapshot = referee.handle(line).snapshot
        assert all(s <= h <= 5 for s, h in zip(snapshot.sight.seen, snapshot.sight.held, strict=True))
        screen = screen_for(snapshot)
        status = screen.status
        if screen.view == "table" and status.startswith("seen"):
            shown.add(status)
            if snapshot.phase == "exchange":
                assert snapshot.sight.held == (5, 5)
    assert shown <= allowed


def test_the_exchange_at_depth_one_counts_replacements_out_of_five() -> None:
    """The issue's case: at depth 1 a replacement seen in the exchange read ``seen A 1/6``."""
    for seed in range(30):
        table = ModelTable(Controller(), depth=1, setup=Setup(rules="classic", dealer="A", sight="partial"))
        PacketPlayers(table, engine.new_game("classic", dealer="A"), seed=seed).play_game()
        referee = Controller()
        for line in table.lines:
            snapshot = referee.handle(line).snapshot
            if snapshot.phase == "exchange" and any(snapshot.sight.seen):
                status = screen_for(snapshot).status
                assert status.startswith("seen ") and "/6" not in status
                assert snapshot.sight.held == (5, 5)
                return
    raise AssertionError("no exchange with a replacement seen in 30 games")
