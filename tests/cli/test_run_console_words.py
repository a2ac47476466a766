"""``ecarte-table run``: the lines its console logs for a player or a maker at INFO and above (the service's
start, its stop and why, the table paused, the pads' frames) in the language asked, no English word left;
a PN532 found at another rate is said in it too."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

import catalogue
from catalogue import LANGUAGES
from catalogue.phrase import Count, SaidFormatter
from hardware.layout import FULL_PADS
from tests.hardware.test_table_words import english_left
from tests.waiting import HANG_S

ROOT = Path(__file__).resolve().parents[2]
CONSOLE_ENGLISH = {"stopping", "paused", "resumes", "retried", "end", "input", "lines", "pads"}
"""The console's English words beside the game's (``service``, ``journal``, ``table``: French words too)."""


def _run_console(lang: str, tmp_path: Path) -> tuple[str, Path, Path]:
    """What ``ecarte-table --language LANG run`` on the simulated table writes to its console (stderr), fed
    an empty transcript (the service stops at its end); with the journal and the transcript."""
    events, journal = tmp_path / "events.txt", tmp_path / "journal.sqlite"
    events.write_text("")
    run = subprocess.run(
        [sys.executable, "-m", "cli.main", "--language", lang, "run", "--journal", str(journal),
         "--events", str(events)],
        cwd=ROOT, text=True, stdin=subprocess.DEVNULL, capture_output=True, timeout=HANG_S,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path)})
    assert run.returncode == 0, run.stderr
    return run.stderr, journal, events


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_the_services_console_speaks_the_language_asked(lang: str, tmp_path: Path) -> None:
    console, journal, events = _run_console(lang, tmp_path)
    lines = console.splitlines()
    pads = ", ".join(f"{pad}=sim" for pad in FULL_PADS)
    assert catalogue.say_n(lang, "log.service", 0, journal=str(journal), lines=0, table="Simulated table",
                           pads=pads) in lines
    end = catalogue.say(lang, "log.end_of", source=str(events))
    assert catalogue.say(lang, "log.stopping", reason=end) in lines
    assert catalogue.say(lang, "log.paused") in lines
    assert any(line.startswith(catalogue.say(lang, "log.pad_frames", pad="hand.A", frames="")) for line in lines)
    words = console.replace(str(journal), "").replace(str(events), "").replace("Simulated table", "")
    for pad in FULL_PADS:  # a pad's name is the table file's, as typed (`[pads] "hand.A"`)
        words = words.replace(pad, "")
    left = english_left(lang, words) | {word.strip(",:;()") for word in words.split()
                                        if word.strip(",:;()") in CONSOLE_ENGLISH}
    assert left == set(), console
    assert "INFO" not in console and "Traceback" not in console


def test_the_check_finds_the_english_console(tmp_path: Path) -> None:
    """In English the same lines are found English (the check can fail)."""
    console, _, _ = _run_console("en", tmp_path)
    assert "table service: journal " in console and "frames retried of" in console
    assert {word.strip(",:;()") for word in console.split()} & CONSOLE_ENGLISH


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_pn532_left_at_another_rate_is_said_in_the_consoles_language(
        lang: str, caplog: pytest.LogCaptureFixture) -> None:
    """The recovery's INFO line (``drivers.nfc.hsu``: the drivers know no catalogue, they give its words as
    data) as a console in ``lang`` prints it."""
    from drivers.nfc.pn532_reader import NfcpyReader
    from drivers.nfc.pn532sim import Pn532Simulator
    from tests.drivers.test_reader_restart import _killed_at_921600

    with caplog.at_level(logging.INFO, logger="drivers.nfc.hsu"), Pn532Simulator() as chip:
        _killed_at_921600(chip.path)
        NfcpyReader(chip.path).close()
    record = next(r for r in caplog.records if r.name == "drivers.nfc.hsu" and r.levelno == logging.INFO)
    said = SaidFormatter(lang).format(record)
    port = record.args[0] if isinstance(record.args, tuple) else ""
    rate, power_on = catalogue.phrase.said(Count(921600), lang), catalogue.phrase.said(Count(115200), lang)
    assert said == catalogue.say(lang, "log.pn532_left_at", port=port, rate=rate, power_on=power_on)
