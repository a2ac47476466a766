"""What lies on one pad, as its polls show it: the debounce and the stack.

A pad's content is a set of UIDs: each arrives and leaves on its own (a stack is
listed tag by tag), and a tag leaves only after ``leave_after`` polls without it
(a tag missing for fewer polls flickered and stays). An arriving tag is
identified by its UID through ``card_for``, once: the tag registry's entry gives its card and
pack; a card the registry does not know is read for an NDEF text record ``ecarte:KS`` (see
:data:`NDEF_PREFIX`; its pack is the table's ``ndef_pack``); a card neither knows arrives with
``card=None``. The pad makes the tag's :class:`~drivers.device_events.Sighting` then, once (its
UID, card, pack and originality verdict), and gives that same value again when the tag leaves.

With an originality check, the pad's poll asks each arriving tag while the listing
that found it holds it (:attr:`PadContents.inquiry`: :meth:`~PadContents.wants`,
:meth:`~PadContents.answered`), and a tag the registry names arrives right then,
during the poll, before that cycle's leaves.

:class:`PadContents` runs no thread and opens no port: :class:`drivers.nfc.pad.Pad`
feeds it each poll's UIDs on the pad's thread, and a test may feed it directly.
"""

from __future__ import annotations

import functools
import logging
import re
import time
from collections.abc import Callable
from typing import Protocol

from drivers.device_events import CardSeen, DeviceEvent, Origin, Sighting
from drivers.nfc.originality import OriginalityCheck, TagFacts
from drivers.nfc.reader import Inquiry, Reader
from engine.cards import RANKS, SUITS

logger = logging.getLogger(__name__)

NDEF_PREFIX = "ecarte:"
"""An NDEF text record ``ecarte:KS`` on a tag names its card."""


class Listed(Protocol):
    """A registry's entry for a tag (:class:`hardware.tag_registry.TagEntry`): its card and pack."""

    @property
    def card(self) -> str: ...

    @property
    def pack(self) -> int: ...


CardLookup = Callable[[str], "str | Listed | None"]
"""What a pad asks of a tag's UID: the registry's entry (card and pack: ``TagRegistry.entry``),
or only a card (``{"04A1…": "KS"}.get``: no pack), or ``None`` for a tag it does not know."""


_NDEF_CARD = re.compile(rf"^ecarte:([{RANKS}][{SUITS}])$")  # the alphabet is engine.cards's


def card_from_ndef(text: str | None) -> str | None:
    """The card an NDEF text names (``"ecarte:KS"`` → ``"KS"``), else ``None``.

    >>> card_from_ndef("ecarte:TH"), card_from_ndef("hello")
    ('TH', None)
    """
    if text is None:
        return None
    match = _NDEF_CARD.match(text.strip())
    return match.group(1) if match else None


