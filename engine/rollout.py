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
    Action,
    Announce,
    Deal,
    Discard,
    Draw,
    PlayCard,
)
from engine.cards import ALL_CARDS, CARDS, cards_of
from engine.legality import KING, follower_wins, king_index, lead_mask
from engine.policy import P_ACCEPT, P_ANNOUNCE, P_DECLARE_WEAK, P_PROPOSE, strong
from engine.scoring import KING_POINT, hand_trick_points
from engine.seats import INDEX, SEATS
from engine.state import GameState, Phase

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class HandOutcome:
    """How a hand ended: tricks, points (king points included) and the game score after it.

    ``game_over`` is true when a seat reached the target (maybe by a king point,
    before all five tricks); ``actions`` holds the actions played when recorded, and
    ``choices`` the mask of cards the player could choose from at each card played
    (what :func:`engine.game.legal_plays` must allow there: the tests check both ways).
    """

    tricks: tuple[int, int]
    points: tuple[int, int]
    score: tuple[int, int]
    game_over: bool
    actions: tuple[Action, ...] = ()
    choices: tuple[int, ...] = ()


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


_BYTE_BITS = tuple(tuple(j for j in range(8) if b >> j & 1) for b in range(256))


def _indices(mask: int) -> list[int]:
    """The card indices of a mask (four byte lookups: faster than :func:`engine.cards.indices_of` here)."""
    return [base + j for base in (0, 8, 16, 24) for j in _BYTE_BITS[(mask >> base) & 0xFF]]


def _take(mask: int, count: int, rng: random.Random) -> int:
    """``count`` distinct cards of ``mask``, uniformly, as a mask."""
    taken = 0
    for i in sample_in_place(_indices(mask), count, rng):
        taken |= 1 << i
    return taken


def rollout(state: GameState, rng: random.Random, *, record: bool = False) -> HandOutcome:
    """Play the rest of the hand of ``state`` (``deal`` or ``propose`` phase) at random.

    :raises ValueError: for a state in another phase.
    """
    rules = state.rules
    if state.phase not in (Phase.DEAL, Phase.PROPOSE) or (state.phase == Phase.PROPOSE and state.proposals):
        raise ValueError(f"a rollout starts at the deal or the first decision, not in '{state.phase}'")
    actions: list[Action] | None = [] if record else None
    choices: list[int] = []
    dealer = INDEX[state.dealer]
    elder = 1 - dealer
    score = list(state.score)
    target = state.target
    points = [0, 0]
    if state.phase == Phase.DEAL:
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
        king_scored = turn_up & 7 == KING
        if king_scored:
            score[dealer] += KING_POINT
            points[dealer] += KING_POINT
            if score[dealer] >= target:
                return HandOutcome((0, 0), (points[0], points[1]), (score[0], score[1]), True,
                                   tuple(actions or ()))
    else:
        hands = list(state.hands)
        turn_up = state.turn_up
        points = list(state.hand_points)
        king_scored = state.king is not None
    trump = turn_up >> 3
    king_card = king_index(turn_up)
    king = 1 << king_card
    stock = ALL_CARDS & ~(hands[0] | hands[1] | (1 << turn_up))
    vulnerable: int | None = None
    declarer: int | None = None
    declares_game = rules.declares_game
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
            actions.append(Discard(SEATS[seat], cards_of(out)))
            actions.append(Draw(SEATS[seat], cards_of(new)))

    def declares(seat: int) -> bool:
        return strong(hands[seat], turn_up) or random_() < P_DECLARE_WEAK

    # -- proposals and exchanges: the rule set's own choices, the policy's odds -----------------
    e_yes, e_no = rules.elder_choice(SEATS[elder])
    d_yes, d_no = rules.dealer_choice(SEATS[dealer])
    while True:
        if declares_game:
            if declares(elder):
                declarer = elder
                if actions is not None:
                    actions.append(e_yes)
                break
            if actions is not None:
                actions.append(e_no)
            if declares(dealer):
                declarer = dealer
                if actions is not None:
                    actions.append(d_yes)
                break
            if actions is not None:
                actions.append(d_no)
        else:
            if random_() >= P_PROPOSE:
                if proposals == 0:
                    vulnerable = elder
                if actions is not None:
                    actions.append(e_no)
                break
            proposals += 1
            if actions is not None:
                actions.append(e_yes)
            if random_() >= P_ACCEPT:
                if proposals == 1:
                    vulnerable = dealer
                if actions is not None:
                    actions.append(d_no)
                break
            if actions is not None:
                actions.append(d_yes)
        exchange(elder, max(e_low, 1), e_high)
        if stock:
            exchange(dealer, d_low, d_high)
        if not stock:
            if declares_game:
                # nobody declared and the stock is gone: the elder may, else the dealer must
                declarer = elder if declares(elder) else dealer
                if actions is not None:
                    actions.append(e_yes if declarer == elder else e_no)
            break

    # -- the five tricks: legality and the trick's winner from engine.legality ------------------
    king_penalty = rules.king_penalty
    counts = [0, 0]
    tricks = [0, 0]
    king_to_lead = -1
    power = rules.ranking.power
    follow = rules.follow
    leader = elder
    played_any = False
    for _ in range(5):
        led = -1
        seat = leader
        for _turn in range(2):
            hand = hands[seat]
            if counts[seat] == 0 and not king_scored and hand & king:
                # the holder announces the king before his first card (mostly), or pays for it
                in_time = not rules.king_too_late(
                    count=0, king_first=False, dealer=seat == dealer, king_on_trick=False,
                    won=tricks[seat], any_card=played_any,
                )
                if random_() < P_ANNOUNCE and in_time:
                    king_scored = True
                    score[seat] += KING_POINT
                    points[seat] += KING_POINT
                    if rules.king_must_be_led:
                        king_to_lead = seat
                    if actions is not None:
                        actions.append(Announce(SEATS[seat]))
                    if score[seat] >= target:
                        return HandOutcome((tricks[0], tricks[1]), (points[0], points[1]),
                                           (score[0], score[1]), True, tuple(actions or ()), tuple(choices))
                elif king_penalty:
                    score[seat] -= king_penalty
                    points[seat] -= king_penalty
            legal = lead_mask(rules, hand, turn_up, king_to_lead == seat) if led < 0 else follow(hand, led, trump)
            if actions is not None:
                choices.append(legal)
            if legal & (legal - 1):
                k = int(random_() * legal.bit_count())
                while k:
                    legal &= legal - 1
                    k -= 1
            card = (legal & -legal).bit_length() - 1
            if card == king_card and king_to_lead == seat:
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
            leader = seat if follower_wins(power, trump, led, card) else 1 - seat
            tricks[leader] += 1
    trick_points = hand_trick_points(
        rules, (tricks[0], tricks[1]), vulnerable=vulnerable, declarer=declarer, must_vole=None,
    )
    for i in (0, 1):
        score[i] += trick_points[i]
        points[i] += trick_points[i]
    return HandOutcome(
        (tricks[0], tricks[1]), (points[0], points[1]), (score[0], score[1]),
        score[0] >= target or score[1] >= target, tuple(actions or ()), tuple(choices),
    )
