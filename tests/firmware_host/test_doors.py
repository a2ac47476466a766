"""One check at every door, before anything is journaled.

Each reproduction goes through the public surface: the command line as a subprocess, the
page's ``POST /api/setup`` through Starlette's TestClient on a real service and journal,
then the service started again on that journal from the command line.
"""

from __future__ import annotations

import contextlib
import json
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from waiting import HANG_S

from firmware_host.journal.store import Journal
from firmware_host.referee.controller import Controller
from firmware_host.referee.transcript import MAX_LINE_BYTES
from firmware_host.screens.i18n import screen_name
from firmware_host.service import TableService
from hardware.limits import MAX_NAME
from venue.settings import WebSettings
from venue.table.page import LiveTable, table_app
from venue.table.public import PublicFeed

CLI = Path(sys.executable).parent / "ecarte-table"
ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = HANG_S


def _cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLI), *args], input=stdin, capture_output=True, text=True, timeout=TIMEOUT,
                          check=False)


def _refused(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    for word in words:
        assert word in done.stderr, done.stderr[-2000:]


def _drain(service: TableService) -> None:
    while not service.queue.empty():
        service.handle(service.queue.get())


@contextlib.contextmanager
def _page(path: Path) -> Iterator[tuple[TableService, TestClient]]:
    """A resumed service on the journal at ``path`` and a client of its page (token ``sesame``)."""
    with Journal(path, lock=True) as journal:
        service = TableService(journal=journal, controller=Controller())
        service.resume()
        app = table_app(LiveTable(PublicFeed(table="T")), history=None, settings=WebSettings(token="sesame"),
                        control=service.put_physical)
        with TestClient(app) as client:
            yield service, client


# -- the page ---------------------------------------------------------------------------------


def test_the_page_refuses_what_the_resume_could_not_read(tmp_path: Path) -> None:
    """`{"target": true}` was accepted, journaled, and every later start exited 1 (a restart loop)."""
    path = tmp_path / "j.sqlite"
    good = {"Authorization": "Bearer sesame"}
    with _page(path) as (service, client):
        for body, status, words in [
            ({"target": True}, 400, "target must be a positive whole number"),
            ({"target": "7"}, 400, "target"),
            ({"players": ["x" * 30_000, "B"]}, 400, f"at most {MAX_NAME} characters"),
            ({"players": ["x" * 70_000, "B"]}, 413, "larger than"),
            ({"players": ["An\x1b[2Jne", "B"]}, 400, "control characters"),
            ({"players": ["a", "b", "c", "d", "e"]}, 400, "two names"),
            ({"rules": "classic", "options": {"rubber": 2.5}}, 400, "unknown key"),
            ([1, 2], 400, "object"),
        ]:
            answer = client.post("/api/setup", json=body, headers=good)
            assert answer.status_code == status, (body if len(str(body)) < 100 else "long", answer.text)
            assert words in answer.json()["error"]
        assert client.post("/api/setup", content=b"[" * 100_000, headers=good).status_code in (400, 413)
        ok = client.post("/api/setup", json={"players": ["Anne", "Bruno"], "target": 7}, headers=good)
        assert ok.status_code == 202
        _drain(service)
        assert service.controller.current_setup().players == ("Anne", "Bruno", "")
    again = _cli("run", "--journal", str(path), "--events", "/dev/null")
    assert again.returncode == 0, again.stderr
    checked = _cli("journal", "check", "--journal", str(path))
    assert checked.returncode == 0, checked.stdout


# -- setup lines --------------------------------------------------------------------------------


@pytest.mark.parametrize(("setup", "words"), [
    ({"players": ["x" * 30_000, "B"]}, f"at most {MAX_NAME} characters"),
    ({"players": ["Anne\nBruno", "B"]}, "control characters"),
    ({"players": ["\u202eAnne", "B"]}, "control characters"),
    ({"players": ["a", "b", "c", "d", "e"]}, "two names"),
    ({"options": {"rubber": 2.5}}, "rubber is a whole number"),
    ({"options": {"doubling": {"a": [1, 2]}}}, "doubling is true or false"),
    ({"options": {"ace_high": 1}}, "ace_high is true or false"),
    ({"target": True}, "target must be a positive whole number"),
])
def test_a_setup_line_of_the_wrong_shape_is_refused_with_its_number(
    tmp_path: Path, setup: dict[str, object], words: str,
) -> None:
    path = tmp_path / "j.sqlite"
    events = tmp_path / "game.jsonl"
    events.write_text("# a comment\n" + json.dumps({"setup": setup}) + "\n")
    _refused(_cli("run", "--journal", str(path), "--events", str(events)), f"{events}:2", words)
    assert _cli("run", "--journal", str(path), "--events", "/dev/null").returncode == 0  # nothing poisoned
    assert _cli("journal", "check", "--journal", str(path)).returncode == 0


def test_a_line_over_the_journals_limit_is_refused_at_the_door(tmp_path: Path) -> None:
    """A setup line under the limit as read, over it as the journal writes it (``", "`` between
    entries): refused with its number, never found at resume."""
    tags = {f"04{n:012X}": "KS" for n in range(2_900)}
    line = json.dumps({"setup": {"tags": tags}}, separators=(",", ":"))
    assert len(line) < MAX_LINE_BYTES
    events = tmp_path / "big.jsonl"
    events.write_text(line + "\n")
    path = tmp_path / "j.sqlite"
    _refused(_cli("run", "--journal", str(path), "--events", str(events)), f"{events}:1", "bytes in the journal")
    again = _cli("run", "--journal", str(path), "--events", "/dev/null")
    assert again.returncode == 0, again.stderr


def test_a_long_name_neither_stalls_the_referee_nor_the_screen(tmp_path: Path) -> None:
    """A 30,000-character name took 93 s to referee two cards: refused at the door now, and the
    OLED's shortening is one pass (the same result as cutting a character at a time)."""
    events = tmp_path / "long.jsonl"
    events.write_text(json.dumps({"setup": {"players": ["x" * 30_000, "B"]}}) + "\n"
                      + '{"zone": "hand.A", "card": "KS"}\n{"zone": "hand.B", "card": "QS"}\n')
    _refused(_cli("run", "--journal", str(tmp_path / "j.sqlite"), "--events", str(events), "--png",
                  str(tmp_path / "frames")), f"{events}:1")
    assert screen_name("x" * 30_000).endswith(".") and len(screen_name("x" * 30_000)) < 30

    from firmware_host.screens.drawing import text_width

    def one_at_a_time(name: str, width: int) -> str:
        name = " ".join(name.split())
        if text_width(name) <= width:
            return name
        while name and text_width(name + ".") > width:
            name = name[:-1]
        return name.rstrip() + "."

    rng = random.Random(23)
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ éàüWMil.-'♠♥"
    for _ in range(500):
        name = "".join(rng.choice(letters) for _ in range(rng.randint(0, 40)))
        width = rng.choice((20, 44, 60))
        assert screen_name(name, width) == one_at_a_time(name, width)


def test_names_from_the_command_line_and_the_table_file_are_bounded(tmp_path: Path) -> None:
    _refused(_cli("run", "--journal", str(tmp_path / "j.sqlite"), "--events", "/dev/null",
                  "--players", "Anne," + "x" * 100), f"at most {MAX_NAME} characters")
    table = tmp_path / "table.toml"
    table.write_text((ROOT / "hardware/tables/simulated.toml").read_text().replace(
        "[pads]", 'players = ["Anne", "B\\u0007b"]\n\n[pads]'))
    _refused(_cli("run", str(table), "--journal", str(tmp_path / "k.sqlite"), "--events", "/dev/null"),
             "table.players", "control characters")


# -- hostile files ------------------------------------------------------------------------------


def _table_with(tmp_path: Path, key: str, file: Path) -> Path:
    table = tmp_path / "table.toml"
    table.write_text((ROOT / "hardware/tables/simulated.toml").read_text().replace(
        "[pads]", f'{key} = "{file}"\n\n[pads]'))
    return table


@pytest.fixture
def deep(tmp_path: Path) -> Path:
    path = tmp_path / "tags.json"
    path.write_text("[" * 200_000 + "]" * 200_000)
    return path


@pytest.mark.parametrize("command", ["run", "deck", "enroll", "doctor"])
@pytest.mark.parametrize("registry", ["deep", "/dev/zero"])
def test_a_hostile_registry_is_refused_with_the_file_and_the_problem(
    tmp_path: Path, deep: Path, command: str, registry: str,
) -> None:
    file = deep if registry == "deep" else Path(registry)
    table = _table_with(tmp_path, "registry", file)
    extra = ("--journal", str(tmp_path / "j.sqlite"), "--events", "/dev/null") if command == "run" else ()
    done = _cli(command, str(table), *extra)
    problem = "nested too deep" if registry == "deep" else "not a regular file"
    if command == "doctor":  # doctor's verdict: a failed check (exit 1), never "all checks passed"
        assert done.returncode == 1 and "Traceback" not in done.stderr
        assert str(file) in done.stdout and problem in done.stdout and "all checks passed" not in done.stdout
    else:
        _refused(done, str(file), problem)


@pytest.mark.parametrize(("badges", "words"), [
    ([1, 2], "'badges' must map"),
    ("x", "'badges' must map"),
    ({"04A224B2C31D80": 5}, "not a badge"),
    ({"04A224B2C31D80": "player:" + "x" * 30_000}, f"at most {MAX_NAME} characters"),
    ({"04A224B2C31D80": "player:An\x1bne"}, "control characters"),
])
def test_a_hostile_badges_file_is_refused(tmp_path: Path, badges: object, words: str) -> None:
    file = tmp_path / "badges.json"
    file.write_text(json.dumps({"format": "ecarte-badges", "version": 1, "badges": badges}))
    table = _table_with(tmp_path, "badges", file)
    _refused(_cli("run", str(table), "--journal", str(tmp_path / "j.sqlite"), "--events", "/dev/null"),
             str(file), words)
    doctor = _cli("doctor", str(table))
    assert doctor.returncode == 1 and "Traceback" not in doctor.stderr
    assert "badges" in doctor.stdout and words in doctor.stdout and "all checks passed" not in doctor.stdout


def test_a_table_file_that_is_not_a_file(tmp_path: Path) -> None:
    _refused(_cli("run", "/dev/zero", "--journal", str(tmp_path / "j.sqlite"), "--events", "/dev/null"),
             "/dev/zero", "not a regular file")


def test_a_journal_that_is_not_a_file(tmp_path: Path) -> None:
    """A FIFO (or /dev/zero) named as the journal: refused before SQLite opens it or anything is made beside it."""
    import os

    fifo = tmp_path / "journal.fifo"
    os.mkfifo(fifo)
    _refused(_cli("run", "--journal", str(fifo), "--events", "/dev/null"), str(fifo), "not a regular file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["journal.fifo"]


# -- more doors --------------------------------------------------------------------------------


def _cli_quick(*args: str) -> subprocess.CompletedProcess[str]:
    """A command that must answer at once (a hang or a spin fails the test in 30 s, not the suite's budget)."""
    try:
        return subprocess.run([str(CLI), *args], capture_output=True, text=True, timeout=HANG_S, check=False,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"ecarte-table {' '.join(args)[:120]} hung (no answer in 30 s)")


def test_a_game_number_past_pythons_int_limit_is_not_found(tmp_path: Path) -> None:
    """`GET /api/games/<5,000 nines>` was a 500 with a traceback (int's digit limit)."""
    from venue.table.page_history import JournalHistory

    path = tmp_path / "j.sqlite"
    with Journal(path, lock=True) as journal:
        TableService(journal=journal, controller=Controller()).resume()
    app = table_app(LiveTable(PublicFeed(table="T")), history=JournalHistory(path), settings=WebSettings())
    with TestClient(app) as client:
        for url in ("/api/games/" + "9" * 5_000, "/api/games/" + "9" * 5_000 + "/record", "/api/games/99999"):
            answer = client.get(url)
            assert answer.status_code == 404, (url[:40], answer.status_code)
        assert client.get("/api/games/1").status_code == 200


@pytest.mark.parametrize("command", ["replay", "run"])
def test_an_endless_line_is_too_long_and_stops(tmp_path: Path, command: str) -> None:
    """`replay /dev/zero` and `run --events /dev/zero` spun at 100 % CPU for ever."""
    args = ("replay", "/dev/zero") if command == "replay" else (
        "run", "--journal", str(tmp_path / "j.sqlite"), "--events", "/dev/zero")
    _refused(_cli_quick(*args), "/dev/zero", "line too long")


@pytest.mark.parametrize("command", ["doctor", "run", "deck"])
def test_a_fifo_as_the_table_file_is_refused_before_it_is_opened(tmp_path: Path, command: str) -> None:
    """A FIFO given as the table file hung `doctor`, `run` and `deck` at open()."""
    import os

    fifo = tmp_path / "table.toml"
    os.mkfifo(fifo)
    extra = ("--journal", str(tmp_path / "j.sqlite"), "--events", "/dev/null") if command == "run" else ()
    done = _cli_quick(command, str(fifo), *extra)
    assert "Traceback" not in done.stderr
    said = done.stdout + done.stderr
    assert str(fifo) in said and "not a regular file" in said, said[-2000:]
    assert done.returncode == (1 if command == "doctor" else 2), (done.returncode, said[-2000:])


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_a_lock_secret_that_is_not_a_file_is_refused_unread(tmp_path: Path, kind: str) -> None:
    """`lock_secret_file` was read whole before any check: a FIFO hung it, /dev/zero filled memory."""
    import os

    secret = tmp_path / "lock.key" if kind == "fifo" else Path(kind)
    if kind == "fifo":
        os.mkfifo(secret, 0o600)
    code = ("import sys\nfrom hardware.locks import LockSecretError, load_secret\n"
            "try:\n    load_secret(sys.argv[1])\nexcept LockSecretError as exc:\n    print(exc)\n")
    try:
        done = subprocess.run([sys.executable, "-c", code, str(secret)], capture_output=True, text=True,
                              timeout=HANG_S, check=False, cwd=ROOT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"load_secret({secret}) hung")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert str(secret) in done.stdout and "not a regular file" in done.stdout, done.stdout


@pytest.mark.parametrize("players", [["Ann", "Ann"], ["Ann", "Bob", "Ann"], ["Ann", " ann "]])
def test_a_name_twice_is_refused_at_every_door(tmp_path: Path, players: list[str]) -> None:
    """`POST /api/setup` accepted ["Ann","Ann"] and a pool with a name twice: the one setup check refuses it."""
    path = tmp_path / "j.sqlite"
    good = {"Authorization": "Bearer sesame"}
    with _page(path) as (service, client):
        answer = client.post("/api/setup", json={"players": players}, headers=good)
        assert answer.status_code == 400, answer.text
        assert "twice" in answer.json()["error"]
        assert service.queue.empty()
    events = tmp_path / "game.jsonl"
    events.write_text(json.dumps({"setup": {"players": players}}) + "\n")
    _refused(_cli("run", "--journal", str(tmp_path / "k.sqlite"), "--events", str(events)), f"{events}:1", "twice")


def _secret_file(tmp_path: Path, kind: str) -> Path:
    """A secret file that is no secret: a FIFO nobody writes, ``/dev/zero``, bytes that are not UTF-8."""
    import os

    if kind == "fifo":
        path = tmp_path / "secret.fifo"
        os.mkfifo(path, 0o600)
        return path
    if kind == "zero":
        return Path("/dev/zero")
    path = tmp_path / "secret.pass"
    path.write_bytes(b"\xff\xfe not UTF-8 \x80")
    path.chmod(0o600)
    return path


@pytest.mark.parametrize("kind", ["fifo", "zero", "not_utf8"])
@pytest.mark.parametrize("key", ["mqtt.password_file", "web.token_file"])
def test_a_secret_file_that_is_no_secret_is_refused_before_anything_starts(tmp_path: Path, key: str,
                                                                          kind: str) -> None:
    """`[mqtt] password_file` and `[web] token_file` were read with `read_text`: a FIFO hung `run` past
    SIGTERM, `/dev/zero` ended in a MemoryError, bytes not UTF-8 in a traceback and exit 1 (a restart
    loop under systemd). Read now as the lock secret is, before the journal or any device is opened."""
    section, name = key.split(".")
    table = tmp_path / "table.toml"
    extra = '\nvenue = "club"\n' if section == "mqtt" else ""
    table.write_text((ROOT / "hardware/tables/simulated.toml").read_text()
                     + f'\n[{section}]\n{name} = "{_secret_file(tmp_path, kind)}"{extra}\n')
    journal = tmp_path / "j.sqlite"
    try:
        done = _cli("run", str(table), "--journal", str(journal), "--events", "/dev/null")
    except subprocess.TimeoutExpired:
        pytest.fail(f"run hung on a {kind} as {key}")
    _refused(done, key)
    assert "not a regular file" in done.stderr if kind != "not_utf8" else "UTF-8" in done.stderr, done.stderr
    assert not journal.exists()  # refused before the journal (and every device after it) was opened


@pytest.mark.parametrize("kind", ["nested", "fifo", "zero"])
def test_a_hostile_venue_file_is_refused_at_the_table_files_doors(tmp_path: Path, kind: str) -> None:
    """The hub's venue file: nested TOML was a RecursionError traceback, `/dev/zero` a MemoryError, a
    FIFO a hang. Each now exits 2 naming the file, as a table file does."""
    import os

    path = tmp_path / "venue.toml"
    if kind == "nested":
        path.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    elif kind == "fifo":
        os.mkfifo(path, 0o600)
    else:
        path = Path("/dev/zero")
    try:
        done = _cli("hub", str(path))
    except subprocess.TimeoutExpired:
        pytest.fail(f"hub hung on a {kind} venue file")
    _refused(done, str(path))
    if kind != "nested":
        assert "not a regular file" in done.stderr, done.stderr


LOOKALIKES = {
    "nfc_and_nfd": (["Jos\u00e9", "Jose\u0301"], "twice"),
    "fullwidth": (["Ann", "\uff21nn"], "twice"),
    "cyrillic_a": (["\u0410nn", "Bob"], "one alphabet"),
    "braille_blanks": (["\u2800\u2800", "Bob"], "a letter or a digit one can see"),
    "hangul_filler": (["\u3164", "Bob"], "a letter or a digit one can see"),
    "padded_with_a_filler": (["Ann", "Ann\u3164"], "a letter or a digit one can see"),
}


@pytest.mark.parametrize("kind", list(LOOKALIKES))
def test_names_that_look_alike_are_one_name_or_none(tmp_path: Path, kind: str) -> None:
    """NFC and NFD "José", a Cyrillic "Аnn", a fullwidth "Ａnn" and names of invisible characters only
    (U+2800, U+3164) each passed "each name once" as different names. Names are now read in NFC,
    compared in NFKC case-folded, and one with no visible letter or mixing alphabets is refused: at the
    page, on a setup line, on the command line and in the table file."""
    players, words = LOOKALIKES[kind]
    with _page(tmp_path / "j.sqlite") as (service, client):
        answer = client.post("/api/setup", json={"players": players}, headers={"Authorization": "Bearer sesame"})
        assert answer.status_code == 400 and words in answer.json()["error"], answer.text
        assert service.queue.empty()
    events = tmp_path / "game.jsonl"
    events.write_text(json.dumps({"setup": {"players": players}}) + "\n")
    _refused(_cli("run", "--journal", str(tmp_path / "k.sqlite"), "--events", str(events)), f"{events}:1", words)
    _refused(_cli("run", "--journal", str(tmp_path / "k.sqlite"), "--events", "/dev/null", "--players",
                  ",".join(players)), words)
    table = tmp_path / "table.toml"
    table.write_text((ROOT / "hardware/tables/simulated.toml").read_text().replace(
        "[table]\n", f"[table]\nplayers = {json.dumps(players)}\n", 1))
    _refused(_cli("run", str(table), "--journal", str(tmp_path / "t.sqlite"), "--events", "/dev/null"))


def test_a_name_in_nfd_is_the_same_name_in_nfc() -> None:
    """A setup from a phone or a Mac spells "José" as an "e" and a combining accent (NFD): every door
    reads it in NFC, so the state, the record and the hub's venue file all say the same "José"."""
    from firmware_host.referee.transcript import Setup, parse_line, setup_from_json

    line = parse_line(json.dumps({"setup": {"players": ["Jose\u0301", "Bob"]}}), source="x", line_no=1)
    assert isinstance(line, Setup) and line.players == ("Jos\u00e9", "Bob")
    assert setup_from_json({"players": ["Bob", "Jose\u0301"]}).players == ("Bob", "Jos\u00e9")