class PadContents:
    """The tags on pad ``zone`` and the cards they stand for, updated one poll at a time.

    :param emit: where the arrivals and leaves go (:class:`~drivers.device_events.CardSeen`).
    :param leave_after: consecutive polls without a tag before it has left.
    :param card_for: looks a tag UID up in the tag registry (:data:`CardLookup`), once an arrival.
    :param read_ndef: read unknown tags for an ``ecarte:KS`` NDEF record.
    :param ndef_pack: the pack of the cards named by their NDEF record (``None``: not said).
    :param originality: ask each arriving tag for its originality and report it in
        its ``Sighting.origin``; a tag that does not answer arrives at a later poll.
    :param clock: seconds for the events' ``t``.
    """

    def __init__(
        self,
        zone: str,
        *,
        emit: Callable[[DeviceEvent], None],
        leave_after: int = 3,
        card_for: CardLookup | None = None,
        read_ndef: bool = True,
        originality: OriginalityCheck | None = None,
        ndef_pack: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.zone = zone
        self.leave_after = leave_after
        self._emit = emit
        self._card_for = card_for
        self._read_ndef = read_ndef
        self._originality = originality
        self._ndef_pack = ndef_pack
        self._now = clock
        self._present: frozenset[str] = frozenset()
        self._sightings: dict[str, Sighting] = {}  # UID present → its sighting, made when it arrived
        self._misses: dict[str, int] = {}  # UID present → polls missed in a row
        self._unanswered: set[str] = set()  # UIDs listed that did not answer their check yet

    @property
    def present(self) -> frozenset[str]:
        """UIDs of the tags on the pad (empty: none)."""
        return self._present

    def card_of(self, uid: str) -> str | None:
        """The card tag ``uid`` stands for (``None``: unknown or not here)."""
        sighting = self._sightings.get(uid)
        return None if sighting is None else sighting.card

    @property
    def inquiry(self) -> Inquiry | None:
        """What the reader's poll asks while its listing holds a tag
        (:meth:`~drivers.nfc.pn532_reader.NfcpyReader.poll`'s ``ask``: :meth:`wants`,
        :meth:`answered`); ``None`` without an originality check."""
        return None if self._originality is None else self

    def wants(self, uid: str) -> bool:
        """Whether the poll should ask tag ``uid`` for its originality now: a tag arriving whose
        verdict nobody remembers (one that did not answer the last times: only when it is due again)."""
        check = self._originality
        return uid not in self._present and check is not None and check.verdict(uid) is None and check.due(uid)

    def answered(self, uid: str, facts: TagFacts) -> bool:
        """Tag ``uid`` answered its originality check while the poll's listing held it: it arrives
        at once, with its verdict, if the registry names it (``card_for``) or no NDEF is read (an
        NDEF read selects the tag again, after the poll); else at :meth:`observe` (the reader keeps
        the answers for it). Whether it arrived."""
        if uid in self._present or self._originality is None:
            return False
        listed = self._lookup(uid)
        if listed[0] is None and self._read_ndef:
            return False
        origin = self._originality.check(uid, lambda: facts)
        if origin is None:
            return False
        self._arrive(uid, listed, origin)
        return True

    def observe(self, uids: tuple[str, ...], reader: Reader | None) -> None:
        """One poll cycle's tags: leaves (debounced, per UID), then arrivals in listed order."""
        seen = set(uids)
        for uid in sorted(self._present - seen):
            self._misses[uid] = self._misses.get(uid, 0) + 1
            if self._misses[uid] >= self.leave_after:
                self._leave(uid)
        arrivals = []
        for uid in uids:
            if uid in self._present:
                self._misses[uid] = 0
            else:
                arrivals.append(uid)
        if self._originality is not None:
            for uid in self._unanswered - seen:  # gone before it answered: laid again, it is asked at once
                self._originality.forget(uid)
            self._unanswered &= seen
        if not arrivals:
            return
        origins = self._check(arrivals, reader)
        for uid in arrivals:
            origin = None if origins is None else origins[uid]
            if origins is not None and origin is None:
                self._unanswered.add(uid)
                continue  # it did not answer: asked again at the next poll, then it arrives
            self._unanswered.discard(uid)
            self._arrive(uid, self._identify(uid, reader), origin)

    def _arrive(self, uid: str, listed: tuple[str | None, int | None], origin: Origin | None) -> None:
        card, pack = listed
        sighting = self._sightings[uid] = Sighting(uid, card, origin, pack)  # the one value, made once
        self._misses[uid] = 0
        self._present = self._present | {uid}
        self._emit(CardSeen(self.zone, sighting, t=self._now()))

    def _check(self, arrivals: list[str], reader: Reader | None) -> dict[str, Origin | None] | None:
        """The arriving tags' originality verdicts (``None``: no answer yet), ``None`` if not asked.

        The poll asked them already while its listings held them (:attr:`ask`), and
        ``read_facts`` gives those answers; a tag it did not ask is asked now, last
        listed first: the poll leaves the tag it listed last selected
        (:meth:`~drivers.nfc.pn532_reader.NfcpyReader.poll`), so that one is asked without
        the field reset and reselection each of the others costs.
        """
        if self._originality is None or reader is None:
            return None
        check = self._originality.check
        return {uid: check(uid, functools.partial(reader.read_facts, uid)) for uid in reversed(arrivals)}

    def _leave(self, uid: str) -> None:
        self._present = self._present - {uid}
        sighting = self._sightings.pop(uid)  # what its arrival said: no lookup
        self._misses.pop(uid, None)
        if self._originality is not None:
            self._originality.forget(uid)  # a verdict lasts while the tag stays on the pad
        self._emit(CardSeen(self.zone, sighting, gone=True, t=self._now()))

    def _lookup(self, uid: str) -> tuple[str | None, int | None]:
        """The card and pack ``card_for`` gives tag ``uid`` (``None`` for what it does not say)."""
        found = self._card_for(uid) if self._card_for is not None else None
        if found is None or isinstance(found, str):
            return found, None
        return found.card, found.pack

    def _identify(self, uid: str, reader: Reader | None) -> tuple[str | None, int | None]:
        listed = self._lookup(uid)
        if listed[0] is None and self._read_ndef and reader is not None:
            card = card_from_ndef(reader.read_text(uid))
            logger.debug("pad %s: tag %s NDEF names %s", self.zone, uid, card)
            return card, None if card is None else self._ndef_pack
        return listed
