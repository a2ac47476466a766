"""A setup refused (:func:`~firmware_host.referee.transcript.setup_problem`: a transcript's line, the page, the
menu, a rule card, ``run --players``) in the reader's language: each refusal of its own is a phrase
(``setup.*``) said in the five languages with no English word left, and its English is the one the
transcript's error and ``--json``'s notice always printed."""

from __future__ import annotations

import pytest

from catalogue import LANGUAGES
from catalogue.phrase import Phrase, english, said
from firmware_host.referee.event_words import message
from firmware_host.referee.table_events import notice
from firmware_host.referee.transcript import Setup, TranscriptError, parse_line, setup_problem
from tests.hardware.test_table_words import english_left

REFUSED = {
    Setup(players=("Ann", "Bob", "Cy", "Di")): "players: two names (A's, B's), or three for a pool; got 4",
    Setup(players=("Ann", "x" * 30)): "players: a name is at most 24 characters, got 30",
    Setup(players=("Ann", "ann")): "players: each name once, got 'ann' twice",
    Setup(players=("Ann", "Bob"), options={"x": "y" * 70_000}):
        "the setup line would be 70,060 bytes in the journal (at most 65,536)",
}
"""A setup of each kind ``setup_problem`` refuses itself, and its English as it was."""


def _words(problem: Phrase, lang: str) -> str:
    """``problem`` in ``lang``, the name it quotes and the line's key (``players``, as typed) taken out."""
    return said(problem, lang).replace("'ann'", " ").replace("players", " ")


@pytest.mark.parametrize(("setup", "english_was"), REFUSED.items(), ids=["count", "name", "twice", "size"])
def test_a_setup_s_refusal_keeps_its_english(setup: Setup, english_was: str) -> None:
    problem = setup_problem(setup)
    assert isinstance(problem, Phrase) and problem.msgid.startswith("setup.")
    assert english(problem) == english_was


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_a_setup_s_refusal_is_said_without_english(lang: str) -> None:
    problems = [setup_problem(setup) for setup in REFUSED]
    assert all(isinstance(p, Phrase) for p in problems)
    left = {said(p, lang): english_left(lang, _words(p, lang)) for p in problems if isinstance(p, Phrase)}
    assert {text: words for text, words in left.items() if words} == {}
    assert all(english_left("en", _words(p, "en")) for p in problems if isinstance(p, Phrase))  # it sees English


def test_a_refused_setup_line_and_the_menu_s_notice_say_it_in_the_reader_s_language() -> None:
    """The transcript's error names the line (its English as it was); the notice of a setup the menu or a rule
    card could not start says the problem in the table's language, in English on ``--json``."""
    with pytest.raises(TranscriptError) as refused:
        parse_line('{"setup": {"players": ["Ann", "ann"]}}', source="game.jsonl", line_no=3)
    assert str(refused.value) == "game.jsonl:3: setup: players: each name once, got 'ann' twice"
    assert said(refused.value.words, "fr") == ("game.jsonl:3: setup : `players` : chaque nom une seule fois, "
                                               "'ann' est donné deux fois")
    shown = notice("not_started", None, "rule_card", problem=setup_problem(Setup(players=("Ann", "ann"))))
    assert message(shown) == "not started: players: each name once, got 'ann' twice"
    assert message(shown, "es") == "no empezada: `players`: cada nombre una sola vez, 'ann' aparece dos veces"
