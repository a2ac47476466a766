"""Points: what a hand's tricks are worth, what a king or a penalty changes, when a game is won.

The rule sets' own hooks (:meth:`engine.rules.RuleSet.trick_points` and
:meth:`~engine.rules.RuleSet.game_points`) say what differs between them; this module
puts a hand's points together the same way for the referee and the rollouts::

    >>> from engine.rules import rules
    >>> hand_trick_points(rules("classic"), (2, 3), vulnerable=0, declarer=None, must_vole=None)
    (0, 2)
    >>> hand_trick_points(rules("classic"), (3, 2), vulnerable=None, declarer=None, must_vole=0)
    (0, 2)
    >>> add((4, 2), 1, -1)
    (4, 1)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from engine.events import Event, HandEnd, King, Penalty
from engine.seats import SEATS

if TYPE_CHECKING:
    from engine.rules import RuleSet

KING_POINT = 1
"""What the king of trumps scores (rules 22-23, 47; 000; 002)."""


def add(pair: tuple[int, int], seat: int, points: int) -> tuple[int, int]:
    """``pair`` (A, B) with ``points`` added to seat index ``seat``."""
    return (pair[0] + points, pair[1]) if seat == 0 else (pair[0], pair[1] + points)


def hand_trick_points(
    rules: RuleSet, tricks: tuple[int, int], *, vulnerable: int | None, declarer: int | None,
    must_vole: int | None,
) -> tuple[int, int]:
    """The points the tricks of a finished hand score, per seat.

    ``must_vole``: the seat that refused an offer of the point (003): it must take
    all five, or its opponent scores 2.
    """
    if must_vole is not None and tricks[must_vole] != 5:
        return (2, 0) if must_vole == 1 else (0, 2)
    return rules.trick_points(tricks, vulnerable, declarer)


def as_if_point(rules: RuleSet, winner: int, vulnerable: int | None) -> tuple[int, int]:
    """The points of a hand that ends as if ``winner`` had won the point and not the vole
    (a double declined, an offer of the point accepted: 003)."""
    tricks = (3, 2) if winner == 0 else (2, 3)
    return rules.trick_points(tricks, vulnerable, winner)


def reached(score: tuple[int, int], target: int) -> int | None:
    """The seat index that reached ``target`` (the higher score first), or None."""
    leader = 0 if score[0] >= score[1] else 1
    for i in (leader, 1 - leader):
        if score[i] >= target:
            return i
    return None


def trick_points(hand: HandEnd, notes: Iterable[Event]) -> tuple[int, int]:
    """What the tricks of ``hand`` scored each seat (A, B): its points less the kings and penalties of
    ``notes`` (the hand's, as the referee's hand log keeps them), which were scored, and said, when they
    happened: a voice or a narration that says each of them adds up to the score::

        >>> trick_points(HandEnd((3, 2), (2, 0), (4, 1)), [King("A", (3, 1))])
        (1, 0)
    """
    notes = tuple(notes)
    out = []
    for i, seat in enumerate(SEATS):
        kings = KING_POINT * sum(1 for n in notes if isinstance(n, King) and n.seat == seat)
        penalties = sum(n.points for n in notes if isinstance(n, Penalty) and n.seat == seat)
        out.append(hand.points[i] - kings - penalties)
    return out[0], out[1]
