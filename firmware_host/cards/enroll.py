"""Enrollment: walk a pack's 32 cards over one pad and register their tags.

``ecarte-table enroll`` calls :func:`enroll` with the events of one pad: the
operator lays each card asked for on the pad and lifts it when told. A tag
that is already registered is refused (lift it and lay the right card). The
registry is saved after every card, so an interrupted walk resumes where it
stopped: cards that already have a tag in that pack are skipped.

Optionally each tag also gets an NDEF text record ``ecarte:KS`` (the pads'
fallback when a tag is missing from the registry)::

    with Pad("enroll", port, events=events, card_for=registry.card_for) as pad:
        enroll(events, registry, show, pack=1, save_to=path, write_tag=pad.write_text)

With ``check`` each tag's originality is asked and recorded in the registry
(status and signature): a tag that fails is shown as such (``NOT GENUINE``), and
with ``refuse_flagged`` it is not registered at all. With ``lock`` each tag is
password-locked after its NDEF record is written (:mod:`hardware.locks`; AUTHLIM and
CFGLCK too), and the registry records that, with the secret's ``lock_id`` and the limit. With
``seal_secret`` (the table's lock secret) each entry is sealed (:func:`hardware.locks.entry_seal`).
"""

from __future__ import annotations

import functools
import logging
import os
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from catalogue import card_words, language, say
from drivers.device_events import CardSeen, DeviceEvent, Origin, ReaderStatus
from engine.cards import Card
from hardware.locks import entry_seal
from hardware.tag_registry import CARDS, TagEntry, TagRegistry, check_card, check_pack

logger = logging.getLogger(__name__)

NDEF_PREFIX = "ecarte:"
"""Same as ``drivers.nfc.pad.NDEF_PREFIX``: a tag's NDEF text is ``ecarte:KS``."""

_TICK = 0.1  # seconds between checks of ``cancel`` while waiting


@dataclass(frozen=True, slots=True)
class Originality:
    """A tag's originality as enrolment learnt it: its verdict and the signature it gave (hex)."""

    status: Origin
    signature: str | None = None


@dataclass(frozen=True, slots=True)
class EnrollResult:
    """How a walk ended: the cards enrolled now, and whether the pack is whole."""

    pack: int
    enrolled: tuple[TagEntry, ...]
    """The registry's entries this walk added: each card given a tag, and what was learnt of the tag."""
    complete: bool
    cancelled: bool = False

    @property
    def flagged(self) -> tuple[TagEntry, ...]:
        """The cards enrolled now whose tag is not known genuine (checked and failed)."""
        return tuple(e for e in self.enrolled if not e.origin.vouched)


class _Cancelled(Exception):
    """The walk was cancelled (internal)."""


class _Walk:
    """One enrollment walk (the state behind :func:`enroll`)."""

    def __init__(
        self,
        events: queue.Queue[DeviceEvent],
        show: Callable[[list[str]], None],
        cancel: threading.Event | None,
        lang: str = "en",
    ) -> None:
        self._events = events
        self._show = show
        self._cancel = cancel
        self.lang = language(lang)
        self._waiting: list[str] = []  # tags laid while another was still on the pad
        self.screen: list[str] = []

    def show(self, lines: list[str]) -> None:
        self.screen = lines
        self._show(list(lines))

    def say(self, msgid: str, **values: object) -> str:
        """The operator's words in the table's language (the catalogue's ``enrol.*``)."""
        return say(self.lang, msgid, **values)

    def label(self, card: str) -> str:
        """``"TH"`` → ``"10♥"``, the rank as the table's language prints it (``R♠`` in French)."""
        return card_words(self.lang, str(Card.parse(card)))

    def next_card_event(self) -> CardSeen:
        while True:
            if self._cancel is not None and self._cancel.is_set():
                raise _Cancelled
            try:
                event = self._events.get(timeout=_TICK)
            except queue.Empty:
                continue
            if isinstance(event, CardSeen):
                return event
            if isinstance(event, ReaderStatus):
                if event.online:
                    self._show(list(self.screen))
                else:
                    self._show([self.say("enrol.offline"), event.reason[:21], self.say("enrol.check_cable")])

    def arrival(self) -> str:
        if self._waiting:
            return self._waiting.pop(0)
        while True:
            event = self.next_card_event()
            if not event.gone:
                return event.sighting.uid

    def new_tag(self, prompt: list[str], registry: TagRegistry, *, then_lay: str, not_genuine: str, again: str,
                check: Callable[[str], Originality] | None, refuse_flagged: bool,
                prepare: Sequence[Callable[[str, str], bool]]) -> tuple[str, Originality]:
        """The next tag laid that may be enrolled, a card's or a badge's alike (the one walk).

        ``prompt`` is shown until a tag is laid. A registered tag is refused (what it is, then
        ``then_lay``) until it is lifted; the others are asked their originality (``check``),
        refused when not genuine with ``refuse_flagged`` (``not_genuine``, the verdict, lay
        another), then each step of ``prepare`` is done (write, lock: ``step(uid, again)``, false
        when it failed and told the operator to lay the tag ``again``).

        :returns: the tag's UID and originality.
        :raises _Cancelled: the walk was cancelled.
        """
        while True:
            self.show(prompt)
            uid = self.arrival()
            known = registry.entry(uid)
            if known is not None:
                logger.info("tag %s is already %s of pack %d", uid, known.card, known.pack)
                self.show([self.say("enrol.tag_is", card=self.label(known.card), pack=known.pack),
                           self.say("enrol.lift"), then_lay])
                self.lift(uid)
                continue
            origin = _check(self, check, uid, again)
            if origin is None:
                continue
            if refuse_flagged and origin.status != Origin.GENUINE:
                self.show([not_genuine, origin.status.replace("_", " "), self.say("enrol.lay_another")])
                self.lift(uid)
                continue
            if all(step(uid, again) for step in prepare):
                return uid, origin

    def lift(self, uid: str) -> None:
        while True:
            event = self.next_card_event()
            if event.gone and event.sighting.uid == uid:
                return
            if event.gone and event.sighting.uid in self._waiting:
                self._waiting.remove(event.sighting.uid)
            elif not event.gone and event.sighting.uid != uid:
                self._waiting.append(event.sighting.uid)


