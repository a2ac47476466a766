"""The installer's and the bench's commands speak the table's language too: ``doctor``, ``enroll``,
``deck`` and ``sim`` under ``--language`` print no English word of the game (:data:`catalogue.english.ENGLISH`).

What stays as it is in every language is taken out before looking: a command to type (in
backquotes, or ``ecarte-table ...``), a line the player typed (quoted back to them), a pad's name in
the table file (``hand.A``), a file's path, a card's code as the registry and the flags write it
(``QH``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import catalogue
from catalogue.english import english_words

ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPTS = ROOT / "tests" / "transcripts"
AS_TYPED = re.compile(r"`[^`]*`|ecarte-table \w+(?: --[\w-]+(?: \S+)?)*|\b(?:hand|play)\.[AB]\b|\bturnup\b|\bdiscard\b")
"""A command, a pad's name: the command line's and the table file's words."""

TYPED = ["deal", "B no", "help", "nonsense", "A play KS", "A plays ZZ", "A plays KS", "A plays KS",
         "play.A KS gone", "play.A KS gone", "B plays 9C", "A yes"]
"""Typed at the bench: a deal, a stand, the help, lines it cannot read, a card laid twice and lifted
twice, a card out of turn, a button that means nothing now."""


def _cli(*args: str, state: Path, stdin: str = "", codes: tuple[int, ...] = (0,)) -> str:
    done = subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True, text=True,
                          input=stdin, timeout=600, cwd=ROOT, env={**os.environ, "XDG_STATE_HOME": str(state)})
    assert done.returncode in codes, done.stdout + done.stderr
    return done.stdout


def _read(text: str, typed: list[str] = TYPED) -> str:
    """What a player reads in ``text``, what stays as typed taken out."""
    for line in typed:
        text = text.replace(repr(line), " ")
    return AS_TYPED.sub(" ", text)


@pytest.mark.parametrize("lang", ["es", "fr", "en"])
def test_doctor_enroll_and_deck_say_no_english_word(lang: str, tmp_path: Path) -> None:
    """The simulated pack enrolled, checked whole, then checked with a card left out and a clone
    passed (the clone caught); the doctor before and after."""
    read = _cli("doctor", "--language", lang, state=tmp_path)
    read += _cli("enroll", "--language", lang, state=tmp_path)
    short = _cli("deck", "--language", lang, "--drop", "7C", "--clone", "QH", state=tmp_path, codes=(1,))
    read += short + _cli("deck", "--language", lang, state=tmp_path)
    read += _cli("doctor", "--language", lang, state=tmp_path)
    # the verdict in words ("No auténtica: Q♥ (QH): no dio ninguna firma"), not its code
    fake = catalogue.say(lang, "deck.console_fake", code="QH", card="D♥" if lang == "fr" else "Q♥",
                         why=catalogue.say(lang, "origin.no_signature"))
    assert fake in short and catalogue.say(lang, "deck.console_missing", cards="7♣") in short
    assert catalogue.say(lang, "doctor.all_passed") in read
    if lang == "en":
        assert {"the", "not", "of"} <= english_words(_read(read))  # the check sees English where it is
    else:
        assert english_words(_read(read)) == set(), read


@pytest.mark.parametrize("lang", ["es", "fr", "en"])
def test_sim_says_no_english_word(lang: str, tmp_path: Path) -> None:
    """The bench's typed lines, then whole transcripts (faults of every kind, the point offered, a
    penalty of the italian rules): every line the bench prints, the help and the OLED's frames."""
    journal = tmp_path / "sim.sqlite"
    read = _cli("sim", "--language", lang, "--dealer", "A", "--seed", "4", "--journal", str(journal),
                state=tmp_path, stdin="\n".join(TYPED) + "\nquit\n", codes=(2,))
    assert catalogue.say(lang, "sim.holds", seat="A", cards="").strip() in read
    assert catalogue.say(lang, "sim.bid.stand", seat="B") in read
    for name in ("classic_faults", "classic_offer_point", "italian_penalties"):
        read += _cli("sim", "--language", lang, "--journal", str(tmp_path / f"{name}.sqlite"), state=tmp_path,
                     stdin=(TRANSCRIPTS / f"{name}.jsonl").read_text(), codes=(0, 2))
    assert catalogue.say(lang, "sim.fault", what="").strip() in read  # a fault said
    assert catalogue.say(lang, "sim.penalty", seat="A", n=-1, why="").split("(")[0] in read
    if lang == "en":
        assert {"the", "hand", "trick", "plays"} <= english_words(_read(read))
    else:
        assert english_words(_read(read)) == set(), read
