"""Built-in players: what two people at the table physically do for each engine action.

Used by the demo (on the simulated table), by the tests (to write transcripts of
whole games for every rule set) and by the benchmarks. A player chooses its
actions with a seeded ``random.Random``; :func:`firmware_host.referee.protocol.physical_events`
turns an action into the pad and button events the table would see.

    >>> import random
    >>> from engine import new_game
    >>> lines = game_transcript(new_game("classic", dealer="A"), random.Random(3))
    >>> lines[0]
    Setup(rules='classic', dealer='A', target=5, tags={}, options={}, players=None, sight='full', language=None)
"""

from __future__ import annotations

import random

import engine
from engine import GameState
from engine.actions import (
    PlayCard,
)
from engine.random_play import random_action
from engine.state import Phase
from firmware_host.referee import CardEvent, PhysicalEvent, Setup, physical_events
from hardware.layout import Zone


def wrong_card(state: GameState) -> PlayCard | None:
    """A card the seat to play holds but may not play now (for demos of a fault)."""
    if state.phase != Phase.PLAY or state.turn is None:
        return None
    seat = state.turn
    legal = engine.legal_plays(state, seat)
    hand = state.hands[0 if seat == "A" else 1]
    wrong = hand & ~legal
    if not wrong:
        return None
    low = wrong & -wrong
    return PlayCard(seat, engine.CARDS[low.bit_length() - 1])


def game_transcript(state: GameState, rng: random.Random, *, faults: bool = False) -> list[PhysicalEvent]:
    """A whole game as the physical events of a transcript, setup line first.

    With ``faults``, the players now and then play a wrong card and take it back.
    """
    rules = state.rules
    out: list[PhysicalEvent] = [
        # every card is read as it is laid: a full-sight record, whatever table replays it
        Setup(rules=rules.name, dealer=state.dealer or None, target=state.target,
              options={k: v for k, v in rules.options().items() if k != "target"}, sight="full"),
    ]
    for _ in range(20_000):
        if state.phase == Phase.OVER:
            break
        action = random_action(state, rng)
        if faults and isinstance(action, PlayCard) and rng.random() < 0.08:
            wrong = wrong_card(state)
            if wrong is not None:
                zone = Zone.play(wrong.seat)
                out.append(CardEvent(zone, str(wrong.card)))
                out.append(CardEvent(zone, str(wrong.card), gone=True))
                state, _ = engine.apply(state, wrong)  # refused; italian still charges it
                if state.phase == Phase.OVER:
                    break
                continue
        out.extend(physical_events(state, action))
        state, _ = engine.apply(state, action)
    return out
