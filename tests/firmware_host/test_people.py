"""The people at the table: names, the settings menu, badges and rule cards, the table file's
words for them, the history of games and each player's statistics."""

from __future__ import annotations

import dataclasses
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from drivers.device_events import Sighting
from engine import new_game
from firmware_host.journal.store import Journal
from firmware_host.journal.summaries import format_game, games, player_stats
from firmware_host.players.builtin import game_transcript
from firmware_host.referee.controller import Controller
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.referee.table_events import NewGame, Notice
from firmware_host.referee.transcript import ButtonEvent, CardEvent, Setup, dumps
from firmware_host.screens.chooser import paused_screen, screen_for
from firmware_host.screens.drawing import render
from hardware.table import TableFileError, load_table_text

ROOT = Path(__file__).resolve().parents[2]
BADGES = {"04A224B2C31D80": "player:Anne", "04A224B2C31D81": "player:Bruno",
          "04A224B2C31D82": "rules:italian", "04A224B2C31D83": "option:forzare", "04A224B2C31D84": "target:7"}


def _table(**defaults: object) -> Controller:
    return Controller(TableDefaults(dealer="B", badges=BADGES, **defaults))  # type: ignore[arg-type]


def test_the_menu_changes_the_rules_before_the_first_deal() -> None:
    table = _table()
    assert table.snapshot().setting_up
    assert screen_for(table.snapshot()).status == "king: settings"
    assert table.handle(ButtonEvent("A", "king")).events == ()
    screen = screen_for(table.snapshot())
    assert (screen.view, screen.headline) == ("menu", "settings 1/8")
    assert screen.detail.startswith("rules: classic")
    table.handle(ButtonEvent("B", "yes"))  # classic -> french
    table.handle(ButtonEvent("B", "no"))  # the target
    table.handle(ButtonEvent("B", "yes"))  # 5 -> 3
    assert screen_for(table.snapshot(), "fr").detail.startswith("partie en: 3")
    events = table.handle(ButtonEvent("A", "king")).events
    assert [type(e) for e in events] == [NewGame]
    view = table.snapshot().view
    assert (view.rules, view.target, table.snapshot().menu) == ("french(target=3)", 3, None)
    assert table.current_setup().rules == "french" and table.current_setup().target == 3


def _choose_language(table: Controller, lang: str, *, close: bool = True) -> None:
    """Open the menu, go to its last line (the language) and press yes until it shows ``lang``."""
    if table.snapshot().menu is None:
        table.handle(ButtonEvent("A", "king"))
    while table.snapshot().menu.item != "language":  # type: ignore[union-attr]
        table.handle(ButtonEvent("B", "no"))
    while table.snapshot().menu.value != lang:  # type: ignore[union-attr]
        table.handle(ButtonEvent("A", "yes"))
    if close:
        table.handle(ButtonEvent("A", "king"))


def test_the_language_is_chosen_in_the_menu_and_every_screen_follows_at_once() -> None:
    table = _table()
    _choose_language(table, "fr", close=False)
    menu = screen_for(table.snapshot())  # the menu itself is already in French
    assert (menu.headline, menu.detail.split("\n")[0]) == ("réglages 8/8", "langue: français")
    table.handle(ButtonEvent("A", "yes"))
    assert screen_for(table.snapshot()).detail.startswith("lingua: italiano")
    for _ in range(4):
        table.handle(ButtonEvent("A", "yes"))  # it, de, es, en, fr
    events = table.handle(ButtonEvent("A", "king")).events
    assert [type(e) for e in events] == [NewGame]  # the game starts again: the journal writes its setup
    assert table.current_setup().language == "fr"
    assert table.current_setup().to_json()["setup"]["language"] == "fr"
    # a whole game: every screen is the French one, whatever language the display was given
    for event in game_transcript(new_game("classic", dealer="B"), random.Random(3), faults=True):
        snapshot = table.handle(event).snapshot
        assert snapshot.language == "fr"
        plain = dataclasses.replace(snapshot, language=None)
        assert screen_for(snapshot, "de") == screen_for(plain, "fr")
        assert paused_screen(snapshot, "", "en") == paused_screen(plain, "", "fr")
    assert screen_for(table.snapshot()).headline.endswith("gagne")


def test_the_language_changes_on_a_table_with_house_rules() -> None:
    table = _table(locked=True, language="de")
    table.handle(ButtonEvent("A", "king"))
    assert screen_for(table.snapshot()).headline.startswith("Hausregeln")
    _choose_language(table, "it", close=False)
    assert screen_for(table.snapshot()).headline.startswith("regole casa")
    table.handle(ButtonEvent("A", "king"))
    assert (table.snapshot().language, table.snapshot().view.rules) == ("it", "classic")


