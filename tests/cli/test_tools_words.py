"""Each tool's refusals in the language asked: ``--language`` before the command (French here) or
``LANG`` (Spanish), the system's reason in words with its path ("no existe tal archivo o carpeta"),
never strerror's English; exit 2 (``chips`` with no host: 1), one line, no traceback."""

from __future__ import annotations

import errno
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG_S

from catalogue import say, say_n
from catalogue.english import english_words
from catalogue.phrase import Phrase
from catalogue.phrase import said as said_in
from firmware_host.errors import BadInput, os_reason
from hardware.table import simulated_table
from hardware.table_checks import unknown

ROOT = Path(__file__).resolve().parents[2]
AS_TYPED = re.compile(r"`[^`]*`|ecarte-table \w+|(?<![\w/])/[\w./*~-]+|\b[\w.-]+\.(?:jsonl|json|toml|sqlite)\b"
                      r"|\b(?:turnup|discard)\b|(?<![:\w])[A-Z][A-Z0-9_]+\b|\{[\w,]+\}|--[\w-]+"
                      r"|\b(?:player|rules|option|target):[^\s']+")
"""A command, a path, a pad's name in the table file, a metavar, a set of choices, an option, a badge as
typed: the command line's, the file system's and the table file's words in every language."""
LANGS = {"fr": ("--language", "fr"), "es": ()}
"""French asked on the line, Spanish by ``LANG`` (the ``es`` run's environment)."""
NOWHERE = Path("/nonexistent/ecarte")


