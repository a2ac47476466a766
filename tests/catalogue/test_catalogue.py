"""The one catalogue: every message in every language, compiled as built, in the OLED's font."""

from __future__ import annotations

import gettext
import shutil
from pathlib import Path

import pytest

import catalogue
from catalogue import LANGUAGES, LOCALE_DIR, po_path
from catalogue.compile_po import check, compile_all, mo_bytes, read
from firmware_host.screens.drawing import missing_glyphs


def test_every_message_has_every_language() -> None:
    assert check(LOCALE_DIR, LANGUAGES) == []
    assert len(catalogue.ids()) > 150


def test_the_check_finds_a_message_a_language_lacks(tmp_path: Path) -> None:
    shutil.copytree(LOCALE_DIR, tmp_path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.mo"))
    po = po_path("es", tmp_path)
    text = po.read_text(encoding="utf-8")
    # the Spanish 'revoke' left out, the Italian 'vole' emptied, a German template losing its {who}
    po.write_text(text.replace('msgid "revoke"\nmsgstr "{who} debe seguir el palo {suit}"\n', ""), encoding="utf-8")
    it = po_path("it", tmp_path)
    it.write_text(it.read_text(encoding="utf-8").replace('msgid "vole"\nmsgstr "cappotto"', 'msgid "vole"\nmsgstr ""'),
                  encoding="utf-8")
    de = po_path("de", tmp_path)
    de.write_text(de.read_text(encoding="utf-8").replace('msgstr "{who} gewinnt"', 'msgstr "gewonnen"'),
                  encoding="utf-8")
    shutil.rmtree(tmp_path / "fr")
    assert sorted(check(tmp_path, LANGUAGES)) == sorted([
        "es: 'revoke' missing", "it: 'vole' empty", "de: 'game_over' fills [], English ['who']", "fr: no ecarte.po",
    ])


def test_the_compiled_catalogues_say_what_the_po_files_say() -> None:
    """The .mo the build wrote (or the one compiled now) holds every message of its .po as written."""
    for lang in LANGUAGES:
        for message in read(po_path(lang)):
            if message.id:
                assert catalogue.template(lang, str(message.id)) == message.string, (lang, message.id)


def test_compile_all_writes_mo_files_gettext_reads(tmp_path: Path) -> None:
    shutil.copytree(LOCALE_DIR, tmp_path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.mo"))
    written = compile_all(tmp_path)
    assert sorted(p.parent.parent.name for p in written) == sorted(LANGUAGES)
    fr = gettext.translation("ecarte", tmp_path, languages=["fr"])
    assert fr.gettext("vole") == "vole" and fr.gettext("page.trump") == "atout"
    assert (tmp_path / "es/LC_MESSAGES/ecarte.mo").read_bytes() == mo_bytes(po_path("es"))


def test_an_unknown_id_or_language_is_an_error() -> None:
    with pytest.raises(KeyError, match="no message"):
        catalogue.say("fr", "no_such_message")
    with pytest.raises(KeyError):
        catalogue.translations("xx")
    assert catalogue.language("xx") == "en" and catalogue.language(None) == "en"


def test_every_character_of_every_message_is_in_the_oleds_font() -> None:
    """The baked font covers what the five languages need (ñ, á, ¿, ¡, ß, œ...): a glyph it lacks
    is drawn as '?'."""
    for lang in LANGUAGES:
        for msgid in catalogue.ids():
            assert missing_glyphs(catalogue.template(lang, msgid)) == set(), (lang, msgid)
    assert missing_glyphs("¿Ñ? ¡sí! Ü é ß œ ç à ì ò") == set()
    assert missing_glyphs("ẞ ł") == {"ẞ", "ł"}


def test_every_fault_code_has_its_words_and_its_name() -> None:
    """What went wrong on the OLED (the code's own message) and the fault's name in a list (``fault.<code>``)."""
    from engine.faults import FAULT_CODES
    from firmware_host.screens.i18n import FAULT_WORDS

    assert set(FAULT_CODES) <= set(FAULT_WORDS)
    for code in FAULT_CODES:
        assert catalogue.has(code) and catalogue.has("fault." + code), code
