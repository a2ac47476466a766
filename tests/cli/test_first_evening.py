"""A first evening with the table, through the command line as a newcomer types it:
the coach reviews the games ``run`` and the demo journal, the history of a rubber, and every
reader of the journal reading a game the one way the table resumes it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from waiting import HANG_S

CLI = Path(sys.executable).parent / "ecarte-table"
ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPTS = ROOT / "tests" / "transcripts"
TIMEOUT = HANG_S


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLI), *args], input=stdin, capture_output=True, text=True, timeout=TIMEOUT, cwd=ROOT)


def ok(*args: str) -> str:
    result = cli(*args)
    assert result.returncode == 0, (args, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    return result.stdout


def test_review_reads_a_journal_that_run_wrote(tmp_path: Path) -> None:
    """``run`` journals its own setup line, then the transcript's: review, history and a resume
    read it the one same way (it used to say "setup must be the first line", exit 2)."""
    journal = str(tmp_path / "j.sqlite")
    transcript = str(TRANSCRIPTS / "classic_offer_point.jsonl")
    ok("run", "--journal", journal, "--players", "Anne,Bruno", "--events", transcript)
    review = ok("review", "--journal", journal, "--samples", "30")
    assert review.startswith("game 1 hand 1 (classic (offer the point)): 1 finding\n"
                             "  Bruno should have proposed, not stood")  # the player's name, not the seat
    assert "game 1 hand 2 (classic (offer the point))" in review
    history = ok("history", "--journal", journal)
    assert "Anne – Bruno" in history  # the table's names, kept over the transcript's setup line
    again = ok("run", "--journal", journal, "--json", "--events", "/dev/null")  # resumes: nothing new
    assert again == ""


def _printed(command: str, *more: str) -> str:
    """Run a command the table printed, as a person pastes it into a shell in the repository with the
    README's set-up (nothing of the venv on ``PATH``)."""
    env = {**os.environ, "PATH": "/usr/bin:/bin"}
    result = subprocess.run(["sh", "-c", " ".join([command, *more])], capture_output=True, text=True,
                            timeout=TIMEOUT, cwd=ROOT, env=env)
    assert result.returncode == 0, (command, result.stdout, result.stderr)
    return result.stdout


def test_the_demo_keeps_its_game_and_says_how_to_review_it(tmp_path: Path) -> None:
    """Started as the README starts it (``.venv/bin/ecarte-table``, the venv not on ``PATH``), the
    demo's closing hints print commands that run as pasted (they printed ``ecarte-table review``: not found)."""
    journal = tmp_path / "demo.sqlite"
    env = {**os.environ, "PATH": "/usr/bin:/bin"}
    venv_cli = os.path.relpath(CLI, ROOT)
    started = subprocess.run([venv_cli, "demo", "--seed", "3", "--delay", "0", "--frames", "none", "--journal",
                              str(journal)], capture_output=True, text=True, timeout=TIMEOUT, cwd=ROOT, env=env)
    assert started.returncode == 0, started.stderr
    out = started.stdout
    last = out.strip().splitlines()[-2:]
    assert last == [f"Review it with the coach: {venv_cli} review --journal {journal}",
                    f"All the demo's games: {venv_cli} history --journal {journal}"]
    assert re.search(r"^>>> hand over: (Anne|Bruno) takes (1 point|\d points) with \d tricks; "
                     r"score Anne \d – Bruno \d$", out, re.MULTILINE)  # each hand's result, also when piped
    review = _printed(last[0].split(": ", 1)[1], "--samples", "30")
    # partial sight: the pads saw two cards of each packet; a hand without an exchange shows the
    # whole deal in its plays, and the coach reviews it
    assert re.search(r"^game 1 hand \d \(classic\): ", review, re.MULTILINE), review
    ok("demo", "--seed", "4", "--delay", "0", "--frames", "none", "--journal", str(journal))
    games = _printed(last[1].split(": ", 1)[1]).splitlines()
    assert [line.split()[:2] for line in games] == [["game", "1"], ["game", "2"]]  # each demo a new game
    assert all("Anne – Bruno  Anne wins" in line or "Anne – Bruno  Bruno wins" in line for line in games)


