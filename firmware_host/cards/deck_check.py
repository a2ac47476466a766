"""The deck check: before a game (or on demand) the pack is laid on the pads or passed over one,
and the table confirms the 32 cards of one registered pack, no card twice, no foreign tag, and
(where the table requires it) no tag that fails the originality check, and says what is missing.

It reads the pads' :class:`~drivers.device_events.CardSeen` events, like enrolment::

    report = check_deck(events, registry, show, require_genuine=True)
    print("\\n".join(report.lines()))

``show`` is given the report so far after every card (``finished`` on the last one): the
screens word it for the OLED in the table's language (:mod:`firmware_host.screens.deck`), the
console prints :meth:`DeckReport.lines`. The check goes on reading once the 32 cards were seen,
until the pack has left the pad and nothing arrived for ``quiet`` seconds: a 33rd tag, a second
K♠ or a card of the other pack passed after the 32nd is in the report too.

A tag that arrives twice (it left in between) is *repeated*: a card passed twice, or a copy with
the same UID (two tags with one UID cannot be told apart while both lie in one field, but passed
one after the other they arrive twice). The pack is the one given, else the registered pack most
of the cards seen belong to.
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from catalogue import card_words, say, say_or
from drivers.device_events import CardSeen, DeviceEvent, Origin
from engine.cards import Card
from hardware.tag_registry import CARDS, PACKS, TagRegistry

logger = logging.getLogger(__name__)

_TICK = 0.1  # seconds between checks of ``cancel`` while waiting


@dataclass(frozen=True, slots=True)
class Stranger:
    """A tag that is not one of the pack's: registered to the other pack (``pack``), or not at all
    (``pack`` None; ``card`` what its NDEF record said, if anything)."""

    uid: str
    card: str | None
    pack: int | None = None

    def said(self, lang: str = "en", *, printed: bool = False) -> str:
        """In ``lang``'s words, the card by its code (``QH``, the log's), or ``printed`` as ``lang``'s
        pack prints it."""
        if self.pack is not None:
            card = card_words(lang, str(Card.parse(self.card))) if printed and self.card else self.card
            return say(lang, "deck.other_pack", card=card, pack=self.pack)
        if self.card:
            return say(lang, "deck.stranger_card", uid=self.uid, card=self.card)
        return say(lang, "deck.stranger", uid=self.uid)


@dataclass(frozen=True, slots=True)
class Fake:
    """A card of the pack that failed the originality check: its code and the verdicts
    (``Origin.NO_SIGNATURE``; ``Origin.UNCHECKED``: none was given)."""

    card: str
    why: tuple[Origin, ...]


@dataclass(frozen=True, slots=True)
class DeckReport:
    """What a deck check found (cards as ``"KS"``): the tags not of the pack (``strangers``) and the
    pack's cards that failed the originality check (``fakes``) as data, worded in any language."""

    pack: int | None
    seen: tuple[str, ...]
    missing: tuple[str, ...]
    repeated: tuple[str, ...] = ()
    strangers: tuple[Stranger, ...] = ()
    fakes: tuple[Fake, ...] = ()
    cancelled: bool = False
    lying: int = 0
    """Tags still on the pad when the report was made."""
    finished: bool = False
    """The check is over (the last report)."""

    @property
    def foreign(self) -> tuple[str, ...]:
        """The strangers as the log says them (English, cards by their codes: ``QH of pack 2``)."""
        return tuple(s.said() for s in self.strangers)

    @property
    def not_genuine(self) -> tuple[str, ...]:
        """The fakes as the log says them (``KS: no_signature``)."""
        return tuple(f"{f.card}: {', '.join(f.why)}" for f in self.fakes)

    @property
    def ok(self) -> bool:
        """Whether the pack is whole and clean: 32 cards, nothing twice, nothing foreign or fake."""
        return self.pack is not None and not (self.missing or self.repeated or self.strangers or self.fakes)

    def lines(self, lang: str = "en") -> list[str]:
        """Short lines for the console (and, in English, the log), the verdict first, in ``lang``
        (the OLED words the report in a few short lines: :func:`firmware_host.screens.deck.deck_lines`)."""
        if self.ok:
            return [say(lang, "deck.console_ok", pack=self.pack)]
        out = [say(lang, "deck.console_count", pack=self.pack, n=len(self.seen)) if self.pack
               else say(lang, "deck.console_none")]
        if self.missing:
            out.append(say(lang, "deck.console_missing", cards=" ".join(card_words(lang, c) for c in self.missing)))
        if self.repeated:
            out.append(say(lang, "deck.console_twice", cards=" ".join(card_words(lang, c) for c in self.repeated)))
        out += [say(lang, "deck.console_foreign", what=s.said(lang, printed=True)) for s in self.strangers]
        # each verdict in words ("no_signature": "no dio ninguna firma"), one the catalogue lacks as it is
        out += [say(lang, "deck.console_fake", code=fake.card, card=card_words(lang, str(Card.parse(fake.card))),
                    why=", ".join(say_or(lang, "origin." + why, why) for why in fake.why))
                for fake in self.fakes]
        return out


