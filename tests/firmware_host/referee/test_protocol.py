"""The physical protocol both ways: what players do for an action is read back as that action.

:func:`firmware_host.referee.protocol.physical_events` (the players' direction) and
:func:`~firmware_host.referee.protocol.card_action` / :func:`~firmware_host.referee.protocol.button_action`
(the referee's) are inverses over whole random games of every rule set.
"""

from __future__ import annotations

import random

import pytest

import engine
from engine.actions import Deal, Discard, Draw, PlayCard
from engine.random_play import random_action
from firmware_host.referee.protocol import button_action, card_action, physical_events, zone_of
from firmware_host.referee.transcript import ButtonEvent, CardEvent
from hardware.layout import Zone

CONFIGS = [("classic", {}), ("french", {}), ("italian", {"forzare": True}), ("german", {}),
           ("classic", {"doubling": True}), ("classic", {"offer_point": True})]


def _single(action: engine.Action) -> list[engine.Action]:
    """The one-card forms the pads produce (a whole deal, discard or draw is many cards)."""
    if isinstance(action, Deal):
        return []  # checked card by card below
    if isinstance(action, Discard | Draw) and len(action.cards) > 1:
        return [type(action)(action.seat, (card,)) for card in action.cards]
    return [action]


@pytest.mark.parametrize(("rules", "options"), CONFIGS)
@pytest.mark.parametrize("seed", range(6))
def test_what_players_do_is_read_back_as_the_action(rules: str, options: dict[str, object], seed: int) -> None:
    rng = random.Random(seed)
    state = engine.new_game(rules, dealer="A", **options)
    checked = 0
    for _ in range(3000):
        if state.phase == "over":
            break
        action = random_action(state, rng)
        for single in _single(action):
            events = physical_events(state, single, lift_tricks=False)
            assert len(events) == 1, (single, events)
            event = events[0]
            if isinstance(event, ButtonEvent):
                back = button_action(state, event.seat, event.button)
            else:
                assert isinstance(event, CardEvent) and event.card is not None
                back = card_action(state, event.zone, engine.Card.parse(event.card))
            assert back == single, (state.phase, single, event, back)
            checked += 1
        if isinstance(action, Deal):
            # a whole deal: every card is a DealCard to its seat, then the turn-up
            events = physical_events(state, action)
            dealt = [card_action(state, e.zone, engine.Card.parse(e.card)) for e in events  # type: ignore[union-attr]
                     if e.zone != "turnup"]  # type: ignore[union-attr]
            assert sorted(str(a) for a in dealt) == sorted(
                [f"{state.elder} gets {c}" for c in (action.a if state.elder == "A" else action.b)]
                + [f"{state.dealer} gets {c}" for c in (action.b if state.elder == "A" else action.a)])
        state, _ = engine.apply(state, action)
    assert checked > 20


def test_a_compact_pad_stands_for_the_zone_the_game_is_in() -> None:
    state = engine.new_game("classic", dealer="A")
    assert zone_of(Zone.PAD_A, state, None) == "hand.A" and zone_of(Zone.CENTRE, state, None) == "turnup"
    dealt, _ = engine.apply(state, engine.parse_deal("KH QH JH AH TH / 7S 8S 9S TS AS / 7D"))
    playing, _ = engine.apply(dealt, engine.Stand("B"))
    assert zone_of(Zone.PAD_B, playing, None) == "play.B"
    assert zone_of(Zone.CENTRE, playing, engine.Card.parse("7D")) == "turnup"
    assert zone_of(Zone.CENTRE, playing, engine.Card.parse("8D")) == "discard"
    assert isinstance(card_action(playing, Zone.PLAY_B, engine.Card.parse("7S")), PlayCard)
