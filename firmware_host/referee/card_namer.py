"""Which card a tag is: the setup's tags, the registry, the badges and the pack guard, in that order.

A pad's event names a card, or only a tag's UID. The namer says what the sighting stands for in
this game: a card (the event's own, the setup's ``tags`` map, else the registry's lookup), a badge
or rule card (:mod:`hardware.badges`: ``player:Anne``, ``rules:italian``), or a tag the pack guard
refuses (:mod:`firmware_host.referee.pack_guard`: ``foreign_pack``, ``counterfeit_card``) — and,
for a tag it cannot name, nothing: the referee refuses it as ``unknown_tag``.

    >>> namer = CardNamer({"04A1": "KS"}, badges={"04B0": "player:Anne"})
    >>> from firmware_host.referee.transcript import CardEvent
    >>> namer.name(CardEvent("hand.A", uid="04A1"))
    NamedCard(card='KS', uid='04A1', badge=None, fault=None)
    >>> namer.name(CardEvent("hand.A", uid="04B0")).badge
    'player:Anne'
    >>> namer.name(CardEvent("hand.A", uid="04FF")).key
    'uid:04FF'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from engine.events import Says
from firmware_host.referee.pack_guard import PackGuard
from firmware_host.referee.transcript import CardEvent


@dataclass(frozen=True, slots=True)
class NamedCard:
    """What a sighting stands for: its ``card`` (None: unknown, or refused by the pack guard), the
    tag's ``uid``, the ``badge`` it is (a badge or rule card, then no card), and the guard's
    ``fault`` (code, what it says) for a tag it refuses."""

    card: str | None
    uid: str | None = None
    badge: str | None = None
    fault: tuple[str, Says] | None = None

    @property
    def key(self) -> str:
        """How the pad ledger remembers it: the card, else the tag."""
        return self.card or f"uid:{self.uid}"


class CardNamer:
    """Names the card of each sighting (see the module's docstring).

    :param tags: the table's own tag UID → card map (a table file's, a transcript's setup adds to it).
    :param card_for_uid: the tag registry's lookup (UID → card), or None.
    :param pack_guard: checks each registered tag (one pack per game, genuine tags); it then names
        the card instead of ``card_for_uid``.
    :param badges: tag UID → ``player:NAME``, ``rules:NAME``, ``option:NAME`` or ``target:N``.
    """

    def __init__(self, tags: Mapping[str, str] | None = None, *,
                 card_for_uid: Callable[[str], str | None] | None = None,
                 pack_guard: PackGuard | None = None, badges: Mapping[str, str] | None = None) -> None:
        self._table_tags = dict(tags or {})
        self._tags = dict(self._table_tags)
        self._card_for_uid = card_for_uid
        self._guard = pack_guard
        self._badges = dict(badges or {})

    @property
    def tags(self) -> dict[str, str]:
        """The tag map of the game under way (the setup line writes it)."""
        return dict(self._tags)

    def use(self, tags: Mapping[str, str]) -> None:
        """A setup line's tags, over the table's own."""
        self._tags = {**self._table_tags, **tags}

    def new_game(self) -> None:
        """The next game's first card chooses its pack."""
        if self._guard is not None:
            self._guard.new_game()

    def name(self, event: CardEvent) -> NamedCard:
        """What ``event``'s tag stands for in this game."""
        uid = event.uid
        card = event.card if event.card is not None else self._lookup(uid or "")
        if card is None and (badge := self._badges.get(uid or "")) is not None:
            return NamedCard(None, uid, badge=badge)
        if self._guard is not None and uid is not None and uid not in self._tags:
            judged = self._guard.judge(uid, event.card, arriving=not event.gone)
            fault = (judged.code, judged.says or Says("says." + judged.code)) if judged.code is not None else None
            return NamedCard(judged.card, uid, fault=fault)
        return NamedCard(card, uid)

    def _lookup(self, uid: str) -> str | None:
        card = self._tags.get(uid)
        if card is None and self._card_for_uid is not None:
            card = self._card_for_uid(uid)
        return card