def check_deck(
    events: queue.Queue[DeviceEvent],
    registry: TagRegistry,
    show: Callable[[DeckReport], None],
    *,
    pack: int | None = None,
    require_genuine: bool = False,
    quiet: float = 3.0,
    linger: float | None = None,
    timeout: float = 120.0,
    cancel: threading.Event | None = None,
) -> DeckReport:
    """Watch the pads' events until the pad is empty and nothing happened for ``quiet`` seconds
    after a first card (the pack has passed, whole or not), or nothing happened for ``linger``
    seconds with cards still on the pad (default: five times ``quiet``), or ``timeout`` seconds
    passed, or ``cancel`` is set.

    :param pack: the pack to confirm (``None``: the one most cards seen belong to).
    :param require_genuine: a card whose sighting's ``origin`` is not ``genuine`` is a problem
        (the pads must be checking originality).
    :param show: given the report so far at the start, after each card and at the end
        (``finished``); it puts it on the OLED or console.
    :returns: the report (also shown).
    """
    linger = 5 * quiet if linger is None else linger
    started = time.monotonic()
    last = None
    arrivals: list[CardSeen] = []
    counts: dict[str, int] = {}
    lying: set[str] = set()
    cancelled = False
    show(DeckReport(pack, (), tuple(CARDS)))
    while True:
        now = time.monotonic()
        if cancel is not None and cancel.is_set():
            cancelled = True
            break
        if now - started > timeout or (last is not None and now - last > (linger if lying else quiet)):
            break
        try:
            event = events.get(timeout=_TICK)
        except queue.Empty:
            continue
        if not isinstance(event, CardSeen):
            continue
        last = time.monotonic()
        if event.gone:
            lying.discard(event.sighting.uid)
            continue
        lying.add(event.sighting.uid)
        arrivals.append(event)
        counts[event.sighting.uid] = counts.get(event.sighting.uid, 0) + 1
        so_far = _report(arrivals, counts, registry, pack, require_genuine)
        show(dataclasses.replace(so_far, lying=len(lying)))
        logger.debug("deck check: %s (%d/32)", _name(event, registry), len(so_far.seen))
    report = dataclasses.replace(_report(arrivals, counts, registry, pack, require_genuine), cancelled=cancelled,
                                 lying=len(lying), finished=True)
    logger.info("deck check: %s", "; ".join(report.lines()))
    show(report)
    return report


def _report(arrivals: list[CardSeen], counts: dict[str, int], registry: TagRegistry, pack: int | None,
            require_genuine: bool) -> DeckReport:
    if pack is None:
        tally = {p: sum(1 for uid in counts if registry.pack_of(uid) == p) for p in PACKS}
        best = max(tally, key=lambda p: tally[p])
        pack = best if tally[best] else None
    seen: set[str] = set()
    repeated: list[str] = []
    strangers: list[Stranger] = []
    fakes: list[Fake] = []
    for uid, count in counts.items():
        entry = registry.entry(uid)
        if entry is None:
            read = (a.sighting.card for a in arrivals if a.sighting.uid == uid and a.sighting.card)
            strangers.append(Stranger(uid, next(read, None)))
            continue
        if entry.pack != pack:
            strangers.append(Stranger(uid, entry.card, entry.pack))
            continue
        seen.add(entry.card)
        if count > 1:
            repeated.append(entry.card)
        bad = _best_evidence({a.sighting.origin for a in arrivals if a.sighting.uid == uid})
        if require_genuine and bad:
            fakes.append(Fake(entry.card, bad))
    missing = tuple(card for card in CARDS if card not in seen) if pack is not None else tuple(CARDS)
    return DeckReport(pack, tuple(c for c in CARDS if c in seen), missing, tuple(_ordered(repeated)),
                      tuple(strangers), tuple(fakes))


_NO_EVIDENCE = frozenset({None, Origin.UNREADABLE, Origin.UNCHECKED})
"""Verdicts that say nothing of the tag (not asked, or no valid answer)."""


def _best_evidence(origins: set[Origin | None]) -> tuple[Origin, ...]:
    """What a card's arrivals in one pass say against it, from its best evidence: an answer beats
    silence. The verdicts its tag's answers gave that are not ``genuine`` (``no_signature``,
    ``bad_signature``, ``counterfeit``: a radio error makes none of them, so each is a tag that said
    so, a clone sharing the UID of a genuine one among them); none if its answers all said
    ``genuine``, whatever arrivals gave no answer; with no answer at all, ``unreadable`` or
    ``unchecked`` (nothing proves it genuine).

    >>> _best_evidence({Origin.GENUINE, Origin.UNREADABLE}), _best_evidence({None, Origin.NO_SIGNATURE})
    ((), (<Origin.NO_SIGNATURE: 'no_signature'>,))
    >>> _best_evidence({None})
    (<Origin.UNCHECKED: 'unchecked'>,)
    """
    answered = {o for o in origins if o is not None and o not in _NO_EVIDENCE}
    if answered:
        return tuple(sorted(o for o in answered if o != Origin.GENUINE))
    return (Origin.UNREADABLE,) if Origin.UNREADABLE in origins else (Origin.UNCHECKED,)


def _ordered(cards: list[str]) -> list[str]:
    return sorted(cards, key=CARDS.index)


def _name(event: CardSeen, registry: TagRegistry) -> str:
    entry = registry.entry(event.sighting.uid)
    if entry is None:
        return say("en", "deck.stranger", uid=event.sighting.uid)
    return say("en", "deck.other_pack", card=card_words("en", str(Card.parse(entry.card))), pack=entry.pack)


