"""The duties of play, once: which cards a seat may play, who wins a trick, what a wrong card breaks.

Everything here works on bit masks (see :mod:`engine.cards`) and plain integers, so
that the referee (:func:`engine.game.apply`, :func:`engine.game.legal_actions`), the
rollouts (:mod:`engine.rollout`) and any analysis call the very same code. The rule
set supplies its declared flags (``must_overtake``, ``forzare``, ``king_must_be_led``)
and its ranking; nothing else differs between rule sets here.

    >>> from engine.cards import Card, mask_of
    >>> from engine.rules import rules
    >>> hand = mask_of("KH 7H 9S".split())
    >>> led = Card.parse("QH").index
    >>> [str(c) for c in cards_in(follow_mask(rules("classic"), hand, led, 2))]
    ['KH']
    >>> [str(c) for c in cards_in(follow_mask(rules("italian"), hand, led, 2))]
    ['7H', 'KH']
    >>> follower_wins(rules("classic").ranking.power, 2, led, Card.parse("KH").index)
    True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from engine.cards import CARDS, SUIT_MASKS, Card, Ranking
from engine.faults import FaultCode

KING = 7
"""The rank index of the king inside a suit (see :data:`engine.cards.RANKS`)."""


def king_index(turn_up: int) -> int:
    """The index of the king of trumps, given the turn-up's index."""
    return (turn_up & ~7) | KING


def cards_in(mask: int) -> tuple[Card, ...]:
    """The cards of a mask, low index first (a doctest helper)."""
    return tuple(CARDS[i] for i in range(32) if mask >> i & 1)


def lead_mask(rules: PlayRules, hand: int, turn_up: int, king_to_lead: bool) -> int:
    """The cards a seat may lead: any card, except that a seat that announced the king
    of trumps under a rule set where it must be led (german, 002) leads it while it holds it."""
    if king_to_lead and rules.king_must_be_led:
        king = 1 << king_index(turn_up)
        if hand & king:
            return king
    return hand


Follow = Callable[[int, int, int], int]
"""``follow(hand, led, trump) -> mask``: see :func:`follow_mask`."""


class PlayRules(Protocol):
    """What the duties of play read of a rule set: :class:`engine.rules.RuleSet` is one (it builds
    its ``follow`` with :func:`follow_rule`, so this module does not import it back)."""

    @property
    def king_must_be_led(self) -> bool: ...

    @property
    def must_overtake(self) -> bool: ...

    @property
    def ranking(self) -> Ranking: ...

    @property
    def follow(self) -> Follow: ...


def follow_rule(above: tuple[int, ...], highest: Callable[[int], int], *, must_overtake: bool,
                forzare: bool) -> Follow:
    """The duty of following for one rule set, made once (a rule set keeps it as ``follow``).

    ``above`` and ``highest`` are the ranking's; the flags are the rule set's.
    Follow suit; when ``must_overtake`` (London rule 43, german) win the trick with a
    higher card of the suit if one is held; void, trump if possible; else any card.
    With ``forzare`` (000) the one card allowed is the highest of the suit that must be played.
    """

    def follow(hand: int, led: int, trump: int) -> int:
        same = hand & SUIT_MASKS[led >> 3]
        if same:
            if must_overtake:
                same = same & above[led] or same
            return 1 << highest(same) if forzare else same
        trumps = hand & SUIT_MASKS[trump]
        if trumps:
            return 1 << highest(trumps) if forzare else trumps
        return hand

    return follow


def follow_mask(rules: PlayRules, hand: int, led: int, trump: int) -> int:
    """The cards of ``hand`` that may follow the card ``led`` (an index), ``trump`` a suit index
    (the rule set's :func:`follow_rule`)."""
    return rules.follow(hand, led, trump)


def follower_wins(power: tuple[int, ...], trump: int, led: int, card: int) -> bool:
    """Whether ``card``, played to ``led`` (indices), wins the trick; ``power`` is the
    ranking's (:attr:`engine.cards.Ranking.power`), ``trump`` a suit index."""
    suit = card >> 3
    if suit == led >> 3:
        return power[card] > power[led]
    return suit == trump


def play_fault_code(rules: PlayRules, hand: int, led: int, trump: int, card: int) -> FaultCode | None:
    """The duty of play that ``card`` breaks, shown by the cards of ``hand`` (which need not
    hold ``card``: under partial sight ``hand`` is what the table knows the seat holds).

    ``revoke`` (a suit held and not followed), ``not_overtaking`` (followed low though
    able to win), ``not_trumping`` (void, a trump held, none played), ``not_highest``
    (*forzare*); ``None`` when the known cards show no fault.
    """
    hand |= 1 << card  # whoever plays a card held it
    if follow_mask(rules, hand, led, trump) >> card & 1:
        return None
    same = hand & SUIT_MASKS[led >> 3]
    if same:
        if card >> 3 != led >> 3:
            return FaultCode.REVOKE
        if rules.must_overtake and same & rules.ranking.above[led] and not rules.ranking.above[led] >> card & 1:
            return FaultCode.NOT_OVERTAKING
        return FaultCode.NOT_HIGHEST
    if hand & SUIT_MASKS[trump]:
        return FaultCode.NOT_TRUMPING if card >> 3 != trump else FaultCode.NOT_HIGHEST
    return None
