"""The table file's problems in the reader's language: every problem a bad table file provokes, and every
problem of the files the table reads, is said in each language with no English word left (the values
it quotes, what the person typed, stay as typed)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import catalogue
from catalogue import LANGUAGES
from catalogue.english import english_words
from catalogue.phrase import Count, Phrase, said
from catalogue.phrase import said as said_in
from hardware.limits import FileProblem, load_json, name_words
from hardware.table import TableFileError, load_table, load_table_text
from hardware.table_checks import Problem, unknown
from tests.hardware.test_table import BAD_CASES, GOOD, edit

FILE_WORDS = frozenset(
    """
missing unknown needs need must between write without quotes expected did you mean device path number numbers
twice each characters printable blank text larger than valid string integer list quarter turns clockwise degrees
also every own reserved pick free uses which header physical sound speaker heard hear all give other earpiece
words loudness public digits whose carry printed many boards answer only shows where yours may hold letters
hyphens plain name names layout entry least empty address addresses different move jumper already faces both seat
another like got nested too stacked reads how run for on it its this but use to from by two one key pack
unsupported object seal lock limit wrong passwords find says forged swapped edited registered locked
""".split()  # noqa: SIM905
)
"""English words of the table file's problems (beside the game's, :data:`catalogue.english.ENGLISH`); words
English shares with a language the table speaks (``table``, ``file``, ``bus``, ``pin``, ``display``,
``driver``, ``port``, ``bytes``, ``control``, ``regular``, ``section``, ``minute``, ``a``, ``in``, ``or``)
are not among them."""

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def english_left(lang: str, text: str) -> set[str]:
    """The English words of ``text`` (a German noun is capitalised: there only a lowercase word counts; a key
    of a file, ``ndef_pack``, is as typed)."""
    text = re.sub(r"\w*_\w*", " ", text)
    found = english_words(text)
    for word in _WORD.findall(text):
        if word.lower() in FILE_WORDS and (word.islower() or lang != "de"):
            found.add(word.lower())
    return found


def typed(phrase: Phrase | Count | str) -> Iterator[str]:
    """The values a phrase quotes (names, paths, what was typed, what a parser said): data, not words."""
    if isinstance(phrase, Phrase):
        for _, value in phrase.values:
            yield from typed(value)
    elif isinstance(phrase, str):
        yield phrase


def msgids(phrase: Phrase | Count | str) -> Iterator[str]:
    if isinstance(phrase, Phrase):
        yield phrase.msgid
        for _, value in phrase.values:
            yield from msgids(value)


def words_of(problem: Problem | Phrase, lang: str) -> str:
    """The problem in ``lang`` without its key and the values it quotes."""
    phrase = problem.words if isinstance(problem, Problem) else problem
    assert isinstance(phrase, Phrase), problem
    text = said(phrase, lang)
    for value in sorted(typed(phrase), key=len, reverse=True):
        if value.strip():
            text = text.replace(str(value), " ")
    return text


def _set(text: str, section: str, line: str) -> str:
    """``text`` with ``line`` added at the top of ``[section]``."""
    return edit(text, f"[{section}]\n", f"[{section}]\n{line}\n")


DISPLAY = '\n[[displays]]\nbus = 1\naddress = 0x3D\nchip = "sh1106"\n'
PROVOKED: list[str] = [
    *(case.values[0] for case in BAD_CASES),  # type: ignore[misc]
    "", "[table\n", "table = 5\npads = 1\nbuttons = 2\n",
    edit(_set(GOOD, "table", 'players = ["Ann"]\ncolr = 1\nzzz = 2\nlocked = 1'), "Test table", "x" * 70),
    _set(GOOD, "table", 'players = ["A\\u0007n", "B"]\nlanguage = "eng"\nregistry = [1]\ncoach = "yes"'),
    edit(GOOD, "target = 5", 'target = 0\nsight = "half"\nhint = 2.5'),
    edit(GOOD, 'name = "Test table"', "name = { a = 1 }"), edit(GOOD, 'name = "Test table"', "name = true"),
    edit(GOOD, "target = 5", 'target = "five"'), edit(GOOD, "target = 5", 'target = "5"'),
    edit(GOOD, "target = 5", 'players = ["A" ,"' + "B" * 30 + '"]'),
    _set(GOOD, "pads", 'zzzz = "sim"'),
    edit(GOOD, '"tty:USB0:pn532"', '"tty:USB_0:pn532"'), edit(GOOD, '"tty:USB0:pn532"', '"tty:USB0"'),
    edit(GOOD, '"tty:USB0:pn532"', '"tty:USB0:acr122"'), edit(GOOD, '"tty:USB0:pn532"', '"usb:zz"'),
    edit(GOOD, '"tty:USB0:pn532"', '"ttyUSB0"'), edit(GOOD, '"tty:USB0:pn532"', '"simulator"'),
    edit(GOOD, '"tty:USB0:pn532"', '"nothing"'), edit(GOOD, '"tty:USB0:pn532"', "5"),
    edit(GOOD, '"tty:USB1:pn532"', '"tty:USB0:pn532"'),
    _set(GOOD, "buttons", 'debounce = 0.9\nbackend = "gpio"'), _set(GOOD, "buttons", 'debounce = "x"'),
    edit(GOOD, "[buttons.B]", "[buttons.C]"), edit(GOOD, "king = 13\n", ""), edit(GOOD, "yes = 5", "yes = 40"),
    edit(GOOD, "yes = 17", "yes = 5"), edit(GOOD, "yes = 5", "yes = 0"), edit(GOOD, "yes = 5", "yes = 2"),
    edit(edit(GOOD, "yes = 5", "yes = 14"), '"tty:USB0:pn532"', '"tty:AMA0:pn532"'),
    edit(GOOD, "[buttons.A]", "[buttons]\nA = 5\n[buttons.X]"),
    GOOD.split("[[displays]]")[0], "displays = 5\n" + GOOD.split("[[displays]]")[0],
    "displays = []\n" + GOOD.split("[[displays]]")[0],
    edit(GOOD, "bus = 1", 'bus = "i2c"'), edit(GOOD, "bus = 1", 'bus = "/dev/i2c-1"'),
    edit(GOOD, "bus = 1", "bus = 1.5"), edit(GOOD, "bus = 1\n", ""),
    edit(GOOD, "bus = 1", 'bus = 1\nrotate = 5\nseat = "C"\ncolour = "red"'),
    edit(GOOD, "bus = 1", "bus = 1\nrotate = 90"),
    edit(GOOD, "address = 0x3C", "address = 0x78"), edit(GOOD, "address = 0x3C", "address = 0x05"),
    edit(GOOD, "address = 0x3C", "address = 0x20"), edit(GOOD, "address = 0x3C", 'address = "0x3C"'),
    GOOD + DISPLAY.replace("0x3D", "0x3C"),
    edit(GOOD, "bus = 1", 'bus = 1\nseat = "A"') + DISPLAY + 'seat = "A"\n',
    edit(GOOD, "bus = 1", 'bus = "sim"') + DISPLAY.replace("1", '"sim"', 1),
    GOOD + '\n[tags]\ntrusted_key = "zz"\nndef_pack = 3\n',
    GOOD + '\n[voice]\ndevice = "x; rm"\nrate = 20\nvolume = 300\nverbosity = "chatty"\nearpieces = 5\n',
    GOOD + '\n[voice]\nearpieces = { A = "x; y" }\n',
    GOOD + '\n[voice]\ndevice = "default"\nearpieces = { A = "plughw:2,0", B = "plughw:2,0" }\n',
    GOOD + '\n[voice]\ndevice = "plughw:1,0"\nearpieces = { A = "hw:1,0" }\n',
]
"""Table files with problems: the test file's own (test_table.BAD_CASES), then one at least for every
problem a table file can have."""

NOT_FROM_A_TABLE_FILE = {"table_file.unknown.zone", "table_file.unknown.shipped_table"}
"""Problems of the table file's words said elsewhere (a zone no pad serves, a shipped table's name)."""


def _provoked(tmp_path: Path) -> list[Problem | Phrase]:
    found: list[Problem | Phrase] = []
    for text in PROVOKED:
        with pytest.raises(TableFileError) as info:
            load_table_text(text, source="bad.toml")
        found += info.value.found
    big = tmp_path / "big.toml"
    big.write_bytes(b"#" * 2_000_000)
    latin = tmp_path / "latin.toml"
    latin.write_bytes("name = 'Écarté'".encode("latin-1"))
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    for path in (fifo, big, latin):
        with pytest.raises(TableFileError) as info:
            load_table(path)
        found += info.value.found
    for text in ("[" * 200_000, "{"):
        with pytest.raises(FileProblem) as problem:
            load_json(text, "tags.json")
        found.append(problem.value.words)
    names = (5, "x" * 40, "A\x1bn", " ", "\u3164", "\u0410nn")
    found += [words for words in map(name_words, names) if words is not None]
    found += [unknown("zone", "play.C", ["play.A", "play.B"]), unknown("shipped_table", "zzz", ["simulated"])]
    return found


@pytest.fixture(scope="module")
def provoked(tmp_path_factory: pytest.TempPathFactory) -> list[Problem | Phrase]:
    return _provoked(tmp_path_factory.mktemp("files"))


def test_every_problem_of_the_table_file_is_provoked(provoked: list[Problem | Phrase]) -> None:
    """The check below reads every message of the table file's and the files': none is left unread."""
    said = {msgid for problem in provoked
            for msgid in msgids(problem.words if isinstance(problem, Problem) else problem)}
    words = {msgid for msgid in catalogue.ids() if msgid.startswith(("table_file.", "limits."))}
    assert words - said - {"table_file.problems"} == set()
    assert said >= NOT_FROM_A_TABLE_FILE


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_problem_provoked_is_said_without_english(lang: str, provoked: list[Problem | Phrase]) -> None:
    left = {words_of(problem, lang): english_left(lang, words_of(problem, lang)) for problem in provoked}
    assert {text: words for text, words in left.items() if words} == {}


def test_the_check_finds_the_english_left(provoked: list[Problem | Phrase]) -> None:
    """In English every problem is found English (the check can fail), and a word left in a translation is."""
    assert all(english_left("en", words_of(problem, "en")) for problem in provoked)
    assert english_left("es", "debe ser un número entero, not un texto") == {"not"}
    assert english_left("de", "fehlt: Platz A needs seine Pins") == {"needs"}


@pytest.mark.parametrize(("lang", "first"), [
    ("en", "bad.toml: 7 problems:"), ("fr", "bad.toml : 7 problèmes :"), ("it", "bad.toml: 7 problemi:"),
    ("de", "bad.toml: 7 Probleme:"), ("es", "bad.toml: 7 problemas:"),
])
def test_the_problems_are_counted_in_the_language(lang: str, first: str) -> None:
    with pytest.raises(TableFileError) as info:
        load_table_text('[table]\nlayout = "ful"\ntarget = "5"\n', source="bad.toml")
    lines = said_in(info.value, lang).splitlines()
    assert lines[0] == first
    assert len(lines) == 8 and all(line.startswith("  ") for line in lines[1:])
    assert said_in(info.value, "en") == str(info.value)
    one = TableFileError("x.toml", [("pads", "missing")])
    assert said_in(one, lang).splitlines()[1:] == ["  pads: missing"]  # a problem given in words is said as it is
