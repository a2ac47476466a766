"""A table file with problems, read by a person: ``doctor --language es`` and a refused ``run`` say every
problem in the reader's language (``--language``, else the language the file names, else ``LANG``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from catalogue.english import english_words
from hardware.table_config import BUTTON_KEYS

BAD = '[table]\nlanguage = "{lang}"\nlayout = "ful"\ntarget = "5"\n\n[pads]\nturnpu = "sim"\n'


@pytest.fixture(autouse=True)
def _no_language_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(key, raising=False)


def _file(tmp_path: Path, lang: str) -> Path:
    path = tmp_path / "bad.toml"
    path.write_text(BAD.format(lang=lang), encoding="utf-8")
    return path


def test_doctor_says_the_problems_in_the_language_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import main

    path = _file(tmp_path, "en")
    assert main(["doctor", "--language", "es", str(path)]) == 1
    out = capsys.readouterr().out
    assert "table.layout: valor 'ful' desconocido para layout: ¿quería decir 'full'?" in out
    assert "table.target: debe ser un número entero, no un texto ('5'): escribir 5 sin comillas" in out
    assert "buttons.A: falta: el puesto A necesita sus pines yes, no, king y led" in out
    keys = re.sub(r"\b\w+(?:\.\w+)+:", "", out.replace(str(path), ""))  # a key is the file's, as typed
    assert english_words(keys) - set(BUTTON_KEYS) == set(), out


@pytest.mark.parametrize(("lang", "said"), [
    ("fr", "bad.toml : 6 problèmes :\n  table.layout: valeur 'ful' inconnue pour layout : vouliez-vous dire 'full' ?"),
    ("de", "bad.toml: 6 Probleme:\n  table.layout: unbekannter Wert 'ful' für layout: meintest du 'full'?"),
    ("en", "bad.toml: 6 problems:\n  table.layout: unknown layout 'ful': did you mean 'full'?"),
])
def test_a_refused_run_says_the_problems_in_the_tables_language(
        lang: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import main

    path = _file(tmp_path, lang)
    assert main(["run", str(path), "--journal", str(tmp_path / "j.sqlite")]) == 2
    err = capsys.readouterr().err
    assert said in err, err
    assert "Traceback" not in err


def test_a_refused_run_takes_lang_where_the_file_names_no_language(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from cli.main import main

    path = tmp_path / "bad.toml"
    path.write_text('[table]\nlanguage = "tlh"\n', encoding="utf-8")
    monkeypatch.setenv("LANG", "it_IT.UTF-8")
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert "bad.toml: 6 problemi:\n  table.language: valore 'tlh' sconosciuto per language: atteso uno fra" in err, err
    assert "mancante: il tavolo ha bisogno di una sezione [pads]" in err


def test_a_broken_tag_registry_is_said_in_the_language_asked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import main

    registry = tmp_path / "tags.json"
    registry.write_text('{"format": "ecarte-tags", "version": 2, "tags": [{"uid": "zz", "card": "KS"}]}',
                        encoding="utf-8")
    assert main(["deck", "--language", "fr", "--registry", str(registry)]) == 2
    err = capsys.readouterr().err
    assert (f"registre des puces {registry} : {registry}: tags[0]: pas un UID de puce (4, 7 ou 10 octets en "
            "hexadécimal) : 'zz'") in err, err


def test_a_run_doctor_refuses_is_refused_in_the_tables_language(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A table file that loads but fails doctor's check of its configuration (deck_check_first without a
    registry): the refusal and doctor's line in the table's language."""
    from cli.main import main
    from hardware.table import shipped_table_path

    text = shipped_table_path("simulated").read_text(encoding="utf-8")
    path = tmp_path / "table.toml"
    path.write_text(text.replace("[table]\n", '[table]\nlanguage = "es"\n', 1)
                    .replace("[tags]\n", "[tags]\ndeck_check_first = true\n", 1), encoding="utf-8")
    assert main(["run", str(path), "--journal", str(tmp_path / "j.sqlite")]) == 2
    err = capsys.readouterr().err
    assert "la configuración de la mesa no pasa `ecarte-table doctor`:\n[FALLO] " in err, err
    assert "deck_check_first necesita un registro de etiquetas" in err, err


def test_a_pad_the_table_does_not_have_is_said_in_the_language_asked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import main

    registry = tmp_path / "tags.json"
    registry.write_text('{"format": "ecarte-tags", "version": 2, "tags": []}', encoding="utf-8")
    assert main(["deck", "--language", "es", "--registry", str(registry), "--pad", "play.a"]) == 2
    assert "--pad: tapete `play.a` desconocido: ¿quería decir `play.A`?" in capsys.readouterr().err
