"""Everything a player reads follows the table's language: no English word left under another.

The words come from the catalogue; these tests read what a player reads — the demo's narration,
then ``review`` and ``history`` of the demo's journal (their language: the journal's) — and look
for the game's English words (:data:`catalogue.english.ENGLISH`)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import catalogue
from catalogue import LANGUAGES
from catalogue.english import english_words

ROOT = Path(__file__).resolve().parents[2]
COMMAND = re.compile(r"(?:\S+ -m cli\.main|\S*ecarte-table) \w+ --journal \S+")
"""A command shown to the player: its name and flags are the command line's, in every language."""


def _cli(*args: str, state: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True, text=True,
                          timeout=600, cwd=ROOT, env={**os.environ, "XDG_STATE_HOME": str(state)})
    assert done.returncode == 0, done.stderr
    return COMMAND.sub("", done.stdout)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_message_of_the_catalogue_has_an_english_word(lang: str) -> None:
    found = {msgid: english_words(catalogue.template(lang, msgid)) for msgid in catalogue.ids()}
    found = {msgid: words for msgid, words in found.items() if words}
    if lang == "en":
        assert len(found) > 100  # the check sees English where it is
    else:
        assert found == {}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_demo_in_each_language_says_no_english_word(lang: str, tmp_path: Path) -> None:
    """The demo plays (a wrong card refused on the way), narrates, and its game is reviewed and listed: in
    the table's language, ``review`` and ``history`` taking it from the journal."""
    journal = str(tmp_path / "demo.sqlite")
    read = _cli("demo", "--language", lang, "--seed", "3", "--delay", "0", "--frames", "none", "--journal", journal,
                state=tmp_path)
    read += _cli("review", "--journal", journal, "--samples", "30", state=tmp_path)
    read += _cli("history", "--journal", journal, state=tmp_path)
    read += _cli("history", "--journal", journal, "--players", state=tmp_path)
    assert catalogue.say(lang, "demo.refused", who="Bruno", card="", fault="").split()[1] in read  # a refusal
    assert catalogue.say(lang, "review.hand", game=1, hand=1, rules="").split()[0] in read
    if lang == "en":
        assert {"trick", "hand", "the", "wins"} <= english_words(read)
    else:
        assert english_words(read) == set(), read
