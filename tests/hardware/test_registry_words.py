"""A tag registry's and a badges file's refusals, and doctor's audit of a registry, in the reader's language:
every one provoked, and said in each language with no English word left (the values quoted stay as typed)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import catalogue
from catalogue import LANGUAGES
from catalogue.phrase import Phrase, english
from catalogue.phrase import said as said_in
from hardware import locks, ntag_signature
from hardware.badges import Badges, check_tag
from hardware.ntag_signature import NXP_NTAG21X_KEY
from hardware.registry_audit import audit_registry
from hardware.table_checks import Problem
from hardware.tag_registry import RegistryFileError, TagRegistry, TagRegistryError
from tests.hardware.test_table_words import english_left, msgids, words_of

UID = "04A224B2C31D80"
ENTRIES = [
    {"uid": "zz", "card": "KS"}, {"uid": UID, "card": "1S"}, {"uid": UID, "card": "KS", "pack": 3},
    {"uid": UID, "card": "KS", "origin": "odd"}, {"uid": UID, "card": "KS", "signature": "ab"},
    {"uid": UID, "card": "KS", "lock_id": "X"}, {"uid": UID, "card": "KS", "auth_limit": 3},
    {"uid": UID, "card": "KS", "seal": "x"}, 5, {"uid": UID, "card": "KS"}, {"uid": UID, "card": "QS"},
    {"uid": "04A224B2C31D81", "card": "KS"},
]
"""One registry entry for each way an entry is refused (the last three: a tag and a card registered twice)."""


def _refusals(tmp_path: Path) -> list[Problem | Phrase]:
    found: list[Problem | Phrase] = []
    texts = [json.dumps({"format": "ecarte-tags", "version": 2, "tags": ENTRIES}), "[]",
             '{"format": "ecarte-tags", "version": 9}', '{"format": "ecarte-tags", "version": 2, "tags": 5}', "{"]
    for text in texts:
        with pytest.raises(RegistryFileError) as info:
            TagRegistry.from_json(text, source="tags.json")
        found += info.value.found
    for document in ({"format": "other"}, {"format": "ecarte-badges", "badges": 5},
                     {"format": "ecarte-badges", "badges": {UID: 5, "04A224B2C31D81": "player:" + "x" * 30,
                                                           "04A224B2C31D82": "target:x"}}):
        path = tmp_path / "badges.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        with pytest.raises(RegistryFileError) as info:
            Badges.load(path)
        found += info.value.found
    with pytest.raises(RegistryFileError) as info:
        Badges.load(tmp_path)  # a folder
    found += info.value.found
    with pytest.raises(TagRegistryError) as refused:
        check_tag("rules:" + "x" * 30)
    assert isinstance(refused.value.words, Phrase)
    found.append(refused.value.words)
    secret = b"a table secret of 32 bytes......"
    registry = TagRegistry()
    registry.add(UID, "KS", origin="genuine", signature="00" * 32, locked=True)
    registry.add("04A224B2C31D81", "QS", 2, origin="no_signature", locked=True, lock_id="0badf00d", seal="0" * 16)
    for origin, card in zip(("bad_signature", "counterfeit", "unreadable", "unchecked"), "789T", strict=True):
        registry.add(f"04A224B2C31D8{card}".replace("T", "A"), f"{card}S", origin=origin)
    found += audit_registry(registry, NXP_NTAG21X_KEY, require_signature=True, ndef_pack=2, secret=secret)
    found += audit_registry(registry, NXP_NTAG21X_KEY, lock_id=locks.lock_id(secret))
    return found + _lock_and_key_refusals(tmp_path)


def _lock_and_key_refusals(tmp_path: Path) -> list[Phrase]:
    """The ``[tags]`` lock secret file and trusted key refused."""
    fifo, open_to_all, short = tmp_path / "fifo.key", tmp_path / "open.key", tmp_path / "short.key"
    os.mkfifo(fifo)
    open_to_all.write_bytes(b"x" * 32)
    open_to_all.chmod(0o644)
    short.write_bytes(b"short")
    short.chmod(0o600)
    found: list[Phrase] = []
    for path in (tmp_path / "none.key", fifo, open_to_all, short):
        with pytest.raises(locks.LockSecretError) as refused:
            locks.load_secret(path)
        assert isinstance(refused.value.words, Phrase)
        found.append(refused.value.words)
    for call in (lambda: ntag_signature.trusted_key("zz"), lambda: ntag_signature.trusted_key("04" + "00" * 32),
                 lambda: ntag_signature.verify_signature(bytes(7), b"\x01" * 32, b"\x04" + bytes(32))):
        with pytest.raises(ntag_signature.OriginalityError) as refused:
            call()
        assert isinstance(refused.value.words, Phrase)
        found.append(Phrase.of("error.trusted_key", why=refused.value.words))
    return found


@pytest.fixture(scope="module")
def refusals(tmp_path_factory: pytest.TempPathFactory) -> list[Problem | Phrase]:
    return _refusals(tmp_path_factory.mktemp("registry"))


def test_every_refusal_is_provoked(refusals: list[Problem | Phrase]) -> None:
    said = {msgid for problem in refusals for msgid in msgids(problem.words if isinstance(problem, Problem)
                                                               else problem)}
    words = {msgid for msgid in catalogue.ids() if msgid.startswith(("registry.", "badges.", "audit.", "locks.",
                                                                       "signature."))}
    assert words - said - {"audit.origin.genuine"} == set()  # a genuine entry is never refused for its origin


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_refusal_is_said_without_english(lang: str, refusals: list[Problem | Phrase]) -> None:
    left = {words_of(problem, lang): english_left(lang, words_of(problem, lang)) for problem in refusals}
    assert {text: words for text, words in left.items() if words} == {}
    assert all(english_left("en", words_of(problem, "en")) for problem in refusals)  # the check sees English


def test_the_english_is_as_it_was() -> None:
    registry = TagRegistry()
    registry.add("04AB87F2CA1190", "KS", origin="genuine", signature="00" * 32)
    assert [english(problem) for problem in audit_registry(registry, NXP_NTAG21X_KEY)] == [
        "KS of pack 1 (tag 04AB87F2CA1190): says genuine but its signature does not verify: a forged entry"]
    with pytest.raises(RegistryFileError) as info:
        TagRegistry.from_json(json.dumps({"format": "ecarte-tags", "version": 2, "tags": ENTRIES[:2]}), source="t")
    assert str(info.value) == ("t: tags[0]: not a tag UID (4, 7 or 10 bytes of hex): 'zz'; "
                               "tags[1]: not an écarté card: '1S' (ranks KQJAT987, suits SHDC)")
    assert said_in(info.value, "es") == ("t: tags[0]: no es un UID de etiqueta (4, 7 o 10 bytes en hexadecimal): 'zz'; "
                                     "tags[1]: no es una carta del écarté: '1S' (valores KQJAT987, palos SHDC)")


def test_a_short_lock_secret_counts_its_bytes_in_the_right_form(tmp_path: Path) -> None:
    """``locks.short`` has plural forms (it said "1 bytes"): a secret of one byte, and of five."""
    said = {}
    for size in (1, 5):
        path = tmp_path / f"{size}.key"
        path.write_bytes(b"k" * size)
        path.chmod(0o600)
        with pytest.raises(locks.LockSecretError) as refused:
            locks.load_secret(path)
        said[size] = {lang: said_in(refused.value, lang) for lang in ("en", "fr", "de")}
    assert f"{tmp_path / '1.key'} has 1 byte: write at least 16" in said[1]["en"]
    assert f"{tmp_path / '5.key'} has 5 bytes: write at least 16" in said[5]["en"]
    assert " a 1 octet : " in said[1]["fr"] and " a 5 octets : " in said[5]["fr"]
    assert " hat 1 Byte: " in said[1]["de"] and " hat 5 Bytes: " in said[5]["de"]
