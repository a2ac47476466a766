"""How the table speaks: espeak-ng makes a WAV of each announcement, a sink plays it
(``aplay`` on an ALSA device) or keeps it (a folder of numbered WAVs and a text file, on the
simulated table), and a :class:`Speaker` queues the announcements for one worker thread so
that the event loop never waits for speech.

espeak-ng is called as a program (``espeak-ng --stdout``), not through pyttsx3: pyttsx3 drives
libespeak-ng inside our process with its own run loop and plays only on the default device,
while a subprocess writes a WAV we can send to any ALSA device or file, costs the referee's
process nothing if it hangs or crashes (it is killed after :data:`SYNTH_TIMEOUT_S`), and is
the same call on a Pi Zero 2 W (about 20 ms of CPU a sentence there is no library to load).

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with Speaker(WavFolder(folder), Synth()) as speaker:
    ...     speaker.say(Announcement("Anne deals.", "dealer"))
    ...     speaker.drain()
    True
    >>> (folder / "said.txt").read_text(), (folder / "0001.wav").stat().st_size > 1000
    ('0001\\tAnne deals.\\n', True)
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import IO, Protocol

from catalogue.phrase import Phrase, english, log_said, os_words
from firmware_host.referee import Outcome, TableSnapshot
from firmware_host.voice.announcer import Announcement, Announcer
from firmware_host.voice.spoken import ESPEAK_VOICES

logger = logging.getLogger(__name__)

__all__ = ["ESPEAK", "AlsaSink", "Sink", "Speaker", "SpeechError", "Synth", "Voice", "WavFolder", "espeak_path"]

ESPEAK = "espeak-ng"
APLAY = "aplay"
SYNTH_TIMEOUT_S = 10.0
"""The longest espeak-ng may take for one announcement (a few seconds of speech take ~20 ms)."""
PLAY_TIMEOUT_S = 60.0
"""The longest one announcement may play."""
QUEUE_LIMIT = 64
"""Announcements waiting at most; beyond, the oldest is dropped (the table has moved on)."""


class SpeechError(RuntimeError):
    """espeak-ng or the sound device failed: its ``words`` (a :class:`~catalogue.phrase.Phrase`, said in a
    person's language; its English the message), or the message alone."""

    def __init__(self, words: Phrase | str) -> None:
        super().__init__(english(words))
        self.words = words


def espeak_path() -> str | None:
    """Where espeak-ng is, or None."""
    return shutil.which(ESPEAK)


@dataclass(frozen=True, slots=True)
class Synth:
    """espeak-ng's settings: ``rate`` in words a minute, ``volume`` its amplitude (100: its own
    default loudness, 0-200)."""

    rate: int = 160
    volume: int = 100
    program: str = ESPEAK

    def command(self, lang: str) -> list[str]:
        return [self.program, "-v", ESPEAK_VOICES.get(lang, "en-gb"), "-s", str(self.rate), "-a", str(self.volume),
                "--stdout"]

    def wav(self, text: str, lang: str = "en") -> bytes:
        """``text`` spoken, as a WAV file's bytes (the text goes on standard input: a name
        beginning with ``-`` is never taken for an option).

        :raises SpeechError: espeak-ng is missing, fails or takes too long.
        """
        try:
            done = subprocess.run(self.command(lang), input=as_text(text).encode("utf-8"), capture_output=True,
                                  timeout=SYNTH_TIMEOUT_S, check=False)
        except FileNotFoundError:
            raise SpeechError(f"{self.program} is not installed: sudo apt-get install espeak-ng") from None
        except subprocess.TimeoutExpired:
            raise SpeechError(f"{self.program} took more than {SYNTH_TIMEOUT_S:.0f} s") from None
        if done.returncode != 0 or not done.stdout.startswith(b"RIFF"):
            raise SpeechError(f"{self.program} failed ({done.returncode}): "
                              f"{done.stderr.decode('utf-8', 'replace').strip()[:200]}")
        return sized(done.stdout)


_PHONEME_BRACKETS = re.compile(r"[\[\]]+")


def as_text(text: str) -> str:
    """``text`` as espeak-ng must read it: as words. espeak-ng reads what stands between ``[[`` and
    ``]]`` as phoneme mnemonics, SSML mode (``-m``) included (espeak-ng(1), "-x" and phoneme input;
    1.51 here reads "Bob [[ plays the king" as phoneme noise from the brackets on, and
    "[[j'u:lu:z]]" as "you lose"), so a player's name could make the table say anything. No
    announcement means a bracket: each run of them is a pause (a space)::

        >>> as_text("Bob [[ plays the king."), as_text("[[j'u:lu:z]] leads.")
        ('Bob   plays the king.', " j'u:lu:z  leads.")
    """
    return _PHONEME_BRACKETS.sub(" ", text)


def sized(wav: bytes) -> bytes:
    """A WAV streamed to standard output says no length (espeak-ng writes 0x7fffffff): its
    RIFF and ``data`` sizes set to what it holds, so that a WAV file says how long it lasts."""
    at = wav.find(b"data", 12)
    if at < 0:
        return wav
    out = bytearray(wav)
    out[4:8] = (len(wav) - 8).to_bytes(4, "little")
    out[at + 4:at + 8] = (len(wav) - at - 8).to_bytes(4, "little")
    return bytes(out)


class Sink(Protocol):
    """Where spoken announcements go: a sound device or a folder. ``live``: it plays in real time,
    so that what waits behind it can grow stale (a folder keeps everything, in order)."""

    live: bool

    def play(self, announcement: Announcement, wav: bytes) -> None: ...

    def stop(self) -> None: ...

    def close(self) -> None: ...


def last_number(folder: Path) -> int:
    """The highest number of a ``NNNN.wav`` in ``folder`` (0: none): where a folder spoken into again
    numbers on. Past 9,999 the names grow a digit (``10000.wav``); counting four-digit names, a table
    restarted there wrote over ``10000.wav`` and numbered two lines 10000."""
    numbers = (int(name[:-4]) for name in os.listdir(folder)
               if name.endswith(".wav") and len(name) >= 8 and name[:-4].isascii() and name[:-4].isdigit())
    return max(numbers, default=0)


class WavFolder:
    """The simulated table's speaker: each announcement as ``NNNN.wav`` and a line ``NNNN<TAB>text``
    of ``said.txt``, numbered from 1 (on after what the folder already holds).

    :raises SpeechError: the folder cannot be made or written.
    """

    def __init__(self, folder: Path, *, live: bool = False) -> None:
        self.folder = Path(folder)
        self.live = live
        """Stand for a speaker (cut a stale queue short), as a test of the queue does."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self.number = last_number(self.folder)
            self._said: IO[str] | None = open(self.folder / "said.txt", "a", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            raise SpeechError(Phrase.of("voice.cannot_write", path=self.folder, reason=exc)) from None

    def play(self, announcement: Announcement, wav: bytes) -> None:
        if self._said is None:
            return
        self.number += 1
        name = f"{self.number:04d}"
        (self.folder / f"{name}.wav").write_bytes(wav)
        self._said.write(f"{name}\t{announcement.text}\n")
        self._said.flush()

    def stop(self) -> None:
        """A file is written at once: nothing to cut short."""

    def close(self) -> None:
        """Close ``said.txt`` (safe to call twice)."""
        if self._said is not None:
            self._said.close()
            self._said = None


class AlsaSink:
    """A real table's speaker or a seat's earpiece: ``aplay -D DEVICE`` plays each WAV."""

    live = True

    def __init__(self, device: str = "default", program: str = APLAY) -> None:
        self.device = device
        self.program = program
        self._playing: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._closed = False

    def play(self, announcement: Announcement, wav: bytes) -> None:
        """Play ``wav`` to its end (or until :meth:`stop`).

        :raises SpeechError: aplay is missing or the device refuses.
        """
        with self._lock:
            if self._closed:
                return
            try:
                proc = subprocess.Popen([self.program, "-q", "-D", self.device, "-"], stdin=subprocess.PIPE,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            except FileNotFoundError:
                raise SpeechError(f"{self.program} is not installed: sudo apt-get install alsa-utils") from None
            self._playing = proc
        try:
            _, err = proc.communicate(wav, timeout=PLAY_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
        finally:
            with self._lock:
                self._playing = None
        if proc.returncode not in (0, -15):  # -15: cut short by stop()
            said = err.decode("utf-8", "replace").strip().splitlines() or [f"exit status {proc.returncode}"]
            raise SpeechError(f"{self.program} -D {self.device} failed: {said[-1][:200]} "
                              "(`ecarte-table doctor` checks the device)")

    def stop(self) -> None:
        """Cut the announcement playing short."""
        with self._lock:
            if self._playing is not None:
                with contextlib.suppress(OSError):
                    self._playing.terminate()

    def close(self) -> None:
        """Stop playing; later announcements are dropped (safe to call twice)."""
        self.stop()
        self._closed = True


@dataclass
class _Started:
    announcement: Announcement
    at: float


@dataclass
class SpeakerStats:
    """What a speaker did: announcements said, dropped (cut short or too many), failures, CPU."""

    said: int = 0
    dropped: int = 0
    failed: int = 0
    synth_s: float = 0.0
    started: deque[_Started] = field(default_factory=lambda: deque(maxlen=256))
    """The last announcements said and when each began to sound (the speaker's clock)."""


class Speaker:
    """One voice: a queue of announcements and the worker thread that speaks them in order.

    :meth:`say` never blocks (the event loop calls it). On a live sink (a speaker) an
    announcement of a later hand cuts short whatever of an earlier hand still waits (and what
    plays), and at most :data:`QUEUE_LIMIT` wait; a folder of WAVs keeps every one, in order.
    Closing twice is safe.
    """

    def __init__(self, sink: Sink, synth: Synth, *, name: str = "voice",
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.sink = sink
        self.synth = synth
        self.clock = clock
        self.stats = SpeakerStats()
        self._queue: deque[Announcement] = deque()
        self._hand: tuple[int, int] = (0, 0)
        self._busy = False
        self._closed = False
        self._changed = threading.Condition()
        self._failed_once = False
        self._thread = threading.Thread(target=self._work, name=name, daemon=True)
        self._thread.start()

    def say(self, announcement: Announcement) -> None:
        """Queue ``announcement`` (returns at once)."""
        with self._changed:
            if self._closed:
                return
            if announcement.hand > self._hand:
                stale = len(self._queue) if self.sink.live else 0
                if stale and self._hand != (0, 0):
                    self._queue.clear()
                    self.stats.dropped += stale
                    logger.debug("voice: a new hand cuts %d stale announcement(s) short", stale)
                    self.sink.stop()
                self._hand = announcement.hand
            if self.sink.live and len(self._queue) >= QUEUE_LIMIT:
                self._queue.popleft()
                self.stats.dropped += 1
            self._queue.append(announcement)
            self._changed.notify_all()

    def drain(self, timeout: float = 30.0) -> bool:
        """Wait until everything queued has been said (for the end of a demo, tests)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self._queue or self._busy:
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    return not (self._queue or self._busy)
                self._changed.wait(left)
        return True

    def _work(self) -> None:
        while True:
            with self._changed:
                while not self._queue and not self._closed:
                    self._changed.wait()
                if self._closed:
                    return
                announcement = self._queue.popleft()
                self._busy = True
            try:
                self._speak(announcement)
            finally:
                with self._changed:
                    self._busy = False
                    self._changed.notify_all()

    def _speak(self, announcement: Announcement) -> None:
        cpu = time.process_time()
        try:
            wav = self.synth.wav(announcement.text, announcement.lang)
            self.stats.synth_s += time.process_time() - cpu
            with self._changed:
                if self.sink.live and announcement.hand < self._hand:
                    self.stats.dropped += 1
                    return  # made stale while it was being spoken
            self.stats.started.append(_Started(announcement, self.clock()))
            self.sink.play(announcement, wav)
            self.stats.said += 1
        except (SpeechError, OSError) as exc:
            self.stats.failed += 1
            if not self._failed_once:  # said once, not at every announcement
                self._failed_once = True
                why = os_words(exc) if isinstance(exc, OSError) else exc.words
                log_said(logger, logging.ERROR, Phrase.of("log.voice_failed", why=why))

    def close(self) -> None:
        """Stop speaking: what is queued is dropped (safe to call twice)."""
        with self._changed:
            if self._closed:
                return
            self._closed = True
            self._queue.clear()
            self._changed.notify_all()
        self.sink.stop()
        self._thread.join(timeout=PLAY_TIMEOUT_S)
        self.sink.close()

    def __enter__(self) -> Speaker:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


class Voice:
    """The table's voice, a :class:`firmware_host.service.TableOutput`: each outcome's
    announcements (:class:`~firmware_host.voice.announcer.Announcer`) go to the table's
    :class:`Speaker`; :meth:`repeat` says the last one again and what the table waits for
    (a seat's ``listen`` button)."""

    def __init__(self, announcer: Announcer, speaker: Speaker, clock: Callable[[], float] = time.monotonic) -> None:
        self.announcer = announcer
        self.speaker = speaker
        self.clock = clock
        self.last: Announcement | None = None
        self._snapshot: TableSnapshot | None = None

    def publish(self, outcome: Outcome) -> None:
        self._snapshot = outcome.snapshot
        for announcement in self.announcer.take(outcome, self.clock()):
            self.speaker.say(announcement)
            self.last = announcement

    def repeat(self) -> None:
        """Say the last announcement again, then what the table waits for (called on the
        buttons' thread: the snapshot it reads is a frozen value)."""
        snapshot = self._snapshot
        waiting = self.announcer.waiting(snapshot) if snapshot is not None else None
        if self.last is None and waiting is None:
            return
        text = " ".join(t for t in (self.last.text if self.last is not None else None, waiting) if t)
        base = self.last or Announcement("", "repeat", self.announcer.lang,
                                         (snapshot.game, snapshot.hand_no) if snapshot is not None else (1, 1))
        self.speaker.say(replace(base, text=text, kind="repeat", t=self.clock()))

    def close(self) -> None:
        """Stop the speaker (safe to call twice)."""
        self.speaker.close()

    def __enter__(self) -> Voice:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