def _cli(lang: str, *args: str, state: Path, codes: tuple[int, ...] = (2,)) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    env.update(XDG_STATE_HOME=str(state), LANG="es_ES.UTF-8" if lang == "es" else "C.UTF-8")
    done = subprocess.run([sys.executable, "-m", "cli.main", *LANGS[lang], *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=HANG_S, check=False)
    assert done.returncode in codes, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    return done.stderr + done.stdout


def _no_english(text: str) -> None:
    assert english_words(AS_TYPED.sub(" ", text)) == set(), text


def _enoent(lang: str) -> str:
    return os_reason(lang, FileNotFoundError(errno.ENOENT, "No such file or directory"))


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A journal of one game begun (a king shown), no hand of it over."""
    path = tmp_path_factory.mktemp("journal") / "journal.sqlite"
    done = subprocess.run([sys.executable, "-m", "cli.main", "run", "--journal", str(path), "--events", "-"],
                          input='{"seat": "A", "button": "king"}\n', capture_output=True, text=True, cwd=ROOT,
                          timeout=HANG_S, check=False)
    assert done.returncode == 0, done.stderr
    return path


@pytest.mark.parametrize("lang", LANGS)
def test_the_journal_tools_refuse_in_the_language_asked(lang: str, tmp_path: Path, journal: Path) -> None:
    missing = NOWHERE / "j.sqlite"
    read = _cli(lang, "export", "--journal", str(missing), state=tmp_path)
    assert say(lang, "error.no_journal", path=missing) in read
    out = _cli(lang, "export", "--journal", str(journal), "-o", str(NOWHERE / "x.jsonl"), state=tmp_path)
    assert say(lang, "error.cannot_write", path=NOWHERE / "x.jsonl", reason=_enoent(lang)) in out
    read += out
    out = _cli(lang, "export", "--journal", str(journal), "--game", "7", state=tmp_path)
    assert say(lang, "error.no_such_game", game=7, path=journal) in out
    read += out
    out = _cli(lang, "review", "--journal", str(journal), "--hand", "9", "--samples", "10", state=tmp_path)
    assert said_in(BadInput(msgid="error.no_such_hand", game=1, path=journal, hand=9, hands="-"), lang) in out
    read += out
    read += _cli(lang, "journal", "status", "--journal", str(missing), state=tmp_path)
    out = _cli(lang, "journal", "check", "--journal", str(journal), state=tmp_path, codes=(0,))
    assert out.strip() == say_n(lang, "journal.whole", 1, path=journal)
    read += out + _cli(lang, "journal", "status", "--journal", str(journal), state=tmp_path, codes=(0,))
    read += _cli(lang, "replay", str(NOWHERE / "game.jsonl"), state=tmp_path)
    assert say(lang, "error.cannot_read", path=NOWHERE / "game.jsonl", reason=_enoent(lang)) in read
    _no_english(read)


@pytest.mark.parametrize("lang", LANGS)
def test_the_table_tools_refuse_in_the_language_asked(lang: str, tmp_path: Path) -> None:
    table = NOWHERE / "table.toml"
    read = _cli(lang, "run", str(table), "--journal", str(tmp_path / "j.sqlite"), state=tmp_path)
    assert say(lang, "error.table_file", path=table, reason=_enoent(lang)) in read
    out = _cli(lang, "deck", state=tmp_path)
    assert say(lang, "error.no_registry") in out
    read += out
    out = _cli(lang, "enroll", "--pad", "nosuch", "--registry", str(tmp_path / "tags.json"), state=tmp_path)
    pads = [pad.name for pad in simulated_table().pads]
    assert said_in(BadInput(msgid="error.option", option="--pad", why=unknown("pad", "nosuch", pads)), lang) in out
    read += out
    registry = Path("/proc/ecarte-nowhere/tags.json")
    out = _cli(lang, "enroll", "--registry", str(registry), state=tmp_path)
    assert said_in(BadInput(msgid="error.tag_registry", path=registry,
                            reason=Phrase.of("error.no_folder", folder=registry.parent)), lang) in out
    read += out
    afile = tmp_path / "afile"
    afile.write_text("x")
    out = _cli(lang, "run", "--journal", str(tmp_path / "j.sqlite"), "--events", "/dev/null", "--png", str(afile),
               state=tmp_path)
    assert say(lang, "error.png_not_a_folder", path=afile) in out
    read += out + _cli(lang, "run", "--journal", str(tmp_path / "j.sqlite"), "--events", str(NOWHERE / "x.jsonl"),
                       state=tmp_path)
    out = _cli(lang, "run", "--journal", str(tmp_path / "j.sqlite"), "--events", "/dev/null", "--web",
               "no-such-host.invalid:8080", state=tmp_path)  # a listen address no name answers to
    assert say(lang, "error.page_listen", address="no-such-host.invalid:8080",
               reason=say(lang, "os.EADDRNOTAVAIL")) in out
    _no_english(read + out.split("\n", 1)[-1])  # the log's start line is English, as every log


@pytest.mark.parametrize("lang", LANGS)
def test_the_bench_tools_refuse_in_the_language_asked(lang: str, tmp_path: Path) -> None:
    read = _cli(lang, "demo", "--rules", "bogus", "--frames", "none", state=tmp_path)
    assert say(lang, "error.unknown_rules", name="'bogus'", known="classic, french, german, italian") in read
    out = _cli(lang, "demo", "--delay", "-1", state=tmp_path)
    assert say(lang, "error.seconds_range", text="-1") in out  # an argument's type, inside argparse's words
    read += out + _cli(lang, "sim", "--rules", "bogus", state=tmp_path)
    read += _cli(lang, "deck", "--drop", "XX", state=tmp_path)
    read += _cli(lang, "chips", str(tmp_path), "--pads", ",", state=tmp_path)
    out = _cli(lang, "chips", str(tmp_path), "--ask", "{", state=tmp_path)
    assert say(lang, "error.not_json", line=1, column=2) in out
    read += out + _cli(lang, "chips", str(tmp_path), "--ask", "[]", state=tmp_path)
    out = _cli(lang, "chips", str(tmp_path / "none"), "--ask", "{}", state=tmp_path, codes=(1,))
    assert say(lang, "error.no_chip_host", directory=tmp_path / "none", reason="").split(":")[0] in out
    _no_english(read + out)


def test_the_check_sees_english_where_it_is(tmp_path: Path) -> None:
    read = _cli("es", "export", "--journal", str(NOWHERE / "j.sqlite"), state=tmp_path)
    english = subprocess.run([sys.executable, "-m", "cli.main", "export", "--journal", str(NOWHERE / "j.sqlite")],
                             capture_output=True, text=True, cwd=ROOT, timeout=HANG_S, check=False,
                             env={**os.environ, "LANG": "C.UTF-8", "LANGUAGE": ""}).stderr
    assert "no hay ningún diario" in read and english_words(AS_TYPED.sub(" ", english)) == {"at"}


@pytest.mark.parametrize("lang", LANGS)
def test_a_journal_in_use_is_said_in_the_language_asked(lang: str, tmp_path: Path) -> None:
    """A second service on a journal another holds: its process and since when, in words."""
    from firmware_host.journal.store import Journal

    path = tmp_path / "held.sqlite"
    with Journal(path, lock=True):
        said = _cli(lang, "run", "--journal", str(path), "--events", "/dev/null", state=tmp_path)
    who = say(lang, "journal.process", pid=os.getpid(), since="").strip()  # the time it began left out
    head = say(lang, "journal.busy", path=path, who="\0").split("\0")[0]
    assert said.startswith(say(lang, "cli.refused", program="ecarte-table run", why=f"{head}{who}")), said
    _no_english(said)


@pytest.mark.parametrize("lang", LANGS)
def test_a_badge_refused_or_enrolled_in_the_language_asked(lang: str, tmp_path: Path) -> None:
    """A badge that is none (``--badge target:x``) and one enrolled: its originality verdict in words
    ("auténtica"), never its code ("genuine")."""
    out = _cli(lang, "enroll", "--badge", "target:x", state=tmp_path)
    assert said_in(BadInput(msgid="error.option", option="--badge",
                            why=Phrase.of("badges.not_badge", tag="'target:x'",
                                          why="player:NAME, rules:NAME, option:NAME, target:N")), lang) in out
    enrolled = _cli(lang, "enroll", "--badge", "player:Ana", "--language", lang, state=tmp_path, codes=(0,))
    assert f"({say(lang, 'origin.genuine')})" in enrolled and "genuine" not in enrolled
    _no_english(out + enrolled)


@pytest.mark.parametrize("lang", LANGS)
def test_a_lock_secret_and_a_badges_file_refused_in_words(lang: str, tmp_path: Path) -> None:
    """``enroll --lock``'s secret and the badges file: the refusals the hardware words for a person."""
    from hardware.badges import Badges
    from hardware.locks import load_secret

    short, missing, folder = tmp_path / "short", tmp_path / "none", tmp_path / "badges.json"
    short.write_text("abc")
    short.chmod(0o600)
    folder.mkdir()
    said = []
    for refused in (lambda: load_secret(short), lambda: load_secret(missing), lambda: Badges.load(folder)):
        with pytest.raises(ValueError) as caught:
            refused()
        said.append(said_in(BadInput.of(caught.value), lang))
    assert said[0] == say_n(lang, "locks.short", 3, path=short, most=16)
    assert said[1] == say(lang, "locks.unreadable", path=missing, why=_enoent(lang))
    assert str(folder) in said[2] and say(lang, "badges.unreadable", reason=os_reason(
        lang, IsADirectoryError(errno.EISDIR, "Is a directory"))) in said[2]
    _no_english("\n".join(said))


def test_export_lists_the_games_as_history_does_in_the_language_asked(tmp_path: Path) -> None:
    """``export --list`` printed its list in English whatever was asked; it lists as ``history`` does."""
    journal = tmp_path / "played.sqlite"
    subprocess.run([sys.executable, "-m", "cli.main", "run", "--journal", str(journal), "--events",
                    str(ROOT / "tests" / "transcripts" / "classic_rubber.jsonl")], capture_output=True, cwd=ROOT,
                   timeout=HANG_S, check=True)
    listed = _cli("fr", "export", "--journal", str(journal), "--list", state=tmp_path, codes=(0,))
    history = _cli("fr", "history", "--journal", str(journal), state=tmp_path, codes=(0,))
    assert listed == history and listed.strip()
    _no_english(listed)


@pytest.mark.parametrize("lang", LANGS)
def test_replays_score_in_the_language_asked(lang: str, tmp_path: Path) -> None:
    """The score after a replay said the phase by its code ("(over)"); the events above it are the
    protocol's fields, in every language."""
    read = _cli(lang, "replay", str(ROOT / "tests" / "transcripts" / "classic_rubber.jsonl"), state=tmp_path,
                codes=(0,))
    last = read.splitlines()[-1]
    assert last == say(lang, "replay.score", a=last.split()[2], b=last.split()[5],
                       phase=say(lang, "phase.over")), last
    assert "over" not in last.split("(")[1]


@pytest.mark.parametrize("lang", LANGS)
def test_a_table_doctor_fails_is_refused_in_the_language_asked(lang: str, tmp_path: Path) -> None:
    """``run`` refuses a table whose configuration ``doctor`` fails (the deck check first, no registry):
    the refusal and doctor's own line in the language asked, not the table's (English)."""
    from firmware_host.checks.doctor import refusal
    from hardware.table import load_table

    table = tmp_path / "table.toml"
    table.write_text((ROOT / "hardware" / "tables" / "simulated.toml").read_text(encoding="utf-8").replace(
        "[tags]\n", "[tags]\ndeck_check_first = true\n"), encoding="utf-8")
    said = _cli(lang, "run", str(table), "--events", "/dev/null", "--journal", str(tmp_path / "j.sqlite"),
                state=tmp_path)
    refused = refusal(load_table(table), lang)
    why = say(lang, "error.doctor_fails", check=refused)
    assert refused and say(lang, "cli.refused", program="ecarte-table run", why=why) in said  # fr: 'run : '
    _no_english(said)
