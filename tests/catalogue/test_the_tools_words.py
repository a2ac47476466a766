"""The installer's and the bench's commands speak the table's language too: ``doctor``, ``enroll``,
``deck`` and ``sim`` under ``--language`` print no English word of the game (:data:`catalogue.english.ENGLISH`).

What stays as it is in every language is taken out before looking: a command to type (in
backquotes, or ``ecarte-table ...``), a line the player typed (quoted back to them), a pad's name in
the table file (``hand.A``), a file's path, a card's code as the registry and the flags write it
(``QH``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import catalogue
import catalogue.phrase
from catalogue.english import english_words

ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPTS = ROOT / "tests" / "transcripts"
AS_TYPED = re.compile(r"`[^`]*`|ecarte-table \w+(?: --[\w-]+(?: \S+)?)*|\b(?:hand|play)\.[AB]\b|\bturnup\b|\bdiscard\b")
"""A command, a pad's name: the command line's and the table file's words."""

TYPED = ["deal", "B no", "help", "nonsense", "A play KS", "A plays ZZ", "A plays KS", "A plays KS",
         "play.A KS gone", "play.A KS gone", "B plays 9C", "A yes"]
"""Typed at the bench: a deal, a stand, the help, lines it cannot read, a card laid twice and lifted
twice, a card out of turn, a button that means nothing now."""


def _cli(*args: str, state: Path, stdin: str = "", codes: tuple[int, ...] = (0,)) -> str:
    done = subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True, text=True,
                          input=stdin, timeout=600, cwd=ROOT, env={**os.environ, "XDG_STATE_HOME": str(state)})
    assert done.returncode in codes, done.stdout + done.stderr
    return done.stdout


def _read(text: str, typed: list[str] = TYPED) -> str:
    """What a player reads in ``text``, what stays as typed taken out."""
    for line in typed:
        text = text.replace(repr(line), " ")
    return AS_TYPED.sub(" ", text)


@pytest.mark.parametrize("lang", ["es", "fr", "en"])
def test_doctor_enroll_and_deck_say_no_english_word(lang: str, tmp_path: Path) -> None:
    """The simulated pack enrolled, checked whole, then checked with a card left out and a clone
    passed (the clone caught); the doctor before and after."""
    read = _cli("doctor", "--language", lang, state=tmp_path)
    read += _cli("enroll", "--language", lang, state=tmp_path)
    short = _cli("deck", "--language", lang, "--drop", "7C", "--clone", "QH", state=tmp_path, codes=(1,))
    read += short + _cli("deck", "--language", lang, state=tmp_path)
    read += _cli("doctor", "--language", lang, state=tmp_path)
    # the verdict in words ("No auténtica: Q♥ (QH): no dio ninguna firma"), not its code
    fake = catalogue.say(lang, "deck.console_fake", code="QH", card="D♥" if lang == "fr" else "Q♥",
                         why=catalogue.say(lang, "origin.no_signature"))
    assert fake in short and catalogue.say(lang, "deck.console_missing", cards="7♣") in short
    assert catalogue.say(lang, "doctor.all_passed") in read
    if lang == "en":
        assert {"the", "not", "of"} <= english_words(_read(read))  # the check sees English where it is
    else:
        assert english_words(_read(read)) == set(), read


@pytest.mark.parametrize("lang", ["es", "fr", "en"])
def test_sim_says_no_english_word(lang: str, tmp_path: Path) -> None:
    """The bench's typed lines, then whole transcripts (faults of every kind, the point offered, a
    penalty of the italian rules): every line the bench prints, the help and the OLED's frames."""
    journal = tmp_path / "sim.sqlite"
    read = _cli("sim", "--language", lang, "--dealer", "A", "--seed", "4", "--journal", str(journal),
                state=tmp_path, stdin="\n".join(TYPED) + "\nquit\n", codes=(2,))
    assert catalogue.say(lang, "sim.holds", seat="A", cards="").strip() in read
    assert catalogue.say(lang, "sim.bid.stand", seat="B") in read
    for name in ("classic_faults", "classic_offer_point", "italian_penalties"):
        read += _cli("sim", "--language", lang, "--journal", str(tmp_path / f"{name}.sqlite"), state=tmp_path,
                     stdin=(TRANSCRIPTS / f"{name}.jsonl").read_text(), codes=(0, 2))
    assert catalogue.say(lang, "sim.fault", what="").strip() in read  # a fault said
    assert catalogue.say(lang, "sim.penalty", seat="A", n=-1, why="").split("(")[0] in read
    if lang == "en":
        assert {"the", "hand", "trick", "plays"} <= english_words(_read(read))
    else:
        assert english_words(_read(read)) == set(), read


