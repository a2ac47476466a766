"""A table file's ``[web]`` and ``[mqtt]`` sections and the hub's venue file: every problem provoked, said in
each language with no English word left (the keys and the values quoted stay as typed)."""

from __future__ import annotations

from pathlib import Path

import pytest

import catalogue
from catalogue import LANGUAGES
from catalogue.phrase import Phrase
from catalogue.phrase import said as said_in
from hardware.table_checks import Problem
from tests.hardware.test_table_words import english_left, msgids, words_of
from venue.hub.hub_settings import INSTALL, load_hub_settings
from venue.settings import SettingsError, load_sections, parse_sections

MORE_ENGLISH = {"room", "known", "folder", "topic", "level", "installed", "runs", "venue", "running", "given",
                "seconds"}
"""The venue's English words beside the table file's (``hub``, ``broker``, ``root``: the same in every language)."""

VENUE_FILES = [
    '[hub]\nlisten = "x:99999"\ncolour = 1\nstate = 5\n[broker]\nmode = "x"\nvenue = "a/b"\n'
    '[tables]\nnames = ["ecarte-hub", "a b"]\nreaders = 5\nbridges = 5\nanonymous_read = 2\ncolour = 1\n'
    '[session]\nplayers = ["A", "A", "B\\u0007"]\ncycles = 0\nsystem = "ko"\nrounds = -1\ncolour = 1\n',
    '[hub]\nlisten = "x:y"\n[broker]\nhost = "h"\nlisten = "z:99999"\ntls_listen = "x"\n[tables]\nnames = ["a", "a"]\n',
    '[broker]\nhost = "h"\ntls_listen = "x:w"\ncertfile = "c"\nkeyfile = "k"\n[session]\nplayers = 5\n',
    "hub = 5\n", "[hub\n",
]
"""Venue files with problems (the hub's own Mosquitto wanted or not)."""


def _found(error: SettingsError) -> tuple[Problem, ...]:
    assert error.found
    return error.found


def _provoked(tmp_path: Path) -> list[Problem | Phrase]:
    found: list[Problem | Phrase] = []
    for text in VENUE_FILES:
        path = tmp_path / "venue.toml"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(SettingsError) as info:
            load_hub_settings(path)
        found += _found(info.value)
    for sections in ({"web": {"listen": "x:99999", "reveal_delay": -1, "token_file": str(tmp_path / "none")},
                      "mqtt": {"venue": "a/b", "port": "x", "keepalive": 0}},):
        with pytest.raises(SettingsError) as info:
            parse_sections(sections, table_name="T")
        found += _found(info.value)
    latin = tmp_path / "latin.toml"
    latin.write_bytes("[web]\nlisten = 'Écarté'".encode("latin-1"))
    for path in (latin, tmp_path / "none.toml"):
        with pytest.raises(SettingsError) as info:
            load_sections(path, table_name="T")
        found += _found(info.value)
    with pytest.raises(SettingsError) as info:
        load_hub_settings(None, broker="h:x")
    found += _found(info.value)
    found.append(Phrase.of("hub.no_mosquitto", install=INSTALL))  # said where Mosquitto is not installed
    return found


@pytest.fixture(scope="module")
def provoked(tmp_path_factory: pytest.TempPathFactory) -> list[Problem | Phrase]:
    return _provoked(tmp_path_factory.mktemp("venue"))


def test_every_problem_is_provoked(provoked: list[Problem | Phrase]) -> None:
    said = {msgid for problem in provoked for msgid in msgids(problem.words if isinstance(problem, Problem)
                                                               else problem)}
    words = {msgid for msgid in catalogue.ids() if msgid.startswith(("settings.", "hub."))}
    assert words - said == set()


def _left(lang: str, text: str) -> set[str]:
    return english_left(lang, text) | {word for word in text.split() if word in MORE_ENGLISH}


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_problem_is_said_without_english(lang: str, provoked: list[Problem | Phrase]) -> None:
    left = {words_of(problem, lang): _left(lang, words_of(problem, lang)) for problem in provoked}
    assert {text: words for text, words in left.items() if words} == {}
    assert all(_left("en", words_of(problem, "en")) for problem in provoked)  # the check sees English


def test_the_english_is_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "venue.toml"
    path.write_text('[broker]\nhost = "h"\n[session]\nsystem = "knockout"\ncycles = 0\n', encoding="utf-8")
    with pytest.raises(SettingsError) as info:
        load_hub_settings(path)
    assert str(info.value) == (f"{path}: session.cycles: expected a number from 1 to 100; "
                               "session.system: one of round-robin, swiss, got 'knockout'")
    assert said_in(info.value, "es") == (f"{path}: session.cycles: se esperaba un número de 1 a 100; "
                                     "session.system: uno de round-robin, swiss, recibido 'knockout'")


def test_a_broker_problem_of_the_venue_file_is_listed_under_its_key(tmp_path: Path) -> None:
    """The hub reads its ``[broker]`` as a table's ``[mqtt]``: each problem found there is listed again under
    the venue file's own key (``broker.port``), with its words."""
    path = tmp_path / "venue.toml"
    path.write_text('[broker]\nhost = "h"\nport = "x"\n', encoding="utf-8")
    with pytest.raises(SettingsError) as info:
        load_hub_settings(path)
    assert [problem.key for problem in info.value.found] == ["broker.port"]
    assert str(info.value).startswith(f"{path}: broker.port: ")
