"""The coach at the table: a line after each hand on the OLED, and the learner's hint."""

from __future__ import annotations

import random

import engine
from coach.odds import hint_text
from firmware_host.players.builtin import game_transcript
from firmware_host.referee.controller import Controller
from firmware_host.referee.table_events import HandRecord
from firmware_host.referee.transcript import ButtonEvent, CardEvent, Setup
from firmware_host.screens.chooser import screen_for
from firmware_host.screens.coaching import CoachedPanel, coach_line
from firmware_host.screens.panel import open_panel
from hardware.table import parse_table, simulated_table


def test_after_a_hand_played_badly_the_oled_says_what_best_play_would_have_kept() -> None:
    """Random players err: the coach finds it, and the hand's screen shows the line until the next turn-up."""
    shown = 0
    with open_panel(simulated_table()) as panel:
        coached = CoachedPanel(panel)
        for seed in range(6):
            controller = Controller()
            for event in game_transcript(engine.new_game("classic", dealer="A"), random.Random(seed)):
                outcome = controller.handle(event)
                coached.publish(outcome)
                records = [e for e in outcome.events if isinstance(e, HandRecord)]
                if records and outcome.snapshot.between_hands and coached.line:
                    assert coached.line == coach_line(records[0])
                    assert panel.screen is not None and coached.line in panel.screen.detail
                    shown += 1
                if any(e.event == "trump" for e in outcome.events):
                    assert coached.line is None
    assert shown >= 3


def test_the_learners_hint_shows_the_elders_odds_until_he_decides() -> None:
    controller = Controller(advisor=hint_text)
    controller.handle(Setup(rules="classic", dealer="B"))
    for i, card in enumerate(["KH", "QH", "JH", "AH", "TH", "7S", "8S", "9S", "TS", "AS"]):
        controller.handle(CardEvent("hand.A" if i < 5 else "hand.B", card))
    snapshot = controller.handle(CardEvent("turnup", "7D")).snapshot
    assert snapshot.hint == hint_text(engine.rules("classic"), engine.mask_of(["KH", "QH", "JH", "AH", "TH"]),
                                      engine.Card.parse("7D").index)
    assert snapshot.hint.startswith(("stand ", "propose ")) and snapshot.hint.endswith(" -")  # no jeu de règle
    assert screen_for(snapshot).status == snapshot.hint
    assert controller.handle(ButtonEvent("A", "no")).snapshot.hint is None
    assert Controller().handle(Setup(rules="classic", dealer="B")).snapshot.hint is None  # off by default


def test_the_hint_and_the_coachs_line_follow_the_tables_language() -> None:
    """Under a Spanish table the hint names the decision in Spanish, and so does the coach's line."""
    from catalogue import say
    from firmware_host.referee.controller import TableDefaults

    controller = Controller(TableDefaults(language="es"), advisor=hint_text)
    controller.handle(Setup(rules="classic", dealer="B"))
    for i, card in enumerate(["KH", "QH", "JH", "AH", "TH", "7S", "8S", "9S", "TS", "AS"]):
        controller.handle(CardEvent("hand.A" if i < 5 else "hand.B", card))
    snapshot = controller.handle(CardEvent("turnup", "7D")).snapshot
    assert snapshot.hint is not None and snapshot.hint.startswith(("juega ", "propón "))
    assert screen_for(snapshot).status == snapshot.hint
    lines = []
    with open_panel(simulated_table()) as panel:
        coached = CoachedPanel(panel)
        for seed in range(6):
            controller = Controller(TableDefaults(language="es"))
            for event in game_transcript(engine.new_game("classic", dealer="A"), random.Random(seed)):
                coached.publish(controller.handle(event))
                if coached.line and coached.line not in lines:
                    lines.append(coached.line)
    assert lines and all(" en la baza " in line or " debía " in line for line in lines), lines
    assert say("es", "coach.won_point") in " ".join(lines) or say("es", "coach.one_more_trick") in " ".join(lines)


