"""Hand records: the writer and the parser are inverses, and the moves replay to the same game."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import whole_game

from cli.main import main
from firmware_host.referee.controller import Controller
from venue.table.record import RecordError, check_game, game_log_of, parse_record, write_record


@pytest.mark.parametrize("rules", ["classic", "french", "italian", "german"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_round_trip(rules: str, seed: int) -> None:
    controller = Controller()
    log = game_log_of([controller.handle(e) for e in whole_game(seed, rules)], game=1, table="T", date="2026.11.01")
    text = write_record(log)
    again = parse_record(text)
    assert again == log
    assert write_record(again) == text
    assert check_game(again) == []
    assert log.tag("Winner") in ("A", "B")
    assert len(log.hands) >= 1


def test_a_record_names_the_hidden_cards_and_the_results() -> None:
    controller = Controller()
    log = game_log_of([controller.handle(e) for e in whole_game(4)], game=1, table="T")
    text = write_record(log)
    assert '[Rules "classic"]' in text and '[Hand "1"]' in text and " gets " in text and "turn " in text
    assert '[Score "A ' in text


@pytest.mark.parametrize(("text", "expected"), [
    ('[Event "x"]\nA plays KS\n', ":2: a move before the first [Hand]"),
    ('[Hand "1"]\n[Dealer "C"]\n', ":2: [Dealer] must be A or B"),
    ('[Hand "1"]\nA juggles KS\n', ":2: cannot read action"),
    ('[Hand "1"]\n[Score "3-2"]\n', ":2: expected 'A <number> B <number>'"),
    ('[Hand "1"]\n! x A revoke\n', ":2: a fault is written"),
])
def test_bad_records_name_the_line(text: str, expected: str) -> None:
    with pytest.raises(RecordError, match=expected.replace("[", r"\[").replace("]", r"\]")):
        parse_record(text, source="r.txt")


def test_export_format_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from firmware_host.referee.transcript import dumps

    transcript = tmp_path / "game.jsonl"
    transcript.write_text("".join(dumps(e) + "\n" for e in whole_game(5)))
    journal = tmp_path / "j.sqlite"
    assert main(["run", "--journal", str(journal), "--events", str(transcript)]) == 0
    capsys.readouterr()
    assert main(["export", "--journal", str(journal), "--format", "record"]) == 0
    text = capsys.readouterr().out
    log = parse_record(text)
    assert check_game(log) == [] and log.hands and log.tag("Winner") in ("A", "B")


@pytest.mark.parametrize("lang", ["es", "fr", "it", "de"])
def test_the_pages_record_is_in_the_tables_language(lang: str) -> None:
    """The page's record ("el acta") was the raw English notation (``B gets 8S 7S``, ``A announces the
    king``): worded for a reader of the language, no English word of the game left; the record itself
    stays in the notation (``export``, the parser)."""
    from catalogue.english import english_words
    from venue.table.record import said_record

    for seed, rules in ((4, "classic"), (2, "italian"), (3, "german")):
        controller = Controller()
        text = write_record(game_log_of([controller.handle(e) for e in whole_game(seed, rules)], game=1, table="T"))
        said = said_record(text, lang)
        assert len(said.splitlines()) == len(text.splitlines())
        assert english_words(said.replace("[A ", "").replace("[B ", "")) == set(), said
        assert " gets " in text and " gets " not in said


def _replayed_game() -> str:
    """The record of a game at partial sight whose hand is played again after a fault proven late."""
    from firmware_host.referee.transcript import read_transcript

    transcript = Path(__file__).parent.parent / "transcripts" / "partial" / "late_yes.jsonl"
    controller = Controller()
    events = read_transcript(transcript.read_text(encoding="utf-8").splitlines())
    return write_record(game_log_of((controller.handle(e) for _, e in events), game=1, table="Simulated table"))


def test_the_tricks_of_a_hand_played_again_are_numbered_one_to_five() -> None:
    """A hand played again after a fault proven late numbered its tricks 6-10: the count starts again."""
    text = _replayed_game()
    assert " has the hands played again" in text
    block = next(b for b in text.split("\n\n") if "has the hands played again" in b)
    before, after = block.split("has the hands played again")
    tricks = [[int(line.removeprefix("; trick ")) for line in part.splitlines() if line.startswith("; trick ")]
              for part in (before, after)]
    assert tricks[0] and tricks[1] == [1, 2, 3, 4, 5], tricks  # the first attempt's tricks, then 1 to 5 again


@pytest.mark.parametrize(("lang", "table", "rules", "options"), [
    ("fr", '[Table "Table simulée"]', '[Règles "classique"]', '[Options "aucune"]'),
    ("it", '[Tavolo "Tavolo simulato"]', '[Regole "classiche"]', '[Opzioni "nessuna"]'),
    ("de", '[Tisch "Simulierter Tisch"]', '[Regeln "klassisch"]', '[Optionen "keine"]'),
    ("es", '[Mesa "Mesa simulada"]', '[Reglas "clásicas"]', '[Opciones "ninguna"]'),
])
def test_a_records_tags_are_read_in_the_language(lang: str, table: str, rules: str, options: str) -> None:
    """[Table "Simulated table"] and [Lieu "Simulated table"] stayed English, [Règles "classic"] and
    [Opzioni "{}"] raw: a shipped table's title, the rule set and its options are worded."""
    from catalogue import say, template
    from venue.table.record import said_record

    said = said_record(_replayed_game(), lang).splitlines()
    site = say(lang, "record.tag.Site")
    assert table in said and f'[{site} "{table.split(chr(34))[1]}"]' in said, said[:12]
    assert rules.split('"')[0] + '"' + template(lang, "menu.classic") + '"]' in said
    assert options in said
    assert "Simulated table" not in "\n".join(said)
