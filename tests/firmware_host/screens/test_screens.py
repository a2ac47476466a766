"""Which screen the table shows as the game goes (the drawing itself: tests/firmware_host/screens/test_drawing.py)."""

from __future__ import annotations

import pytest

from drivers.display.i2c_sim import FakeI2CBus
from drivers.display.oled import open_display
from engine import new_game
from firmware_host.referee.controller import Controller
from firmware_host.referee.transcript import ButtonEvent, CardEvent, Setup
from firmware_host.screens.chooser import Screen, paused_screen, render, screen_for
from firmware_host.screens.i18n import worded


def _dealt(controller: Controller) -> None:
    controller.handle(Setup(rules="classic", dealer="B"))
    for i, card in enumerate(["KH", "QH", "JH", "AH", "TH", "7S", "8S", "9S", "TS", "AS"]):
        controller.handle(CardEvent("hand.A" if i < 5 else "hand.B", card))
    controller.handle(CardEvent("turnup", "7D"))


def test_the_table_view_after_the_deal() -> None:
    table = Controller()
    _dealt(table)
    assert screen_for(table.snapshot()) == Screen(
        trump_card="7D", trump_label="7", score_a=0, score_b=0, target=5, dealer="B", elder="A", turn="A",
        expects="propose or play?", status="B deals · elder A",
    )


def test_a_refused_card_is_a_fault_view_until_taken_back() -> None:
    table = Controller()
    _dealt(table)
    table.handle(ButtonEvent("A", "no"))
    table.handle(CardEvent("play.A", "KH"))
    table.handle(CardEvent("play.B", "JH"))  # A's card: not in B's hand
    screen = screen_for(table.snapshot())
    assert screen.view == "fault"
    assert screen.headline == "B does not hold the J♥"
    assert screen.detail == "take back the J♥"
    table.handle(CardEvent("play.B", "JH", gone=True))
    back = screen_for(table.snapshot())
    assert (back.view, back.turn, back.expects, back.tricks_a, back.tricks_b) == ("table", "B", "play", 0, 0)


def test_a_void_deal_is_shown_until_the_next_card() -> None:
    table = Controller()
    table.handle(Setup(rules="classic", dealer="A"))
    for card in ["KH", "QH", "JH", "AH", "TH", "9H"]:
        table.handle(CardEvent("hand.B", card))
    screen = screen_for(table.snapshot())
    assert (screen.view, screen.headline, screen.detail) == ("fault", "misdeal", "deal void: A deals again")
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
    assert (screen.view, screen.headline) == ("game_over", "A wins")
    assert screen.detail == "the game, 1:0\nyes: new game"


def test_the_hand_result_stays_until_the_next_deal() -> None:
    table = Controller()
    _dealt(table)
    table.handle(ButtonEvent("A", "no"))
    for a, b in zip(["KH", "QH", "JH", "AH", "TH"], ["7S", "8S", "9S", "TS", "AS"], strict=True):
        table.handle(CardEvent("play.A", a))
        table.handle(CardEvent("play.B", b))
    screen = screen_for(table.snapshot())
    assert (screen.view, screen.headline) == ("hand", "A wins 5-0")
    assert screen.detail == "A +2 vole\nscore A 2 · B 0\nA deals next"  # the hand's points signed, the score not
    table.handle(CardEvent("hand.B", "7C"))
    assert screen_for(table.snapshot()).view == "table"


def test_an_offline_reader_is_on_the_screen() -> None:
    table = Controller()
    _dealt(table)
    table.reader("play.B", online=False, reason="EIO")
    screen = screen_for(table.snapshot())
    assert (screen.view, screen.headline) == ("offline", "reader offline: B's play")
    table.reader("play.B", online=True)
    assert screen_for(table.snapshot()).view == "table"


@pytest.mark.parametrize(("rules", "expected"), [
    ("classic", ("A", "propose or play?")),
    ("german", ("A", "declare or pass?")),
])
def test_prompts_fit_one_line(rules: str, expected: tuple[str, str]) -> None:
    from engine import apply, parse_deal, prompt

    state, _ = apply(new_game(rules, dealer="B"), parse_deal("KH QH JH AH TH / 7S 8S 9S TS AS / 7D"))
    assert (prompt(state).seat, worded(prompt(state)).short) == expected


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


def _names(rules: str = "classic") -> Controller:
    table = Controller()
    table.handle(Setup(rules=rules, dealer="B", players=("Marguerite", "Jean")))
    return table


def test_names_and_a_labelled_score() -> None:
    table = _names()
    for i, card in enumerate(["KH", "QH", "JH", "AH", "TH", "7S", "8S", "9S", "TS", "AS"]):
        table.handle(CardEvent("hand.A" if i < 5 else "hand.B", card))
    table.handle(CardEvent("turnup", "7D"))
    screen = screen_for(table.snapshot())
    assert (screen.label_a, screen.label_b, screen.turn, screen.status) == ("M", "J", "Marguerite", "Jean deals")
    assert table.snapshot().players[:2] == ("Marguerite", "Jean")
    assert table.current_setup().players == ("Marguerite", "Jean")


