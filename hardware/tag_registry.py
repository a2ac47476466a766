"""The tag registry: which NFC tag is stuck on which card of which pack.

Écarté is played with two packs of 32 used alternately, so the registry may
hold two packs (numbered 1 and 2): the same card appears once in each, a tag
only once in all. UIDs are upper-case hex (``04A224B2C31D80``), as the pads
report them and as transcripts' ``setup.tags`` lists them.

Each entry also keeps what enrolment learnt of the tag: its originality status
(``genuine``, ``no_signature``, ``bad_signature``, ``counterfeit`` or ``unchecked``,
see :mod:`hardware.ntag_signature`), the 32-byte signature it gave (public: anyone
may read it from the tag; ``doctor`` verifies it again, so an entry typed in
by hand as ``genuine`` is caught), and whether it was password-locked, with the
fingerprint of the lock secret (:func:`hardware.locks.lock_id`; never the password) and the
limit on wrong passwords the tag enforces (``auth_limit``: AUTHLIM, set with CFGLCK).

Where the table has a lock secret, each entry also carries a ``seal``: a keyed checksum of its
UID, card and pack (:func:`hardware.locks.entry_seal`) whose key lives outside the state
directory, so that a registry whose card names were swapped or edited is detected
(:mod:`hardware.registry_audit`).

The file is JSON, written atomically (version 1 files, without the facts, are read too)::

    {"format": "ecarte-tags", "version": 2,
     "tags": [{"uid": "04A224B2C31D80", "card": "KS", "pack": 1,
               "origin": "genuine", "signature": "67B1...", "locked": true, "lock_id": "1a2b3c4d",
               "auth_limit": 8, "seal": "0f1e2d3c4b5a6978"}, ...]}

>>> registry = TagRegistry()
>>> registry.add("04:a2:24:b2:c3:1d:80", "KS")  # doctest: +NORMALIZE_WHITESPACE
TagEntry(uid='04A224B2C31D80', card='KS', pack=1, origin=<Origin.UNCHECKED: 'unchecked'>, signature=None,
         locked=False, lock_id=None, auth_limit=0, seal=None)
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

from catalogue.phrase import Joined, Phrase, english
from drivers.device_events import Origin
from engine.cards import CLASSIC, SUITS
from hardware.limits import FileProblem, load_json, read_text
from hardware.table_checks import Problem, listed

RANKS = CLASSIC.order
"""The ranks in enrolment order, king first (the classic ranking, high to low: ``engine.cards``)."""
CARDS: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
"""The 32 cards of an écarté pack, in enrollment order (spades first, king first)."""

PACKS = (1, 2)
FORMAT = "ecarte-tags"
VERSION = 2
READABLE_VERSIONS = (1, 2)

_HEX = re.compile(r"^[0-9A-F]+$")


class TagRegistryError(ValueError):
    """Root of the registry's errors (all are ``ValueError``): its ``words`` (``registry.*``), said in a
    reader's language where it is printed (:func:`catalogue.phrase.said`), its English as its message."""

    def __init__(self, words: Phrase | Joined | str) -> None:
        super().__init__(english(words))
        self.words = words


class DuplicateTagError(TagRegistryError):
    """A tag is already registered (to a card, in a pack)."""


class DuplicateCardError(TagRegistryError):
    """A card already has a tag in that pack."""


class RegistryFileError(TagRegistryError):
    """A registry file is not valid; the message names the file (``source``) and lists every problem
    (``found``: an entry's by its index, ``tags[3]``)."""

    def __init__(self, source: str, found: Iterable[Problem]) -> None:
        self.source = source
        self.found = tuple(found)
        super().__init__(listed(source, self.found))


def normalize_uid(uid: str) -> str:
    """A tag UID in upper-case hex without separators.

    >>> normalize_uid("04:a2:24:b2 c3-1d-80")
    '04A224B2C31D80'

    :raises TagRegistryError: not 4, 7 or 10 bytes of hex.
    """
    text = re.sub(r"[\s:\-]", "", uid).upper()
    if not _HEX.match(text) or len(text) not in (8, 14, 20):
        raise TagRegistryError(Phrase.of("registry.not_uid", uid=repr(uid)))
    return text


def check_card(card: str) -> str:
    """``card`` if it is one of the 32 écarté cards (``"KS"``, ``"TH"``...).

    :raises TagRegistryError: any other string.
    """
    if card not in CARDS:
        raise TagRegistryError(Phrase.of("registry.not_card", card=repr(card), ranks=RANKS, suits=SUITS))
    return card