def test_the_table_file_turns_the_coach_and_the_hint_on() -> None:
    import tomllib

    from hardware.table import shipped_table_path

    data = tomllib.loads(shipped_table_path("simulated").read_text(encoding="utf-8"))
    data["table"] |= {"coach": True, "hint": True}
    table = parse_table(data, source="t.toml")
    assert (table.coach, table.hint) == (True, True)
    assert (simulated_table().coach, simulated_table().hint) == (False, False)


def test_the_widest_hint_fits_the_status_line() -> None:
    import dataclasses

    from catalogue import LANGUAGES
    from engine.prompts import Prompt
    from firmware_host.referee.snapshot import TableSnapshot
    from firmware_host.screens.drawing import clipped

    view = dataclasses.replace(engine.new_game("classic", dealer="B").public(), phase="propose",
                               trump=engine.Card.parse("TH"))
    for hint in ("stand 100% vole 100%", "stand: pt 99% vole 9%"):
        for lang in LANGUAGES:
            snapshot = TableSnapshot(view=view, prompt=Prompt("A", "propose"), hint=hint,
                                     players=("Marguerite", "Jean-Baptiste", ""))
            assert not clipped(screen_for(snapshot, lang)), (hint, lang)


def test_the_widest_hints_fit_the_status_line_in_every_language() -> None:
    """The hint names the decision, the point's chance and the row: the widest of each fit the OLED (the
    coach's words, the same in every language). A row's chance is at most its highest over every hand it
    describes (docs/jeu_de_regle.json); a hand of no row may show 100%."""
    import dataclasses
    import json
    from pathlib import Path

    from catalogue import LANGUAGES, say
    from coach.jeu_de_regle import ELDER_ROWS
    from engine.prompts import Prompt
    from firmware_host.referee.snapshot import TableSnapshot
    from firmware_host.screens.drawing import clipped

    data = Path(__file__).resolve().parents[3] / "docs" / "jeu_de_regle.json"
    highest = {row["row"]: row["p_max"] for row in json.loads(data.read_text(encoding="utf-8"))["rows"]}
    widest = [(f"{highest[r.key]:.0%}", r.name) for r in ELDER_ROWS] + [("100%", "-")]
    view = dataclasses.replace(engine.new_game("classic", dealer="B").public(), phase="propose",
                               trump=engine.Card.parse("TH"))
    prompt = Prompt("A", "propose")
    for lang in LANGUAGES:
        for verb in ("propose", "declare", "stand", "pass"):
            for chance, row in widest:
                hint = f"{say(lang, 'hint.' + verb)} {chance} {row}!"  # the digits are all as wide
                snapshot = TableSnapshot(view=view, prompt=prompt, players=("WWWWWWWWWWWW", "MMMMMMMMMMMM", ""),
                                         hint=hint)
                screen = screen_for(snapshot, lang)
                assert screen.status == hint and not clipped(screen), (lang, hint)


def test_the_coachs_line_is_the_screens_own_never_the_referees() -> None:
    """The referee's snapshot has no place for it: the coached panel gives it to the panel beside the
    snapshot, and the hand's screen shows it."""
    import dataclasses

    from firmware_host.referee.snapshot import TableSnapshot

    assert "coach_line" not in {f.name for f in dataclasses.fields(TableSnapshot)}
    controller = Controller()
    for event in game_transcript(engine.new_game("classic", dealer="A"), random.Random(1)):
        snapshot = controller.handle(event).snapshot
        if snapshot.last_hand is not None and snapshot.between_hands:
            break
    line = "B could have won the point: 9♥ at trick 3"
    assert line not in screen_for(snapshot).detail
    assert line in screen_for(snapshot, coach_line=line).detail.splitlines()
    with open_panel(simulated_table()) as panel:
        panel.show(snapshot, coach_line=line)
        assert panel.screen is not None and line in panel.screen.detail
