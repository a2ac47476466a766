"""The deck check on the OLED, in the table's language: cards seen out of 32, what is missing.

The check itself (:mod:`firmware_host.cards.deck_check`) hands over a report after every card;
this words it in a few short lines for :func:`firmware_host.screens.chooser.message_screen`::

    >>> from types import SimpleNamespace
    >>> report = SimpleNamespace(pack=1, seen=("KS",) * 30, missing=("8D", "7C"), repeated=(), foreign=(),
    ...                          not_genuine=(), lying=0, finished=False, ok=False)
    >>> deck_lines(report, "fr")
    ['Contrôle jeu 1', '30/32 cartes vues', 'manque 8♦ 7♣']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from firmware_host.screens.drawing import WIDTH, text_width
from firmware_host.screens.i18n import Words, words

__all__ = ["DeckProgress", "deck_lines"]

_LINE = WIDTH - 4
"""Pixels a detail line may take (as the message view wraps it)."""


class DeckProgress(Protocol):
    """What the deck check reports (:class:`firmware_host.cards.deck_check.DeckReport`)."""

    @property
    def pack(self) -> int | None: ...
    @property
    def seen(self) -> tuple[str, ...]: ...
    @property
    def missing(self) -> tuple[str, ...]: ...
    @property
    def repeated(self) -> tuple[str, ...]: ...
    @property
    def foreign(self) -> tuple[str, ...]: ...
    @property
    def not_genuine(self) -> tuple[str, ...]: ...
    @property
    def lying(self) -> int: ...
    @property
    def finished(self) -> bool: ...
    @property
    def ok(self) -> bool: ...


def deck_lines(report: DeckProgress, lang: str = "en") -> list[str]:
    """The OLED's lines for ``report``: a headline, then at most three lines that fit."""
    say = words(lang)
    if report.finished:
        if report.ok:
            return [say.say("deck_ok", n=report.pack), say.say("deck_seen", n=32)]
        head = say.say("deck_bad", n=report.pack) if report.pack else say.say("deck_none")
    else:
        head = say.say("deck_title_pack", n=report.pack) if report.pack else say.say("deck_title")
    if not report.finished and not report.seen:
        return [head, say.say("deck_pass")]
    lines = [head, say.say("deck_seen", n=len(report.seen))]
    problems = []
    if report.missing and (report.finished or len(report.seen) >= 24):
        problems.append(_cards(say, "deck_missing", report.missing))
    if report.not_genuine:
        problems.append(say.say_n("deck_fake", len(report.not_genuine)))
    if report.repeated:
        problems.append(_cards(say, "deck_twice", report.repeated))
    if report.foreign:
        problems.append(say.say_n("deck_foreign", len(report.foreign)))
    lines += problems[:2]
    if report.lying and not report.missing and len(lines) < 4:
        lines.append(say.say("deck_lift"))
    elif report.finished and not report.ok and len(lines) < 4:
        lines.append(say.say("deck_again"))
    return lines


def _cards(say: Words, key: str, cards: Sequence[str]) -> str:
    """``key``'s words with as many of ``cards`` as fit one line, then ``+N``."""
    for shown in range(len(cards), 0, -1):
        rest = len(cards) - shown
        text = say.say(key, cards=" ".join(say.card(c) for c in cards[:shown]) + (f" +{rest}" if rest else ""))
        if text_width(text) <= _LINE:
            return text
    return say.say(key, cards=f"+{len(cards)}")
