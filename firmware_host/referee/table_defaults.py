"""The game a table starts with: the table file's rule set, options, names, badges and language."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TableDefaults:
    """The game a table starts with when a transcript's setup does not say (a frozen value: the
    referee's state holds it)."""

    rules: str = "classic"
    dealer: str | None = None
    target: int | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    tags: Mapping[str, str] = field(default_factory=dict)
    players: tuple[str, ...] | None = None
    sight: str = "full"
    """``partial`` on a table whose pads read stacks only in part (the table file says)."""
    badges: Mapping[str, str] = field(default_factory=dict)
    """Tag UID → ``player:NAME``, ``rules:NAME``, ``option:NAME`` or ``target:N``."""
    locked: bool = False
    """The rules are the table's (house rules): the menu and rule cards change nothing."""
    language: str | None = None
    """The OLED's language (the table file's); the settings menu may change it. None: the display's own."""
    require_genuine: bool = False
    """The table requires genuine tags (``[tags] require_signature``): an ``unchecked`` tag is refused too."""
    ndef_pack: int | None = None
    """The pack of the cards a table with a registry names by their NDEF record (``[tags] ndef_pack``)."""
