"""The OLED's words as a club reads them: a hand's result shows the score as a total, a fault proven late
says what was not done (German), and French puts its space before a colon."""

from __future__ import annotations

import dataclasses

import pytest

from catalogue import LANGUAGES
from engine import Fault, HandEnd, new_game
from engine.prompts import Prompt
from firmware_host.referee.snapshot import TableSnapshot
from firmware_host.screens.chooser import screen_for
from firmware_host.screens.drawing import render

NAMES = ("Anne", "Bruno", "")


def _snap(phase: str = "play", **fields: object) -> TableSnapshot:
    view = dataclasses.replace(new_game("classic", dealer="B").public(), phase=phase, score=(2, 0))
    prompt = fields.pop("prompt", Prompt("A", "play"))
    return TableSnapshot(view=view, prompt=prompt, players=NAMES, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_hands_result_shows_the_score_as_a_total(lang: str) -> None:
    """"score A +2 · B +0" read as a change: the points of the hand are signed, the score is not."""
    hand = HandEnd((4, 1), (2, 0), (2, 0))  # type: ignore[arg-type]
    screen = screen_for(_snap("deal", last_hand=hand, between_hands=True, prompt=Prompt("A", "deal")), lang)
    lines = screen.detail.split("\n")
    assert lines[0].endswith("+2 " + lines[0].split("+2 ")[1])  # the hand's points: a change
    score = next(line for line in lines if " · " in line)
    assert "+" not in score and score.endswith(" 0") and " 2 · " in score, score


@pytest.mark.parametrize(("code", "trick", "said"), [("not_trumping", 4, "Bruno hat im Stich 4 nicht getrumpft"),
                                                     ("revoke", 3, "Bruno hat im Stich 3 nicht bedient")])
def test_a_german_fault_proven_late_says_what_was_not_done(code: str, trick: int, said: str) -> None:
    """"Bruno: Trumpf, Stich 4." on the OLED, where history says "hat nicht getrumpft"."""
    screen = screen_for(_snap(warning=Fault(code, "B", "43", None, True, trick), choosing="A"), "de")
    assert screen.headline == said


def test_french_puts_its_space_before_the_colon_on_the_oled() -> None:
    french = screen_for(_snap(prompt=Prompt("A", "play")), "fr")
    english = screen_for(_snap(prompt=Prompt("A", "play")), "en")
    assert (french.colon, english.colon) == (" : ", ": ")
    late = screen_for(_snap(warning=Fault("revoke", "B", "43", None, True, 2), choosing="A"), "fr")
    assert late.headline == "Bruno : renonce, pli 2" and late.detail.startswith("Anne : ")
    # drawn: the turn and what is expected, the French colon between them
    assert render(french) != render(dataclasses.replace(french, colon=": "))
