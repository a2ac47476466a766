"""The built-in players' policy: how often they propose, accept, declare and announce.

:mod:`engine.random_play` (one action at a time, on states) and :mod:`engine.rollout`
(whole hands, on integers) draw their choices with these same probabilities; what
is *legal* comes from :mod:`engine.legality` and the rule set, never from here.
"""

from __future__ import annotations

from engine.cards import SUIT_MASKS
from engine.legality import king_index

P_PROPOSE = 0.6
"""The elder proposes (else plays)."""
P_ACCEPT = 0.7
"""The dealer accepts a proposal (else refuses)."""
P_DECLARE_WEAK = 0.1
"""German: a seat declares the game on a hand that is not strong."""
P_ANNOUNCE = 0.9
"""A king holder announces it before his first card (else forgets)."""


def strong(hand: int, turn_up: int) -> bool:
    """A hand worth declaring (german): three trumps, or two with the king."""
    trumps = hand & SUIT_MASKS[turn_up >> 3]
    n = trumps.bit_count()
    return n >= 3 or (n == 2 and bool(trumps >> king_index(turn_up) & 1))
