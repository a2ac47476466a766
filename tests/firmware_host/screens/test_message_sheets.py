"""Golden sheets of every message the OLED shows, one sheet a language (``tests/golden/messages_<lang>.png``).

Each sheet draws, frame by frame, every fault and notice, every fault proven late, every prompt, the
hand's results (vole, point, a punished stand and refusal, penalties), the king, game over, the
status lines, a reader offline, the paused table, every line of the settings menu and the deck
check — with the players' names. A test checks that the sheets use every OLED message of the
catalogue (the bare ids, ``prompt.*``, ``menu.*``, ``language.*``, ``rank.*``), so a message
added to the catalogue and never drawn fails; pixel differences fail against the golden PNG::

    ECARTE_REGEN_GOLDEN=1 .venv/bin/python -m pytest tests/firmware_host/screens/test_message_sheets.py
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import os
from pathlib import Path

import pytest
from PIL import Image, ImageChops

import catalogue
from catalogue import LANGUAGES
from drivers.nfc.originality import Origin
from engine import Card, Fault, HandEnd, new_game
from engine.events import Bid, King, Penalty
from engine.faults import FAULT_CODES
from engine.prompts import PROMPT_KEYS, Prompt
from engine.rules import RULE_SETS
from firmware_host.cards.deck_check import DeckReport, Fake, Stranger
from firmware_host.referee.snapshot import Sight, TableSnapshot
from firmware_host.referee.table_setup import Menu, Settings
from firmware_host.screens import chooser, i18n
from firmware_host.screens.chooser import menu_screen, message_screen, paused_screen, screen_for
from firmware_host.screens.deck import deck_lines
from firmware_host.screens.drawing import Screen, clipped, render

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
NAMES = ("Anne", "Bruno", "")
COLS = 6


def _view(rules: str, phase: str, **changes: object):  # type: ignore[no-untyped-def]
    view = new_game(rules, dealer="B").public()
    return dataclasses.replace(view, phase=phase, **{"score": (2, 3), "trump": Card.parse("TH"), **changes})


def _snap(rules: str = "classic", phase: str = "play", **fields: object) -> TableSnapshot:
    prompt = fields.pop("prompt", Prompt("A", "play"))
    view = fields.pop("view", _view(rules, phase))
    return TableSnapshot(view=view, prompt=prompt, players=NAMES, **fields)  # type: ignore[arg-type]


def screens(lang: str) -> list[Screen]:
    """Every OLED message of ``lang``, a frame each."""
    out: list[Screen] = []
    trick = (("B", Card.parse("QD")),)
    for code in sorted(set(FAULT_CODES) | {"setup_ignored", "locked", "badge_seat"}):
        for phase, card, detail in (("play", "KS", ()), ("cut", None, ()), ("deal", "AC", ()), ("play", "JD", ()),
                                    ("play", "8S", (("suit", "H"), ("win", "yes"))), ("play", None, ())):
            seat = None if code == "badge_seat" else "A"
            fault = Fault(code, seat, "", Card.parse(card) if card else None, detail=detail)
            rules = "italian" if code == "revoke" and card == "KS" else "classic"
            out.append(screen_for(_snap(rules, phase, view=_view(rules, phase, trick=trick), faults=(fault,),
                                        prompt=Prompt("B", "respond")), lang))
    for code in ("revoke", "not_overtaking", "not_trumping", "false_king"):
        for chooser_seat in ("B", None):
            fault = Fault(code, "A", "43", None, True, 2)
            out.append(screen_for(_snap(warning=fault, choosing=chooser_seat), lang))
    for key in PROMPT_KEYS:
        phase = "play" if key in ("play", "replay", "offer_double", "offer_point") else "deal"
        out.append(screen_for(_snap(phase=phase, prompt=Prompt("A" if key != "cut" else "", key, 2)), lang))
    out.append(screen_for(_snap(phase="deal", view=_view("classic", "deal"), prompt=Prompt("B", "deal")), lang))
    partial = Sight("partial", (3, 2), (5, 5))
    out.append(screen_for(_snap(phase="propose", view=_view("classic", "propose"), sight=partial,
                                prompt=Prompt("A", "propose")), lang))
    out.append(screen_for(_snap(phase="deal", view=_view("classic", "deal", dealer=""), setting_up=True,
                                prompt=Prompt("", "cut")), lang))
    for tricks, points, notes in (((5, 0), (2, 0), ()), ((3, 2), (2, 0), (Bid("B", "refuse", True),)),
                                  ((2, 3), (-1, 2), (Bid("A", "stand", True),)),
                                  ((4, 1), (1, 0), (King("A", (1, 0)), Penalty("B", -1, "revoke"))),
                                  ((1, 4), (-1, 1), (Bid("A", "stand", True), Penalty("A", -1, "not_trumping"))),
                                  ((4, 1), (2, -2), ()),
                                  ((4, 1), (0, -1), (Penalty("B", -1, "not_overtaking"),
                                                     Penalty("B", -1, "king_not_declared")))):
        hand = HandEnd(tricks, points, (3, 2))  # type: ignore[arg-type]
        out.append(screen_for(_snap("italian", "deal", last_hand=hand, hand_notes=notes, between_hands=True,
                                    prompt=Prompt("A", "deal")), lang))
    out.append(screen_for(_snap(view=_view("classic", "play", king="A"), fresh_king=True,
                                prompt=Prompt("B", "respond")), lang))
    out.append(screen_for(_snap(view=_view("classic", "over", score=(5, 3)), winner="A"), lang))
    out.append(screen_for(_snap(offline=frozenset({"play.A"})), lang))
    out.append(paused_screen(_snap(), "", lang))
    for rules, locked in [*((r, False) for r in sorted(RULE_SETS)), ("classic", True)]:
        menu = Menu.open(Settings(rules), locked=locked)
        for _ in range(len(menu.items)):
            for _value in range(5 if menu.line.item == "language" else 2):
                out.append(menu_screen(menu.line, lang))
                menu = menu.press("yes").menu or menu
            menu = menu.press("no").menu or menu
    cards = ("KS", "QH", "JD", "AC", "TS", "9H", "8D", "7C")
    for report in (DeckReport(None, (), cards), DeckReport(2, cards[:3], cards[3:]),
                   DeckReport(1, cards, (), ("KS",), (Stranger("04A1", "QH", 2),),
                              (Fake("TS", (Origin.NO_SIGNATURE,)),), lying=2),
                   DeckReport(1, cards[:5], cards[5:], finished=True), DeckReport(1, cards, (), finished=True),
                   DeckReport(None, (), (), finished=True), DeckReport(1, cards[:5], cards[5:], lying=3, finished=True),
                   DeckReport(1, cards, (), lying=2)):
        out.append(message_screen(deck_lines(report, lang)))
    return out


def _sheet(frames: list[Screen]) -> Image.Image:
    rows = -(-len(frames) // COLS)
    sheet = Image.new("1", (COLS * 130, rows * 66), 1)
    for n, screen in enumerate(frames):
        sheet.paste(render(screen), ((n % COLS) * 130 + 1, (n // COLS) * 66 + 1))
    return sheet


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_oled_message_matches_its_languages_golden_sheet(lang: str) -> None:
    frames = screens(lang)
    cut = [(s.headline, s.detail, s.status, s.expects, clipped(s)) for s in frames if clipped(s)]
    assert cut == []
    codes = [s.headline for s in frames if "_" in s.headline + s.detail]  # a code shown for want of words
    assert codes == []
    path = GOLDEN / f"messages_{lang}.png"
    sheet = _sheet(frames)
    if os.environ.get("ECARTE_REGEN_GOLDEN"):
        sheet.save(path)
    golden = Image.open(path)
    assert sheet.size == golden.size and ImageChops.difference(sheet.convert("L"), golden.convert("L")).getbbox() \
        is None, f"the {lang} messages differ from {path}: ECARTE_REGEN_GOLDEN=1 regenerates it if the change is wanted"


def _command_line_words() -> set[str]:
    """The ids of the command line's words, which are their English (cli/words.py): every help text,
    and what argparse itself asks gettext for (each literal its source hands ``_`` or ``ngettext``)."""
    from cli.main import _parser
    from cli.words import help_texts

    asked: set[str] = set()
    for node in ast.walk(ast.parse(inspect.getsource(argparse))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("_", "ngettext"):
            asked |= {a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
    return asked | set(help_texts(_parser("en")))


def _oled_ids() -> set[str]:
    return {i for i in catalogue.ids()
            if "." not in i or i.split(".")[0] in ("prompt", "menu", "language", "rank")} - _command_line_words()


def test_the_sheets_draw_every_oled_message_of_the_catalogue(monkeypatch: pytest.MonkeyPatch) -> None:
    used: set[str] = set()
    say = catalogue.say

    def spy(lang: str, msgid: str, /, **values: object) -> str:
        used.add(msgid)
        return say(lang, msgid, **values)

    say_n = catalogue.say_n

    def spy_n(lang: str, msgid: str, n: int, /, **values: object) -> str:
        used.add(msgid)
        return say_n(lang, msgid, n, **values)

    monkeypatch.setattr(i18n, "say", spy)
    monkeypatch.setattr(i18n, "say_n", spy_n)
    monkeypatch.setattr(chooser, "say", spy)
    monkeypatch.setattr(catalogue, "say", spy)  # catalogue.say_or's words (a rank, a menu's value)
    for lang in LANGUAGES:
        screens(lang)
    assert _oled_ids() - used == set()
