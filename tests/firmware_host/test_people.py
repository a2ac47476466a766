"""The people at the table: names, the settings menu, badges and rule cards, the table file's
words for them, the history of games and each player's statistics."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from engine import new_game
from firmware_host.journal.history import format_game, games, player_stats
from firmware_host.journal.store import Journal
from firmware_host.players.builtin import game_transcript
from firmware_host.referee.controller import Controller, NewGame, Notice, TableDefaults
from firmware_host.referee.transcript import ButtonEvent, CardEvent, Setup, dumps
from firmware_host.screens.chooser import screen_for
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
    assert (screen.view, screen.headline) == ("menu", "settings 1/7")
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


def test_house_rules_are_shown_not_changed() -> None:
    table = _table(locked=True)
    table.handle(ButtonEvent("A", "king"))
    assert screen_for(table.snapshot()).headline.startswith("house rules")
    events = table.handle(ButtonEvent("A", "yes")).events
    assert [e.code for e in events if isinstance(e, Notice)] == ["locked"]
    table.handle(CardEvent("turnup", uid="04A224B2C31D82"))  # a rule card: refused too
    assert table.snapshot().view.rules == "classic"
    table.handle(CardEvent("play.A", uid="04A224B2C31D80"))  # a badge still names the seat
    assert table.snapshot().players[0] == "Anne"


def test_badges_name_the_seats_and_rule_cards_set_the_rules() -> None:
    table = _table()
    table.handle(CardEvent("play.A", uid="04A224B2C31D80"))
    table.handle(CardEvent("play.A", uid="04A224B2C31D80", gone=True))
    table.handle(CardEvent("hand.B", uid="04A224B2C31D81"))
    for uid in ("04A224B2C31D82", "04A224B2C31D83", "04A224B2C31D84"):
        assert [type(e) for e in table.handle(CardEvent("turnup", uid=uid)).events] == [NewGame]
    snapshot = table.snapshot()
    assert snapshot.players[:2] == ("Anne", "Bruno")
    assert (snapshot.view.rules, snapshot.view.target) == ("italian(target=7, forzare)", 7)
    setup = table.current_setup()
    assert (setup.players, setup.options, setup.target) == (("Anne", "Bruno"), {"forzare": True, "target": 7}, 7)
    # once a card is down, a badge changes nothing
    table.handle(CardEvent("hand.A", "KS"))
    assert not table.snapshot().setting_up
    events = table.handle(CardEvent("play.B", uid="04A224B2C31D80")).events
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


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "firmware_host.cli.main", *args], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)


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
