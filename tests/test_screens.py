"""Which screen the table shows as the game goes (the drawing itself: tests/test_screen.py)."""

from __future__ import annotations

import pytest

from drivers.display.i2c_sim import FakeI2CBus
from drivers.display.oled import open_display
from engine import new_game
from firmware_host.controller import Controller
from firmware_host.screens import Screen, paused_screen, render, screen_for
from firmware_host.transcript import ButtonEvent, CardEvent, Setup


def _dealt(controller: Controller) -> None:
    controller.handle(Setup(rules="classic", dealer="B"))
    for i, card in enumerate(["KH", "QH", "JH", "AH", "TH", "7S", "8S", "9S", "TS", "AS"]):
        controller.handle(CardEvent("hand.A" if i < 5 else "hand.B", card))
    controller.handle(CardEvent("turnup", "7D"))


def test_the_table_view_after_the_deal() -> None:
    table = Controller()
    _dealt(table)
    assert screen_for(table.snapshot()) == Screen(
        trump_card="7D", score_a=0, score_b=0, target=5, dealer="B", elder="A", turn="A", expects="propose or play?",
    )


def test_a_refused_card_is_a_fault_view_until_taken_back() -> None:
    table = Controller()
    _dealt(table)
    table.handle(ButtonEvent("A", "no"))
    table.handle(CardEvent("play.A", "KH"))
    table.handle(CardEvent("play.B", "JH"))  # A's card: not in B's hand
    screen = screen_for(table.snapshot())
    assert screen.view == "fault"
    assert screen.headline == "B: card not in hand"
    assert "J♥" in screen.detail
    table.handle(CardEvent("play.B", "JH", gone=True))
    back = screen_for(table.snapshot())
    assert (back.view, back.turn, back.expects, back.tricks_a, back.tricks_b) == ("table", "B", "play", 0, 0)


def test_a_void_deal_is_shown_until_the_next_card() -> None:
    table = Controller()
    table.handle(Setup(rules="classic", dealer="A"))
    for card in ["KH", "QH", "JH", "AH", "TH", "9H"]:
        table.handle(CardEvent("hand.B", card))
    screen = screen_for(table.snapshot())
    assert (screen.view, screen.headline) == ("fault", "A: misdeal")
    table.handle(CardEvent("hand.B", "7C"))
    assert screen_for(table.snapshot()).view == "table"


def test_king_hand_and_game_over_views() -> None:
    table = Controller()
    table.handle(Setup(rules="classic", dealer="B", target=1))
    for i, card in enumerate(["KH", "QH", "JH", "AH", "TH", "7S", "8S", "9S", "TS", "AS"]):
        table.handle(CardEvent("hand.A" if i < 5 else "hand.B", card))
    table.handle(CardEvent("turnup", "7H"))
    table.handle(ButtonEvent("A", "no"))
    table.handle(ButtonEvent("A", "king"))  # A holds the KH: the point, and the game at 1
    screen = screen_for(table.snapshot())
    assert (screen.view, screen.headline) == ("game_over", "GAME OVER: A wins")
    assert screen.detail.startswith("1:0")


def test_the_hand_result_stays_until_the_next_deal() -> None:
    table = Controller()
    _dealt(table)
    table.handle(ButtonEvent("A", "no"))
    for a, b in zip(["KH", "QH", "JH", "AH", "TH"], ["7S", "8S", "9S", "TS", "AS"], strict=True):
        table.handle(CardEvent("play.A", a))
        table.handle(CardEvent("play.B", b))
    screen = screen_for(table.snapshot())
    assert (screen.view, screen.headline) == ("hand", "hand: A wins 5-0")
    assert "A +2, B +0" in screen.detail and "A deals next" in screen.detail
    table.handle(CardEvent("hand.B", "7C"))
    assert screen_for(table.snapshot()).view == "table"


def test_an_offline_reader_is_on_the_screen() -> None:
    table = Controller()
    _dealt(table)
    table.reader("play.B", online=False, reason="EIO")
    screen = screen_for(table.snapshot())
    assert (screen.view, screen.headline) == ("offline", "reader play.B offline")
    table.reader("play.B", online=True)
    assert screen_for(table.snapshot()).view == "table"


@pytest.mark.parametrize(("rules", "expected"), [
    ("classic", ("A", "propose or play?")),
    ("german", ("A", "declare or pass?")),
])
def test_prompts_fit_one_line(rules: str, expected: tuple[str, str]) -> None:
    from engine import apply, parse_deal, prompt

    state, _ = apply(new_game(rules, dealer="B"), parse_deal("KH QH JH AH TH / 7S 8S 9S TS AS / 7D"))
    assert (prompt(state).seat, prompt(state).short) == expected


def test_every_view_shows_on_the_simulated_panel_pixel_exact() -> None:
    table = Controller()
    _dealt(table)
    snapshot = table.snapshot()
    screens = [screen_for(snapshot), paused_screen(snapshot, "table paused: the game resumes where it stopped")]
    bus = FakeI2CBus("sh1106")
    with open_display("sh1106", bus=bus) as oled:
        for screen in screens:
            oled.show(render(screen))
            assert bus.panel() == render(screen)
