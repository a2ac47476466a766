"""Which card a tag is: the setup's tags, the sighting, the badges and the pack guard, in that order.

A pad's event names a card, or a tag: its UID, and on a table with a tag registry the whole
:class:`~firmware_host.referee.transcript.Sighting` the door journaled (card, pack, originality
verdict). :meth:`CardNamer.sight` makes the sighting once: what the event says, else the registry's
entry (one lookup, for a line that does not carry its pack: a transcript's). The namer then says
what it stands for in this game: a card, a badge or rule card (:mod:`hardware.badges`:
``player:Anne``, ``rules:italian``), or a tag the pack guard refuses
(:mod:`firmware_host.referee.pack_guard`: ``foreign_pack``, ``counterfeit_card``) — and, for a tag
it cannot name, nothing: the referee refuses it as ``unknown_tag``.

A frozen value: naming a card gives the namer after it too (the first card of a known pack
chooses the game's pack).

    >>> namer = CardNamer({"04A1": "KS"}, badges={"04B0": "player:Anne"})
    >>> from firmware_host.referee.transcript import CardEvent
    >>> namer.name(CardEvent("hand.A", uid="04A1"))[1]
    NamedCard(card='KS', uid='04A1', badge=None, fault=None)
    >>> namer.name(CardEvent("hand.A", uid="04B0"))[1].badge
    'player:Anne'
    >>> namer.name(CardEvent("hand.A", uid="04FF"))[1].key
    'uid:04FF'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from drivers.nfc.originality import Origin
from engine.events import Says
from engine.faults import FaultCode
from firmware_host.referee.pack_guard import PackGuard
from firmware_host.referee.transcript import CardEvent, Sighting
from hardware.tag_registry import TagEntry


class Registry(Protocol):
    """What the referee asks of a tag registry (:class:`hardware.tag_registry.TagRegistry`)."""

    def entry(self, uid: str) -> TagEntry | None:
        """Tag ``uid``'s card and pack, ``None`` if it is not registered."""


@dataclass(frozen=True, slots=True)
class NamedCard:
    """What a sighting stands for: its ``card`` (None: unknown, or refused by the pack guard), the
    tag's ``uid``, the ``badge`` it is (a badge or rule card, then no card), and the guard's
    ``fault`` (code, what it says) for a tag it refuses."""

    card: str | None
    uid: str | None = None
    badge: str | None = None
    fault: tuple[FaultCode, Says] | None = None

    @property
    def key(self) -> str:
        """How the pad ledger remembers it: the card, else the tag."""
        return self.card or f"uid:{self.uid}"


@dataclass(frozen=True, slots=True)
class CardNamer:
    """Names the card of each sighting (see the module's docstring).

    :param table_tags: the table's own tag UID → card map (a table file's; a transcript's setup adds to it).
    :param registry: the tag registry, asked only for a line that does not carry its tag's pack.
    :param badges: tag UID → ``player:NAME``, ``rules:NAME``, ``option:NAME`` or ``target:N``.
    :param require_genuine: the table requires genuine tags (its ``[tags] require_signature``).
    :param ndef_pack: the pack of the cards named by their NDEF record (``[tags] ndef_pack``).
    :param setup_tags: the setup line's tags, over the table's own.
    :param pack: the pack the game is played with (None: not chosen yet).
    """

    table_tags: Mapping[str, str] = field(default_factory=dict)
    registry: Registry | None = None
    badges: Mapping[str, str] = field(default_factory=dict)
    require_genuine: bool = False
    ndef_pack: int | None = None
    setup_tags: Mapping[str, str] = field(default_factory=dict)
    pack: int | None = None

    @property
    def tags(self) -> dict[str, str]:
        """The tag map of the game under way (the setup line writes it)."""
        return {**self.table_tags, **self.setup_tags}

    def use(self, tags: Mapping[str, str]) -> CardNamer:
        """A setup line's tags, over the table's own."""
        return dataclasses.replace(self, setup_tags=dict(tags))

    def new_game(self) -> CardNamer:
        """The next game's first card chooses its pack."""
        return self if self.pack is None else dataclasses.replace(self, pack=None)

    def name(self, event: CardEvent) -> tuple[CardNamer, NamedCard]:
        """What ``event``'s tag stands for in this game, and the namer after it (a pack chosen)."""
        uid = event.uid
        if uid is None:
            return self, NamedCard(event.card)
        own = self.setup_tags.get(uid) or self.table_tags.get(uid)
        if own is not None:  # the setup's own tags: neither registered nor guarded
            return self, NamedCard(event.card or own, uid)
        seen = self.sight(event)
        if seen.card is None and (badge := self.badges.get(uid)) is not None:
            return self, NamedCard(None, uid, badge=badge)
        judged = PackGuard(self.require_genuine).judge(seen, arriving=not event.gone, pack=self.pack)
        fault = (judged.code, judged.says or Says("says." + judged.code)) if judged.code is not None else None
        after = self if judged.chosen is None else dataclasses.replace(self, pack=judged.chosen)
        return after, NamedCard(judged.card, uid, fault=fault)

    def sight(self, event: CardEvent) -> Sighting:
        """The sighting a tag's event stands for: the one step from a tag to its card, pack and verdict.

        A line that carries its pack (the door journaled the pad's sighting, registry entry and
        verdict) is taken as it is: the registry is not asked again. Any other (a transcript's
        ``{"zone": …, "uid": …}``, a journal written before lines carried their pack) is looked up
        in the registry once: its entry's card and pack, else the line's card (an NDEF record's,
        of the ``ndef_pack``). Such a line's verdict, if it has none, is what the door then said
        by leaving out the card: a registered tag on a table that requires genuine tags whose
        line names no card was not genuine (``unchecked``, refused).

        :raises ValueError: ``event`` names no tag.
        """
        seen = event.sighting
        if seen is None:
            raise ValueError(f"a card event without a tag: {event}")
        if seen.pack is not None or self.registry is None:
            return seen
        entry = self.registry.entry(seen.uid)
        if entry is None:
            return Sighting(seen.uid, seen.card, seen.origin, None if seen.card is None else self.ndef_pack)
        origin = seen.origin
        if origin is None and seen.card is None and self.require_genuine:
            origin = Origin.UNCHECKED
        return Sighting(seen.uid, entry.card, origin, entry.pack)
