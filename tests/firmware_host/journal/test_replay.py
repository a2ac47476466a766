"""``ecarte-table replay``: hand-written transcripts and their expected table events.

Each ``tests/transcripts/NAME.jsonl`` has a ``NAME.expected.jsonl`` written by hand
from docs/rules.md and docs/transcript.md: the contract's event kinds, in order, with the
contract's fields (the program may print more fields; it must print these).
"""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG_S

import engine
from firmware_host.journal.replay import read_all, replay_events, write_events
from firmware_host.players.builtin import game_transcript
from firmware_host.referee.controller import Controller
from firmware_host.referee.table_events import CONTRACT_EVENTS
from firmware_host.referee.transcript import dumps

ROOT = Path(__file__).resolve().parents[3]
TRANSCRIPTS = ROOT / "tests" / "transcripts"
CLI = Path(sys.executable).parent / "ecarte-table"
CASES = sorted(p for p in TRANSCRIPTS.rglob("*.jsonl") if not p.name.endswith(".expected.jsonl"))
"""Every hand-checked transcript, the partial-sight worked examples (tests/transcripts/partial) included."""


def _expected(path: Path) -> list[dict]:
    expected = path.with_name(path.name.replace(".jsonl", ".expected.jsonl"))
    return [json.loads(line) for line in expected.read_text(encoding="utf-8").splitlines() if line.strip()]


def _assert_matches(actual: list[dict], expected: list[dict]) -> None:
    """Same events in the same order; every expected field present with its value."""
    kinds = [a["event"] for a in actual]
    assert kinds == [e["event"] for e in expected], kinds
    for n, (a, e) in enumerate(zip(actual, expected, strict=True)):
        for key, value in e.items():
            assert a.get(key) == value, f"event {n}: {key}: {a.get(key)!r} != {value!r} in {a}"


def _replay_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLI), "replay", *args], input=stdin, capture_output=True, text=True, timeout=HANG_S, check=False,
    )


def test_every_transcript_has_its_expected_output() -> None:
    assert len(CASES) >= 13 and len([c for c in CASES if c.parent.name == "partial"]) == 7
    for case in CASES:
        assert _expected(case), case.name


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_replay_command_prints_the_expected_events(case: Path) -> None:
    done = _replay_cli(str(case), "--json")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    actual = [json.loads(line) for line in done.stdout.splitlines()]
    assert {a["event"] for a in actual} <= CONTRACT_EVENTS
    _assert_matches(actual, _expected(case))


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_replay_in_process_prints_the_expected_events(case: Path) -> None:
    with case.open(encoding="utf-8") as stream:
        events, errors = read_all(stream, str(case))
    assert errors == []
    out = io.StringIO()
    write_events(replay_events(Controller(), events, str(case)), out, everything=False)
    _assert_matches([json.loads(line) for line in out.getvalue().splitlines()], _expected(case))


def test_all_events_adds_the_other_kinds_in_order() -> None:
    case = TRANSCRIPTS / "classic_faults.jsonl"
    done = _replay_cli(str(case), "--json", "--all-events")
    assert done.returncode == 0, done.stderr
    actual = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = {a["event"] for a in actual}
    assert {"bid", "play", "corrected", "exchange", "play_begins"} <= kinds
    _assert_matches([a for a in actual if a["event"] in CONTRACT_EVENTS], _expected(case))


def test_fault_codes_cover_the_rules_table() -> None:
    codes = set()
    for case in CASES:
        codes |= {e["code"] for e in _expected(case) if e["event"] == "fault"}
    assert codes >= {
        "misdeal", "duplicate_card", "unknown_tag", "exchange_count", "false_king", "out_of_turn",
        "revoke", "not_overtaking", "not_trumping", "card_not_in_hand",
    }


