"""The table's screens, compared pixel for pixel with golden PNGs.

Regenerate after a deliberate change of the layout with
``ECARTE_REGEN_GOLDEN=1 .venv/bin/python -m pytest tests/test_views.py`` and look at
every PNG in ``tests/golden/`` before committing them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from drivers.display.i2c_sim import FakeI2CBus
from drivers.display.oled import open_display
from firmware_host.controller import Controller
from firmware_host.transcript import ButtonEvent, CardEvent, Setup
from firmware_host.views import Screen, frame_to_text, render, screen_for

GOLDEN = Path(__file__).parent / "golden"

VIEWS = {
    "deal": Screen(rules="classic", score=(0, 0), dealer="A", elder="B",
                   prompt="A deals five cards each and turns up the eleventh"),
    "trump": Screen(trump="9D", score=(3, 1), dealer="A", elder="B", prompt="B: propose or play?"),
    "exchange": Screen(trump="JC", score=(0, 2), dealer="B", elder="A", prompt="A discards"),
    "play": Screen(trump="TH", score=(2, 4), dealer="B", elder="A", tricks=(2, 1), prompt="B plays"),
    "fault": Screen(trump="TH", score=(2, 4), dealer="B", tricks=(2, 1), banner="B revoke", banner_kind="fault",
                    detail="B must follow hearts and win the trick: take back the 7♠"),
    "king": Screen(trump="KS", score=(1, 0), dealer="A", tricks=(0, 0), banner="KING: A +1", banner_kind="info",
                   detail="B plays"),
    "hand": Screen(trump="8C", score=(4, 2), dealer="B", banner="HAND 3-2 +1/+0", banner_kind="info",
                   detail="A deals five cards each and turns up the eleventh"),
    "game_over": Screen(trump="QC", score=(5, 2), dealer="A", banner="GAME: A wins", banner_kind="info",
                        detail="A 5 - B 2. Press yes for a new game."),
    "offline": Screen(trump="7S", score=(1, 1), dealer="A", banner="OFFLINE play.B", banner_kind="fault",
                      detail="reader not answering: check its cable"),
    "paused": Screen(trump="AD", score=(2, 3), dealer="B", banner="PAUSED", banner_kind="info",
                     detail="table paused: the game resumes where it stopped"),
    "message": Screen(banner="Pack 1: 12/32", banner_kind="info", detail="Lay QH"),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_view_matches_its_golden_png(name: str) -> None:
    image = render(VIEWS[name])
    path = GOLDEN / f"{name}.png"
    if os.environ.get("ECARTE_REGEN_GOLDEN"):
        GOLDEN.mkdir(exist_ok=True)
        image.save(path)
    golden = Image.open(path).convert("1")
    assert image.size == (128, 64)
    assert ImageChops.difference(image.convert("L"), golden.convert("L")).getbbox() is None, (
        f"{name} differs from {path}: regenerate with ECARTE_REGEN_GOLDEN=1 if the change is wanted"
    )


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_view_shows_on_the_simulated_panel_pixel_exact(name: str) -> None:
    bus = FakeI2CBus("sh1106")
    with open_display("sh1106", bus=bus) as oled:
        oled.show(render(VIEWS[name]))
        assert bus.panel() == render(VIEWS[name])


def test_views_are_all_different() -> None:
    images = {name: render(screen).tobytes() for name, screen in VIEWS.items()}
    assert len(set(images.values())) == len(images)


def test_frame_as_text_is_64_pixel_rows_in_32_lines() -> None:
    text = frame_to_text(render(VIEWS["trump"]))
    lines = text.splitlines()
    assert len(lines) == 32 + 2
    assert all(len(line) == 130 for line in lines)
    assert "█" in text


def _dealt(controller: Controller) -> None:
    controller.handle(Setup(rules="classic", dealer="B"))
    for i, card in enumerate(["KH", "QH", "JH", "AH", "TH", "7S", "8S", "9S", "TS", "AS"]):
        controller.handle(CardEvent("hand.A" if i < 5 else "hand.B", card))
    controller.handle(CardEvent("turnup", "7D"))


def test_screen_follows_the_game() -> None:
    table = Controller()
    _dealt(table)
    assert screen_for(table) == Screen(trump="7D", score=(0, 0), target=5, dealer="B", elder="A",
                                       prompt="A: propose or play?", rules="classic")
    table.handle(ButtonEvent("A", "no"))
    table.handle(CardEvent("play.A", "KH"))
    table.handle(CardEvent("play.B", "JH"))  # A's card: not in B's hand
    screen = screen_for(table)
    assert screen.banner_kind == "fault"
    assert screen.banner == "B card_not_in_hand"
    assert "J♥" in screen.detail
    table.handle(CardEvent("play.B", "JH", gone=True))
    assert screen_for(table).banner is None
    assert screen_for(table).prompt == "B plays"
    assert screen_for(table).tricks == (0, 0)


def test_an_offline_reader_is_on_the_screen() -> None:
    table = Controller()
    _dealt(table)
    table.reader("play.B", online=False, reason="EIO")
    assert screen_for(table).banner == "OFFLINE play.B"
    table.reader("play.B", online=True)
    assert screen_for(table).banner is None
