"""The voice's sound: espeak-ng's WAVs (not silent, as long as the words), the speaker's queue
(in order, never blocking the caller, a new hand cutting a stale queue short, closable twice)
and the numbered folder the simulated table speaks into."""

from __future__ import annotations

import array
import io
import os
import shutil
import stat
import wave
from pathlib import Path

import pytest

from drivers.device_events import Sighting
from firmware_host.voice.announcer import Announcement
from firmware_host.voice.speech import Speaker, SpeechError, Synth, WavFolder
from firmware_host.voice.spoken import SPOKEN_LANGUAGES

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                reason="espeak-ng is not installed: sudo bash scripts/system-deps.sh tests")


def wav_facts(data: bytes) -> tuple[float, float]:
    """A WAV's duration (seconds) and its loudness (RMS of the 16-bit samples)."""
    with wave.open(io.BytesIO(data)) as w:
        assert w.getsampwidth() == 2 and w.getnchannels() == 1
        frames = w.readframes(w.getnframes())
        duration = w.getnframes() / w.getframerate()
    samples = array.array("h", frames)
    rms = (sum(s * s for s in samples) / max(1, len(samples))) ** 0.5
    return duration, rms


SENTENCES = {
    "en": "Bruno plays the king of spades.",
    "fr": "Bruno joue le roi de pique.",
    "it": "Bruno gioca il re di picche.",
    "de": "Bruno spielt Pik König.",
    "es": "Bruno juega el rey de picas.",
}


@pytest.mark.parametrize("lang", SPOKEN_LANGUAGES)
@pytest.mark.parametrize("rate", [120, 160, 240])
def test_each_announcement_is_heard_and_lasts_as_its_words(lang: str, rate: int) -> None:
    text = SENTENCES[lang]
    duration, rms = wav_facts(Synth(rate=rate).wav(text, lang))
    words = len(text.split())
    expected = words / rate * 60
    assert 0.4 * expected < duration < 2.5 * expected, (duration, expected)
    assert rms > 300, "not silent"


def test_the_volume_is_the_table_files() -> None:
    quiet = wav_facts(Synth(volume=20).wav(SENTENCES["en"]))[1]
    loud = wav_facts(Synth(volume=150).wav(SENTENCES["en"]))[1]
    assert 3 * quiet < loud
    assert wav_facts(Synth(volume=0).wav(SENTENCES["en"]))[1] < 50


def test_a_missing_espeak_is_said_clearly() -> None:
    with pytest.raises(SpeechError, match="apt-get install espeak-ng"):
        Synth(program="/nonexistent/espeak-ng").wav("hello")


def test_the_folder_numbers_a_wav_and_a_line_per_announcement(tmp_path: Path) -> None:
    texts = ["Anne deals.", "Hand 1. Anne deals. The seven of hearts is turned up: hearts are trumps.",
             "Bruno plays the king of spades."]
    with Speaker(WavFolder(tmp_path), Synth()) as speaker:
        for text in texts:
            speaker.say(Announcement(text, "x"))
        assert speaker.drain()
    lines = (tmp_path / "said.txt").read_text(encoding="utf-8").splitlines()
    assert lines == [f"{i:04d}\t{t}" for i, t in enumerate(texts, start=1)]
    durations = [wav_facts((tmp_path / f"{i:04d}.wav").read_bytes())[0] for i in (1, 2, 3)]
    assert durations[1] > durations[2] > durations[0], "the longer the words, the longer the WAV"
    # a folder spoken into again numbers on
    with Speaker(WavFolder(tmp_path), Synth()) as speaker:
        speaker.say(Announcement("Again.", "x"))
        assert speaker.drain()
    assert (tmp_path / "said.txt").read_text(encoding="utf-8").splitlines()[-1] == "0004\tAgain."


