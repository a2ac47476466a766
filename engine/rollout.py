"""Rollouts: whole random hands at full speed, for analysis.

Analysis (the odds of a *jeu de règle*, reviewing a hand against many random
continuations) plays thousands of hands and only needs their outcome, not a
state after every card. :func:`rollout` plays one hand from a state in the
``deal`` or ``propose`` phase on plain integers (card masks, seat indices) with
the rule set's own hooks (legality masks, trick points), and returns its
:class:`HandOutcome`. With ``record=True`` the outcome carries the actions
played, and replaying them through :func:`engine.game.apply` gives the same
tricks, points and score (the tests check this for every rule set)::

    >>> import random
    >>> from engine.game import new_game, replay
    >>> start = new_game("classic", dealer="A")
    >>> outcome = rollout(start, random.Random(5), record=True)
    >>> final, events = replay(start, outcome.actions)
    >>> final.score == outcome.score and sum(outcome.tricks) in (0, 5)
    True

The players' policy is :func:`engine.random_play.random_action`'s (the same
probabilities), drawn from ``rng`` in its own order. The options of a whole
match (doubling, offering the point) are not played in rollouts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TypeVar

from engine.actions import (
    Accept,
    Action,
    Announce,
    Deal,
    Declare,
    Discard,
    Draw,
    Pass,
    PlayCard,
    Propose,
    Refuse,
    Stand,
)
from engine.cards import ALL_CARDS, CARDS, SUIT_MASKS, Card
from engine.game import _follow_mask
from engine.state import INDEX, SEATS, GameState

_KING = 7
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class HandOutcome:
    """How a hand ended: tricks, points (king points included) and the game score after it.

    ``game_over`` is true when a seat reached the target (maybe by a king point,
    before all five tricks); ``actions`` holds the actions played when recorded.
    """

    tricks: tuple[int, int]
    points: tuple[int, int]
    score: tuple[int, int]
    game_over: bool
    actions: tuple[Action, ...] = ()


_BYTE_BITS = tuple(tuple(j for j in range(8) if b >> j & 1) for b in range(256))


def _indices(mask: int) -> list[int]:
    """The card indices of a mask (four byte lookups)."""
    return [
        base + j
        for base in (0, 8, 16, 24)
        for j in _BYTE_BITS[(mask >> base) & 0xFF]
    ]


def sample_in_place(pool: list[T], count: int, rng: random.Random) -> list[T]:
    """``count`` distinct items of ``pool``, uniformly: a partial Fisher-Yates on
    ``rng.random()`` (``random.sample`` costs several times more for these small
    draws). ``pool`` is shuffled in place, partly."""
    random_ = rng.random
    n = len(pool)
    for j in range(count):
        m = j + int(random_() * (n - j))
        pool[j], pool[m] = pool[m], pool[j]
    return pool[:count]


def _take(mask: int, count: int, rng: random.Random) -> int:
    """``count`` distinct cards of ``mask``, uniformly, as a mask."""
    taken = 0
    for i in sample_in_place(_indices(mask), count, rng):
        taken |= 1 << i
    return taken


def _cards(mask: int) -> tuple[Card, ...]:
    out: list[Card] = []
    while mask:
        low = mask & -mask
        out.append(CARDS[low.bit_length() - 1])
        mask ^= low
    return tuple(out)


def _strong(hand: int, trump: int, king: int) -> bool:
    trumps = hand & SUIT_MASKS[trump]
    n = trumps.bit_count()
    return n >= 3 or (n == 2 and bool(trumps & king))


def rollout(state: GameState, rng: random.Random, *, record: bool = False) -> HandOutcome:
    """Play the rest of the hand of ``state`` (``deal`` or ``propose`` phase) at random.

    :raises ValueError: for a state in another phase.
    """
    rules = state.rules
    if state.phase not in ("deal", "propose") or (state.phase == "propose" and state.proposals):
        raise ValueError(f"a rollout starts at the deal or the first decision, not in {state.phase!r}")
    actions: list[Action] | None = [] if record else None
    dealer = INDEX[state.dealer]
    elder = 1 - dealer
    score = list(state.score)
    target = state.target
    points = [0, 0]
    if state.phase == "deal":
        order = sample_in_place(list(range(32)), 11, rng)
        hands = [0, 0]
        for i in order[0:5]:
            hands[0] |= 1 << i
        for i in order[5:10]:
            hands[1] |= 1 << i
        turn_up = order[10]
        if actions is not None:
            actions.append(Deal(tuple(CARDS[i] for i in order[0:5]), tuple(CARDS[i] for i in order[5:10]),
                                CARDS[turn_up]))
        if turn_up & 7 == _KING:
            score[dealer] += 1
            points[dealer] += 1
            if score[dealer] >= target:
                return HandOutcome((0, 0), (points[0], points[1]), (score[0], score[1]), True,
                                   tuple(actions or ()))
        king_scored = turn_up & 7 == _KING
    else:
        hands = list(state.hands)
        turn_up = state.turn_up
        points = list(state.hand_points)
        king_scored = state.king is not None
    trump = turn_up >> 3
    king = 1 << ((turn_up & ~7) | _KING)
    stock = ALL_CARDS & ~(hands[0] | hands[1] | (1 << turn_up))
    seat_e, seat_d = SEATS[elder], SEATS[dealer]
    vulnerable: int | None = None
    declarer: int | None = None
    declarer_model = rules.model == "declarer"
    e_low, e_high = rules.elder_discard
    d_low, d_high = rules.dealer_discard
    proposals = 0
    random_ = rng.random

    def exchange(seat: int, low: int, high: int) -> None:
        nonlocal stock
        high = min(high, stock.bit_count())
        low = min(low, high)
        n = low + int(random_() * (high - low + 1))
        if n == 0:
            return
        out = _take(hands[seat], n, rng)
        new = _take(stock, n, rng)
        hands[seat] = (hands[seat] & ~out) | new
        stock &= ~new
        if actions is not None:
            actions.append(Discard(SEATS[seat], _cards(out)))
            actions.append(Draw(SEATS[seat], _cards(new)))

    # -- proposals and exchanges ----------------------------------------------------------------
    while True:
        if declarer_model:
            if _strong(hands[elder], trump, king) or random_() < 0.1:
                declarer = elder
                if actions is not None:
                    actions.append(Declare(seat_e))
                break
            if actions is not None:
                actions.append(Pass(seat_e))
            if _strong(hands[dealer], trump, king) or random_() < 0.1:
                declarer = dealer
                if actions is not None:
                    actions.append(Declare(seat_d))
                break
            if actions is not None:
                actions.append(Pass(seat_d))
        else:
            if random_() >= 0.6:
                if proposals == 0:
                    vulnerable = elder
                if actions is not None:
                    actions.append(Stand(seat_e))
                break
            proposals += 1
            if actions is not None:
                actions.append(Propose(seat_e))
            if random_() >= 0.7:
                if proposals == 1:
                    vulnerable = dealer
                if actions is not None:
                    actions.append(Refuse(seat_d))
                break
            if actions is not None:
                actions.append(Accept(seat_d))
        exchange(elder, max(e_low, 1), e_high)
        if stock:
            exchange(dealer, d_low, d_high)
        if not stock:
            if declarer_model:
                if _strong(hands[elder], trump, king) or random_() < 0.1:
                    declarer = elder
                    if actions is not None:
                        actions.append(Declare(seat_e))
                else:
                    declarer = dealer
                    if actions is not None:
                        actions.append(Pass(seat_e))
            break

    # -- the five tricks -------------------------------------------------------------------------
    german = rules.king_mode == "german"
    king_penalty = rules.king_penalty
    king_index = (turn_up & ~7) | _KING
    counts = [0, 0]
    tricks = [0, 0]
    king_to_lead = -1
    power = rules.ranking.power
    above = rules.ranking.above
    must_overtake = rules.must_overtake
    forzare = rules.forzare
    trumps_mask = SUIT_MASKS[trump]
    leader = elder
    played_any = False
    for _ in range(5):
        led = -1
        seat = leader
        for _turn in range(2):
            hand = hands[seat]
            if counts[seat] == 0 and not king_scored and hand & king:
                # the holder announces the king before his first card (mostly), or pays for it
                if random_() < 0.9 and (not german or not played_any or tricks[seat] > 0):
                    king_scored = True
                    score[seat] += 1
                    points[seat] += 1
                    if german:
                        king_to_lead = seat
                    if actions is not None:
                        actions.append(Announce(SEATS[seat]))
                    if score[seat] >= target:
                        return HandOutcome((tricks[0], tricks[1]), (points[0], points[1]),
                                           (score[0], score[1]), True, tuple(actions or ()))
                elif king_penalty:
                    score[seat] -= king_penalty
                    points[seat] -= king_penalty
            if led < 0:
                legal = king if king_to_lead == seat and hand & king else hand
            elif forzare:
                legal = _follow_mask(rules, hand, led, trump)
            else:
                legal = hand & SUIT_MASKS[led >> 3]
                if legal:
                    if must_overtake and legal & above[led]:
                        legal &= above[led]
                else:
                    legal = hand & trumps_mask or hand
            if legal & (legal - 1):
                k = int(random_() * legal.bit_count())
                while k:
                    legal &= legal - 1
                    k -= 1
            card = (legal & -legal).bit_length() - 1
            if card == king_index and king_to_lead == seat:
                king_to_lead = -1
            hands[seat] = hand & ~(1 << card)
            counts[seat] += 1
            played_any = True
            if actions is not None:
                actions.append(PlayCard(SEATS[seat], CARDS[card]))
            if led < 0:
                led = card
                seat = 1 - seat
                continue
            if (card >> 3 == led >> 3 and power[card] > power[led]) or (card >> 3 == trump and led >> 3 != trump):
                leader = seat
            else:
                leader = 1 - seat
            tricks[leader] += 1
    trick_points = rules.trick_points((tricks[0], tricks[1]), vulnerable, declarer)
    for i in (0, 1):
        score[i] += trick_points[i]
        points[i] += trick_points[i]
    return HandOutcome(
        (tricks[0], tricks[1]), (points[0], points[1]), (score[0], score[1]),
        score[0] >= target or score[1] >= target, tuple(actions or ()),
    )