@pytest.mark.parametrize(("lang", "headline", "detail"), [
    ("en", "Marguerite must trump ♦", "take back the 7♠"),
    ("fr", "Marguerite doit couper ♦", "reprenez le 7♠"),
    ("it", "Marguerite deve tagliare a ♦", "riprendi il 7♠"),
    ("de", "Marguerite muss mit ♦ trumpfen", "7♠ zurücknehmen"),
])
def test_a_fault_in_every_language(lang: str, headline: str, detail: str) -> None:
    table = _names()
    for i, card in enumerate(["7S", "QH", "JH", "AH", "7D", "KC", "8S", "9S", "TS", "AS"]):
        table.handle(CardEvent("hand.A" if i < 5 else "hand.B", card))
    table.handle(CardEvent("turnup", "8D"))
    table.handle(ButtonEvent("A", "no"))
    table.handle(CardEvent("play.A", "QH"))
    table.handle(CardEvent("play.B", "KC"))  # B: no heart... B holds no heart: B must trump? B holds no diamond
    table2 = _names()
    for i, card in enumerate(["KC", "QC", "JC", "AC", "TC", "7S", "8S", "9S", "TS", "7D"]):
        table2.handle(CardEvent("hand.A" if i < 5 else "hand.B", card))
    table2.handle(CardEvent("turnup", "8D"))
    table2.handle(ButtonEvent("A", "no"))
    table2.handle(CardEvent("play.A", "KC"))
    table2.handle(CardEvent("play.B", "7S"))  # B holds the 7♦ and no club
    screen = screen_for(table2.snapshot(), lang)
    assert (screen.view, screen.headline.replace("Jean", "Marguerite"), screen.detail) == ("fault", headline, detail)


def test_cards_and_ranks_per_language() -> None:
    from catalogue import card_words

    assert [card_words(lang, "KS") for lang in ("en", "fr", "it", "de")] == ["K♠", "R♠", "R♠", "K♠"]
    assert [card_words(lang, "JD") for lang in ("en", "fr", "it", "de")] == ["J♦", "V♦", "F♦", "B♦"]
    table = _names()
    for i, card_code in enumerate(["KH", "QH", "JH", "AH", "TH", "7S", "8S", "9S", "TS", "AS"]):
        table.handle(CardEvent("hand.A" if i < 5 else "hand.B", card_code))
    table.handle(CardEvent("turnup", "QD"))
    assert screen_for(table.snapshot(), "fr").trump_label == "D"
    assert screen_for(table.snapshot(), "fr").expects == "proposer ou jouer ?"


def test_the_hand_says_where_the_points_came_from() -> None:
    table = _names("italian")
    for i, card in enumerate(["KD", "QH", "JH", "AH", "TH", "7S", "8S", "9S", "TS", "AS"]):
        table.handle(CardEvent("hand.A" if i < 5 else "hand.B", card))
    table.handle(CardEvent("turnup", "7D"))  # A holds the king of trumps
    table.handle(ButtonEvent("A", "no"))
    table.handle(ButtonEvent("A", "king"))
    for a, b in zip(["QH", "JH", "AH", "TH", "KD"], ["7S", "8S", "9S", "TS", "AS"], strict=True):
        table.handle(CardEvent("play.A", a))
        table.handle(CardEvent("play.B", b))
    screen = screen_for(table.snapshot())
    assert screen.view == "hand"
    assert screen.detail.split("\n")[0] == "M +2 vole, +1 king"


def test_italian_penalties_are_shown_with_their_reason() -> None:
    table = _names("italian")
    for i, card in enumerate(["KC", "QC", "JC", "AC", "TC", "7S", "8S", "9S", "TS", "7C"]):
        table.handle(CardEvent("hand.A" if i < 5 else "hand.B", card))
    table.handle(CardEvent("turnup", "8D"))
    table.handle(ButtonEvent("A", "no"))
    table.handle(CardEvent("play.A", "KC"))
    table.handle(CardEvent("play.B", "7S"))  # B holds the 7♣: a revoke, −1 at once
    screen = screen_for(table.snapshot())
    assert (screen.headline, screen.detail) == ("Jean must follow ♣", "take back the 7♠; Jean −1 point")
    table.handle(CardEvent("play.B", "7S", gone=True))
    table.handle(CardEvent("play.B", "7C"))
    for a, b in zip(["QC", "JC", "AC", "TC"], ["7S", "8S", "9S", "TS"], strict=True):
        table.handle(CardEvent("play.A", a))
        table.handle(CardEvent("play.B", b))
    lines = screen_for(table.snapshot()).detail.split("\n")
    assert lines[:2] == ["M +2 vole", "J −1 revoke"]


def test_partial_sight_says_how_much_of_each_hand_was_seen() -> None:
    import dataclasses

    from firmware_host.referee.snapshot import Sight

    table = Controller()
    _dealt(table)
    snapshot = dataclasses.replace(table.snapshot(), sight=Sight("partial", (3, 5), (5, 5)))
    assert screen_for(snapshot).status == "seen A 3/5 · B 5/5"
    assert screen_for(snapshot, "fr").status == "vues A 3/5 · B 5/5"


def test_a_button_that_means_nothing_now_is_said_on_the_screen_until_the_next_input() -> None:
    table = Controller()
    _dealt(table)
    table.handle(ButtonEvent("A", "no"))
    outcome = table.handle(ButtonEvent("B", "yes"))  # play has begun: B's yes means nothing
    assert [e.event for e in outcome.events] == ["notice"]
    screen = screen_for(outcome.snapshot)
    assert screen.view == "fault" and screen.headline.startswith("B")
    after = table.handle(CardEvent("play.A", "KH")).snapshot
    assert after.notice is None and screen_for(after).view == "table"