# -- run's console: what it logs at INFO and above, in the table's language ----------------------------

RUN_CONSOLE = ("firmware_host/service.py", "firmware_host/screens/panel.py", "firmware_host/voice/speech.py",
               "firmware_host/voice/voice_parts.py", "firmware_host/cards/table_tags.py",
               "firmware_host/cards/enrolment.py", "firmware_host/referee/pack_guard.py",
               "firmware_host/journal/store_lock.py", "firmware_host/journal/store_salvage.py",
               "firmware_host/app.py", "firmware_host/outputs.py", "firmware_host/feeder.py")
"""The modules whose log lines ``run``'s console prints: the service, the OLED, the voice, the tags, the
pack chosen, the journal's seal and salvage, the root and its outputs."""

CONSOLE_WORDS = ("journal.cannot_write", "log.stopping_lost", "log.game_written_next", "log.events_again",
                 "log.journal_waits", "log.journal_waits_full", "log.seal", "log.salvaged", "log.display_failed",
                 "log.display_left_out", "log.voice_failed", "log.no_earpiece", "log.no_voice", "log.pack_chosen",
                 "log.tag_not_genuine", "log.badge_not_genuine", "log.no_cards_enrolled", "log.output_failed",
                 "log.json_reader_gone", "log.reading", "run.where_it_stands", "run.full_sight",
                 "run.full_sight_unnamed")
"""The messages of those lines (and of run's own lines to standard error: where the game stands when the
input ends, a transcript at full sight on pads that read partial sight)."""

LEVELS = {"info", "warning", "error", "critical", "exception"}


def unworded_log_lines(path: Path, root: Path = ROOT) -> list[str]:
    """The ``logger.info/warning/error…`` calls of ``path`` that give the console no words (no ``extra=``:
    their English reaches a console in any language)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{path.relative_to(root)}:{node.lineno}" for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in LEVELS
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "logger"
            and not any(keyword.arg == "extra" for keyword in node.keywords)]


def test_runs_console_lines_at_info_and_above_carry_their_words() -> None:
    assert [line for module in RUN_CONSOLE for line in unworded_log_lines(ROOT / module)] == []


def test_the_unworded_line_check_can_fail(tmp_path: Path) -> None:
    module = tmp_path / "unworded.py"
    module.write_text('logger.warning("voice: %s", exc)\nlogger.info("x", extra=logged(p))\nlogger.debug("y")\n')
    assert unworded_log_lines(module, tmp_path) == ["unworded.py:1"]


def _english_left(lang: str, msgid: str, said: str) -> set[str]:
    """The words of ``msgid``'s English (three letters or more, its placeholders aside) left in ``said``
    that ``lang``'s own words for it do not have (a word both share, ``table``, ``service``, is not English)."""
    def words(text: str) -> set[str]:
        kept = re.sub(r"\{\w+\}|`[^`]*`|\[[^]]*\]|\S*/\S*", " ", text)  # values, commands, keys, paths
        return {w.lower() for w in re.findall(r"[^\W\d_]{3,}", kept)}

    english = catalogue.template_n("en", msgid, 2) if catalogue.is_plural(msgid) else catalogue.template("en", msgid)
    own = catalogue.template_n(lang, msgid, 2) if catalogue.is_plural(msgid) else catalogue.template(lang, msgid)
    return (words(english) - words(own)) & words(said)


