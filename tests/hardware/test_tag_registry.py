"""The tag registry: UID → card and pack, JSON files written atomically."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hardware.tag_registry import (
    CARDS,
    DuplicateCardError,
    DuplicateTagError,
    RegistryFileError,
    TagEntry,
    TagRegistry,
    TagRegistryError,
    normalize_uid,
)

UID = "04A224B2C31D80"


def test_the_32_cards_in_enrollment_order() -> None:
    assert len(CARDS) == len(set(CARDS)) == 32
    assert CARDS[:8] == ("KS", "QS", "JS", "AS", "TS", "9S", "8S", "7S")
    assert CARDS[-1] == "7C"


@pytest.mark.parametrize(
    ("raw", "uid"),
    [
        ("04a224b2c31d80", UID),
        ("04:A2:24:B2:C3:1D:80", UID),
        ("04 a2 24 b2 c3 1d 80", UID),
        ("DEADBEEF", "DEADBEEF"),
        ("0102030405060708090A", "0102030405060708090A"),
    ],
)
def test_uids_are_normalized(raw: str, uid: str) -> None:
    assert normalize_uid(raw) == uid


@pytest.mark.parametrize("raw", ["", "04A2", "04A224B2C31D8", "ZZA224B2C31D80", "04A224B2C31D80FF"])
def test_bad_uids_are_rejected(raw: str) -> None:
    with pytest.raises(TagRegistryError, match="not a tag UID"):
        normalize_uid(raw)


def test_lookup() -> None:
    registry = TagRegistry()
    registry.add(UID.lower(), "KS", pack=2)
    assert registry.card_for(UID) == "KS"
    assert registry.pack_of(UID) == 2
    assert registry.uid_for("KS", 2) == UID
    assert registry.uid_for("KS", 1) is None
    assert registry.card_for("04000000000000") is None
    assert registry.pack_of("not hex") is None
    assert UID in registry and "04000000000000" not in registry
    assert registry.tags() == {UID: "KS"}
    assert registry.tags(pack=1) == {}


def test_a_tag_registered_twice_is_rejected() -> None:
    registry = TagRegistry([TagEntry(UID, "KS", 1)])
    with pytest.raises(DuplicateTagError, match="already registered as KS of pack 1"):
        registry.add(UID, "QH", pack=2)
    assert len(registry) == 1


def test_a_card_twice_in_one_pack_is_rejected_but_not_across_packs() -> None:
    registry = TagRegistry()
    registry.add("04000000000001", "KS", 1)
    with pytest.raises(DuplicateCardError, match="KS of pack 1 already has tag 04000000000001"):
        registry.add("04000000000002", "KS", 1)
    registry.add("04000000000002", "KS", 2)
    assert registry.missing(1) == [card for card in CARDS if card != "KS"]


@pytest.mark.parametrize(("card", "pack"), [("10H", 1), ("2S", 1), ("ks", 1), ("KS", 3), ("KS", True)])
def test_bad_cards_and_packs_are_rejected(card: str, pack: int) -> None:
    with pytest.raises(TagRegistryError):
        TagRegistry().add(UID, card, pack)


def test_remove() -> None:
    registry = TagRegistry([TagEntry(UID, "KS", 1)])
    assert registry.remove(UID) == TagEntry(UID, "KS", 1)
    registry.add("04000000000009", "KS", 1)  # the card is free again
    with pytest.raises(KeyError):
        registry.remove(UID)


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    registry = TagRegistry()
    for index, card in enumerate(CARDS):
        registry.add(f"04{index:012X}", card, 1)
        registry.add(f"05{index:012X}", card, 2)
    path = tmp_path / "tags.json"
    registry.save(path)
    assert TagRegistry.load(path) == registry
    document = json.loads(path.read_text())
    assert document["format"] == "ecarte-tags"
    assert document["tags"][0] == {"uid": "04000000000000", "card": "KS", "pack": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["tags.json"]  # no temp file left


def test_save_replaces_atomically(tmp_path: Path) -> None:
    path = tmp_path / "tags.json"
    TagRegistry([TagEntry(UID, "KS", 1)]).save(path)
    inode = os.stat(path).st_ino
    TagRegistry([TagEntry(UID, "QS", 1)]).save(path)
    assert os.stat(path).st_ino != inode  # a new file renamed over the old one
    assert TagRegistry.load(path).card_for(UID) == "QS"


def test_a_failed_save_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "tags.json"
    TagRegistry([TagEntry(UID, "KS", 1)]).save(path)
    with pytest.raises(OSError):
        TagRegistry().save(tmp_path / "missing-dir" / "tags.json")
    assert TagRegistry.load(path).card_for(UID) == "KS"


def test_a_bad_file_reports_every_problem(tmp_path: Path) -> None:
    path = tmp_path / "tags.json"
    path.write_text(
        json.dumps(
            {
                "format": "ecarte-tags",
                "version": 1,
                "tags": [
                    {"uid": UID, "card": "KS", "pack": 1},
                    {"uid": UID, "card": "QS", "pack": 1},
                    {"uid": "04000000000001", "card": "1S", "pack": 1},
                ],
            }
        )
    )
    with pytest.raises(RegistryFileError) as caught:
        TagRegistry.load(path)
    message = str(caught.value)
    assert "tags[1]: tag 04A224B2C31D80 is already registered" in message
    assert "tags[2]: not an écarté card: '1S'" in message
    assert str(path) in message


@pytest.mark.parametrize(
    "text", ["not json", "[]", '{"format": "other"}', '{"format": "ecarte-tags", "version": 9}']
)
def test_files_that_are_not_registries(text: str) -> None:
    with pytest.raises(RegistryFileError):
        TagRegistry.from_json(text)


@given(st.dictionaries(st.binary(min_size=7, max_size=7), st.sampled_from(CARDS), max_size=32))
def test_json_round_trip(tags: dict[bytes, str]) -> None:
    registry = TagRegistry()
    for uid, card in tags.items():
        if registry.uid_for(card, 1) is None:
            registry.add(uid.hex(), card, 1)
        elif registry.uid_for(card, 2) is None:
            registry.add(uid.hex(), card, 2)
    assert TagRegistry.from_json(registry.to_json()) == registry
