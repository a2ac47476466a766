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
to the same decisions.

    >>> from firmware_host.referee.transcript import Sighting
    >>> guard = PackGuard()
    >>> guard.judge(Sighting("04ECA701075A80", "KS", Origin.GENUINE, pack=1), arriving=True)
    Judgement(card='KS', code=None, says=None)
    >>> guard.pack
    1
    >>> guard.judge(Sighting("04ECA702075A80", "KS", Origin.GENUINE, pack=2), arriving=True).code
    'foreign_pack'
    >>> guard.judge(Sighting("04ECA701065A80", "QS", Origin.NO_SIGNATURE, pack=1), arriving=True).code
    'counterfeit_card'
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from drivers.nfc.originality import Origin
from engine.events import Says
from firmware_host.referee.transcript import Sighting

logger = logging.getLogger(__name__)

TAG_FAULTS = frozenset({"unknown_tag", "foreign_pack", "counterfeit_card"})
"""Faults of a tag, not of play: only taking the card off the pad puts them right."""


@dataclass(frozen=True, slots=True)
class Judgement:
    """What the guard makes of a tag: the ``card`` it stands for in this game (``None``: refused
    or unknown), and the fault ``code`` and what it says (data, worded at the edge) if it is refused."""

    card: str | None
    code: str | None = None
    says: Says | None = None


class PackGuard:
    """One pack per game, and genuine tags (see the module's docstring).

    :param require_genuine: refuse an ``unchecked`` tag too (a table that requires signatures).
    """

    def __init__(self, *, require_genuine: bool = False) -> None:
        self.require_genuine = require_genuine
        self.pack: int | None = None
        """The pack this game is played with (``None``: not chosen yet)."""

    def new_game(self) -> None:
        """A new game: its first card chooses the pack again."""
        self.pack = None

    def refuses(self, origin: Origin | None) -> bool:
        """Whether a tag with verdict ``origin`` is refused (``None``: no verdict given, none asked)."""
        if origin is None:
            return False
        return origin != Origin.GENUINE if self.require_genuine else not origin.vouched

    def judge(self, seen: Sighting, *, arriving: bool) -> Judgement:
        """The card tag ``seen`` stands for in this game, or why it is refused.

        :param arriving: an arrival (the first accepted one chooses the game's pack); ``False``
            for a departure, judged alike without choosing anything.
        """
        card, pack = seen.card, seen.pack
        if card is None:
            return Judgement(None)  # unknown: the controller's unknown_tag
        if self.refuses(seen.origin):
            return Judgement(None, "counterfeit_card", Says("says.counterfeit", (("card", card), ("uid", seen.uid))))
        if pack is not None and self.pack is not None and pack != self.pack:
            return Judgement(None, "foreign_pack", Says("says.foreign_pack", (
                ("card", card), ("pack", str(pack)), ("game_pack", str(self.pack)))))
        if arriving and pack is not None and self.pack is None:
            self.pack = pack
            logger.info("this game is played with pack %d (chosen by tag %s)", pack, seen.uid)
        return Judgement(card)