def check_pack(pack: int) -> int:
    """``pack`` if it is a pack number (1 or 2).

    :raises TagRegistryError: anything else.
    """
    if isinstance(pack, bool) or pack not in PACKS:
        raise TagRegistryError(Phrase.of("registry.pack", pack=repr(pack)))
    return pack


@dataclass(frozen=True, slots=True)
class TagEntry:
    """One registered tag: its UID, the card it stands for, the pack, and what enrolment
    learnt of it: originality ``origin``, ``signature`` (64 hex digits, ``None``: none read),
    ``locked``, the lock secret's ``lock_id``, ``auth_limit`` (wrong passwords the tag takes
    before it locks for ever, its configuration locked too; 0: no limit) and the registry
    ``seal`` of this entry (``None``: not sealed)."""

    uid: str
    card: str
    pack: int = 1
    origin: Origin = Origin.UNCHECKED
    signature: str | None = None
    locked: bool = False
    lock_id: str | None = None
    auth_limit: int = 0
    seal: str | None = None


class TagRegistry:
    """UID → card and pack, for up to two packs of 32.

    :param entries: initial entries (checked as by :meth:`add`).
    :raises TagRegistryError: an entry is invalid or registered twice.
    """

    def __init__(self, entries: Iterable[TagEntry] = ()) -> None:
        self._by_uid: dict[str, TagEntry] = {}
        self._by_card: dict[tuple[int, str], TagEntry] = {}
        for entry in entries:
            self.add_entry(entry)

    def add(
        self, uid: str, card: str, pack: int = 1, *, origin: Origin = Origin.UNCHECKED, signature: str | None = None,
        locked: bool = False, lock_id: str | None = None, auth_limit: int = 0, seal: str | None = None,
    ) -> TagEntry:
        """Register tag ``uid`` as ``card`` of ``pack``, with what enrolment learnt of it.

        :raises DuplicateTagError: the tag is already registered.
        :raises DuplicateCardError: the card already has a tag in that pack.
        :raises TagRegistryError: bad UID, card, pack, origin, signature or lock id.
        """
        entry = TagEntry(
            normalize_uid(uid), check_card(card), check_pack(pack), _check_origin(origin),
            _check_signature(signature), bool(locked), _check_lock_id(lock_id), _check_auth_limit(auth_limit),
            _check_seal(seal),
        )
        known = self._by_uid.get(entry.uid)
        if known is not None:
            raise DuplicateTagError(Phrase.of("registry.taken_tag", uid=entry.uid, card=known.card, pack=known.pack))
        other = self._by_card.get((entry.pack, entry.card))
        if other is not None:
            raise DuplicateCardError(Phrase.of("registry.taken_card", card=entry.card, pack=entry.pack, uid=other.uid))
        self._by_uid[entry.uid] = entry
        self._by_card[entry.pack, entry.card] = entry
        return entry

    def add_entry(self, entry: TagEntry) -> TagEntry:
        """Register ``entry`` (checked as by :meth:`add`)."""
        return self.add(entry.uid, entry.card, entry.pack, origin=entry.origin, signature=entry.signature,
                        locked=entry.locked, lock_id=entry.lock_id, auth_limit=entry.auth_limit, seal=entry.seal)

    def update(self, entry: TagEntry) -> TagEntry:
        """Replace the facts of a registered tag (same UID, card and pack) with ``entry``'s.

        :raises KeyError: the tag is not registered as that card of that pack.
        :raises TagRegistryError: bad facts.
        """
        known = self.entry(entry.uid)
        if known is None or (known.card, known.pack) != (entry.card, entry.pack):
            raise KeyError(f"tag {entry.uid} is not registered as {entry.card} of pack {entry.pack}")
        self.remove(known.uid)
        try:
            return self.add_entry(entry)
        except TagRegistryError:
            self.add_entry(known)
            raise

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
            "tags": [_entry_json(e) for e in self],
        }
        return json.dumps(document, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str, *, source: str = "<string>") -> TagRegistry:
        """Parse :meth:`to_json` output, reporting every problem at once.

        :raises RegistryFileError: bad JSON, wrong format, or bad entries
            (the message names each by its index).
        """
        try:
            document = load_json(text, source)
        except FileProblem as error:
            raise RegistryFileError(error.path, [Problem("", error.words)]) from None
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise RegistryFileError(source, [Problem("", Phrase.of("registry.not_registry", format=repr(FORMAT)))])
        if document.get("version") not in READABLE_VERSIONS:
            raise RegistryFileError(source, [Problem("", Phrase.of("registry.version",
                                                                   version=repr(document.get("version"))))])
        items = document.get("tags")
        if not isinstance(items, list):
            raise RegistryFileError(source, [Problem("", Phrase.of("registry.tags_list", tags="'tags'"))])
        registry, problems = cls(), []
        for index, item in enumerate(items):
            try:
                if not isinstance(item, dict):
                    raise TagRegistryError(Phrase.of("registry.not_object", item=repr(item)))
                registry.add(
                    str(item.get("uid", "")), str(item.get("card", "")), item.get("pack", 1),
                    origin=item.get("origin", Origin.UNCHECKED), signature=item.get("signature"),
                    locked=item.get("locked", False) is True, lock_id=item.get("lock_id"),
                    auth_limit=item.get("auth_limit", 0), seal=item.get("seal"),
                )
            except TagRegistryError as error:
                problems.append(Problem(f"tags[{index}]", error.words))
        if problems:
            raise RegistryFileError(source, problems)
        return registry

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> TagRegistry:
        """Read a registry file.

        :raises FileNotFoundError: no such file.
        :raises RegistryFileError: the file is not a valid registry (nor a regular file of at
            most :data:`hardware.limits.MAX_FILE_BYTES`).
        """
        try:
            text = read_text(path)
        except FileProblem as error:
            raise RegistryFileError(error.path, [Problem("", error.words)]) from None
        return cls.from_json(text, source=os.fspath(path))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the registry to ``path`` atomically (temp file, fsync, rename).

        :raises OSError: the directory is not writable.
        """
        write_atomically(path, self.to_json())


def write_atomically(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` so that a reader (or a power cut) sees the old file or the new
    one, never half of it: a temporary file beside it, fsync, rename, fsync of the directory.

    :raises OSError: the directory is not writable.
    """
    target = Path(path)
    descriptor, temporary = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or Path(".")
    )
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
            stream.write(text)
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


