"""No hidden card leaves the referee before its hand is over.

The snapshot (what every output shows) and the table events (``--json``) never name a card
that lies face down — in a hand, among the discards, or laid on a hand pad or the discard pad
— even when a fault is about that very card (a duplicate dealt, a replacement too many). Only
``hand_record`` names them, and only once the hand is over.
"""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.cards import CARDS
from firmware_host.players.builtin import game_transcript
from firmware_host.referee.controller import Controller
from firmware_host.referee.corrections import FACE_UP_ZONES
from firmware_host.referee.transcript import CardEvent, PhysicalEvent

ZONES = ("hand.A", "hand.B", "discard", "turnup", "play.A", "play.B")


def _named(card: engine.Card) -> tuple[str, ...]:
    return (f'"{card}"', card.symbol())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), rules=st.sampled_from(["classic", "italian", "german"]),
       stray=st.lists(st.tuples(st.integers(0, 400), st.sampled_from(ZONES), st.sampled_from(CARDS)), max_size=25))
def test_no_face_down_card_is_named_before_its_hand_is_over(seed: int, rules: str,
                                                            stray: list[tuple[int, str, engine.Card]]) -> None:
    lines: list[PhysicalEvent] = game_transcript(engine.new_game(rules, dealer="A"), random.Random(seed), faults=True)
    for at, zone, card in sorted(stray, key=lambda s: -s[0]):  # stray cards laid anywhere, now and then
        lines.insert(min(max(at, 1), len(lines)), CardEvent(zone, str(card)))
    referee = Controller()
    shown_up: set[str] = set()  # cards laid face up in this hand: the players have seen them
    for line in lines:
        if isinstance(line, CardEvent) and line.card is not None and line.zone in FACE_UP_ZONES:
            shown_up.add(line.card)
        before = referee.state.engine_state
        outcome = referee.handle(line)
        state = referee.state.engine_state
        down = before.hands[0] | before.hands[1] | before.discards[0] | before.discards[1]
        hidden = [c for c in CARDS
                  if (down | state.hands[0] | state.hands[1] | state.discards[0] | state.discards[1]) >> c.index & 1
                  and str(c) not in shown_up]
        public = outcome.snapshot.to_json()
        if outcome.snapshot.phase == "deal":
            del public["last_trick"]  # the last hand's, shown until the next turn-up: it is over
        shown = json.dumps(public, ensure_ascii=False) + "".join(
            json.dumps(e.to_json(), ensure_ascii=False) for e in outcome.events if e.event != "hand_record")
        for card in hidden:
            assert not any(name in shown for name in _named(card)), (card, line, shown)
        if any(e.event == "hand_record" for e in outcome.events):
            shown_up.clear()  # the hand is over: its cards are public