def gated_espeak(tmp_path: Path) -> tuple[Synth, Path]:
    """espeak-ng behind a gate: it speaks once the gate file exists (a stand-in for a slow Pi)."""
    gate = tmp_path / "gate"
    script = tmp_path / "slow-espeak"
    script.write_text(f"#!/bin/sh\nwhile [ ! -e {gate} ]; do sleep 0.01; done\nexec espeak-ng \"$@\"\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return Synth(program=str(script)), gate


def test_the_caller_never_waits_and_a_new_hand_cuts_a_stale_queue_short(tmp_path: Path) -> None:
    synth, gate = gated_espeak(tmp_path)
    out = tmp_path / "said"
    with Speaker(WavFolder(out, live=True), synth) as speaker:  # a folder standing for a speaker
        for i in range(5):  # the worker is held in espeak-ng: say() still returns at once
            speaker.say(Announcement(f"Hand one, line {i}.", "play", hand=(1, 1)))
        assert not (out / "said.txt").read_text()
        speaker.say(Announcement("Hand 2.", "trump", hand=(1, 2)))
        gate.touch()
        assert speaker.drain()
        assert speaker.stats.dropped == 5
    assert (out / "said.txt").read_text(encoding="utf-8") == "0001\tHand 2.\n"


def test_a_speaker_closes_twice_and_says_nothing_after(tmp_path: Path) -> None:
    speaker = Speaker(WavFolder(tmp_path), Synth())
    speaker.close()
    speaker.close()
    speaker.say(Announcement("Too late.", "x"))
    assert (tmp_path / "said.txt").read_text() == ""
    assert os.listdir(tmp_path) == ["said.txt"]


def test_a_folder_keeps_every_announcement_whatever_the_hands(tmp_path: Path) -> None:
    """WAV files never lag behind the table: none is stale, every one is written, in order."""
    synth, gate = gated_espeak(tmp_path)
    out = tmp_path / "said"
    with Speaker(WavFolder(out), synth) as speaker:
        for hand in (1, 2):
            for i in range(40):
                speaker.say(Announcement(f"Hand {hand}, line {i}.", "play", hand=(1, hand)))
        gate.touch()
        assert speaker.drain(120)
    lines = (out / "said.txt").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 80 and lines[0].endswith("Hand 1, line 0.") and lines[-1].endswith("Hand 2, line 39.")


def test_a_listen_press_never_reaches_the_referee() -> None:
    """With a voice it is the voice's; without one it is dropped: never journaled as a button
    the transcript does not know (a journal that could not be read back)."""
    from drivers.device_events import ButtonPressed, CardSeen
    from drivers.seat_controls import LISTEN, LISTEN_LONG
    from firmware_host.app import without_listen

    passed: list[object] = []
    put = without_listen(passed.append)
    for event in (ButtonPressed("A", LISTEN), ButtonPressed("B", LISTEN_LONG), ButtonPressed("A", "yes"),
                  CardSeen("hand.A", Sighting("04AA", "KS"))):
        put(event)
    assert passed == [ButtonPressed("A", "yes"), CardSeen("hand.A", Sighting("04AA", "KS"))]


def test_a_sound_device_that_does_not_open_is_said_once_and_the_table_goes_on(
        caplog: pytest.LogCaptureFixture) -> None:
    from firmware_host.voice.speech import AlsaSink

    if shutil.which("aplay") is None:
        pytest.skip("alsa-utils is not installed")
    with Speaker(AlsaSink("plughw:CARD=NoSuchCard,DEV=0"), Synth()) as speaker:
        for text in ("One.", "Two.", "Three."):
            speaker.say(Announcement(text, "x"))
        assert speaker.drain()
        assert speaker.stats.failed == 3 and speaker.stats.said == 0
    errors = [r for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 1 and "doctor" in errors[0].getMessage()
    caplog.clear()  # the error is the point of this test


def test_a_name_with_phoneme_brackets_is_said_as_text() -> None:
    """espeak-ng reads ``[[...]]`` as phonemes: a player named ``Bob [[`` made the card and the score
    after it noise, and ``[[j'u:lu:z]]`` made the table say "you lose". Through the real espeak-ng,
    such a name is said as its letters and the rest of the sentence as words."""
    from firmware_host.referee.controller import Controller
    from firmware_host.referee.transcript import CardEvent, Setup
    from firmware_host.voice.announcer import Announcer

    synth = Synth()
    assert synth.wav("Bob [[ plays the king of spades.") == synth.wav("Bob plays the king of spades.")
    assert synth.wav("[[j'u:lu:z]] leads.") == synth.wav("j'u:lu:z leads.")
    assert synth.wav("[[j'u:lu:z]] leads.") != synth.wav("you lose leads.")
    # and so through the announcer, whose text (said.txt, the page) keeps the name as typed
    table = Controller()
    table.handle(Setup(rules="classic", dealer="A", players=("Anne", "Bob [[")))
    for i, card in enumerate(["7S", "8S", "9S", "TS", "AS", "KH", "QH", "JH", "AH", "TH"]):
        table.handle(CardEvent("hand.B" if i < 5 else "hand.A", card))
    said = [a.text for a in Announcer("en").take(table.handle(CardEvent("turnup", "KD")))]
    assert said[1] == "Anne has the king of trumps: one point. Score: Anne 1, Bob [[ 0."
    assert synth.wav(said[1]) == synth.wav("Anne has the king of trumps: one point. Score: Anne 1, Bob 0.")


def test_a_folder_past_9999_announcements_numbers_on(tmp_path: Path) -> None:
    """Restarted on a folder of 10,001 announcements (0001.wav to 10001.wav), the folder counted the
    four-digit names (9,999), wrote over 10000.wav and numbered a second line 10000. It numbers on from
    the highest now."""
    for number in range(1, 10_002):
        (tmp_path / f"{number:04d}.wav").write_bytes(b"")
    (tmp_path / "said.txt").write_text("".join(f"{n:04d}\tx\n" for n in range(1, 10_002)), encoding="utf-8")
    folder = WavFolder(tmp_path)
    try:
        folder.play(Announcement("Again.", "x"), b"RIFF")
    finally:
        folder.close()
    assert (tmp_path / "10000.wav").read_bytes() == b"" and (tmp_path / "10002.wav").read_bytes() == b"RIFF"
    numbers = [line.split("\t")[0] for line in (tmp_path / "said.txt").read_text(encoding="utf-8").splitlines()]
    assert numbers[-1] == "10002" and len(set(numbers)) == len(numbers)
