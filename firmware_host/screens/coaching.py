"""The coach at the table: after each hand, one line on the OLED from :mod:`coach.review`.

:class:`CoachedPanel` is the panel's output with the coach in front of it: when a hand is
over (its ``hand_record`` event, the only one that names the hidden cards, comes only then)
it reviews the hand double dummy and shows the line with the snapshots until the next turn-up
(``B could have won the point: 9♥ at trick 3``). The line is the screens' own, given to the
panel beside the snapshot (:meth:`Panel.show <firmware_host.screens.panel.Panel.show>`): the
referee and its snapshot know nothing of it.
"""

from __future__ import annotations

import logging

from engine.seats import SEATS
from firmware_host.referee import HandRecord, Outcome
from firmware_host.screens.i18n import screen_name
from firmware_host.screens.panel import Panel

logger = logging.getLogger(__name__)


def coach_line(record: HandRecord, lang: str = "en", names: tuple[str, str] = SEATS) -> str | None:
    """The coach's line on a finished hand in ``lang``, ``names`` for the seats (None: a perfect hand, or
    one the game's end cut short)."""
    from coach.review import hands_of_record, review

    hands = hands_of_record(record.rules, record.dealer, record.actions, game=record.game, hand=record.hand)
    if not hands:
        return None
    return review(hands[0], decisions=False).oled_line(lang, names) or None


class CoachedPanel:
    """A :class:`~firmware_host.service.TableOutput`: ``panel``, with the coach's line after each hand."""

    def __init__(self, panel: Panel) -> None:
        self.panel = panel
        self.line: str | None = None

    def publish(self, outcome: Outcome) -> None:
        for event in outcome.events:
            if isinstance(event, HandRecord):
                snapshot = outcome.snapshot
                names = tuple(screen_name(n) if n else seat for n, seat in zip(snapshot.players, SEATS, strict=False))
                try:
                    self.line = coach_line(event, snapshot.language or self.panel.language, (names[0], names[1]))
                except Exception:  # the coach must never stop the table
                    logger.exception("the coach could not review hand %d", event.hand)
                    self.line = None
            elif event.event == "trump":
                self.line = None
        snapshot = outcome.snapshot
        self.panel.show(snapshot, coach_line=self.line if snapshot.between_hands else None)