def enroll(
    events: queue.Queue[DeviceEvent],
    registry: TagRegistry,
    show: Callable[[list[str]], None],
    *,
    pack: int = 1,
    save_to: str | os.PathLike[str] | None = None,
    write_tag: Callable[[str, str], None] | None = None,
    cards: Sequence[str] = CARDS,
    cancel: threading.Event | None = None,
    lang: str = "en",
    check: Callable[[str], Originality] | None = None,
    refuse_flagged: bool = False,
    lock: Callable[[str], None] | None = None,
    lock_id: str | None = None,
    auth_limit: int = 0,
    seal_secret: bytes | None = None,
) -> EnrollResult:
    """Walk ``cards`` of ``pack`` in order, registering one tag for each.

    :param events: the enrollment pad's events (:class:`~drivers.device_events.CardSeen`,
        :class:`~drivers.device_events.ReaderStatus`; others are ignored).
    :param registry: the tag registry, added to in place.
    :param show: puts a few short lines on the OLED or console.
    :param pack: which pack (1 or 2) the cards belong to.
    :param save_to: registry file, saved (atomically) after every card.
    :param write_tag: ``write_tag(uid, text)`` writes an NDEF text record
        (``Pad.write_text``); ``None`` writes nothing.
    :param cards: the cards to walk, in order (default: the 32 of a pack).
    :param cancel: set it to stop the walk; the result then says
        ``cancelled`` and keeps what was enrolled.
    :param check: ``check(uid)`` asks the tag for its originality (``None``: not asked).
    :param refuse_flagged: with ``check``, do not register a tag that is not genuine.
    :param lock: ``lock(uid)`` password-locks the tag (``Pad.lock`` with its derived password).
    :param lock_id: the lock secret's fingerprint, recorded with each tag locked.
    :param auth_limit: the wrong passwords each tag locked takes (its AUTHLIM, recorded).
    :param seal_secret: seal each entry with this secret (the table's lock secret).
    :raises TagRegistryError: a bad pack or card name.
    :raises OSError: the registry file cannot be written.
    """
    check_pack(pack)
    for card in cards:
        check_card(card)
    walk = _Walk(events, show, cancel, lang)
    todo = [card for card in cards if registry.uid_for(card, pack) is None]
    total = len(cards)
    enrolled: list[TagEntry] = []
    try:
        for card in todo:
            prompt = [walk.say("enrol.progress", pack=pack, done=total - len(todo) + len(enrolled), total=total),
                      walk.say("enrol.lay", card=walk.label(card)), walk.say("enrol.on_pad")]
            again = walk.say("enrol.then_lay_again", card=walk.label(card))
            steps = [functools.partial(_write, walk, write_tag, card)] if write_tag is not None else []
            if lock is not None:
                steps.append(functools.partial(_lock, walk, lock))
            uid, origin = walk.new_tag(prompt, registry, then_lay=walk.say("enrol.then_lay", card=walk.label(card)),
                                       not_genuine=walk.say("enrol.not_genuine", card=walk.label(card)), again=again,
                                       check=check, refuse_flagged=refuse_flagged, prepare=steps)
            entry = registry.add(uid, card, pack, origin=origin.status, signature=origin.signature,
                         locked=lock is not None, lock_id=lock_id if lock is not None else None,
                         auth_limit=auth_limit if lock is not None else 0,
                         seal=None if seal_secret is None else entry_seal(seal_secret, uid, card, pack))
            if save_to is not None:
                registry.save(save_to)
            enrolled.append(entry)
            logger.info("enrolled %s of pack %d: tag %s (%s)", card, pack, uid, origin.status)
            done = total - len(todo) + len(enrolled)
            if origin.status.vouched:
                walk.show([walk.say("enrol.ok", card=walk.label(card), done=done, total=total),
                           walk.say("enrol.lift")])
            else:
                logger.warning("tag %s of %s is not genuine: %s", uid, card, origin.status)
                walk.show([walk.say("enrol.flagged", card=walk.label(card), done=done, total=total),
                           walk.say("enrol.not_genuine_status", status=origin.status), walk.say("enrol.lift")])
            walk.lift(uid)
    except _Cancelled:
        walk.show([walk.say("enrol.stopped"), walk.say("enrol.enrolled", n=len(enrolled))])
        return EnrollResult(pack, tuple(enrolled), _complete(registry, pack, cards), cancelled=True)
    walk.show([walk.say("enrol.complete", pack=pack), walk.say("enrol.all", total=total)])
    return EnrollResult(pack, tuple(enrolled), _complete(registry, pack, cards))