@pytest.mark.parametrize("lang", [lang for lang in catalogue.LANGUAGES if lang != "en"])
@pytest.mark.parametrize("msgid", CONSOLE_WORDS)
def test_runs_console_words_are_the_languages_own(lang: str, msgid: str) -> None:
    """Each message in ``lang`` has words of its own (no English word of it left); the game's English
    words (:data:`catalogue.english.ENGLISH`) none either."""
    said = catalogue.template_n(lang, msgid, 2) if catalogue.is_plural(msgid) else catalogue.template(lang, msgid)
    english = catalogue.template_n("en", msgid, 2) if catalogue.is_plural(msgid) else catalogue.template("en", msgid)
    words = {w for w in re.findall(r"[a-z]{3,}", english.lower())} - {"table", "service", "journal", "voice"}
    assert not words or said != english, said
    assert english_words(_read(re.sub(r"\{\w+\}|\[[^]]*\]", " ", said))) == set(), said


def _said(lang: str, caplog: pytest.LogCaptureFixture, logger: str, level: int) -> str:
    """The line ``logger`` logged at ``level`` as a console in ``lang`` prints it."""
    from catalogue.phrase import SaidFormatter

    record = next(r for r in caplog.records if r.name == logger and r.levelno == level)
    return SaidFormatter(lang).format(record)


@pytest.mark.parametrize("lang", catalogue.LANGUAGES)
def test_a_display_that_fails_is_said_in_the_consoles_language(lang: str, caplog: pytest.LogCaptureFixture) -> None:
    """A display unplugged mid-game: its error (``display sh1106: [Errno 5] Input/output error``) was
    printed as the driver's English in every language."""
    import errno
    import logging

    from drivers.display.i2c_sim import FakeI2CBus
    from drivers.display.oled import open_display
    from firmware_host.referee.controller import Controller
    from firmware_host.referee.transcript import Setup
    from firmware_host.screens.panel import Panel

    table = Controller()
    table.handle(Setup(rules="classic", dealer="B", players=("Marguerite", "Jean")))
    bus = FakeI2CBus("sh1106")
    with caplog.at_level(logging.INFO, logger="firmware_host.screens.panel"), \
            Panel([open_display("sh1106", bus=bus)]) as panel:
        bus.fail(None, errno.EIO)
        panel.show(table.snapshot())
    said = _said(lang, caplog, "firmware_host.screens.panel", logging.WARNING)
    why = catalogue.say(lang, "os.EIO")
    assert said == "WARNING firmware_host.screens.panel: " + catalogue.say(lang, "log.display_failed", chip="sh1106",
                                                                           why=why)
    if lang != "en":
        assert _english_left(lang, "log.display_failed", said.split(": ", 1)[1]) == set() and "Errno" not in said, said


