"""Slips a new user meets, met as they meet them, each through the command line."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

from waiting import HANG_S, answers, wait_for

import catalogue
import engine
from firmware_host.players.builtin import game_transcript
from firmware_host.referee.transcript import dumps

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", *args], input=stdin, capture_output=True,
                          text=True, timeout=300, cwd=ROOT)


def test_sim_keeps_a_journal_that_export_reads_and_says_its_events_in_words(tmp_path: Path) -> None:
    """``sim`` said "hand 1 recorded (... 'ecarte-table export' shows them)" but kept no journal; its
    event lines were Python dicts (``detail={'suit': 'H', 'win': 'no'}``)."""
    events = [e for e in game_transcript(engine.new_game("classic", dealer="A"), random.Random(4))
              if not getattr(e, "gone", False)]  # (the typing console keeps its own cards on the pads)
    typed = "\n".join(dumps(e) for e in events[1:]) + "\nquit\n"
    journal = tmp_path / "sim.sqlite"
    done = cli("sim", "--dealer", "A", "--journal", str(journal), stdin=typed)
    assert done.returncode == 0, done.stderr
    said = [line.strip() for line in done.stdout.splitlines()
            if line.startswith("  ") and not set(line) <= set(" █▀▄")]  # not the OLED's frames
    recorded = [line for line in said if re.match(r"hand \d+ recorded", line)]
    assert recorded and f"'ecarte-table export --journal {journal}'" in recorded[0]
    assert not [line for line in said if re.search(r"\{'|'\}|=\{|\w=\S", line)], "words, not dicts"
    assert any(line.startswith("trick to ") for line in said) and any(" plays the " in line for line in said)
    exported = cli("export", "--journal", str(journal))
    assert exported.returncode == 0, exported.stderr
    lines = [json.loads(line) for line in exported.stdout.splitlines() if line.strip()]
    assert "setup" in lines[0] and len(lines) == len(events)
    assert cli("history", "--journal", str(journal)).stdout.count("game 1") == 1


def test_demo_varies_its_seed_and_prints_it(tmp_path: Path) -> None:
    journal = tmp_path / "demo.sqlite"
    seeds = []
    for _ in range(2):
        done = cli("demo", "--delay", "0", "--frames", "none", "--journal", str(journal))
        assert done.returncode == 0, done.stderr
        found = re.search(r"seed (\d+) \(--seed \1 plays this game again\)", done.stdout)
        assert found, done.stdout[:300]
        seeds.append(int(found.group(1)))
    assert seeds[0] != seeds[1]
    again = cli("demo", "--delay", "0", "--frames", "none", "--journal", str(journal), "--seed", str(seeds[0]))
    assert f"seed {seeds[0]} " in again.stdout
    games = cli("history", "--journal", str(journal)).stdout.splitlines()
    assert len(games) == 3 and games[0].split("classic", 1)[1] == games[2].split("classic", 1)[1]


def test_doctor_checks_the_registry_enroll_wrote_on_the_simulated_table() -> None:
    """``enroll`` on the simulated table wrote a registry (in the state directory) and ``doctor``
    then said "tag registry: none configured"."""
    before = cli("doctor")
    assert "tag registry: none configured" in before.stdout or "none configured" in before.stdout
    enrolled = cli("enroll")
    assert enrolled.returncode == 0, enrolled.stderr
    after = cli("doctor")
    line = next(line for line in after.stdout.splitlines() if "tag registry" in line)
    assert "none configured" not in line and "registry.json: 32 tags" in line, line


def test_a_cloned_card_is_caught_by_the_default_table() -> None:
    """``deck --clone QH`` on the default simulated table reported "32 cards OK", exit 0: every
    table file the project ships now requires originality signatures."""
    assert cli("enroll").returncode == 0
    clone = cli("deck", "--clone", "QH")
    assert clone.returncode == 1, clone.stdout
    assert "Not genuine: QH" in clone.stdout and "32 cards OK" not in clone.stdout
    assert cli("deck").returncode == 0


def test_every_shipped_table_file_requires_signatures() -> None:
    from hardware.table import load_table

    files = sorted((ROOT / "hardware" / "tables").glob("*.toml"))
    assert files
    for path in files:
        assert load_table(path).tags.require_signature, path.name


def test_run_players_names_the_next_game_of_a_journal_whose_game_is_over(tmp_path: Path) -> None:
    """``run --players X,Y`` on a journal whose last game is over was ignored: the new game kept the
    old names. Between a venue's rounds a table changes its players in one command."""
    transcripts = ROOT / "tests" / "transcripts"
    journal = str(tmp_path / "j.sqlite")
    first = cli("run", "--journal", journal, "--players", "Anne,Bruno", "--events",
                str(transcripts / "classic_king_game_end.jsonl"))
    assert first.returncode == 0, first.stderr
    # the next round: Carla and Denis at this table; their game starts with the elder's "yes"
    events = tmp_path / "next.jsonl"
    events.write_text('{"seat": "A", "button": "yes"}\n', encoding="utf-8")
    second = cli("run", "--journal", journal, "--players", "Carla,Denis", "--json", "--all-events",
                 "--events", str(events))
    assert second.returncode == 0, second.stderr
    assert "the next game's players: Carla (A) and Denis (B)" in second.stdout
    started = [json.loads(line) for line in second.stdout.splitlines() if '"new_game"' in line]
    assert [e["players"] for e in started] == [{"A": "Carla", "B": "Denis"}]
    assert "Anne – Bruno" in cli("history", "--journal", journal).stdout  # the first game keeps its names


