"""What the table says, against goldens: a whole partial-sight game (packets of three and two on
pads that read two deep, a revoke proven late and the hand played again, a false king) said in
each language, full and brief, and espeak-ng's phonemes for a sample, so that a change of
words — or of how espeak-ng says them — is seen.

``ECARTE_REGEN_GOLDEN=1`` writes the goldens again when the change is wanted. The game is
``tests/golden/voice/partial_game.jsonl`` (``PacketPlayers`` on a ``ModelTable`` of depth 2,
seed 35, faults 0.3, false kings 0.3).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from firmware_host.referee.controller import Controller
from firmware_host.referee.transcript import read_transcript
from firmware_host.screens.i18n import LANGUAGES
from firmware_host.voice.announcer import Announcer
from firmware_host.voice.spoken import ESPEAK_VOICES, SPOKEN_LANGUAGES, spoken

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "voice"
GAME = GOLDEN / "partial_game.jsonl"


def said(lang: str, verbosity: str = "full") -> list[str]:
    """What the table says of the golden game, in order."""
    controller, announcer = Controller(), Announcer(lang, verbosity)
    out: list[str] = []
    for _, event in read_transcript(GAME.read_text(encoding="utf-8").splitlines(), source=str(GAME)):
        out.extend(a.text for a in announcer.take(controller.handle(event)))
    return out


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("ECARTE_REGEN_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), (
        f"what is said differs from {path}: ECARTE_REGEN_GOLDEN=1 regenerates it if the change is wanted")


def test_every_language_of_the_table_is_spoken() -> None:
    assert set(SPOKEN_LANGUAGES) == set(LANGUAGES) == set(ESPEAK_VOICES)


@pytest.mark.parametrize("lang", SPOKEN_LANGUAGES)
def test_a_whole_partial_sight_game_is_said_as_its_golden(lang: str) -> None:
    lines = said(lang)
    check_golden(f"said_{lang}.txt", "".join(f"{line}\n" for line in lines))
    text = "\n".join(lines)
    # the game's story is all there: the turn-ups, the cards, the late revoke and the replay, the
    # false king, each hand's result and the game's end
    assert sum(bool(spoken(lang).cards_in(line)) for line in lines) > 30
    assert len([line for line in lines if line.startswith(spoken(lang).say("trump", hand=1, dealer="",
                                                                            card="", suit="")[:4])]) == 3
    assert spoken(lang).say("replay_hand") in text
    assert "{" not in text and "♠" not in text and "♥" not in text, "no template or symbol is left unsaid"


def test_brief_says_the_trump_the_faults_and_the_score_only() -> None:
    full, brief = said("en"), said("en", "brief")
    check_golden("said_en_brief.txt", "".join(f"{line}\n" for line in brief))
    assert set(brief) < set(full)
    assert not any(" plays the " in line or "wins the trick" in line for line in brief)
    assert any("turned up" in line for line in brief) and any("Score:" in line for line in brief)
    assert any("revoke" in line for line in brief) and any("wins the game" in line for line in brief)


def test_a_fault_is_said_in_the_oled_words() -> None:
    from engine import Fault
    from engine.cards import Card
    from firmware_host.screens.chooser import fault_screen
    from firmware_host.voice.announcer import _Said

    snapshot = Controller().snapshot()
    fault = Fault("not_trumping", "B", "37", Card.parse("9S"), detail=(("suit", "H"),))
    for lang in SPOKEN_LANGUAGES:
        screen = fault_screen(fault, snapshot, lang)
        text = _Said(snapshot, spoken(lang), lang).fault(fault)
        oled = [spoken(lang).cards_said(line) for line in (screen.headline, screen.detail)]
        assert text == " ".join(f"{line[:1].upper()}{line[1:]}." for line in oled), lang
        assert spoken(lang).cards_in(text) == {"9S"}


ESPEAK = shutil.which("espeak-ng")


@pytest.mark.skipif(ESPEAK is None, reason="espeak-ng is not installed: sudo bash scripts/system-deps.sh tests")
def test_espeak_says_a_sample_as_its_golden_phonemes() -> None:
    assert ESPEAK is not None
    out = []
    for lang in SPOKEN_LANGUAGES:
        lines = said(lang)
        sample = [lines[i] for i in (0, 6, 18, -1)]  # the turn-up, a card played, the late revoke, the end
        for line in sample:
            phonemes = subprocess.run([ESPEAK, "-v", ESPEAK_VOICES[lang], "-x", "-q"], input=line.encode(),
                                      capture_output=True, check=True).stdout.decode("utf-8")
            out.append(f"[{lang}] {line}\n{' '.join(phonemes.split())}\n")
    check_golden("phonemes.txt", "".join(out))


def test_a_repeat_ends_with_what_the_table_waits_for() -> None:
    """After the last announcement, ``listen`` says the OLED's prompt (or the fault to put right)."""
    controller, announcer = Controller(), Announcer("fr")
    waiting = []
    for _, event in read_transcript(GAME.read_text(encoding="utf-8").splitlines()):
        waiting.append(announcer.waiting(controller.handle(event).snapshot))
    assert "Bruno : proposer ou jouer ?" in waiting
    assert "Anne : accepter ou refuser ?" in waiting
    assert "Bruno joue." in waiting and "Anne joue." in waiting
    assert waiting[-1] is None  # the game is over: nothing is awaited
