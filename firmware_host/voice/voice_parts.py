"""The voice's parts, built from the table file's ``[voice]`` (or ``--voice DIR``) for the
composition root: the table's :class:`~firmware_host.voice.speech.Voice` and the seats'
:class:`~firmware_host.voice.hands.SeatHands` are two more outputs of the service; the
pads' and buttons' ``put`` goes through :meth:`VoiceParts.tee`, which takes the ``listen``
buttons (never journaled: they change nothing of the game) and lets each seat's hand pad
tell :class:`SeatHands` what it read.

A real table speaks on ALSA devices (``aplay``); ``--voice DIR`` (or ``device = "sim"``) writes
numbered WAVs and ``said.txt`` in ``DIR`` instead, and each seat's earpiece in ``DIR/A``, ``DIR/B``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drivers.device_events import ButtonPressed
from drivers.seat_controls import LISTEN, LISTEN_LONG
from firmware_host.errors import BadInput, Said
from firmware_host.voice.announcer import Announcer
from firmware_host.voice.hands import SeatHands
from firmware_host.voice.speech import AlsaSink, Sink, Speaker, SpeechError, Synth, Voice, WavFolder
from hardware.table_config import VoiceConfig

logger = logging.getLogger(__name__)

__all__ = ["VoiceParts", "open_voice"]


@dataclass
class VoiceParts:
    """The table's voice and the seats' earpieces, open; :meth:`close` closes them (twice is safe)."""

    voice: Voice
    hands: SeatHands

    @property
    def outputs(self) -> list[Any]:
        """What the service publishes to: the voice, then the seats' hands."""
        return [self.voice, self.hands]

    def pressed(self, event: object) -> bool:
        """Take a ``listen`` press (True), or leave the event to the service (False)."""
        if not isinstance(event, ButtonPressed) or event.button not in (LISTEN, LISTEN_LONG):
            return False
        if event.button == LISTEN:
            self.voice.repeat()
        elif not self.hands.read(event.seat):
            logger.info("voice: seat %s asked for its cards but has no earpiece ([voice] earpieces)", event.seat)
        return True

    def tee(self, put: Callable[[Any], None]) -> Callable[[Any], None]:
        """The devices' ``put``: ``listen`` presses stay here, card reports are also told to the
        seats' hands, everything else goes on to ``put`` (the service)."""

        def teed(event: Any) -> None:
            if self.pressed(event):
                return
            self.hands.device_event(event)
            put(event)

        return teed

    def drain(self, timeout: float) -> bool:
        """Wait until the speaker and the earpieces have said everything queued."""
        return all(speaker.drain(timeout) for speaker in (self.voice.speaker, *self.hands.speakers.values()))

    def close(self) -> None:
        self.voice.close()
        self.hands.close()


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
                raise BadInput(msgid="error.option_refused", option="--voice", why=Said.of(exc)) from None
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
    return VoiceParts(voice, SeatHands(ears, lang))
