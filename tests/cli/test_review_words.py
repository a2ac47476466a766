"""The review names every hand, in words a club player reads; the figures under ``--detail``.

The default demo's journal (seed 1, pads read 2 deep) has hands the pads did not fully see; the
review used to leave them out without a word, and ``--hand 2`` said there was no hand 2."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


@pytest.fixture(scope="module")
def demo_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    journal = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    done = cli("demo", "--seed", "1", "--delay", "0", "--journal", str(journal))
    assert done.returncode == 0, done.stderr
    return journal


FIGURES = re.compile(r"\(point \d|±|\[-?\d+ pt\]|jeu de règle \d|vole \d+\.\d%")


def test_the_review_lists_every_hand_and_names_those_it_cannot_review(demo_journal: Path) -> None:
    history = cli("history", "--journal", str(demo_journal), "--json")
    hands = int(re.search(r'"hands": (\d+)', history.stdout).group(1))  # type: ignore[union-attr]
    done = cli("review", "--journal", str(demo_journal), "--samples", "30")
    assert done.returncode == 0, done.stderr
    headers = [line for line in done.stdout.splitlines() if line.startswith("game 1 hand ")]
    assert [int(line.split()[3].rstrip(":")) for line in headers] == list(range(1, hands + 1))
    skipped = [line for line in headers if "not reviewed" in line]
    assert skipped, "seed 1 at depth 2 has hands whose deal the pads did not fully see"
    for line in skipped:
        assert re.search(r"the pads saw only \d of [AB]'s five dealt cards \(", line), line
        assert "the coach cannot rebuild the deal" in line
    number = skipped[0].split()[3].rstrip(":")
    one = cli("review", "--journal", str(demo_journal), "--samples", "30", "--hand", number)
    assert one.returncode == 0 and one.stdout == skipped[0] + "\n", one.stderr
    missing = cli("review", "--journal", str(demo_journal), "--hand", "99")
    assert missing.returncode == 2 and "its hands: 1, 2, 3" in missing.stderr


SAW = {"fr": r"les tapis ont vu seulement \d des cinq cartes données à [AB] \(",
       "es": r"los tapetes vieron solo \d de las cinco cartas repartidas a [AB] \("}


@pytest.mark.parametrize(("lang", "saw"), SAW.items())
def test_a_hand_it_cannot_review_names_the_cards_seen_in_the_reviews_language(demo_journal: Path, lang: str,
                                                                              saw: str) -> None:
    """The reason names the cards the pads saw as the language's pack prints them (French R, D, V)."""
    from catalogue.english import english_words

    done = cli("review", "--journal", str(demo_journal), "--samples", "30", "--language", lang)
    assert done.returncode == 0, done.stderr
    heading = "partie 1 coup" if lang == "fr" else "partida 1 mano"  # coup: seed 001's word for a hand
    skipped = [line for line in done.stdout.splitlines() if line.startswith(heading) and ": " in line
               and re.search(saw, line)]
    assert skipped, done.stdout
    for line in skipped:
        cards = re.findall(r"\(([^)]*[♠♥♦♣][^)]*)\)", line)
        assert cards and all(re.fullmatch(r"(?:(?:10|[7-9]|[A-Z])[♠♥♦♣] ?)+", group) for group in cards), line
        assert english_words(line) == set(), line
    if lang == "fr":
        assert not re.search(r"\b[KQJ][♠♥♦♣]", done.stdout), "a French pack prints R, D, V"


def test_the_findings_are_words_by_default_and_figures_under_detail(demo_journal: Path) -> None:
    words = cli("review", "--journal", str(demo_journal), "--samples", "30").stdout
    detail = cli("review", "--journal", str(demo_journal), "--samples", "30", "--detail").stdout
    assert not FIGURES.search(words), FIGURES.search(words)
    assert ("would win the point" in words and "on average" in words) or "about the same" in words
    assert "the classical rules of thumb (the jeu de règle)" in words
    assert FIGURES.search(detail) and "(point " in detail and "±" in detail
    # the same hands, findings and order: only the wording differs
    count = re.compile(r"^game 1 hand \d+.*?(\d+ finding\(s\)|nothing to say|not reviewed)", re.MULTILINE)
    assert count.findall(words) == count.findall(detail)


def test_history_says_d_autorite_in_words(demo_journal: Path) -> None:
    words = cli("history", "--journal", str(demo_journal), "--players").stdout
    detail = cli("history", "--journal", str(demo_journal), "--players", "--detail").stdout
    assert "punished" not in words and "stood without proposing, or refused the first proposal" in words
    assert "punished" in detail and "d'autorité" in detail