def _entry_json(entry: TagEntry) -> dict[str, object]:
    out: dict[str, object] = {"uid": entry.uid, "card": entry.card, "pack": entry.pack}
    if entry.origin != Origin.UNCHECKED:
        out["origin"] = entry.origin
    if entry.signature is not None:
        out["signature"] = entry.signature
    if entry.locked:
        out["locked"] = True
    if entry.lock_id is not None:
        out["lock_id"] = entry.lock_id
    if entry.auth_limit:
        out["auth_limit"] = entry.auth_limit
    if entry.seal is not None:
        out["seal"] = entry.seal
    return out


def _check_origin(origin: object) -> Origin:
    """``origin`` as a verdict (the file holds its text, ``"genuine"``).

    :raises TagRegistryError: not a verdict's text.
    """
    if not isinstance(origin, str) or origin not in set(Origin):
        raise TagRegistryError(Phrase.of("registry.origin", origins=", ".join(Origin), origin=repr(origin)))
    return Origin(origin)


def _check_signature(signature: object) -> str | None:
    if signature is None:
        return None
    if not isinstance(signature, str) or not re.fullmatch(r"[0-9A-Fa-f]{64}", signature):
        raise TagRegistryError(Phrase.of("registry.signature", signature=repr(signature)))
    return signature.upper()


def _check_lock_id(lock_id: object) -> str | None:
    if lock_id is None:
        return None
    if not isinstance(lock_id, str) or not re.fullmatch(r"[0-9a-f]{8}", lock_id):
        raise TagRegistryError(Phrase.of("registry.lock_id", lock_id=repr(lock_id)))
    return lock_id


AUTH_LIMITS = (0, 2, 4, 8, 16, 32, 64, 128)
"""The limits an NTAG21x can enforce: 2 to the power AUTHLIM (1-7), or none (0)."""


def _check_auth_limit(limit: object) -> int:
    if isinstance(limit, bool) or limit not in AUTH_LIMITS:
        raise TagRegistryError(Phrase.of("registry.auth_limit", limits=", ".join(map(str, AUTH_LIMITS)),
                                         limit=repr(limit)))
    assert isinstance(limit, int)
    return limit


def _check_seal(seal: object) -> str | None:
    if seal is None:
        return None
    if not isinstance(seal, str) or not re.fullmatch(r"[0-9a-f]{16}", seal):
        raise TagRegistryError(Phrase.of("registry.seal", seal=repr(seal)))
    return seal
