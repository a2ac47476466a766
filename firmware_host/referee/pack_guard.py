"""What the table checks of a card's tag before the rules see the card: one pack per game, and
tags that passed NXP's originality check.

The guard judges a tag's :class:`~firmware_host.referee.transcript.Sighting` (its card, pack and
originality verdict, which the card namer made once: :meth:`CardNamer.sight
<firmware_host.referee.card_namer.CardNamer.sight>`); it asks nothing of the registry.

A game is played with one pack: the first card of the game whose pack is known chooses it; a card
of the other pack is then refused (``foreign_pack``) until the next game. A tag whose verdict says
it is not genuine (a copy, a counterfeit: ``no_signature``, ``bad_signature``, ``counterfeit``,
``unreadable``) is refused (``counterfeit_card``), and so is an ``unchecked`` one on a table that
requires genuine tags. The verdict travels in the journaled event itself, so that a journal replays
to the same decisions. The pads give no verdict from silence: a tag that gave no valid answer is
asked again and arrives when it answers (:class:`~drivers.nfc.originality.OriginalityCheck`), so
``unreadable`` reaches the guard only from a journal written before they did.

    >>> from firmware_host.referee.transcript import Sighting
    >>> guard = PackGuard()
    >>> guard.judge(Sighting("04ECA701075A80", "KS", Origin.GENUINE, pack=1), arriving=True, pack=None)
    Judgement(card='KS', code=None, says=None, chosen=1)
    >>> guard.judge(Sighting("04ECA702075A80", "KS", Origin.GENUINE, pack=2), arriving=True, pack=1).code
    <FaultCode.FOREIGN_PACK: 'foreign_pack'>
    >>> guard.judge(Sighting("04ECA701065A80", "QS", Origin.NO_SIGNATURE, pack=1), arriving=True, pack=None).code
    <FaultCode.COUNTERFEIT_CARD: 'counterfeit_card'>

The guard is a frozen value (the table's policy); the pack a game is played with is the referee's
state (:class:`~firmware_host.referee.card_namer.CardNamer`), given to each judgement.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from drivers.nfc.originality import Origin
from engine.events import Says
from engine.faults import FaultCode
from firmware_host.referee.transcript import Sighting

logger = logging.getLogger(__name__)

TAG_FAULTS = frozenset({FaultCode.UNKNOWN_TAG, FaultCode.FOREIGN_PACK, FaultCode.COUNTERFEIT_CARD})
"""Faults of a tag, not of play: only taking the card off the pad puts them right."""


@dataclass(frozen=True, slots=True)
class Judgement:
    """What the guard makes of a tag: the ``card`` it stands for in this game (``None``: refused
    or unknown), the fault ``code`` and what it says (data, worded at the edge) if it is refused, and
    the pack it ``chosen`` for the game (its first arrival of a known pack; None: none chosen by it)."""

    card: str | None
    code: FaultCode | None = None
    says: Says | None = None
    chosen: int | None = None


@dataclass(frozen=True, slots=True)
class PackGuard:
    """One pack per game, and genuine tags (see the module's docstring).

    :param require_genuine: refuse an ``unchecked`` tag too (a table that requires signatures).
    """

    require_genuine: bool = False

    def refuses(self, origin: Origin | None) -> bool:
        """Whether a tag with verdict ``origin`` is refused (``None``: no verdict given, none asked)."""
        if origin is None:
            return False
        return origin != Origin.GENUINE if self.require_genuine else not origin.vouched

    def judge(self, seen: Sighting, *, arriving: bool, pack: int | None) -> Judgement:
        """The card tag ``seen`` stands for in this game, or why it is refused.

        :param arriving: an arrival (the first accepted one chooses the game's pack); ``False``
            for a departure, judged alike without choosing anything.
        :param pack: the pack this game is played with (``None``: not chosen yet).
        """
        card, tag_pack = seen.card, seen.pack
        if card is None:
            return Judgement(None)  # unknown: the controller's unknown_tag
        if self.refuses(seen.origin):
            return Judgement(None, FaultCode.COUNTERFEIT_CARD,
                             Says("says.counterfeit", (("card", card), ("uid", seen.uid))))
        if tag_pack is not None and pack is not None and tag_pack != pack:
            return Judgement(None, FaultCode.FOREIGN_PACK, Says("says.foreign_pack", (
                ("card", card), ("pack", str(tag_pack)), ("game_pack", str(pack)))))
        if arriving and tag_pack is not None and pack is None:
            logger.info("this game is played with pack %d (chosen by tag %s)", tag_pack, seen.uid)
            return Judgement(card, chosen=tag_pack)
        return Judgement(card)
