"""A table's tags, wired: the registry, the ``[tags]`` policy, the pads' originality check, and
how the pads' events reach the referee.

Built once by the composition root (:func:`firmware_host.app.run_service`) from the table file::

    tags = TableTags.load(table)                       # raises BadInput for a broken registry
    controller = Controller(defaults, registry=tags.registry)
    service = TableService(..., by_tag=tags.by_tag)
    devices = open_devices(table, tags.route(service), tags.entry, **tags.pad_options())

A card is named once, at the pad: its lookup (:meth:`TableTags.entry`, the registry's entry) gives
the card and its pack (an NDEF record's card: the ``ndef_pack``), and the originality check its
verdict; the pad makes its :class:`~drivers.device_events.Sighting` of them. With a registry, the
service's one door (:func:`~firmware_host.referee.transcript.sighting_event`) journals that sighting
unchanged: the transcript event carries the tag's UID, its card, the card's pack and the verdict
(``{"zone": "play.A", "card": "KS", "uid": "04...", "pack": 1, "origin": "genuine"}``), so that
the referee judges them without asking the registry again (one pack per game; a tag that is not
genuine refused as ``counterfeit_card``: :mod:`firmware_host.referee.pack_guard`) and the journal
replays to the same decisions.
Badges and rule cards (:mod:`hardware.badges`) are checked like cards: on such a table a badge's
tag that fails the originality check never reaches the referee (it is logged and dropped at the
door), so a cloned ``player:Anne`` badge or a counterfeit ``target:1`` card does nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from catalogue.phrase import Phrase, log_said
from drivers.device_events import CardSeen, DeviceEvent, Origin
from drivers.nfc.originality import OriginalityCheck
from firmware_host.errors import BadInput
from hardware import ntag_signature
from hardware.table import TableConfig, TagPolicy
from hardware.tag_registry import TagEntry, TagRegistry, TagRegistryError

logger = logging.getLogger(__name__)


class EventSink(Protocol):
    """Where device events go (:class:`firmware_host.service.TableService`)."""

    def put_device_event(self, event: DeviceEvent) -> None: ...


class TagRegistryMissing(BadInput):
    """The table file names a registry that does not exist yet: the cards are not enrolled."""


@dataclass(frozen=True)
class TableTags:
    """The tags of one table (see the module's docstring)."""

    registry: TagRegistry | None
    policy: TagPolicy
    public_key: bytes
    originality: OriginalityCheck | None
    badges: frozenset[str] = frozenset()
    """The UIDs of the table's badges and rule cards (checked like cards)."""

    @classmethod
    def load(cls, table: TableConfig) -> TableTags:
        """The registry the table file names (if any) and its ``[tags]`` policy.

        :raises BadInput: the registry cannot be read, or the trusted key is not a key.
        """
        registry = None
        if table.registry is not None:
            try:
                registry = TagRegistry.load(table.registry)
            except FileNotFoundError:
                raise TagRegistryMissing(msgid="error.registry_missing", path=table.registry) from None
            except (OSError, ValueError, TagRegistryError) as exc:
                raise BadInput(msgid="error.tag_registry", path=table.registry, reason=exc) from None
        from hardware.badges import Badges, badges_path

        path = badges_path(table)
        try:
            badges = frozenset(Badges.load(path).tags) if path is not None else frozenset()
        except TagRegistryError as exc:
            raise BadInput.of(exc) from None
        return cls.build(registry, table.tags, simulated=table.simulated_pads, badges=badges)

    @classmethod
    def build(cls, registry: TagRegistry | None, policy: TagPolicy, *, simulated: bool,
              badges: frozenset[str] = frozenset()) -> TableTags:
        """From a registry already loaded.

        :raises BadInput: the trusted key is not a key.
        """
        try:
            key = ntag_signature.trusted_key(policy.key_name(simulated))
        except ntag_signature.OriginalityError as exc:
            raise BadInput(msgid="error.trusted_key", why=exc) from None
        check = None
        if policy.require_signature:
            check = OriginalityCheck(lambda uid, facts: ntag_signature.judge(uid, facts, key),
                                     remember=not policy.check_every_arrival)
        return cls(registry, policy, key, check, badges)

    def entry(self, uid: str) -> TagEntry | None:
        """The registry's entry for tag ``uid``, its card and pack (``None``: unknown, or no
        registry): the pads' lookup, the one a card's sighting takes."""
        return self.registry.entry(uid) if self.registry is not None else None

    @property
    def read_ndef(self) -> bool:
        """Whether the pads read unknown tags' NDEF records: always without a registry, with one
        only for the unenrolled pack the table file names (``ndef_pack``)."""
        return self.registry is None or self.policy.ndef_pack is not None

    def pad_options(self) -> dict[str, Any]:
        """What the pads are given beyond their ``card_for`` (:meth:`entry`): the pack of a card named
        by its NDEF record is the pad's to say too (``ndef_pack``), in the sighting it makes."""
        return {"read_ndef": self.read_ndef, "ndef_pack": self.policy.ndef_pack, "originality": self.originality}

    @property
    def by_tag(self) -> bool:
        """Whether the service's door journals a card event as the tag's sighting (with a registry:
        :func:`~firmware_host.referee.transcript.sighting_event`'s ``by_tag``)."""
        return self.registry is not None

    def vouched(self, seen: CardSeen) -> bool:
        """Whether ``seen`` may reach the referee: anything, except a badge or rule card whose
        tag failed the originality check on a table that requires it."""
        tag = seen.sighting
        if not self.policy.require_signature or tag.uid not in self.badges or tag.origin == Origin.GENUINE:
            return True
        if tag.pack is not None:
            return True  # a registered card's tag (the pad's lookup said its pack): the referee refuses it
        if not seen.gone:
            log_said(logger, logging.WARNING, Phrase.of("log.badge_not_genuine", uid=tag.uid, pad=seen.zone,
                                                        why=origin_words(tag.origin)))
        return False

    def route(self, sink: EventSink) -> Callable[[DeviceEvent], None]:
        """The pads' and buttons' ``put``: every event to the service as the device gave it (the
        service's door makes the transcript event: :meth:`firmware_host.service.TableService.handle`),
        but a badge that fails the originality check, dropped (:meth:`vouched`); a card's tag that
        is not genuine is logged here, and refused by the referee."""

        def put(event: DeviceEvent) -> None:
            if isinstance(event, CardSeen):
                if not self.vouched(event):
                    return
                seen = event.sighting
                if seen.origin not in (None, Origin.GENUINE) and seen.card is not None and not event.gone:
                    log_said(logger, logging.WARNING, Phrase.of("log.tag_not_genuine", uid=seen.uid, card=seen.card,
                                                                pad=event.zone, why=origin_words(seen.origin)))
            sink.put_device_event(event)

        return put


def origin_words(origin: Origin | None) -> Phrase:
    """An originality verdict as the catalogue words it (``origin.no_signature``...), for a console."""
    return Phrase.of(f"origin.{origin or Origin.UNCHECKED}")
