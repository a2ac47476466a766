"""Benchmark: what a player's name costs the voice to say.

espeak-ng read a name of 24 digits as a number of septillions, and a character standing for a phrase
(U+FDFA) as the phrase, in every announcement naming the player. The voice says a name as
:func:`firmware_host.voice.announcer.spoken_name` bounds it. Figures (one line each, ``name: value
unit``): the seconds of speech of one announcement naming the player ("NAME plays the ace of
spades."), in English and French, with the name as given (``raw``, before), in its compatibility form
where it has one (``nfkc``) and as said now (``said``)::

    name_s_anne_said_en: ...
    name_s_digits24_raw_en: ...       before
    name_s_digits24_said_en: ...
    name_s_fdfa_raw_fr: ...
    ...

Run: ``.venv/bin/python bench/voice.py`` (needs espeak-ng).
"""

from __future__ import annotations

import io
import unicodedata
import wave

from firmware_host.voice.announcer import spoken_name
from firmware_host.voice.speech import Synth, espeak_path

NAMES = {"anne": "Anne", "digits24": "123456789012345678901234", "fdfa": "\ufdfa" * 3,
         "long": "Wolfeschlegelsteinhausen"}
SENTENCE = {"en": "{} plays the ace of spades.", "fr": "{} joue l'as de pique."}


def seconds(wav: bytes) -> float:
    with wave.open(io.BytesIO(wav)) as w:
        frames: int = w.getnframes() or (len(wav) - 44) // 2
        rate: int = w.getframerate()
    return frames / rate


def main() -> None:
    if espeak_path() is None:
        print("espeak-ng: not installed")
        return
    synth = Synth()
    for lang, sentence in SENTENCE.items():
        for kind, name in NAMES.items():
            print(f"name_s_{kind}_raw_{lang}: {seconds(synth.wav(sentence.format(name), lang)):.2f} s")
            nfkc = unicodedata.normalize("NFKC", name)  # a compatibility form read out (as a page or feed may)
            if nfkc != name:
                print(f"name_s_{kind}_nfkc_{lang}: {seconds(synth.wav(sentence.format(nfkc), lang)):.2f} s")
            said = spoken_name(name) or "A"
            print(f"name_s_{kind}_said_{lang}: {seconds(synth.wav(sentence.format(said), lang)):.2f} s")


if __name__ == "__main__":
    main()