def test_the_language_chosen_is_saved_with_the_game_and_shown_after_a_restart(tmp_path: Path) -> None:
    """Through the command line: the menu's buttons fed to the simulated table, then the table
    started again on its journal shows the same French frame as a table whose file says French."""
    presses = [{"seat": "A", "button": "king"}] + [{"seat": "B", "button": "no"}] * 7 + [
        {"seat": "A", "button": "yes"}, {"seat": "A", "button": "king"}]
    feed = tmp_path / "menu.jsonl"
    feed.write_text("".join(json.dumps(p) + "\n" for p in presses))
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    journal = tmp_path / "journal.sqlite"
    first = _cli("run", "--journal", str(journal), "--events", str(feed))
    assert first.returncode == 0, first.stderr
    exported = _cli("export", "--journal", str(journal))
    assert json.loads(exported.stdout.splitlines()[0])["setup"]["language"] == "fr"
    again = _cli("run", "--journal", str(journal), "--events", str(empty), "--png", str(tmp_path / "again"))
    assert again.returncode == 0, again.stderr
    simulated = (ROOT / "hardware" / "tables" / "simulated.toml").read_text(encoding="utf-8")
    french = tmp_path / "french.toml"
    french.write_text(simulated.replace("[table]\n", '[table]\nlanguage = "fr"\n', 1))
    told = _cli("run", str(french), "--journal", str(tmp_path / "j2.sqlite"), "--events", str(empty),
                "--png", str(tmp_path / "told"))
    assert told.returncode == 0, told.stderr
    frames = [sorted((tmp_path / d).glob("frame-*.png")) for d in ("again", "told")]
    assert frames[0] and frames[1]
    with Image.open(frames[0][-1]) as a, Image.open(frames[1][-1]) as b:
        assert a.tobytes() == b.tobytes()  # the paused screen, in French
        french = render(paused_screen(Controller().snapshot(), "", "fr"))
        assert a.convert("1").tobytes() == french.tobytes()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)


def test_house_rules_are_shown_not_changed() -> None:
    table = _table(locked=True)
    table.handle(ButtonEvent("A", "king"))
    assert screen_for(table.snapshot()).headline.startswith("house rules")
    events = table.handle(ButtonEvent("A", "yes")).events
    assert [e.code for e in events if isinstance(e, Notice)] == ["locked"]
    table.handle(CardEvent("turnup", sighting=Sighting("04A224B2C31D82")))  # a rule card: refused too
    assert table.snapshot().view.rules == "classic"
    table.handle(CardEvent("play.A", sighting=Sighting("04A224B2C31D80")))  # a badge still names the seat
    assert table.snapshot().players[0] == "Anne"


def test_badges_name_the_seats_and_rule_cards_set_the_rules() -> None:
    table = _table()
    table.handle(CardEvent("play.A", sighting=Sighting("04A224B2C31D80")))
    table.handle(CardEvent("play.A", gone=True, sighting=Sighting("04A224B2C31D80")))
    table.handle(CardEvent("hand.B", sighting=Sighting("04A224B2C31D81")))
    for uid in ("04A224B2C31D82", "04A224B2C31D83", "04A224B2C31D84"):
        assert [type(e) for e in table.handle(CardEvent("turnup", sighting=Sighting(uid))).events] == [NewGame]
    snapshot = table.snapshot()
    assert snapshot.players[:2] == ("Anne", "Bruno")
    assert (snapshot.view.rules, snapshot.view.target) == ("italian(target=7, forzare)", 7)
    setup = table.current_setup()
    assert (setup.players, setup.options, setup.target) == (("Anne", "Bruno"), {"forzare": True, "target": 7}, 7)
    # once a card is down, a badge changes nothing
    table.handle(CardEvent("hand.A", "KS"))
    assert not table.snapshot().setting_up
    events = table.handle(CardEvent("play.B", sighting=Sighting("04A224B2C31D80"))).events
    assert [e.code for e in events if isinstance(e, Notice)] == ["setup_ignored"]
    assert table.snapshot().players[:2] == ("Anne", "Bruno")


