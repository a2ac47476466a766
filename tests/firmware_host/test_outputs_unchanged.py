"""What every public output puts out on whole games, recorded once: the OLED's screens (with the
coach's line), ``--json`` (every event), the page's and MQTT's messages (the public feed both send),
the table's voice and the journal's lines. A change that must leave them as they were (the seats'
private views) is checked against the record, byte for byte.

Regenerate (only for a change meant to alter what the outputs say):
``ECARTE_REGENERATE=1 .venv/bin/python -m pytest tests/firmware_host/test_outputs_unchanged.py``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
from pathlib import Path

import pytest

import engine
from firmware_host.journal.store import Journal
from firmware_host.outputs import JsonLines
from firmware_host.players.builtin import game_transcript
from firmware_host.referee.controller import Controller
from firmware_host.referee.snapshot import Outcome
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.referee.transcript import PhysicalEvent, read_transcript
from firmware_host.screens.coaching import CoachedPanel
from firmware_host.screens.panel import Panel
from firmware_host.service import TableService
from firmware_host.voice.announcer import Announcer
from venue.table.public import PublicFeed

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "outputs"
PARTIAL_GAME = Path(__file__).resolve().parents[1] / "golden" / "voice" / "partial_game.jsonl"


class Screens:
    """The panel's screens as text, one line a frame (the panel sends nothing when the screen did not change)."""

    def __init__(self, panel: Panel) -> None:
        self.panel = panel
        self.lines: list[str] = []

    def publish(self, outcome: Outcome) -> None:
        screen = self.panel.screen
        line = json.dumps(screen_data(screen), ensure_ascii=False) if screen is not None else None
        if line is not None and (not self.lines or self.lines[-1] != line):
            self.lines.append(line)


def screen_data(screen: object) -> dict[str, object]:
    return {k: getattr(screen, k) for k in ("view", "headline", "detail", "status") if hasattr(screen, k)}


class Heard:
    """What the table's voice says of each outcome (its announcer's sentences)."""

    def __init__(self, lang: str) -> None:
        self.announcer = Announcer(lang)
        self.lines: list[str] = []

    def publish(self, outcome: Outcome) -> None:
        self.lines += [f"{a.kind}\t{a.text}" for a in self.announcer.take(outcome)]


class Fed:
    """What the page and MQTT send: the public feed's messages (a step of the clock an outcome; a
    state message by its digest)."""

    def __init__(self, lang: str) -> None:
        self.feed = PublicFeed(table="t1", reveal_delay=2.0, language=lang)
        self.now = 0.0
        self.lines: list[str] = []

    def publish(self, outcome: Outcome) -> None:
        self.now += 1.0
        for message in self.feed.take(outcome, self.now, wall=0.0):
            data = json.dumps(message.data, ensure_ascii=False, sort_keys=True)
            # the state (the table now, with the story so far) is long: its digest, step by step
            shown = hashlib.sha256(data.encode()).hexdigest()[:16] if message.kind == "state" else data
            self.lines.append(f"{message.kind}\t{shown}")


def public_outputs(events: list[PhysicalEvent], lang: str, journal_path: Path) -> str:
    """Every public output's text on ``events``, fed through the service's loop."""
    panel = Panel([], language=lang)
    screens, heard, fed, printed = Screens(panel), Heard(lang), Fed(lang), io.StringIO()
    with Journal(journal_path) as journal:
        service = TableService(journal=journal, controller=Controller(TableDefaults(language=lang)),
                               outputs=[CoachedPanel(panel), screens, JsonLines(printed, everything=True), heard, fed])
        service.resume()
        for event in events:
            service.put_physical(event)
            service.handle(service.queue.get_nowait())
        lines = [f"{status}\t{line}" for game, _ in journal.games()
                 for line, status in zip(journal.game(game).lines, journal.game(game).status, strict=True)]
    parts = {"oled": screens.lines, "json": printed.getvalue().splitlines(), "page and mqtt": fed.lines,
             "voice": heard.lines, "journal": lines}
    return "".join(f"# {name}\n" + "".join(f"{line}\n" for line in body) for name, body in parts.items())


GAMES = {
    "classic_faults_en": (lambda: game_transcript(engine.new_game("classic", dealer="A"), random.Random(4),
                                                  faults=True), "en"),
    "italian_fr": (lambda: game_transcript(engine.new_game("italian", dealer="B"), random.Random(11),
                                           faults=True), "fr"),
    "partial_sight_fr": (lambda: [e for _, e in read_transcript(
        PARTIAL_GAME.read_text(encoding="utf-8").splitlines())], "fr"),
}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_public_outputs_say_what_they_said(name: str, tmp_path: Path) -> None:
    make, lang = GAMES[name]
    text = public_outputs(make(), lang, tmp_path / "journal.sqlite")
    golden = GOLDEN / f"{name}.txt"
    if os.environ.get("ECARTE_REGENERATE"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    expected = golden.read_text(encoding="utf-8")
    assert text.count("\n# ") == 4 and all(f"# {part}\n" in text for part in ("oled", "json", "voice"))
    assert text == expected, f"{name}: the public outputs changed (see {golden})"
