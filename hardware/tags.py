"""The tag registry: which NFC tag is stuck on which card of which pack.

Écarté is played with two packs of 32 used alternately, so the registry may
hold two packs (numbered 1 and 2): the same card appears once in each, a tag
only once in all. UIDs are upper-case hex (``04A224B2C31D80``), as the pads
report them and as transcripts' ``setup.tags`` lists them.

The file is JSON, written atomically::

    {"format": "ecarte-tags", "version": 1,
     "tags": [{"uid": "04A224B2C31D80", "card": "KS", "pack": 1}, ...]}

>>> registry = TagRegistry()
>>> registry.add("04:a2:24:b2:c3:1d:80", "KS")
TagEntry(uid='04A224B2C31D80', card='KS', pack=1)
>>> registry.card_for("04A224B2C31D80"), registry.pack_of("04A224B2C31D80")
('KS', 1)
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

RANKS = "KQJAT987"
SUITS = "SHDC"
CARDS: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
"""The 32 cards of an écarté pack, in enrollment order (spades first, king first)."""

PACKS = (1, 2)
FORMAT = "ecarte-tags"
VERSION = 1

_HEX = re.compile(r"^[0-9A-F]+$")


class TagRegistryError(ValueError):
    """Root of the registry's errors (all are ``ValueError``)."""


class DuplicateTagError(TagRegistryError):
    """A tag is already registered (to a card, in a pack)."""


class DuplicateCardError(TagRegistryError):
    """A card already has a tag in that pack."""


class RegistryFileError(TagRegistryError):
    """A registry file is not valid; the message lists every problem."""


def normalize_uid(uid: str) -> str:
    """A tag UID in upper-case hex without separators.

    >>> normalize_uid("04:a2:24:b2 c3-1d-80")
    '04A224B2C31D80'

    :raises TagRegistryError: not 4, 7 or 10 bytes of hex.
    """
    text = re.sub(r"[\s:\-]", "", uid).upper()
    if not _HEX.match(text) or len(text) not in (8, 14, 20):
        raise TagRegistryError(f"not a tag UID (4, 7 or 10 bytes of hex): {uid!r}")
    return text


def check_card(card: str) -> str:
    """``card`` if it is one of the 32 écarté cards (``"KS"``, ``"TH"``...).

    :raises TagRegistryError: any other string.
    """
    if card not in CARDS:
        raise TagRegistryError(f"not an écarté card: {card!r} (ranks {RANKS}, suits {SUITS})")
    return card


def check_pack(pack: int) -> int:
    """``pack`` if it is a pack number (1 or 2).

    :raises TagRegistryError: anything else.
    """
    if isinstance(pack, bool) or pack not in PACKS:
        raise TagRegistryError(f"pack must be 1 or 2, not {pack!r}")
    return pack


@dataclass(frozen=True, slots=True)
class TagEntry:
    """One registered tag: its UID, the card it stands for, and the pack."""

    uid: str
    card: str
    pack: int = 1


