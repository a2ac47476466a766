"""Seeded random legal play: for benchmarks, property tests and the demo.

Every choice comes from the ``random.Random`` passed in, so a seed replays the
same game::

    >>> import random
    >>> from engine.game import new_game
    >>> a = play_random_game(new_game("classic", dealer="A"), random.Random(7))
    >>> b = play_random_game(new_game("classic", dealer="A"), random.Random(7))
    >>> a == b and a.is_over
    True
"""

from __future__ import annotations

import random

from engine.actions import (
    Accept,
    Action,
    Announce,
    Cut,
    Deal,
    Discard,
    Draw,
    PlayCard,
    Refuse,
    TurnTarget,
)
from engine.cards import CARDS, Card, indices_of
from engine.game import apply, legal_actions, legal_plays
from engine.legality import king_index
from engine.policy import P_ACCEPT, P_ANNOUNCE, P_DECLARE_WEAK, P_PROPOSE, strong
from engine.rollout import sample_in_place
from engine.seats import INDEX, OTHER, SEATS
from engine.state import GameState, Phase


def random_deal(state: GameState, rng: random.Random) -> Deal:
    """A shuffled deal for ``state`` (in its ``deal`` phase)."""
    cards = _sample(CARDS, 11, rng)
    return Deal(tuple(cards[0:5]), tuple(cards[5:10]), cards[10])


def _sample(population: tuple[Card, ...], k: int, rng: random.Random) -> list[Card]:
    """``k`` distinct cards, uniformly."""
    return sample_in_place(list(population), k, rng)


_PLAYS = {seat: tuple(PlayCard(seat, card) for card in CARDS) for seat in SEATS}
"""Every PlayCard, made once: the random player picks one instead of building it."""


def _pick(mask: int, rng: random.Random) -> int:
    """The index of one set bit of ``mask``, uniformly."""
    k = int(rng.random() * mask.bit_count())
    while k:
        mask &= mask - 1
        k -= 1
    return (mask & -mask).bit_length() - 1


def random_action(state: GameState, rng: random.Random) -> Action:
    """A legal action for ``state``, chosen with ``rng``; whole forms where they exist.

    Decisions lean towards exchanging, so games see several exchange rounds.
    """
    phase = state.phase
    if phase == Phase.PLAY:
        if state.offer is None:
            seat = state.turn or "A"
            i = INDEX[seat]
            if (
                state.counts[i] == 0 and state.king is None
                and state.hands[i] >> king_index(state.turn_up) & 1 and rng.random() < P_ANNOUNCE
            ):
                announce = Announce(seat)
                if announce in legal_actions(state):
                    return announce
            return _PLAYS[seat][_pick(legal_plays(state, seat), rng)]
        answer = OTHER[state.offer_by or "A"]
        return Accept(answer) if rng.random() < 0.5 else Refuse(answer)
    if phase == Phase.DEAL:
        return random_deal(state, rng)
    if phase in (Phase.PROPOSE, Phase.FORCE):
        return _decide(state, state.elder, state.rules.elder_choice(state.elder), P_PROPOSE, rng)
    if phase == Phase.RESPOND:
        return _decide(state, state.dealer, state.rules.dealer_choice(state.dealer), P_ACCEPT, rng)
    if phase == Phase.EXCHANGE:
        seat = state.exchanger or state.elder
        i = INDEX[seat]
        if state.ex_discarded > state.ex_drawn:
            stock = tuple(CARDS[c] for c in indices_of(state.stock_mask))
            return Draw(seat, tuple(_sample(stock, state.ex_discarded - state.ex_drawn, rng)))
        low, high = (
            state.rules.elder_discard if seat == state.elder else state.rules.dealer_discard
        )
        high = min(high, state.stock_size)
        low = max(low, 1) if seat == state.elder else low
        n = rng.randint(min(low, high), high)
        if n == 0:
            first, second = state.rules.elder_choice(state.elder)
            return first if rng.random() < 0.5 else second
        hand = tuple(CARDS[c] for c in indices_of(state.hands[i]))
        return Discard(seat, tuple(_sample(hand, n, rng)))
    if phase == Phase.CUT:
        seat = "A" if state.cuts[0] < 0 else "B"
        other = state.cuts[1 - INDEX[seat]]
        return Cut(seat, rng.choice([c for c in CARDS if c.index != other]))
    if phase == Phase.RETOURNE:
        return TurnTarget(rng.choice(CARDS))
    raise ValueError(f"no action in phase '{phase}'")


def _decide(state: GameState, seat: str, choice: tuple[Action, Action], p_yes: float,
            rng: random.Random) -> Action:
    """``yes`` or ``no`` of ``choice``: german seats declare strong hands (and weak ones now and
    then); elsewhere ``yes`` with probability ``p_yes``."""
    yes, no = choice
    if state.rules.declares_game:
        return yes if strong(state.hands[INDEX[seat]], state.turn_up) or rng.random() < P_DECLARE_WEAK else no
    return yes if rng.random() < p_yes else no


def play_random_hand(state: GameState, rng: random.Random) -> GameState:
    """Play from ``state`` until the hand (or the game) is over."""
    hand_no = state.hand_no
    game_no = state.game_no
    while state.phase != Phase.OVER and state.hand_no == hand_no and state.game_no == game_no:
        state, _ = apply(state, random_action(state, rng))
    return state


def play_random_game(state: GameState, rng: random.Random, max_actions: int = 100_000) -> GameState:
    """Play from ``state`` until the match is over (or ``max_actions`` were applied)."""
    for _ in range(max_actions):
        if state.phase == Phase.OVER:
            break
        state, _ = apply(state, random_action(state, rng))
    return state


__all__ = ["play_random_game", "play_random_hand", "random_action", "random_deal"]
