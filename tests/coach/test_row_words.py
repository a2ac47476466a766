"""The jeu de règle's rows in words: ``review --detail`` said "jeu de règle 0T+4C3", a code no player
reads; each row is said with what it means, in every language."""

from __future__ import annotations

import pytest

import catalogue
from catalogue import LANGUAGES
from catalogue.english import english_words
from coach.jeu_de_regle import ROWS, Classical
from coach.review import classical_said


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_row_is_said_in_words(lang: str) -> None:
    for row in ROWS:
        words = row.said(lang)
        assert words == (row.text if lang == "en" else catalogue.template(lang, f"row.{row.seat}.{row.name}"))
        said = Classical(row.seat, row, True, False).words(lang)
        assert f"{row.name} ({words})" in said
        assert words in classical_said(Classical(row.seat, row, True, False), "stand", lang)
        if lang != "en":
            assert english_words(said) == set(), said


def test_the_dealers_four_courts_of_three_suits_in_french() -> None:
    row = next(r for r in ROWS if r.seat == "dealer" and r.name == "0T+4C3")
    said = Classical("dealer", row, True, False).words("fr")
    assert said == "jeu de règle 0T+4C3 (aucun atout, quatre figures de trois couleurs différentes) : " \
                   + catalogue.say("fr", "classics.refuse")
