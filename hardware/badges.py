"""Badges and rule cards: enrolled tags that are not cards.

A player's badge names a seat when it is laid on that seat's pad before a game
(``player:Anne``); a rule card laid on the turn-up pad sets the rule set
(``rules:italian``), an option (``option:forzare``) or the target (``target:7``).
The file is JSON beside the tag registry, written by ``ecarte-table enroll --badge``::

    >>> badges = Badges({"04A224B2C31D80": "player:Anne"})
    >>> badges.add("04:a2:24:b2:c3:1d:81", "rules:italian").tags["04A224B2C31D81"]
    'rules:italian'
    >>> check_tag("player:")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hardware.tag_registry.TagRegistryError: not a badge or rule card: 'player:' (player:NAME, ...)
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from catalogue.phrase import Phrase, os_words
from hardware.limits import MAX_NAME, FileProblem, name_words, nfc, quoted, read_json
from hardware.table_checks import Problem
from hardware.tag_registry import RegistryFileError, TagRegistryError, normalize_uid

logger = logging.getLogger(__name__)

FORMAT = "ecarte-badges"
VERSION = 1
KINDS = ("player", "rules", "option", "target")


def check_tag(tag: str) -> str:
    """``tag`` if it names a player, a rule set, an option or a target.

    :raises TagRegistryError: anything else.
    """
    kind, _, value = tag.partition(":")
    if kind not in KINDS or not value.strip() or (kind == "target" and not (value.isascii() and value.isdigit())):
        raise TagRegistryError(Phrase.of("badges.not_badge", tag=quoted(tag),
                                         why="player:NAME, rules:NAME, option:NAME, target:N"))
    problem = name_words(value.strip()) if kind == "player" else None
    if problem is None and len(value) > MAX_NAME:
        problem = Phrase.of("badges.at_most", most=MAX_NAME)
    if problem is not None:
        raise TagRegistryError(Phrase.of("badges.not_badge", tag=quoted(tag), why=problem))
    return f"{kind}:{nfc(value.strip()) if kind == 'player' else value.strip()}"



@dataclass(frozen=True, slots=True)
class Badges:
    """Tag UID → what the tag says (``player:Anne``...)."""

    tags: dict[str, str] = field(default_factory=dict)

    def add(self, uid: str, tag: str) -> Badges:
        """These badges with ``uid`` saying ``tag`` (a tag enrolled again says the new thing).

        :raises TagRegistryError: a bad UID or tag.
        """
        return Badges({**self.tags, normalize_uid(uid): check_tag(tag)})

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, "version": VERSION, "badges": self.tags}, indent=1,
                          ensure_ascii=False) + "\n"

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Badges:
        """Read a badges file (none yet: no badges).

        :raises TagRegistryError: the file is not a badges file.
        """
        file = Path(path)
        if not file.exists():
            return cls()
        try:
            document = read_json(file)
        except (OSError, FileProblem) as exc:
            reason = exc.words if isinstance(exc, FileProblem) else os_words(exc)
            raise RegistryFileError(str(file), [Problem("", Phrase.of("badges.unreadable", reason=reason))]) from None
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise RegistryFileError(str(file), [Problem("", Phrase.of("badges.not_file", format=repr(FORMAT)))])
        entries = document.get("badges", {})
        if not isinstance(entries, dict):
            raise RegistryFileError(str(file), [Problem("", Phrase.of("badges.map", badges="'badges'",
                                                                      got=quoted(entries)))])
        badges, problems = cls(), []
        for uid, tag in entries.items():
            try:
                if not isinstance(tag, str):
                    raise TagRegistryError(Phrase.of("badges.not_tag", tag=quoted(tag)))
                badges = badges.add(uid, tag)
            except TagRegistryError as exc:
                problems.append(Problem(f"badges[{quoted(uid)}]", exc.words))
        if problems:
            raise RegistryFileError(str(file), problems[:5])
        return badges

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the file atomically (a temporary file renamed over it)."""
        file = Path(path)
        file.parent.mkdir(parents=True, exist_ok=True)
        temporary = file.with_suffix(file.suffix + ".tmp")
        temporary.write_text(self.to_json(), encoding="utf-8")
        os.replace(temporary, file)


def badges_path(table: object) -> Path | None:
    """Where a table keeps its badges: ``[table] badges``, else ``badges.json`` beside the registry."""
    explicit = getattr(table, "badges", None)
    if explicit is not None:
        return Path(explicit)
    registry = getattr(table, "registry", None)
    return Path(registry).with_name("badges.json") if registry is not None else None