def test_a_card_laid_closes_the_menu_unchanged() -> None:
    table = _table()
    table.handle(ButtonEvent("A", "king"))
    table.handle(ButtonEvent("A", "yes"))
    table.handle(CardEvent("hand.A", "KS"))
    assert table.snapshot().menu is None and table.snapshot().view.rules == "classic"
    assert table.handle(ButtonEvent("A", "king")).events[0].code == "wrong_time"  # type: ignore[attr-defined]


def test_the_table_file_names_the_players_the_language_and_house_rules() -> None:
    simulated = (ROOT / "hardware" / "tables" / "simulated.toml").read_text(encoding="utf-8")
    people = '[table]\nlanguage = "fr"\nplayers = ["Anne", "Bruno"]\nlocked = true\nbadges = "badges.json"\n'
    table = load_table_text(simulated.replace("[table]\n", people, 1))
    assert (table.language, table.players, table.locked) == ("fr", ("Anne", "Bruno"), True)
    assert table.badges == Path("badges.json")  # from a file: beside it
    with pytest.raises(TableFileError, match=r"table.language.*did you mean 'fr'|table.players"):
        load_table_text(simulated.replace("[table]\n", '[table]\nlanguage = "frr"\nplayers = ["Anne"]\n', 1))


def _journal(tmp_path: Path) -> Path:
    path = tmp_path / "journal.sqlite"
    with Journal(path) as journal:
        for seed, names in ((5, ["Anne", "Bruno"]), (6, ["Bruno", "Chloé"])):
            game = journal.start_game(dumps(Setup(rules="classic", dealer="B", players=tuple(names))))
            for event in game_transcript(new_game("classic", dealer="B"), random.Random(seed), faults=True):
                journal.mark_done(journal.append(game, dumps(event)))
        journal.start_game(dumps(Setup(rules="italian")))  # set up, no card laid: left out
    return path


def test_history_lists_every_game_with_players_winner_and_faults(tmp_path: Path) -> None:
    with Journal(_journal(tmp_path)) as journal:
        summaries = games(journal)
    assert [s.players for s in summaries] == [("Anne", "Bruno"), ("Bruno", "Chloé")]
    for summary in summaries:
        assert summary.winner in ("A", "B") and max(summary.score) >= 5 and summary.hands >= 3
        assert summary.faults >= 1
        line = format_game(summary)
        assert f"{summary.winner_name} wins" in line and "classic" in line and "hands" in line
    stats = {p.name: p for p in player_stats(summaries)}
    assert stats["Bruno"].games == 2 and stats["Anne"].games == 1
    assert sum(p.wins for p in stats.values()) == 2
    assert all(0 <= p.vole_rate <= 1 and p.punished <= p.vulnerable for p in stats.values())
    assert sum(sum(p.faults.values()) for p in stats.values()) >= 2


def test_run_with_players_and_rules_then_history(tmp_path: Path) -> None:
    source = tmp_path / "game.jsonl"
    events = game_transcript(new_game("italian", dealer="B"), random.Random(5), faults=True)
    source.write_text("".join(dumps(e) + "\n" for e in events))
    journal = str(tmp_path / "journal.sqlite")
    ran = _cli("run", "--journal", journal, "--events", str(source), "--json", "--rules", "italian",
               "--players", "Anne,Bruno")
    assert ran.returncode == 0, ran.stderr
    end = [json.loads(line) for line in ran.stdout.splitlines() if '"game_end"' in line]
    assert end and end[0]["players"] == {"A": "Anne", "B": "Bruno"}
    history = _cli("history", "--journal", journal)
    assert history.returncode == 0, history.stderr
    assert "italian  Anne – Bruno" in history.stdout and " wins " in history.stdout
    listed = _cli("export", "--journal", journal, "--list")
    assert listed.stdout == history.stdout
    players = _cli("history", "--journal", journal, "--players", "--json")
    assert {json.loads(line)["player"] for line in players.stdout.splitlines()} == {"Anne", "Bruno"}
    bad = _cli("run", "--journal", journal, "--players", "Anne")
    assert bad.returncode == 2 and "two names" in bad.stderr


def test_a_setup_line_names_the_language_or_is_refused_at_the_door() -> None:
    from firmware_host.referee.transcript import TranscriptError, parse_line

    setup = parse_line('{"setup": {"rules": "classic", "language": "it"}}', source="t", line_no=1)
    assert isinstance(setup, Setup) and setup.language == "it"
    assert Controller().handle(setup).snapshot.language == "it"
    with pytest.raises(TranscriptError, match="language must be one of en, fr, it, de"):
        parse_line('{"setup": {"language": "xx"}}', source="t", line_no=1)
