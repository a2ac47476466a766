"""What the table checks of a card's tag before the rules see the card: one pack per game, and
(on a table that requires it) tags that passed NXP's originality check.

The registry maps a tag's UID to its card *and* pack (:class:`hardware.tag_registry.TagEntry`). A game
is played with one pack: the first card of the game whose pack is known chooses it; a card of the
other pack is then refused (``foreign_pack``) until the next game. Tags read by their NDEF record
(``[tags] ndef_pack``, an unenrolled pack) count as that pack.

Originality reaches the referee in the card events themselves, so that a journal replays to the
same decisions: on a table that requires signatures the pads' events name a registered tag's
card only when its signature verified (``firmware_host.tag_events``); a registered tag that arrives
without its card named is refused as ``counterfeit_card``.

    >>> from hardware.tag_registry import TagRegistry
    >>> registry = TagRegistry()
    >>> _ = registry.add("04ECA701075A80", "KS", 1), registry.add("04ECA702075A80", "KS", 2)
    >>> guard = PackGuard(registry.entry)
    >>> guard.judge("04ECA701075A80", None, arriving=True, pack=None)
    Judgement(card='KS', code=None, message='', chosen=1)
    >>> guard.judge("04ECA702075A80", "KS", arriving=True, pack=1).code
    'foreign_pack'

The guard is a frozen value (the table's policy); the pack a game is played with is the referee's
state (:class:`~firmware_host.referee.card_namer.CardNamer`), given to each judgement.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from engine.cards import Card
from hardware.tag_registry import TagEntry

logger = logging.getLogger(__name__)

TAG_FAULTS = frozenset({"unknown_tag", "foreign_pack", "counterfeit_card"})
"""Faults of a tag, not of play: only taking the card off the pad puts them right."""


@dataclass(frozen=True, slots=True)
class Judgement:
    """What the guard makes of a tag: the ``card`` it stands for in this game (``None``: refused
    or unknown), the fault ``code`` and ``message`` if it is refused, and the pack it ``chosen``
    for the game (its first arrival of a known pack; None: none chosen by it)."""

    card: str | None
    code: str | None = None
    message: str = ""
    chosen: int | None = None


@dataclass(frozen=True, slots=True)
class PackGuard:
    """One pack per game, and genuine tags where required (see the module's docstring).

    :param lookup: the registry's entry for a UID (``TagRegistry.entry``), ``None`` if unknown.
    :param require_genuine: refuse a registered tag whose card the event does not name (the pads
        name it only after its signature verified).
    :param ndef_pack: the pack of tags the registry does not know but whose NDEF record names a
        card (``None``: such tags have no pack, and no pack is checked for them).
    """

    lookup: Callable[[str], TagEntry | None]
    require_genuine: bool = False
    ndef_pack: int | None = None

    def judge(self, uid: str, named: str | None, *, arriving: bool, pack: int | None) -> Judgement:
        """The card tag ``uid`` stands for, or why it is refused.

        :param named: the card the event names (the pad's registry or NDEF lookup, a transcript).
        :param arriving: an arrival (the first accepted one chooses the game's pack); ``False``
            for a departure, judged alike without choosing anything.
        :param pack: the pack this game is played with (``None``: not chosen yet).
        """
        entry = self.lookup(uid)
        tag_pack: int | None
        if entry is not None:
            card, tag_pack = entry.card, entry.pack
            if self.require_genuine and named is None:
                return Judgement(None, "counterfeit_card", (
                    f"the {_symbol(card)}'s tag failed the originality check "
                    f"(a copy or a fake, tag {uid}): put it aside"
                ))
        elif named is not None:
            card, tag_pack = named, self.ndef_pack
        else:
            return Judgement(None)  # unknown: the controller's unknown_tag
        if tag_pack is not None and pack is not None and tag_pack != pack:
            return Judgement(None, "foreign_pack", (
                f"the {_symbol(card)} is from pack {tag_pack}: this game is played with pack {pack}: put it aside"
            ))
        if arriving and tag_pack is not None and pack is None:
            logger.info("this game is played with pack %d (chosen by tag %s)", tag_pack, uid)
            return Judgement(card, chosen=tag_pack)
        return Judgement(card)


def _symbol(card: str) -> str:
    return Card.parse(card).symbol()