def test_a_normal_run_on_the_simulated_table_says_its_start_at_info_and_warns_of_nothing(tmp_path: Path) -> None:
    """A normal start said "the table's page: http://…" at WARNING, so that the default level showed it:
    WARNING is kept for what is wrong. The start's few lines are at INFO, which the command shows by
    default (and systemd's journal keeps), worded in the console's language with no level before them (a
    warning keeps its ``WARNING logger:``)."""
    import signal
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    rubber = ROOT / "tests" / "transcripts" / "classic_rubber.jsonl"
    run = subprocess.Popen([sys.executable, "-m", "cli.main", "run", "--journal",
                            str(tmp_path / "j.sqlite"), "--events", str(rubber), "--web", f"127.0.0.1:{port}"],
                           cwd=ROOT, text=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
    assert run.stderr is not None
    said = []
    for line in run.stderr:  # until the input has been played (the page then stays up until Ctrl-C)
        said.append(line)
        if "stays up at" in line:
            break
    run.send_signal(signal.SIGINT)
    _, rest = run.communicate(timeout=HANG_S)
    said += rest.splitlines(keepends=True)
    assert run.returncode == 0, "".join(said)
    page = catalogue.say("en", "log.page", url=f"http://127.0.0.1:{port}")  # said at INFO: no level before it
    assert f"{page}\n" in said, "".join(said)
    assert [line for line in said if line.startswith(("WARNING", "ERROR", "CRITICAL"))] == [], "".join(said)


def test_a_hub_stopped_by_ctrl_c_at_its_terminal_warns_of_nothing(tmp_path: Path) -> None:
    """A Ctrl-C reaches every process of the terminal's foreground group: the hub's broker (its own
    Mosquitto) stopped too, first, and the hub said "WARNING … stopped (status 0, ): restarting it" on a
    normal stop. Its start says its two lines at INFO."""
    import os
    import signal
    import socket

    import pytest

    from venue.hub.broker import mosquitto_path

    if mosquitto_path() is None:
        pytest.skip("Mosquitto is not installed: `apt-get install -y mosquitto`")
    ports = []
    for _ in range(2):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            ports.append(probe.getsockname()[1])
    venue = tmp_path / "venue.toml"
    venue.write_text(f'[hub]\nvenue = "club"\nlisten = "127.0.0.1:{ports[0]}"\n[broker]\nmode = "mosquitto"\n'
                     f'listen = "127.0.0.1:{ports[1]}"\n[tables]\nnames = ["t1"]\n')
    hub = subprocess.Popen([sys.executable, "-m", "cli.main", "hub", str(venue)], cwd=tmp_path,
                           text=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           start_new_session=True)  # a terminal's foreground group of its own
    try:
        wait_for(lambda: hub.poll() is not None or answers(f"http://127.0.0.1:{ports[0]}/api/tables"), "the board")
        os.killpg(hub.pid, signal.SIGINT)  # Ctrl-C
        _, said = hub.communicate(timeout=HANG_S)
    finally:
        if hub.poll() is None:
            os.killpg(hub.pid, signal.SIGKILL)
            hub.wait()
    lines = said.splitlines()
    assert [line for line in lines if line.startswith("INFO venue.hub.scoreboard: the venue's")] == lines[:2], said
    assert not [line for line in lines if line.startswith(("WARNING", "ERROR", "CRITICAL", "Traceback"))], said
