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
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from drivers.events import CardSeen, DeviceEvent
from drivers.nfc.originality import OriginalityCheck
from firmware_host.errors import BadInput
from firmware_host.referee.pack_guard import PackGuard
from firmware_host.referee.transcript import CardEvent, PhysicalEvent
from hardware import originality
from hardware.table import TableConfig, TagPolicy
from hardware.tags import TagRegistry, TagRegistryError

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
            except UnicodeDecodeError:
                raise BadInput(f"tag registry {table.registry}: not UTF-8 text (is it the right file?)") from None
            except (OSError, ValueError, TagRegistryError) as exc:
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
                raise BadInput(f"tag registry {table.registry}: {reason}") from None
        return cls.build(registry, table.tags, simulated=table.simulated_pads)

    @classmethod
    def build(cls, registry: TagRegistry | None, policy: TagPolicy, *, simulated: bool) -> TableTags:
        """From a registry already loaded.

        :raises BadInput: the trusted key is not a key.
        """
        try:
            key = originality.trusted_key(policy.key_name(simulated))
        except originality.OriginalityError as exc:
            raise BadInput(f"[tags] trusted_key: {exc}") from None
        check = None
        if policy.require_signature:
            check = OriginalityCheck(lambda uid, facts: originality.judge(uid, facts, key),
                                     remember=not policy.check_every_arrival)
        return cls(registry, policy, key, check)

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
        card = seen.card
        if self.policy.require_signature and seen.origin != originality.GENUINE:
            if card is not None and not seen.gone:
                logger.warning("tag %s (%s) on %s: %s", seen.uid, card, seen.zone, seen.origin)
            card = None
        return CardEvent(seen.zone, card=card, uid=seen.uid, gone=seen.gone)

    def route(self, sink: EventSink) -> Callable[[DeviceEvent], None]:
        """The pads' and buttons' ``put``: card events as transcript events (with a registry)."""
        if self.registry is None:
            return sink.put_device_event

        def put(event: DeviceEvent) -> None:
            if isinstance(event, CardSeen):
                sink.put_physical(self.card_event(event))
            else:
                sink.put_device_event(event)

        return put
