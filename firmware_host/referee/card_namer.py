"""Which card a tag is: the setup's tags, the registry, the badges and the pack guard, in that order.

A pad's event names a card, or only a tag's UID. The namer says what the sighting stands for in
this game: a card (the event's own, the setup's ``tags`` map, else the registry's lookup), a badge
or rule card (:mod:`hardware.badges`: ``player:Anne``, ``rules:italian``), or a tag the pack guard
refuses (:mod:`firmware_host.referee.pack_guard`: ``foreign_pack``, ``counterfeit_card``) — and,
for a tag it cannot name, nothing: the referee refuses it as ``unknown_tag``.

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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from firmware_host.referee.pack_guard import PackGuard
from firmware_host.referee.transcript import CardEvent


@dataclass(frozen=True, slots=True)
class NamedCard:
    """What a sighting stands for: its ``card`` (None: unknown, or refused by the pack guard), the
    tag's ``uid``, the ``badge`` it is (a badge or rule card, then no card), and the guard's
    ``fault`` (code, message) for a tag it refuses."""

    card: str | None
    uid: str | None = None
    badge: str | None = None
    fault: tuple[str, str] | None = None

    @property
    def key(self) -> str:
        """How the pad ledger remembers it: the card, else the tag."""
        return self.card or f"uid:{self.uid}"


@dataclass(frozen=True, slots=True)
class CardNamer:
    """Names the card of each sighting (see the module's docstring).

    :param table_tags: the table's own tag UID → card map (a transcript's setup adds to it).
    :param card_for_uid: the tag registry's lookup (UID → card), or None.
    :param pack_guard: checks each registered tag (one pack per game, genuine tags); it then names
        the card instead of ``card_for_uid``.
    :param badges: tag UID → ``player:NAME``, ``rules:NAME``, ``option:NAME`` or ``target:N``.
    :param setup_tags: the setup line's tags, over the table's own.
    :param pack: the pack the game is played with (None: not chosen yet, or no pack guard).
    """

    table_tags: Mapping[str, str] = field(default_factory=dict)
    card_for_uid: Callable[[str], str | None] | None = None
    pack_guard: PackGuard | None = None
    badges: Mapping[str, str] = field(default_factory=dict)
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
        card = event.card if event.card is not None else self._lookup(uid or "")
        if card is None and (badge := self.badges.get(uid or "")) is not None:
            return self, NamedCard(None, uid, badge=badge)
        if self.pack_guard is not None and uid is not None and uid not in self.setup_tags \
                and uid not in self.table_tags:
            judged = self.pack_guard.judge(uid, event.card, arriving=not event.gone, pack=self.pack)
            fault = (judged.code, judged.message) if judged.code is not None else None
            after = self if judged.chosen is None else dataclasses.replace(self, pack=judged.chosen)
            return after, NamedCard(judged.card, uid, fault=fault)
        return self, NamedCard(card, uid)

    def _lookup(self, uid: str) -> str | None:
        card = self.setup_tags.get(uid)
        if card is None:
            card = self.table_tags.get(uid)
        if card is None and self.card_for_uid is not None:
            card = self.card_for_uid(uid)
        return card
