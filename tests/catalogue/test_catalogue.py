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
    po.write_text(text.replace('msgid "revoke"\nmsgstr "{who} debe seguir el palo de {suit}"\n', ""), encoding="utf-8")
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
        catalog = read(po_path(lang))
        for message in catalog:
            if message.id and message.pluralizable:
                said = {catalogue.template_n(lang, str(message.id[0]), n) for n in (*range(0, 30), 1_000_000)}
                assert said == set(message.string), (lang, message.id)
            elif message.id:
                assert catalogue.template(lang, str(message.id)) == message.string, (lang, message.id)


def test_the_check_refuses_a_plural_written_by_hand(tmp_path: Path) -> None:
    """"1 punto(s) con 4 baza(s)", "Karte(n)", Italian "punto/i": a plural written by hand, in any language,
    is refused; so is a message with plural forms in one language only, or with too few forms."""
    shutil.copytree(LOCALE_DIR, tmp_path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.mo"))
    es = po_path("es", tmp_path)
    es.write_text(es.read_text(encoding="utf-8").replace('msgstr "cappotto"', 'msgstr "cappotto"').replace(
        'msgid "vole"\nmsgstr "vole"', 'msgid "vole"\nmsgstr "vole(s)"'), encoding="utf-8")
    it = po_path("it", tmp_path)
    it.write_text(it.read_text(encoding="utf-8").replace('msgid "vole"\nmsgstr "cappotto"',
                                                         'msgid "vole"\nmsgstr "cappotto/i"'), encoding="utf-8")
    _entry(po_path("fr", tmp_path), "count.cards",
           'msgid "count.cards"\nmsgid_plural "count.cards"\nmsgstr[0] "{n} carte"\nmsgstr[1] "{n} cartes"\n')
    _entry(po_path("de", tmp_path), "count.cards", 'msgid "count.cards"\nmsgstr "{n} Karte(n)"\n')
    assert sorted(check(tmp_path, LANGUAGES)) == sorted([
        "es: 'vole' writes a plural by hand (vole(s)): give it plural forms (msgid_plural, said with catalogue.say_n)",
        "it: 'vole' writes a plural by hand (cappotto/i): give it plural forms (msgid_plural, said with "
        "catalogue.say_n)",
        "fr: 'count.cards' has 2 plural forms, its language 3 (Plural-Forms)",
        "de: 'count.cards' writes a plural by hand (Karte(n)): give it plural forms (msgid_plural, said with "
        "catalogue.say_n)",
        "de: 'count.cards' has plural forms in English only",
    ])


def _entry(po: Path, msgid: str, entry: str) -> None:
    """``msgid``'s entry in ``po`` replaced by ``entry``."""
    text = po.read_text(encoding="utf-8")
    start = text.index(f'msgid "{msgid}"\n')
    end = text.find("\n\n", start)
    po.write_text(text[:start] + entry + (text[end + 1:] if end >= 0 else ""), encoding="utf-8")


@pytest.mark.parametrize(("lang", "said"), [
    ("fr", ["0 carte", "1 carte", "2 cartes", "1000000 de cartes"]),
    ("es", ["0 cartas", "1 carta", "2 cartas", "1000000 de cartas"]),
    ("it", ["0 carte", "1 carta", "2 carte", "1000000 di carte"]),
    ("de", ["0 Karten", "1 Karte", "2 Karten", "1000000 Karten"]),
    ("en", ["0 cards", "1 card", "2 cards", "1000000 cards"]),
])
def test_a_count_takes_its_languages_plural_form(lang: str, said: list[str]) -> None:
    """Babel's CLDR rules through gettext's ngettext: French takes the singular for 0 and 1."""
    assert [catalogue.say_n(lang, "count.cards", n) for n in (0, 1, 2, 1_000_000)] == said


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
            words = [catalogue.template_n(lang, msgid, n) for n in (0, 1, 2)] if catalogue.is_plural(msgid) else \
                [catalogue.template(lang, msgid)]
            assert all(missing_glyphs(w) == set() for w in words), (lang, msgid)
    assert missing_glyphs("¿Ñ? ¡sí! Ü é ß œ ç à ì ò") == set()
    assert missing_glyphs("ẞ ł") == {"ẞ", "ł"}


def test_every_fault_code_has_its_words_and_its_name() -> None:
    """What went wrong on the OLED (the code's own message) and the fault's name in a list (``fault.<code>``)."""
    from engine.faults import FAULT_CODES

    for code in FAULT_CODES:
        assert catalogue.has(code) and catalogue.has("fault." + code), code


@pytest.mark.parametrize(("lang", "card", "said"), [
    ("es", "Q♠", "retirar la Q♠"), ("es", "J♣", "retirar la J♣"), ("es", "K♠", "retirar el K♠"),
    ("fr", "D♣", "reprenez la D♣"), ("fr", "A♣", "reprenez l'A♣"), ("fr", "V♥", "reprenez le V♥"),
    ("it", "D♠", "riprendi la D♠"), ("it", "A♦", "riprendi l'A♦"), ("it", "8♥", "riprendi l'8♥"),
    ("it", "F♥", "riprendi il F♥"),
    ("en", "Q♠", "take back the Q♠"),
])
def test_a_cards_article_is_its_own(lang: str, card: str, said: str) -> None:
    """The templates put the masculine article before a card ("el {card}"): the card's gender comes with
    its name (``article.<rank>``): la reina, la sota, la dame, l'as, la donna, l'asso, l'otto."""
    assert catalogue.say(lang, "take_back", card=card) == said