def test_the_history_of_a_rubber(tmp_path: Path) -> None:
    """Three games (A, B, A win, each by the king turned up): the rubber is A's, 2–1, and each
    game shows with its hand and score in the history, the statistics and the hand record."""
    journal = str(tmp_path / "j.sqlite")
    ok("run", "--journal", journal, "--players", "Anne,Bruno", "--events", str(TRANSCRIPTS / "classic_rubber.jsonl"))
    line = ok("history", "--journal", journal).strip()
    assert "Anne – Bruno  Anne wins the rubber 2–1 (Anne 1:0, Bruno 0:1, Anne 1:0)  3 hands" in line
    players = ok("history", "--journal", journal, "--players", "--detail").splitlines()
    assert players[0].startswith("Anne: 3 games, 2 won, 1 rubber (1 won), 2 points, 3 hands")
    assert players[1].startswith("Bruno: 3 games, 1 won, 1 rubber (0 won), 1 point, 3 hands")
    players = ok("history", "--journal", journal, "--players").splitlines()
    assert players[0].startswith("Anne: 3 games, 2 won, 1 rubber (1 won), 2 points in 3 hands")
    data = json.loads(ok("history", "--journal", journal, "--json"))
    assert data["rubber"] == {"A": 2, "B": 1} and data["winner"] == "Anne"
    assert [(g["winner"], g["hands"]) for g in data["games"]] == [("Anne", 1), ("Bruno", 1), ("Anne", 1)]
    record = ok("export", "--journal", journal, "--format", "record")
    assert '[A "Anne"]' in record and '[Rubber "A 2 B 1"]' in record and '[Winner "A"]' in record
    rounds = [line for line in record.splitlines() if line.startswith("[Round")]
    assert rounds == ['[Round "1"]', '[Round "2"]', '[Round "3"]']


