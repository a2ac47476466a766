"""Every message the table can show fits the 128×64 OLED, in every language and rule set.

The texts are measured with the glyphs the panel draws (:func:`firmware_host.screens.drawing.clipped`):
a line below the panel, or wider than it, fails. The messages are made from the data they
are worded from — every fault and notice code with every seat, card and detail, every
prompt, every hand result with its kings, penalties and punished bids, the menu's every
line — with the widest names the table shows.
"""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from catalogue import LANGUAGES
from drivers.nfc.originality import Origin
from engine import Card, Fault, HandEnd, new_game
from engine.events import Bid, King, Penalty
from engine.faults import FAULT_CODES
from engine.prompts import PROMPT_KEYS, Prompt
from engine.rules import RULE_SETS
from firmware_host.referee.snapshot import Sight, TableSnapshot
from firmware_host.referee.table_setup import OPTIONS, Menu, Settings
from firmware_host.screens.chooser import menu_screen, message_screen, paused_screen, screen_for
from firmware_host.screens.drawing import Screen, clipped, render
from firmware_host.screens.i18n import screen_name, words

NAMES = [("A", "B", ""), ("WWWWWWWWWWWW", "MMMMMMMMMMMM", ""), ("Marguerite", "Jean-Baptiste", "")]
"""The seats, and the widest names (cut on the panel)."""

NOTICE_CODES = ("wrong_time", "out_of_turn", "setup_ignored", "locked")
WIDE_CARDS = [rank + "S" for rank in "KQJAT987"]  # every suit symbol is as wide


def _view(rules: str, phase: str, score: tuple[int, int] = (4, 4), **changes: object):  # type: ignore[no-untyped-def]
    view = new_game(rules, dealer="B").public()
    return dataclasses.replace(view, phase=phase, score=score, trump=Card.parse("TH"), **changes)


def _fits(screen: Screen, what: str) -> None:
    cut = clipped(screen)
    assert not cut, f"{what}: {cut!r} cut off on {screen!r}"


