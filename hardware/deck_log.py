"""When each pack last passed the deck check: ``deck_checks.json`` beside the tag registry.

``ecarte-table deck`` records a pack found whole and clean; ``ecarte-table doctor`` reminds when
a registered pack was never checked::

    {"format": "ecarte-deck-checks", "version": 1, "packs": {"1": "2026-11-25T10:50:00+00:00"}}

A damaged or missing file means "never checked": it is a reminder, not a lock.
"""

from __future__ import annotations

import datetime
import json
import logging
import os
from pathlib import Path

from hardware.limits import read_json
from hardware.tag_registry import write_atomically

logger = logging.getLogger(__name__)

FORMAT = "ecarte-deck-checks"
VERSION = 1


def log_path(registry: str | os.PathLike[str]) -> Path:
    """Where the checks of the packs of ``registry`` are recorded."""
    return Path(registry).with_name("deck_checks.json")


def last_checks(registry: str | os.PathLike[str]) -> dict[int, str]:
    """Pack → when it last passed the deck check (ISO 8601, UTC); empty when never or unreadable."""
    try:
        document = read_json(log_path(registry))
    except (OSError, ValueError) as exc:  # FileProblem is a ValueError
        logger.debug("deck checks of %s: %s", registry, exc)
        return {}
    packs = document.get("packs") if isinstance(document, dict) and document.get("format") == FORMAT else None
    if not isinstance(packs, dict):
        return {}
    return {int(pack): str(when) for pack, when in packs.items() if pack in ("1", "2") and isinstance(when, str)}


def record_check(registry: str | os.PathLike[str], pack: int, when: datetime.datetime | None = None) -> None:
    """Record that ``pack`` passed the deck check (now, or ``when``); a failure to write is logged."""
    moment = (when or datetime.datetime.now(datetime.UTC)).isoformat(timespec="seconds")
    packs = {str(p): w for p, w in last_checks(registry).items()} | {str(pack): moment}
    path = log_path(registry)
    try:
        write_atomically(path, json.dumps({"format": FORMAT, "version": VERSION, "packs": packs}, indent=1) + "\n")
    except OSError as exc:
        logger.warning("cannot record the deck check in %s: %s", path, exc)
