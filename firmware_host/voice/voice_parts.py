"""The voice's parts, built from the table file's ``[voice]`` (or ``--voice DIR``) for the
composition root: the table's :class:`~firmware_host.voice.speech.Voice` and each seat's
:class:`~firmware_host.voice.hands.Earpiece` are more outputs of the service (an earpiece is
given its own seat's private view, and only it: :func:`firmware_host.outputs.deliver`). The
pads' and buttons' ``put`` goes through :meth:`VoiceParts.with_listen`, which takes the ``listen``
buttons (never journaled: they change nothing of the game) and passes everything else on.

A real table speaks on ALSA devices (``aplay``); ``--voice DIR`` (or ``device = "sim"``) writes
numbered WAVs and ``said.txt`` in ``DIR`` instead, and each seat's earpiece in ``DIR/A``, ``DIR/B``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from catalogue.phrase import Phrase, log_said
from drivers.device_events import ButtonPressed
from drivers.seat_controls import LISTEN, LISTEN_LONG
from firmware_host.errors import BadInput, words_of
from firmware_host.voice.announcer import Announcer
from firmware_host.voice.hands import Earpiece
from firmware_host.voice.speech import AlsaSink, Sink, Speaker, SpeechError, Synth, Voice, WavFolder
from hardware.table_config import VoiceConfig

logger = logging.getLogger(__name__)

__all__ = ["VoiceParts", "open_voice"]


@dataclass
class VoiceParts:
    """The table's voice and the seats' earpieces, open; :meth:`close` closes them (twice is safe)."""

    voice: Voice
    earpieces: dict[str, Earpiece]
    """By seat: the seats that have one ([voice] earpieces)."""

    @property
    def outputs(self) -> list[Voice | Earpiece]:
        """What the service publishes to: the voice, then each seat's earpiece."""
        return [self.voice, *self.earpieces.values()]

    def pressed(self, event: object) -> bool:
        """Take a ``listen`` press (True), or leave the event to the service (False)."""
        if not isinstance(event, ButtonPressed) or event.button not in (LISTEN, LISTEN_LONG):
            return False
        ear = self.earpieces.get(event.seat)
        if event.button == LISTEN:
            self.voice.repeat()
        elif ear is None or not ear.read():
            log_said(logger, logging.INFO, Phrase.of("log.no_earpiece", seat=event.seat))
        return True

    def with_listen(self, put: Callable[[Any], None]) -> Callable[[Any], None]:
        """The devices' ``put``: ``listen`` presses stay here, everything else goes on to ``put``
        (the service; what a seat holds reaches its earpiece from the referee, not from the pads)."""

        def put_or_listen(event: Any) -> None:
            if not self.pressed(event):
                put(event)

        return put_or_listen

    def drain(self, timeout: float) -> bool:
        """Wait until the speaker and the earpieces have said everything queued."""
        speakers = [self.voice.speaker, *(e.speaker for e in self.earpieces.values() if e.speaker is not None)]
        return all(speaker.drain(timeout) for speaker in speakers)

    def close(self) -> None:
        self.voice.close()
        for ear in self.earpieces.values():
            ear.close()


def open_voice(config: VoiceConfig, lang: str, folder: Path | None = None) -> VoiceParts:
    """The voice ``config`` asks for, speaking ``lang``; with ``folder`` (``--voice DIR``) into WAV
    files there whatever the devices.

    :raises BadInput: a folder that cannot be written, or ``device = "sim"`` without a folder.
    """
    synth = Synth(rate=config.rate, volume=config.volume)

    def sink(device: str, where: Path | None) -> Sink:
        if where is not None:
            try:
                return WavFolder(where)
            except SpeechError as exc:
                raise BadInput(msgid="error.option", option="--voice", why=words_of(exc)) from None
        if device == "sim":
            raise BadInput(msgid="error.voice_sim_needs_folder")
        return AlsaSink(device)

    table = Speaker(sink(config.device, folder), synth, name="voice")
    ears: dict[str, Speaker] = {}
    try:
        for seat, device in config.earpieces:
            ears[seat] = Speaker(sink(device, folder / seat if folder is not None else None), synth,
                                 name=f"earpiece-{seat}")
    except BaseException:
        table.close()
        for ear in ears.values():
            ear.close()
        raise
    voice = Voice(Announcer(lang, config.verbosity), table)
    return VoiceParts(voice, {seat: Earpiece(seat, speaker, lang) for seat, speaker in ears.items()})