def bad(result: subprocess.CompletedProcess[str], *words: str) -> str:
    """Refused in one clear message: exit 2, no traceback, naming each of ``words``."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in result.stderr, (word, result.stderr)
    return result.stderr


def test_every_slip_is_answered_in_one_line(tmp_path: Path) -> None:
    assert ok("--version").startswith("ecarte-table ")
    bad(cli("demo", "--dpeth", "2"), "did you mean `--depth`")
    bad(cli("deck", "--drop", "XX"), "--drop", "cannot read card 'XX'", "like 'TH'")
    bad(cli("demo", "--players", "Anne", "--journal", str(tmp_path / "d.sqlite")), "two different names")
    assert "``" not in ok("journal", "--help")
    for command, words in (("doctor", "how to fix"), ("export", "hand record"), ("sim", "rule set (default")):
        assert words in ok(command, "--help"), command


def test_enroll_writes_the_registry_in_the_state_directory(tmp_path: Path) -> None:
    state = tmp_path / "state"
    result = subprocess.run([str(CLI), "enroll"], capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp_path,
                            env={**os.environ, "XDG_STATE_HOME": str(state)})
    registry = state / "ecarte-table" / "registry.json"
    assert result.returncode == 0, result.stderr
    assert f"into the registry {registry}" in result.stdout.splitlines()[0]
    assert registry.exists() and not (tmp_path / "registry.json").exists()


def test_run_says_what_it_cannot_reach_and_where_the_game_stands(tmp_path: Path) -> None:
    half = tmp_path / "half.jsonl"
    half.write_text("".join((TRANSCRIPTS / "classic_offer_point.jsonl").read_text().splitlines(True)[:20]))
    journal = str(tmp_path / "j.sqlite")
    result = cli("run", "--journal", journal, "--mqtt", "127.0.0.1:1", "--events", str(half))
    assert result.returncode == 0, result.stderr
    assert "MQTT: the broker 127.0.0.1:1 cannot be reached; the table keeps trying" in result.stderr
    assert (f"the input ended in game 1, hand 2 (deal), A 2 – B 0; the table waits: B deals five cards each "
            f"and turns up the eleventh. The journal {journal} keeps it") in result.stderr


def test_the_simulator_is_a_bench_a_newcomer_can_play() -> None:
    typed = "deal\nB yes\nA no\nA play KS\nA plays KS\nA plays KS\nplay.A KS gone\nquit\n"
    out = cli("sim", "--dealer", "A", "--seed", "4", stdin=typed).stdout
    dealt = re.search(r"^  A holds (.+)  B holds (.+)$", out, re.MULTILINE)
    assert dealt is not None and len(dealt.group(1).split()) == 5 and len(dealt.group(2).split()) == 5
    assert "?? cannot read 'A play KS': did you mean `A plays KS`?" in out
    assert "?? nothing changed: the KS already lies on play.A: a pad sees a card arrive once" in out
    assert "corrected: A took back K♠ (out of turn)" in out  # taken back: the K♠ is A's again
    assert re.search(r"^  A holds .*K♠", out.split("corrected:")[1], re.MULTILINE)
    played = (TRANSCRIPTS / "classic_offer_point.jsonl").read_text()
    out = cli("sim", stdin=played).stdout
    assert "hand over: tricks A " in out and ", score A " in out
    assert "hand 1 recorded (" in out and "hand_record:" not in out


def test_simulators_leave_no_folder_behind(tmp_path: Path) -> None:
    """Each simulated pad's folder (``pn532sim-<pid>-...``) goes when the table stops (end of input,
    SIGTERM); a table killed outright leaves its folders to the next simulator started."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}

    def folders() -> list[str]:
        return sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("pn532sim-"))

    def start() -> subprocess.Popen[bytes]:
        table = subprocess.Popen([str(CLI), "run", "--journal", str(tmp_path / "j.sqlite")], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while len(folders()) < 6 and time.monotonic() < deadline:
            time.sleep(0.05)
        return table

    table = start()
    assert len(folders()) == 6 and all(name.startswith(f"pn532sim-{table.pid}-") for name in folders())
    table.terminate()
    assert table.wait(timeout=HANG_S) == 0
    assert folders() == []
    table = start()
    table.kill()
    table.wait(timeout=HANG_S)
    assert len(folders()) == 6  # killed outright: nothing of it could run
    done = subprocess.run([str(CLI), "run", "--journal", str(tmp_path / "j2.sqlite"), "--events", "/dev/null"],
                          env=env, capture_output=True, timeout=TIMEOUT)
    assert done.returncode == 0
    assert folders() == []


def test_the_oled_says_discard_or_draw_until_the_first_card_is_drawn() -> None:
    """After a first discard the seat may lay more: the table does not say "draw 1" yet."""
    typed = "deal\nB yes\nA yes\nB discards 9C\nstate\nB discards TC\nstate\nB draws 7H\nstate\nquit\n"
    out = cli("sim", "--dealer", "A", "--seed", "4", stdin=typed).stdout  # B holds K♥ J♣ 10♣ 9♣ Q♥
    prompts = [json.loads(line)["prompt"]["short"] for line in out.splitlines() if line.startswith("{")]
    assert prompts == ["discard or draw 1", "discard or draw 2", "draw 1"]


def test_a_second_hub_whose_broker_port_is_taken(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        venue = tmp_path / "venue.toml"
        venue.write_text(f'[broker]\nlisten = "127.0.0.1:{port}"\n')
        stderr = bad(cli("hub", str(venue), "--listen", "127.0.0.1:0"),
                     f"the hub's MQTT broker cannot listen on 127.0.0.1:{port}", f"--broker 127.0.0.1:{port}")
        assert len(stderr.strip().splitlines()) == 1


def test_the_hints_name_the_command_as_it_was_started(tmp_path: Path) -> None:
    """``ecarte-table`` only where that name on ``PATH`` is the program running; else its path as started."""
    from firmware_host.errors import invoked_as

    assert invoked_as(str(CLI), path=str(CLI.parent)) == "ecarte-table"
    assert invoked_as(str(CLI), path=str(tmp_path)) == str(CLI)
    other = tmp_path / "ecarte-table"  # another install's ecarte-table first on PATH
    other.write_text("#!/bin/sh\n")
    other.chmod(0o755)
    assert invoked_as(".venv/bin/ecarte-table", path=f"{tmp_path}:{CLI.parent}") == ".venv/bin/ecarte-table"
    assert invoked_as("/opt/my table/ecarte-table", path=str(tmp_path)) == "'/opt/my table/ecarte-table'"


def test_a_demo_stopped_as_a_laptop_lid_closes_carries_on(tmp_path: Path) -> None:
    """Stopped for 12 s (SIGSTOP, then SIGCONT, as a laptop's lid), longer than the demo waits for a pad:
    it died with ``DemoError: pad play.A did not report its cards within 10 s``; the time it was stopped
    does not count, and it plays its game to the end, its readers never said lost."""
    import signal

    process = subprocess.Popen([str(CLI), "demo", "--seed", "7", "--delay", "0", "--frames", "none",
                                "--journal", str(tmp_path / "demo.sqlite")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        time.sleep(4)  # the game under way (the cards dealt; a hang's limit below, not a measure)
        process.send_signal(signal.SIGSTOP)
        time.sleep(12)
        process.send_signal(signal.SIGCONT)
        out, err = process.communicate(timeout=TIMEOUT)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert "Traceback" not in err and "offline" not in err and "lost" not in err, err
    assert "Game over" in out