@pytest.mark.parametrize("lang", catalogue.LANGUAGES)
def test_the_pack_a_game_is_played_with_is_said_in_the_consoles_language(
        lang: str, caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from drivers.device_events import Origin, Sighting
    from firmware_host.referee.pack_guard import PackGuard

    with caplog.at_level(logging.INFO, logger="firmware_host.referee.pack_guard"):
        PackGuard().chooses(Sighting("04ECA702075A80", "KS", Origin.GENUINE, pack=2), arriving=True, pack=None)
    said = _said(lang, caplog, "firmware_host.referee.pack_guard", logging.INFO)
    assert said == catalogue.say(lang, "log.pack_chosen", pack="2", uid="04ECA702075A80")
    if lang != "en":
        assert _english_left(lang, "log.pack_chosen", said) == set(), said


@pytest.mark.allow_error_log  # the line under test is an ERROR
@pytest.mark.parametrize("lang", catalogue.LANGUAGES)
def test_a_table_waiting_for_its_cards_says_so_in_the_consoles_language(
        lang: str, caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    """A real table with no tag registry yet: what to do, once, at ERROR (systemd's status shows it)."""
    import dataclasses
    import logging
    import threading

    from drivers.display.i2c_sim import FakeI2CBus
    from drivers.display.oled import open_display
    from firmware_host.cards.enrolment import wait_for_enrolment
    from firmware_host.screens.panel import Panel
    from hardware.table import simulated_table

    table = dataclasses.replace(simulated_table(), registry=tmp_path / "tags.json")
    stopped = threading.Event()
    stopped.set()  # a stop already asked: the wait returns at once
    with caplog.at_level(logging.INFO, logger="firmware_host.cards.enrolment"), \
            Panel([open_display("sh1106", bus=FakeI2CBus("sh1106"))]) as panel:
        assert wait_for_enrolment(table, panel, None, stopped) == 0
    said = _said(lang, caplog, "firmware_host.cards.enrolment", logging.ERROR)
    assert said.startswith("ERROR firmware_host.cards.enrolment: ") and str(tmp_path / "tags.json") in said
    assert "sudo systemctl stop ecarte-table" in said and "enroll /etc/ecarte-table/table.toml --pack 1" in said
    if lang != "en":
        assert _english_left(lang, "log.no_cards_enrolled", said.split(": ", 1)[1]) == set(), said


@pytest.mark.parametrize("lang", catalogue.LANGUAGES)
def test_a_full_disk_is_said_in_the_consoles_language(lang: str) -> None:
    """The journal's write error was SQLite's English (``database or disk is full``) in every language."""
    import sqlite3

    from firmware_host.journal.store_errors import write_words
    from firmware_host.journal.store_transaction import write_error

    error = sqlite3.OperationalError("database or disk is full")
    error.sqlite_errorcode = sqlite3.SQLITE_FULL  # type: ignore[attr-defined]
    exc = write_error("/var/lib/ecarte-table/journal.sqlite", error)
    said = catalogue.phrase.said(write_words(exc), lang)
    assert exc.full and said == catalogue.say(lang, "journal.cannot_write", path="/var/lib/ecarte-table/journal.sqlite",
                                             why=catalogue.say(lang, "os.ENOSPC"))
    if lang != "en":
        assert "database" not in said and _english_left(lang, "journal.cannot_write", said) == set(), said


@pytest.mark.parametrize(("lang", "head"), [("fr", "ecarte-table history : "), ("en", "ecarte-table history: "),
                                            ("de", "ecarte-table history: ")])
def test_a_refusal_is_headed_as_the_language_writes_a_colon(lang: str, head: str, tmp_path: Path) -> None:
    """French puts a space before the colon: the refusal's head was ``ecarte-table history:`` in every
    language."""
    done = subprocess.run([sys.executable, "-m", "cli.main", "--language", lang, "history", "--journal",
                           str(tmp_path / "none" / "journal.sqlite")], capture_output=True, text=True, timeout=600,
                          cwd=ROOT)
    assert done.returncode == 2 and done.stderr.startswith(head), done.stderr


@pytest.mark.parametrize("lang", [lang for lang in catalogue.LANGUAGES if lang != "en"])
def test_run_says_where_the_game_stands_in_the_consoles_language(lang: str, tmp_path: Path) -> None:
    """``run --events`` ending mid-game said where it stands in English whatever ``--language`` said
    ("the input ended in game 1, hand 2 (deal)…"), and so did the line on a transcript at full sight."""
    half = tmp_path / "half.jsonl"
    half.write_text("".join((TRANSCRIPTS / "classic_offer_point.jsonl").read_text().splitlines(True)[:20]))
    journal = tmp_path / "j.sqlite"
    done = subprocess.run([sys.executable, "-m", "cli.main", "--language", lang, "run", "--journal", str(journal),
                           "--events", str(half)], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    head = catalogue.say(lang, "cli.refused", program="ecarte-table run", why="")
    lines = [line.removeprefix(head) for line in done.stderr.splitlines() if line.startswith(head)]
    where = catalogue.say(lang, "run.where_it_stands", game=1, hand=2, phase=catalogue.say(lang, "phase.deal"),
                          a="A", score_a=2, b="B", score_b=0, waits="", journal=str(journal))
    stands = [line for line in lines if line.startswith(where.split("(")[0])]
    assert len(stands) == 1, done.stderr
    assert _english_left(lang, "run.where_it_stands", stands[0]) == set(), stands[0]
    sight = [line for line in lines if _english_left(lang, "run.full_sight_unnamed", line) == set()
             and line.startswith(f"{half}:4")]
    assert len(sight) == 1, done.stderr