def test_summary_without_json_ends_with_the_score() -> None:
    done = _replay_cli(str(TRANSCRIPTS / "french_vole_refus.jsonl"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "score A 5 - B 0 (over)"


def test_italian_refused_revoke_penalty_is_an_event() -> None:
    done = _replay_cli(str(TRANSCRIPTS / "italian_penalties.jsonl"), "--json", "--all-events")
    penalties = [json.loads(x) for x in done.stdout.splitlines() if '"penalty"' in x]
    assert [(p["seat"], p["points"], p["reason"]) for p in penalties] == [
        ("A", -1, "king_not_declared"), ("A", -1, "revoke"),
    ]


@pytest.mark.parametrize("rules", ["classic", "french", "italian", "german"])
@pytest.mark.parametrize("seed", [1, 2])
def test_players_games_replay_to_the_engine_events(rules: str, seed: int) -> None:
    """A built-in players' game, with faults made and taken back: the replay's contract events
    are the engine's own, and the final score is the engine's."""
    start = engine.new_game(rules, dealer="A")
    lines = [dumps(e) for e in game_transcript(start, random.Random(seed), faults=True)]
    done = _replay_cli("-", "--json", stdin="".join(line + "\n" for line in lines))
    assert done.returncode == 0, done.stderr
    actual = [json.loads(line) for line in done.stdout.splitlines()]
    assert actual[-1]["event"] == "game_end"
    assert [a for a in actual if a["event"] == "hand_end"], "a whole game has hands"
    # the faults the players make are faults of play, each refused
    assert {a["code"] for a in actual if a["event"] == "fault"} <= {
        "revoke", "not_overtaking", "not_trumping", "not_highest", "king_not_led",
    }
    # every hand's score is the last one plus the hand's points (king points included)
    score = {"A": 0, "B": 0}
    for a in actual:
        if a["event"] == "hand_end":
            assert a["score"] == {s: score[s] + a["points"][s] for s in "AB"}
            assert sum(a["tricks"].values()) in (0, 1, 2, 3, 4, 5)
            score = a["score"]
    winner = actual[-1]["winner"]
    assert actual[-1]["score"][winner] >= 5
    final = actual[-1]["score"]
    assert final == score or actual[-2]["event"] == "king"


# -- bad input ------------------------------------------------------------------------------


BAD = [
    ('{"zone": "hand.A", "card": "KS"', "not JSON"),
    ('{"zone": "hand.C", "card": "KS"}', "unknown zone 'hand.C' (did you mean 'hand."),
    ('{"zone": "plya.B", "card": "KS"}', "did you mean 'play.B'?"),
    ('{"zone": "hand.A", "card": "1S"}', "1S"),
    ('{"zone": "hand.A"}', "needs 'card' or 'uid'"),
    ('{"seat": "A", "button": "maybe"}', "button must be yes, no or king"),
    ('{"seat": "C", "button": "yes"}', "seat must be 'A' or 'B'"),
    ('{"zone": "hand.A", "card": "KS", "gone": "yes"}', "'gone' must be true or false"),
    ('[1, 2]', "expected a JSON object"),
    ('{"zone": "hand.A", "uid": "XYZ"}', "hexadecimal"),
]


@pytest.mark.parametrize(("line", "problem"), BAD, ids=[b[1][:30] for b in BAD])
def test_bad_line_exits_2_with_file_line_and_what_was_expected(tmp_path: Path, line: str, problem: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"setup": {"rules": "classic", "dealer": "A"}}\n' + line + "\n", encoding="utf-8")
    done = _replay_cli(str(path), "--json")
    assert done.returncode == 2
    assert done.stdout == ""
    assert f"{path}:2: " in done.stderr
    assert problem in done.stderr


def test_every_bad_line_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "many.jsonl"
    lines = [
        '{"zone": "hand.B", "card": "KS"}',
        '{"zone": "hand.B", "card": "KS"',
        '{"zone": "hnad.B", "card": "QS"}',
        '{"zone": "hand.B", "card": "ZZ"}',
        '# a comment and a blank line are fine',
        '',
        '{"seat": "B", "button": "perhaps"}',
        '{"setup": {"rules": "classic"}}',
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = _replay_cli(str(path), "--json")
    assert done.returncode == 2
    reported = [line for line in done.stderr.splitlines() if line.strip()]
    assert [r.split(": ", 1)[1].split(":")[1] for r in reported] == ["2", "3", "4", "7", "8"]
    assert "did you mean 'hand.B'?" in reported[1]
    assert "setup must be the first line" in reported[4]


def test_bad_rules_in_setup_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "rules.jsonl"
    path.write_text('{"setup": {"rules": "clasic"}}\n{"zone": "hand.B", "card": "KS"}\n', encoding="utf-8")
    done = _replay_cli(str(path), "--json")
    assert done.returncode == 2
    assert f"{path}:1: " in done.stderr
    assert "classic" in done.stderr


def test_missing_file_exits_2(tmp_path: Path) -> None:
    done = _replay_cli(str(tmp_path / "nowhere.jsonl"), "--json")
    assert done.returncode == 2
    assert "nowhere.jsonl" in done.stderr


def test_stdin_source_is_named() -> None:
    done = _replay_cli("-", "--json", stdin='{"zone": "hand.Q", "card": "KS"}\n')
    assert done.returncode == 2
    assert "<stdin>:1: unknown zone 'hand.Q'" in done.stderr
