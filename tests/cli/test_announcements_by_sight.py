"""Rule 24 at both sights (docs/transcript.md, *Partial sight*, **Announcements**): an announcement
is judged for its time as with full sight, and a king the announcer himself played in this
hand is one he held. So a king led first and announced before it is played to, or played as
the dealer's first card and announced before he plays again, scores at partial sight as at
full sight, whether the pads saw the king dealt or not; under the french rules (no rule-24
exception) the same announcement is out of time at both sights, said in words, never a
false king.

Played through ``ecarte-table replay`` as a transcript, as a bug report would be."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.main import main

ELDER_KING = ("KD QD JD 7S 8S", "KS QS KH QH JH")  # A (the elder) holds the king of trumps
DEALER_KING = ("7S 8S 9S TS AS", "KD QD JD AD TD")  # B (the dealer) holds it


def _transcript(path: Path, rules: str, sight: str, who: str, king_seen: bool) -> Path:
    hands = ELDER_KING if who == "elder" else DEALER_KING
    lines: list[dict[str, object]] = [{"setup": {"rules": rules, "dealer": "B", "sight": sight}}]
    for seat, cards in zip("AB", hands, strict=True):
        lines += [{"zone": f"hand.{seat}", "card": c} for c in cards.split() if king_seen or c != "KD"]
    lines += [{"zone": "turnup", "card": "7D"}, {"seat": "A", "button": "no"}]
    if who == "elder":  # rule 24: the king led first, announced before it is played to
        lines += [{"zone": "play.A", "card": "KD"}, {"seat": "A", "button": "king"},
                  {"zone": "play.B", "card": "JH"}]
    else:  # rule 24: the dealer's first card, announced before he plays again
        lines += [{"zone": "play.A", "card": "7S"}, {"zone": "play.B", "card": "KD"},
                  {"seat": "B", "button": "king"}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _replay(capsys: pytest.CaptureFixture[str], path: Path, *options: str) -> str:
    assert main(["replay", str(path), *options]) in (0, None)
    return capsys.readouterr().out


SIGHTS = [("full", True), ("partial", True), ("partial", False)]


@pytest.mark.parametrize(("sight", "king_seen"), SIGHTS)
@pytest.mark.parametrize("who", ["elder", "dealer"])
def test_classic_rule_24_king_scores_at_every_sight(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sight: str, king_seen: bool, who: str,
) -> None:
    path = _transcript(tmp_path / "t.jsonl", "classic", sight, who, king_seen)
    events = [json.loads(line) for line in _replay(capsys, path, "--json").splitlines()]
    seat = "A" if who == "elder" else "B"
    assert [e for e in events if e["event"] == "fault"] == []
    kings = [e for e in events if e["event"] == "king"]
    assert [(k["seat"], k["score"][seat]) for k in kings] == [(seat, 1)]


@pytest.mark.parametrize(("sight", "king_seen"), SIGHTS)
@pytest.mark.parametrize("who", ["elder", "dealer"])
def test_french_late_king_is_out_of_time_in_words_at_every_sight(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sight: str, king_seen: bool, who: str,
) -> None:
    path = _transcript(tmp_path / "t.jsonl", "french", sight, who, king_seen)
    events = [json.loads(line) for line in _replay(capsys, path, "--json").splitlines()]
    assert [e["event"] for e in events if e["event"] in ("fault", "king")] == []
    words = _replay(capsys, path)
    seat = "A" if who == "elder" else "B"
    said = [line for line in words.splitlines() if "announcing the king" in line]
    assert len(said) == 1 and "001: before one's first card" in said[0] and f"seat={seat}" in said[0]
    assert "false_king" not in words and "does not hold" not in words


def test_a_king_played_by_the_other_seat_is_still_false_at_partial_sight(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """What the fix must not loosen: B announcing the king A led is proof of a false king."""
    path = _transcript(tmp_path / "t.jsonl", "classic", "partial", "elder", False)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[-2] = json.dumps({"seat": "B", "button": "king"})
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    events = [json.loads(line) for line in _replay(capsys, path, "--json").splitlines()]
    faults = [(e["code"], e["seat"]) for e in events if e["event"] == "fault"]
    assert faults == [("false_king", "B")]
