"""What the table checks of a card's tag before the rules see the card: one pack per game, and
tags that passed NXP's originality check.

The guard judges a tag's :class:`~drivers.device_events.Sighting` (its card, pack and
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

    >>> from drivers.device_events import Sighting
    >>> guard, ks = PackGuard(), Sighting("04ECA701075A80", "KS", Origin.GENUINE, pack=1)
    >>> guard.judge(ks, pack=None), guard.chooses(ks, arriving=True, pack=None)
    (None, 1)
    >>> guard.judge(Sighting("04ECA702075A80", "KS", Origin.GENUINE, pack=2), pack=1)[0]
    <FaultCode.FOREIGN_PACK: 'foreign_pack'>
    >>> guard.judge(Sighting("04ECA701065A80", "QS", Origin.NO_SIGNATURE, pack=1), pack=None)[0]
    <FaultCode.COUNTERFEIT_CARD: 'counterfeit_card'>

The guard is a frozen value (the table's policy); the pack a game is played with is the referee's
state (:class:`~firmware_host.referee.card_namer.CardNamer`), given to each judgement.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from catalogue.phrase import Phrase, log_said
from drivers.device_events import Origin, Sighting
from engine.faults import FaultCode

logger = logging.getLogger(__name__)

TAG_FAULTS = frozenset({FaultCode.UNKNOWN_TAG, FaultCode.FOREIGN_PACK, FaultCode.COUNTERFEIT_CARD})
"""Faults of a tag, not of play: only taking the card off the pad puts them right."""


Refusal = tuple[FaultCode, Phrase]
"""Why the guard refuses a tag: the fault's code and what it says (data, worded at the edge)."""


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

    def judge(self, seen: Sighting, *, pack: int | None) -> Refusal | None:
        """Why tag ``seen`` is refused in this game, or ``None``: it stands for its card (a tag no card
        names stands for nothing: the referee's ``unknown_tag``). A departure is judged alike.

        :param pack: the pack this game is played with (``None``: not chosen yet).
        """
        card, tag_pack = seen.card, seen.pack
        if card is None:
            return None
        if self.refuses(seen.origin):
            return FaultCode.COUNTERFEIT_CARD, Phrase("says.counterfeit", (("card", card), ("uid", seen.uid)))
        if tag_pack is not None and pack is not None and tag_pack != pack:
            return FaultCode.FOREIGN_PACK, Phrase("says.foreign_pack", (
                ("card", card), ("pack", str(tag_pack)), ("game_pack", str(pack))))
        return None

    def chooses(self, seen: Sighting, *, arriving: bool, pack: int | None) -> int | None:
        """The pack tag ``seen``, accepted, chooses for the game: its own when it is an arrival of a known
        pack and none is chosen yet (``None``: it chooses none; a departure never does)."""
        if arriving and seen.card is not None and seen.pack is not None and pack is None:
            log_said(logger, logging.INFO, Phrase.of("log.pack_chosen", pack=seen.pack, uid=seen.uid))
            return seen.pack
        return None
