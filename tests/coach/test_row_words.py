"""The jeu de règle's rows in words: ``review --detail`` said "jeu de règle 0T+4C3", a code no player
reads; each row is said with what it means, in every language."""

from __future__ import annotations

import pytest

import catalogue
from catalogue import LANGUAGES
from catalogue.english import english_words
from catalogue.phrase import said as said_in
from coach.jeu_de_regle import ROWS, Classical
from coach.review import classical_said


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_row_is_said_in_words(lang: str) -> None:
    for row in ROWS:
        words = said_in(row.words, lang)
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


@pytest.mark.parametrize(("lang", "said"), [
    ("fr", "les règles classiques (le jeu de règle) rangent cette main sous « 3T » (trois atouts ou plus, quelles que "
           "soient les autres cartes) : elles conseillent aussi de jouer"),
    ("it", "le regole classiche (il jeu de règle) mettono questa mano alla voce «3T» (tre briscole o più, "
           "qualunque siano le altre carte): anche loro consigliano di giocare"),
    ("de", "die klassischen Faustregeln (das jeu de règle) führen diese Hand unter »3T« (drei Trümpfe oder mehr, "
           "gleich welche anderen Karten): auch ihr Rat lautet »spielen«"),
    ("es", "las reglas clásicas (el jeu de règle) clasifican esta mano en la fila «3T» (tres triunfos o más, sean "
           "cuales sean las demás cartas): también aconsejan jugar"),
])
def test_the_classical_sentence_quotes_the_row_and_is_built_for_the_language(lang: str, said: str) -> None:
    """"la classent atouts et rois font trois cartes ou plus…" read like machine translation: the row is
    quoted by its name, its words in brackets, and the advice is a sentence of the language."""
    row = next(r for r in ROWS if r.seat == "elder" and r.name == "3T")
    assert classical_said(Classical("elder", row, True, False), "stand", lang) == said


def test_the_german_odds_are_said_as_german_says_them() -> None:
    """"9-mal in 10" is no German: "in 9 von 10 Fällen"."""
    from coach.review import chance_said

    assert [chance_said(p, "de") for p in (0.95, 0.42, 0.03)] == [
        "in mehr als 9 von 10 Fällen", "in etwa 4 von 10 Fällen", "in weniger als 1 von 10 Fällen"]