def _write(walk: _Walk, write_tag: Callable[[str, str], None], card: str, uid: str, again: str) -> bool:
    """Write the card's NDEF record; on failure tell the operator to retry (``again``: the line that says how)."""
    try:
        write_tag(uid, NDEF_PREFIX + card)
    except (OSError, TimeoutError) as error:
        logger.warning("writing %s to tag %s failed: %s", card, uid, error)
        walk.show([walk.say("enrol.write_failed"), walk.say("enrol.lift"), again])
        walk.lift(uid)
        return False
    return True


def _check(walk: _Walk, check: Callable[[str], Originality] | None, uid: str, again: str) -> Originality | None:
    """The tag's originality (``unchecked`` without ``check``); ``None`` if it could not be read (``again``:
    the line that says to lay it again)."""
    if check is None:
        return Originality(Origin.UNCHECKED)
    try:
        origin = check(uid)
    except (OSError, TimeoutError) as error:
        logger.warning("checking tag %s failed: %s", uid, error)
        origin = Originality(Origin.UNREADABLE)
    if origin.status == Origin.UNREADABLE:
        walk.show([walk.say("enrol.unreadable"), walk.say("enrol.lift"), again])
        walk.lift(uid)
        return None
    return origin


def _lock(walk: _Walk, lock: Callable[[str], None], uid: str, again: str) -> bool:
    """Password-lock the tag; on failure tell the operator to retry (``again``: the line that says how)."""
    try:
        lock(uid)
    except (OSError, TimeoutError) as error:
        logger.warning("locking tag %s failed: %s", uid, error)
        walk.show([walk.say("enrol.lock_failed"), walk.say("enrol.lift"), again])
        walk.lift(uid)
        return False
    return True


def _complete(registry: TagRegistry, pack: int, cards: Sequence[str]) -> bool:
    return all(registry.uid_for(card, pack) is not None for card in cards)


@dataclass(frozen=True, slots=True)
class BadgeResult:
    """How a badge's enrolment ended: its tag's UID (``None``: cancelled) and originality."""

    tag: str
    uid: str | None
    origin: Origin = Origin.UNCHECKED
    locked: bool = False


def enroll_badge(
    events: queue.Queue[DeviceEvent],
    tag: str,
    registry: TagRegistry,
    save: Callable[[str, str], None],
    show: Callable[[list[str]], None],
    *,
    check: Callable[[str], Originality] | None = None,
    refuse_flagged: bool = False,
    lock: Callable[[str], None] | None = None,
    cancel: threading.Event | None = None,
    label: str | None = None,
    lang: str = "en",
) -> BadgeResult:
    """Enrol one badge or rule card (``player:Anne``, ``target:7``...) as a card is enrolled: the
    first tag laid that is not a registered card is checked (``check``; with ``refuse_flagged``
    a tag that is not genuine is refused), locked (``lock``) and saved with ``save(uid, tag)``.
    ``label``: the badge as the OLED shows it (a long name shortened), else ``tag``.

    :raises OSError: ``save`` failed.
    """
    walk = _Walk(events, show, cancel, lang)
    again = walk.say("enrol.then_lay_badge_again")
    try:
        steps = [functools.partial(_lock, walk, lock)] if lock is not None else []
        uid, origin = walk.new_tag([walk.say("enrol.badge_title"), label or tag, walk.say("enrol.lay_tag")], registry,
                                   then_lay=walk.say("enrol.then_lay_badge"),
                                   not_genuine=walk.say("enrol.badge_not_genuine"), again=again, check=check,
                                   refuse_flagged=refuse_flagged, prepare=steps)
        save(uid, tag)
        logger.info("enrolled badge %s: tag %s (%s)", tag, uid, origin.status)
        walk.show([walk.say("enrol.badge_enrolled"), label or tag, walk.say("enrol.lift")])
        walk.lift(uid)
        return BadgeResult(tag, uid, origin.status, lock is not None)
    except _Cancelled:
        walk.show(["Enrollment stopped"])
        return BadgeResult(tag, None)
