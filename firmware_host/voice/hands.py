"""A seat's own cards, read to that seat alone (its earpiece), never on the table's speaker.

What a seat holds is hidden: the referee puts it in each outcome's private view of that seat
(:mod:`firmware_host.referee.private_view`: its hand as the referee judged it, and how many more
cards it holds that the pads could not read), and the service gives that view to the seat's own
:class:`Earpiece` only (an output of one seat: :class:`firmware_host.outputs.SeatOutput`); every
other output gets the outcome without it. The earpiece keeps the last view it was given; a long
press of the seat's ``listen`` button (:meth:`Earpiece.read`) has it said, in the table's
language, on that seat's own :class:`~firmware_host.voice.speech.Speaker`.

The table knows only what its pads read: with partial sight a card it did not see is not said,
only counted ("and two the table has not seen").

    >>> from firmware_host.referee.controller import Controller
    >>> from firmware_host.referee.transcript import CardEvent, Setup
    >>> table, ear = Controller(), Earpiece("A", None)
    >>> _ = table.handle(Setup(dealer="B"))
    >>> for card in ("KS", "9H"):
    ...     ear.publish(table.handle(CardEvent("hand.A", card)).seen_by("A"))
    >>> ear.text()
    'Your cards: the king of spades and the nine of hearts.'
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from engine.cards import ACE_HIGH, SUITS
from firmware_host.referee import Outcome, PrivateView
from firmware_host.screens.i18n import language as table_language
from firmware_host.voice.announcer import Announcement
from firmware_host.voice.speech import Speaker
from firmware_host.voice.spoken import spoken

__all__ = ["Earpiece"]

_ORDER = {s: i for i, s in enumerate(SUITS)}
_RANKS = ACE_HIGH.order  # high to low, the ace first


@dataclass(frozen=True, slots=True)
class _Heard:
    """What the earpiece may say now: the seat's private view, the table's language and the hand."""

    view: PrivateView
    lang: str
    hand: tuple[int, int] = (1, 1)


class Earpiece:
    """One seat's earpiece: a service output of that seat alone (see the module).

    :param seat: ``A`` or ``B``: the only seat whose private view it is given.
    :param speaker: the seat's own speaker (None: it keeps the view but says nothing).
    :param lang: the table's language (the one chosen at the table wins, from the outcomes).
    """

    def __init__(self, seat: str, speaker: Speaker | None, lang: str = "en",
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.private_seat = seat
        self.speaker = speaker
        self.clock = clock
        # one frozen value, replaced whole on the event loop and read whole on the buttons' thread
        self._heard = _Heard(PrivateView(seat), table_language(lang))

    # -- the referee's outcomes (the event loop) -----------------------------------------

    def publish(self, outcome: Outcome) -> None:
        """Keep the seat's private view (the service's door, :func:`firmware_host.outputs.deliver`, gives
        this output its own seat's view only); an outcome without it leaves the last one kept."""
        snapshot = outcome.snapshot
        lang = table_language(snapshot.language) if snapshot.language is not None else self._heard.lang
        view = outcome.private.get(self.private_seat, self._heard.view)
        self._heard = _Heard(view, lang, (snapshot.game, snapshot.hand_no))

    # -- the seat asks (the buttons' thread) ---------------------------------------------

    def text(self) -> str:
        """What the seat hears: its cards as the referee judged them, and how many the table did not see."""
        return _said(self._heard)

    def read(self) -> bool:
        """Say the seat's cards on its own earpiece; False when it has no speaker (nothing is said)."""
        if self.speaker is None:
            return False
        heard = self._heard
        self.speaker.say(Announcement(_said(heard), "hand", heard.lang, heard.hand, self.clock()))
        return True

    def close(self) -> None:
        """Stop the earpiece's speaker (safe to call twice)."""
        if self.speaker is not None:
            self.speaker.close()

    def __enter__(self) -> Earpiece:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _said(heard: _Heard) -> str:
    """The seat's cards in words, suit by suit and high to low, then how many the table did not see."""
    say = spoken(heard.lang)
    cards = sorted((str(c) for c in heard.view.hand), key=lambda c: (_ORDER[c[1]], _RANKS.index(c[0])))
    said = [say.card(c) for c in cards]
    if heard.view.unseen and said:
        said.append(say.word("unseen", n=heard.view.unseen))
    if not said:
        return say.say("your_hand_none")
    listed = said[0] if len(said) == 1 else f"{', '.join(said[:-1])} {say.word('and')} {said[-1]}"
    return say.say("your_hand", cards=listed)
