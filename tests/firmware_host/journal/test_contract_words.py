"""``replay --json --all-events`` prints each fault's ``message`` and ``remedy`` and each notice's
``message`` in English, as it did when the engine wrote those sentences itself: the words now come
from the catalogue at the edge (``firmware_host/referee/event_words.py``), and every line of the
goldens (``tests/golden/replay/``, written by the table before the words moved) stays byte for byte."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from firmware_host.journal.replay import replay_events, stream_events, write_events
from firmware_host.referee.controller import Controller

ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPTS = sorted(p for p in (ROOT / "transcripts").glob("*.jsonl") if not p.name.endswith(".expected.jsonl"))


def test_every_transcript_has_its_golden() -> None:
    goldens = {p.name for p in (ROOT / "golden" / "replay").iterdir()}
    assert TRANSCRIPTS and {p.name for p in TRANSCRIPTS} == goldens


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.stem)
def test_the_json_lines_say_what_they_said(path: Path) -> None:
    out = io.StringIO()
    with path.open("rb") as stream:
        write_events(replay_events(Controller(), stream_events(stream, path.name), path.name), out, everything=True)
    golden = (ROOT / "golden" / "replay" / path.name).read_text(encoding="utf-8")
    assert out.getvalue().splitlines() == golden.splitlines()


def test_the_goldens_hold_words_to_compare() -> None:
    """Faults of every kind the transcripts make (a void deal, a tag, the exchange, play, a false king,
    an italian penalty) and a notice, with their words."""
    lines = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "golden" / "replay").iterdir())
    assert lines.count('"remedy": "') >= 10 and '"event": "notice", "message": "' in lines
    assert "1 point lost (italian rules)" in lines and "the deal is void" in lines
