"""A table's tags, wired: the registry, the ``[tags]`` policy, the pads' originality check, the
referee's pack guard, and how the pads' events reach the referee.

Built once by the composition root (:func:`firmware_host.app.run_service`) from the table file::

    tags = TableTags.load(table)                       # raises BadInput for a broken registry
    controller = Controller(defaults, card_for_uid=tags.card_for, pack_guard=tags.guard())
    devices = open_devices(table, tags.route(service), tags.card_for, **tags.pad_options())

With a registry, the pads' card events go to the service as transcript events that carry the
tag's UID as well as its card (``{"zone": "play.A", "card": "KS", "uid": "04..."}``), so that the
referee knows the pack and the journal replays to the same decisions. On a table that requires
signatures, a registered tag whose originality check failed arrives with its UID only: the card is
not vouched for (:mod:`firmware_host.referee.pack_guard` refuses it as ``counterfeit_card``).
Badges and rule cards (:mod:`hardware.badges`) are checked like cards: on such a table a badge's
tag that fails the originality check never reaches the referee (it is logged and dropped at the
door), so a cloned ``player:Anne`` badge or a counterfeit ``target:1`` card does nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from drivers.device_events import CardSeen, DeviceEvent
from drivers.nfc.originality import GENUINE, OriginalityCheck
from firmware_host.errors import BadInput, Said
from firmware_host.referee.pack_guard import PackGuard
from firmware_host.referee.transcript import CardEvent, PhysicalEvent, sighting_event
from hardware import ntag_signature
from hardware.table import TableConfig, TagPolicy
from hardware.tag_registry import TagRegistry, TagRegistryError

logger = logging.getLogger(__name__)


class EventSink(Protocol):
    """Where device and transcript events go (:class:`firmware_host.service.TableService`)."""

    def put_device_event(self, event: DeviceEvent) -> None: ...

    def put_physical(self, event: PhysicalEvent) -> None: ...


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
                raise TagRegistryMissing(f"tag registry {table.registry}: no such file (enrol the cards)") from None
            except (OSError, ValueError, TagRegistryError) as exc:
                reason = exc if isinstance(exc, OSError) and exc.errno is not None else str(exc)
                raise BadInput(msgid="error.tag_registry", path=table.registry, reason=reason) from None
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
            raise BadInput(msgid="error.option_refused", option="[tags] trusted_key", why=Said.of(exc)) from None
        check = None
        if policy.require_signature:
            check = OriginalityCheck(lambda uid, facts: ntag_signature.judge(uid, facts, key),
                                     remember=not policy.check_every_arrival)
        return cls(registry, policy, key, check, badges)

    def card_for(self, uid: str) -> str | None:
        """The registry's card for tag ``uid`` (``None``: unknown, or no registry)."""
        return self.registry.card_for(uid) if self.registry is not None else None

    @property
    def read_ndef(self) -> bool:
        """Whether the pads read unknown tags' NDEF records: always without a registry, with one
        only for the unenrolled pack the table file names (``ndef_pack``)."""
        return self.registry is None or self.policy.ndef_pack is not None

    def pad_options(self) -> dict[str, Any]:
        """What the pads are given beyond their ``card_for``."""
        return {"read_ndef": self.read_ndef, "originality": self.originality}

    def guard(self) -> PackGuard | None:
        """The referee's pack guard (``None`` without a registry: no pack to check)."""
        if self.registry is None:
            return None
        return PackGuard(self.registry.entry, require_genuine=self.policy.require_signature,
                         ndef_pack=self.policy.ndef_pack)

    def card_event(self, seen: CardSeen) -> CardEvent:
        """The transcript event for a pad's ``seen``: its card and UID, the card withheld from a
        registered tag that failed the originality check where the table requires it."""
        withhold = self.policy.require_signature and seen.origin != GENUINE
        if withhold and seen.card is not None and not seen.gone:
            logger.warning("tag %s (%s) on %s: %s", seen.uid, seen.card, seen.zone, seen.origin)
        return sighting_event(seen, by_tag=True, withhold=withhold)

    def vouched(self, seen: CardSeen) -> bool:
        """Whether ``seen`` may reach the referee: anything, except a badge or rule card whose
        tag failed the originality check on a table that requires it."""
        if not self.policy.require_signature or seen.uid not in self.badges or seen.origin == GENUINE:
            return True
        if self.registry is not None and seen.uid in self.registry:
            return True  # a card's tag: the pack guard refuses it, with a fault
        if not seen.gone:
            logger.warning("badge tag %s on %s: %s: ignored", seen.uid, seen.zone, seen.origin)
        return False

    def route(self, sink: EventSink) -> Callable[[DeviceEvent], None]:
        """The pads' and buttons' ``put``: card events as transcript events (with a registry),
        badges that fail the originality check dropped (:meth:`vouched`)."""

        def put(event: DeviceEvent) -> None:
            if isinstance(event, CardSeen):
                if not self.vouched(event):
                    return
                if self.registry is not None:
                    sink.put_physical(self.card_event(event))
                    return
            sink.put_device_event(event)

        return put