def _snapshot(rules: str, phase: str, names: tuple[str, str, str], **fields: object) -> TableSnapshot:
    prompt = fields.pop("prompt", Prompt("A", "play"))
    view = fields.pop("view", _view(rules, phase))
    return TableSnapshot(view=view, prompt=prompt, players=names, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("rules", sorted(RULE_SETS))
def test_every_fault_and_notice_fits(lang: str, rules: str) -> None:
    codes = sorted(set(FAULT_CODES) | set(NOTICE_CODES))
    details = [(), (("suit", "H"), ("win", "yes")), (("suit", "D"), ("win", "no")), (("beat", "QS"),)]
    for names, code, seat, phase in itertools.product(NAMES, codes, ("A", "B", None), ("play", "cut", "deal")):
        trick = ((("B", Card.parse("QD")),) if phase == "play" else ())
        view = _view(rules, phase, trick=trick)
        for card, detail in itertools.product([None, *WIDE_CARDS], details):
            fault = Fault(code, seat, "", Card.parse(card) if card else None, detail=detail)
            snapshot = _snapshot(rules, phase, names, view=view, faults=(fault,),
                                 prompt=Prompt("B", "respond"))
            _fits(screen_for(snapshot, lang), f"{lang} {rules} fault {code}")
    # faults proven late (partial sight): what happened, and who chooses what (or the king's point back)
    for names, code, seat, trick, chooser in itertools.product(
        NAMES, ("revoke", "not_overtaking", "not_trumping", "false_king"), "AB", range(1, 6), ("A", "B", None),
    ):
        fault = Fault(code, seat, "43", None, True, trick)
        snapshot = _snapshot(rules, "play", names, warning=fault, choosing=chooser)
        screen = screen_for(snapshot, lang)
        assert screen.view == "fault"
        _fits(screen, f"{lang} {rules} late {code}")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_prompt_fits_the_table_view(lang: str) -> None:
    for rules, names, key, count in itertools.product(sorted(RULE_SETS), NAMES, PROMPT_KEYS, (1, 5)):
        for seat, phase, setting_up in (("A", "play", False), ("B", "deal", False), ("B", "deal", True),
                                        ("", "cut", True)):
            snapshot = _snapshot(rules, phase, names, prompt=Prompt(seat, key, count),
                                 view=_view(rules, phase, score=(-3, 10)), setting_up=setting_up)
            _fits(screen_for(snapshot, lang), f"{lang} prompt {key}")
    for held in range(6):
        sight = Sight("partial", (held // 2, 0), (held, 5))
        snapshot = _snapshot("classic", "propose", NAMES[1], sight=sight, view=_view("classic", "propose", (-3, 10)))
        _fits(screen_for(snapshot, lang), f"{lang} sight {sight}")


def _hands() -> list[tuple[HandEnd, tuple[object, ...]]]:
    out = []
    for ta in range(6):
        tricks = (ta, 5 - ta)
        for notes in [(), (King("A", (1, 0)),), (King("B", (0, 1)), Bid("A", "stand", True)),
                      (Bid("B", "refuse", True), Penalty("A", -1, "revoke"), Penalty("A", -1, "king_not_declared")),
                      (King("A", (1, 0)), Penalty("B", -1, "not_trumping"), Penalty("A", -1, "revoke"),
                       Bid("A", "stand", True))]:
            kings = [sum(1 for n in notes if isinstance(n, King) and n.seat == s) for s in "AB"]
            pens = [sum(n.points for n in notes if isinstance(n, Penalty) and n.seat == s) for s in "AB"]
            for trick_points in [(1, 0), (0, 1), (2, 0), (0, 2), (-2, 0), (0, -1), (3, 0)]:
                points = tuple(trick_points[i] + kings[i] + pens[i] for i in range(2))
                out.append((HandEnd(tricks, points, (4, -2)), notes))  # type: ignore[arg-type]
    return out


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_hand_result_king_and_game_over_fits(lang: str) -> None:
    for names in NAMES:
        for hand, notes in _hands():
            snapshot = _snapshot("italian", "deal", names, last_hand=hand, hand_notes=notes, between_hands=True,
                                 prompt=Prompt("A", "deal"))
            screen = screen_for(snapshot, lang)
            assert screen.view == "hand"
            _fits(screen, f"{lang} hand {hand} {notes}")
        for seat in "AB":
            king = _snapshot("classic", "play", names, view=_view("classic", "play", king=seat), fresh_king=True,
                             prompt=Prompt("B", "respond"))
            _fits(screen_for(king, lang), f"{lang} king")
            over = _snapshot("classic", "over", names, view=_view("classic", "over", score=(11, -10)), winner=seat)
            _fits(screen_for(over, lang), f"{lang} game over")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_offline_paused_menu_and_messages_fit(lang: str) -> None:
    zones = ["hand.A", "hand.B", "turnup", "discard", "play.A", "play.B", "centre"]
    for zone in zones:
        _fits(screen_for(_snapshot("classic", "play", NAMES[0], offline=frozenset({zone})), lang), "offline")
    _fits(screen_for(_snapshot("classic", "play", NAMES[0], offline=frozenset({"play.A", "play.B"})), lang),
          "two readers offline")
    _fits(paused_screen(_snapshot("classic", "play", NAMES[1]), "", lang), "paused")
    _fits(paused_screen(None, "", lang), "paused")
    for rules, locked in itertools.product(sorted(RULE_SETS), (False, True)):
        menu = Menu.open(Settings(rules), locked=locked)
        for _ in range(len(menu.items)):
            for _value in range(4):
                _fits(menu_screen(menu.line, lang), f"{lang} menu {menu.line}")
                menu = menu.press("yes").menu or menu
            menu = menu.press("no").menu or menu
    assert set(OPTIONS) <= {item for r in RULE_SETS for item in Menu.open(Settings(r)).items}


@pytest.mark.parametrize("lines", [
    ["Pack 2: 31/32", "Lay the 10♥", "on pad hand.A"],
    ["Tag is 10♥ of pack 2", "Lift it", "then lay the 10♠"],
    ["Write failed", "Lift it", "then lay the 10♠ again"],
    ["Enrollment stopped", "31 cards enrolled"],
    ["Pack 2 complete", "32/32 cards"],
    ["Enrol a badge", f"player: {screen_name('W' * 24)}", "Lay its tag on the pad"],
    ["Tag is 10♥ of pack 2", "Lift it", "then lay the badge"],
    ["Badge: NOT GENUINE", "bad signature", "Lift it, lay another"],
    ["Badge enrolled", f"option: {screen_name('W' * 24)}", "Lift it"],
    ["Lock failed", "Lift it", "then lay the badge again"],
])
def test_enrollment_messages_fit(lines: list[str]) -> None:
    _fits(message_screen(lines), "enrollment")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_enrollment_message_fits_in_every_language(lang: str) -> None:
    """The operator's words (the catalogue's ``enrol.*``), with the widest values, three lines a screen."""
    from catalogue import ids, say

    values = {"pack": 2, "done": 31, "total": 32, "card": "10♥", "n": 31, "status": "no_signature"}
    lines = [say(lang, msgid, **values) for msgid in ids() if msgid.startswith("enrol.")]
    assert len(lines) > 20
    for i in range(0, len(lines), 3):
        _fits(message_screen(lines[i:i + 3]), f"{lang} enrollment {lines[i:i + 3]}")


def test_a_long_message_is_reported_cut() -> None:
    screen = Screen(view="fault", headline="x", detail=" ".join(["overlong"] * 30))
    assert clipped(screen)
    render(screen)  # drawn all the same


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_deck_check_message_fits(lang: str) -> None:
    from firmware_host.cards.deck_check import DeckReport, Fake, Stranger
    from firmware_host.screens.deck import deck_lines
    from hardware.tag_registry import CARDS

    wide = tuple(card for card in CARDS if card[0] == "T")  # 10♠ 10♥...: the widest ranks
    reports = [DeckReport(None, (), CARDS), DeckReport(2, (), CARDS)]
    for pack, seen in itertools.product((None, 1, 2), (1, 24, 30, 31, 32)):
        missing = tuple(c for c in CARDS if c not in CARDS[:seen])
        for lying, finished in itertools.product((0, 3), (False, True)):
            reports += [
                DeckReport(pack, CARDS[:seen], missing, lying=lying, finished=finished),
                DeckReport(pack, CARDS[:seen], missing, wide, (Stranger("04A1", "QH", 2),) * 12,
                           (Fake("TS", (Origin.NO_SIGNATURE,)),) * 32, lying=lying, finished=finished),
            ]
    for report in reports:
        lines = deck_lines(report, lang)
        assert 2 <= len(lines) <= 4
        _fits(message_screen(lines), f"{lang} deck check {lines}")
    done = deck_lines(DeckReport(1, CARDS, (), finished=True), lang)
    assert done[1].startswith("32/32")
    short = deck_lines(DeckReport(1, CARDS[:30], CARDS[30:], finished=True), lang)
    assert short[1].startswith("30/32") and words(lang).card("8C") in short[2] and words(lang).card("7C") in short[2]
