"""``--help`` and a refused command line in the language asked: argparse's own words (``usage:``,
``options``, ``invalid choice``...) and every help text and description come from the catalogue;
the language is ``--language`` on the line, else ``LANGUAGE``/``LC_ALL``/``LC_MESSAGES``/``LANG``, else English."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG_S

import catalogue
from catalogue.english import english_words
from cli.main import _parser
from cli.words import _parsers, argparse_speaking, help_texts, language_asked

ROOT = Path(__file__).resolve().parents[2]
WIDTH = 80
AS_TYPED = re.compile(r"(?<![:\w])[A-Z][A-Z0-9_]+\b|--[\w-]+|\{[\w,]+\}|\b[\w-]+\.(?:txt|sqlite|json|toml)\b"
                      r"|\b(?:run|hub|demo|sim|replay|enroll|doctor|export|history|review|deck|journal|chips)\b")
"""A metavar (``GAME``, ``DIR``), an option, a set of choices, a file's name, a command: the command line's,
in every language."""


def _cli(*args: str, lang: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    return subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=HANG_S, env={**env, "LANG": lang, "COLUMNS": str(WIDTH)}, check=False)


def untranslated(parser: argparse.ArgumentParser) -> list[str]:
    """The help texts and descriptions of ``parser`` the catalogue does not hold."""
    return [text for text in help_texts(parser) if not catalogue.has(text)]


def test_every_help_text_is_a_message_of_the_catalogue() -> None:
    parser = _parser()
    assert len(help_texts(parser)) > 100
    assert untranslated(parser) == []


def test_the_check_finds_a_help_text_written_outside_the_catalogue() -> None:
    parser = _parser()
    parser.commands["review"].add_argument("--odds", help="the odds of each trick")  # type: ignore[attr-defined]
    assert untranslated(parser) == ["the odds of each trick"]


@pytest.mark.parametrize("lang", ["fr", "it", "de", "es"])
def test_every_help_in_each_language_fits_and_says_no_english_word(lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command's help (and the journal's actions'), formatted for an 80-column terminal (the
    journal's default path short, as argparse breaks a long one at its hyphens)."""
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    monkeypatch.setenv("XDG_STATE_HOME", "/var/lib")
    with argparse_speaking(lang):
        helps = [each.format_help() for each in _parsers(_parser(lang))]
    assert len(helps) == 17  # the command line, its 13 commands, the journal's 3 actions
    too_long = [line for text in helps for line in text.splitlines() if len(line) > WIDTH]
    assert too_long == []
    read = AS_TYPED.sub(" ", "\n".join(helps))
    assert english_words(read) == set(), read
    assert catalogue.template(lang, "show this help message and exit") in read
    # a value's placeholder in the language's word ("--game PARTIDA"), but DIR, FILE, N, which the texts name
    shown = "\n".join(helps)
    assert f"--game {catalogue.template(lang, 'metavar.GAME')}" in shown and "--game GAME" not in shown
    assert "--png DIR" in shown


def test_the_english_help_is_the_code_s() -> None:
    with argparse_speaking("en"):
        text = _parser("en").commands["review"].format_help()  # type: ignore[attr-defined]
    assert text.startswith("usage: ecarte-table review") and "show this help message and exit" in text
    assert {"the", "hand"} <= english_words(AS_TYPED.sub(" ", text))  # the check sees English where it is


def test_the_spanish_help_from_lang() -> None:
    done = _cli("--help", lang="es_ES.UTF-8")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("uso: ecarte-table")
    for words in ("argumentos posicionales", "opciones:", "mostrar esta ayuda y salir",
                  "el marcador de la sala", catalogue.template("es", "more logging (-vv: debug)")):
        assert words in done.stdout


def test_a_commands_help_in_french_from_lang() -> None:
    done = _cli("review", "--help", lang="fr_FR.UTF-8")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage : ecarte-table review")
    assert "afficher cette aide et quitter" in done.stdout
    assert "Passer en revue les coups d'une partie du journal" in done.stdout
    assert "la langue de la revue" in done.stdout


@pytest.mark.parametrize("lang, said", [
    ("fr_FR.UTF-8", "ecarte-table review : erreur : argument --language : choix invalide : 'xx'"),
    ("es_ES.UTF-8", "ecarte-table review: error: argumento --language: opción no válida: 'xx'"),
])
def test_an_argparse_error_in_the_language_of_lang(lang: str, said: str) -> None:
    done = _cli("review", "--language", "xx", lang=lang)
    assert done.returncode == 2
    assert said in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("lang, said", [
    ("fr_FR.UTF-8", "ces arguments sont obligatoires : COMMANDE"),
    ("es_ES.UTF-8", "faltan estos argumentos: ORDEN"),
])
def test_a_missing_command_in_the_language_of_lang(lang: str, said: str) -> None:
    done = _cli(lang=lang)
    assert done.returncode == 2 and said in done.stderr


def test_the_language_on_the_line_over_lang() -> None:
    done = _cli("--language", "fr", "demo", "--dpeth", "2", lang="es_ES.UTF-8")
    assert done.returncode == 2
    assert "arguments non reconnus : --dpeth 2 (vouliez-vous dire `--depth` pour `--dpeth` ?)" in done.stderr
    english = _cli("--help", lang="C.UTF-8")
    assert english.stdout.startswith("usage: ecarte-table") and "positional arguments" in english.stdout


@pytest.mark.parametrize("argv, env, lang", [
    (["--language", "fr", "review"], {"LANG": "es_ES.UTF-8"}, "fr"),
    (["review", "--language=de"], {}, "de"),
    (["review"], {"LANGUAGE": "it:fr", "LANG": "es_ES.UTF-8"}, "it"),
    (["review"], {"LC_ALL": "pt_BR.UTF-8", "LANG": "fr_FR.UTF-8"}, "en"),  # LC_ALL decides, as gettext's
    (["review"], {"LC_ALL": "C.UTF-8", "LANGUAGE": "", "LANG": "fr_FR.UTF-8"}, "en"),
    (["review"], {"LC_MESSAGES": "de_DE.UTF-8", "LANG": "fr_FR.UTF-8"}, "de"),
    (["review", "--language", "xx"], {"LANG": "C"}, "en"),
    (["export", "--", "--language", "fr"], {}, "en"),
])
def test_the_language_asked(argv: list[str], env: dict[str, str], lang: str) -> None:
    assert language_asked(argv, env) == lang