class TagRegistry:
    """UID → card and pack, for up to two packs of 32.

    :param entries: initial entries (checked as by :meth:`add`).
    :raises TagRegistryError: an entry is invalid or registered twice.
    """

    def __init__(self, entries: Iterable[TagEntry] = ()) -> None:
        self._by_uid: dict[str, TagEntry] = {}
        self._by_card: dict[tuple[int, str], TagEntry] = {}
        for entry in entries:
            self.add(entry.uid, entry.card, entry.pack)

    def add(self, uid: str, card: str, pack: int = 1) -> TagEntry:
        """Register tag ``uid`` as ``card`` of ``pack``.

        :raises DuplicateTagError: the tag is already registered.
        :raises DuplicateCardError: the card already has a tag in that pack.
        :raises TagRegistryError: bad UID, card or pack.
        """
        entry = TagEntry(normalize_uid(uid), check_card(card), check_pack(pack))
        known = self._by_uid.get(entry.uid)
        if known is not None:
            raise DuplicateTagError(
                f"tag {entry.uid} is already registered as {known.card} of pack {known.pack}"
            )
        other = self._by_card.get((entry.pack, entry.card))
        if other is not None:
            raise DuplicateCardError(
                f"{entry.card} of pack {entry.pack} already has tag {other.uid}"
            )
        self._by_uid[entry.uid] = entry
        self._by_card[entry.pack, entry.card] = entry
        return entry

    def remove(self, uid: str) -> TagEntry:
        """Forget tag ``uid`` and return its entry.

        :raises KeyError: the tag is not registered.
        """
        entry = self._by_uid.pop(normalize_uid(uid))
        del self._by_card[entry.pack, entry.card]
        return entry

    def entry(self, uid: str) -> TagEntry | None:
        """The entry of tag ``uid``, or ``None`` if unknown (or not a UID)."""
        try:
            return self._by_uid.get(normalize_uid(uid))
        except TagRegistryError:
            return None

    def card_for(self, uid: str) -> str | None:
        """The card tag ``uid`` stands for, or ``None`` if unknown."""
        entry = self.entry(uid)
        return entry.card if entry else None

    def pack_of(self, uid: str) -> int | None:
        """The pack tag ``uid`` belongs to, or ``None`` if unknown."""
        entry = self.entry(uid)
        return entry.pack if entry else None

    def uid_for(self, card: str, pack: int = 1) -> str | None:
        """The tag of ``card`` in ``pack``, or ``None`` if not enrolled."""
        entry = self._by_card.get((pack, card))
        return entry.uid if entry else None

    def missing(self, pack: int = 1) -> list[str]:
        """Cards of ``pack`` without a tag yet, in enrollment order."""
        return [card for card in CARDS if (pack, card) not in self._by_card]

    def tags(self, pack: int | None = None) -> dict[str, str]:
        """UID → card, for one pack or all (the transcript's ``setup.tags``)."""
        return {e.uid: e.card for e in self._by_uid.values() if pack is None or e.pack == pack}

    def __contains__(self, uid: object) -> bool:
        return isinstance(uid, str) and self.entry(uid) is not None

    def __iter__(self) -> Iterator[TagEntry]:
        return iter(sorted(self._by_uid.values(), key=_entry_order))

    def __len__(self) -> int:
        return len(self._by_uid)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TagRegistry) and self._by_uid == other._by_uid

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"TagRegistry({list(self)!r})"

    # -- files ---------------------------------------------------------------

    def to_json(self) -> str:
        """The registry as the JSON text :meth:`save` writes."""
        document = {
            "format": FORMAT,
            "version": VERSION,
            "tags": [{"uid": e.uid, "card": e.card, "pack": e.pack} for e in self],
        }
        return json.dumps(document, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str, *, source: str = "<string>") -> TagRegistry:
        """Parse :meth:`to_json` output, reporting every problem at once.

        :raises RegistryFileError: bad JSON, wrong format, or bad entries
            (the message names each by its index).
        """
        try:
            document = json.loads(text)
        except json.JSONDecodeError as error:
            raise RegistryFileError(f"{source}: not JSON: {error}") from error
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise RegistryFileError(f"{source}: not a tag registry (format {FORMAT!r})")
        if document.get("version") != VERSION:
            raise RegistryFileError(f"{source}: unsupported version {document.get('version')!r}")
        items = document.get("tags")
        if not isinstance(items, list):
            raise RegistryFileError(f"{source}: 'tags' must be a list")
        registry, problems = cls(), []
        for index, item in enumerate(items):
            try:
                if not isinstance(item, dict):
                    raise TagRegistryError(f"not an object: {item!r}")
                registry.add(str(item.get("uid", "")), str(item.get("card", "")), item.get("pack", 1))
            except TagRegistryError as error:
                problems.append(f"tags[{index}]: {error}")
        if problems:
            raise RegistryFileError(f"{source}: " + "; ".join(problems))
        return registry

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> TagRegistry:
        """Read a registry file.

        :raises FileNotFoundError: no such file.
        :raises RegistryFileError: the file is not a valid registry.
        """
        return cls.from_json(Path(path).read_text(encoding="utf-8"), source=os.fspath(path))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the registry to ``path`` atomically (temp file, fsync, rename).

        :raises OSError: the directory is not writable.
        """
        target = Path(path)
        descriptor, temporary = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or Path(".")
        )
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
                stream.write(self.to_json())
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        try:
            directory = os.open(target.parent, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(directory)
        finally:
            os.close(directory)


def _entry_order(entry: TagEntry) -> tuple[int, int]:
    return entry.pack, CARDS.index(entry.card)
