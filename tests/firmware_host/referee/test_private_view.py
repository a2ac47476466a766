"""Each seat's private view (what that seat alone may know now), property-tested over whole games with
faults and stray cards, at full and partial sight: it is the seat's own hand and discards as the referee
judged them, never a card of the other seat's hand; and it leaves the outcome only for that seat's output."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.cards import CARDS, mask_of
from firmware_host.players.builtin import game_transcript
from firmware_host.players.packets import ModelTable, PacketPlayers
from firmware_host.referee.controller import Controller
from firmware_host.referee.snapshot import Outcome, PrivateView
from firmware_host.referee.transcript import CardEvent, PhysicalEvent, Setup

ZONES = ("hand.A", "hand.B", "discard", "turnup", "play.A", "play.B")


def partial_sight_game(seed: int, depth: int, rules: str) -> list[PhysicalEvent]:
    """A whole game as pads of readable ``depth`` report it (the packet players at a model table)."""
    table = ModelTable(Controller(), depth=depth, setup=Setup(rules=rules, dealer="A", sight="partial"))
    PacketPlayers(table, engine.new_game(rules, dealer="A"), seed=seed, faults=0.2).play_game()
    return table.lines


def check_game(lines: list[PhysicalEvent]) -> tuple[int, int]:
    """Referee ``lines``, checking every outcome's private views; how many held a card, how many counted
    cards the table did not see."""
    referee = Controller()
    held_by: dict[str, int] = {"A": 0, "B": 0}  # every card each seat held in the hand under way
    hand = (0, 0)
    holding = counting = 0
    for line in lines:
        outcome = referee.handle(line)
        state = referee.state.engine_state
        if (outcome.snapshot.game, outcome.snapshot.hand_no) != hand or state.hands == (0, 0):
            hand, held_by = (outcome.snapshot.game, outcome.snapshot.hand_no), {"A": 0, "B": 0}
        assert sorted(outcome.private) == ["A", "B"]
        for index, seat in enumerate("AB"):
            view = outcome.private[seat]
            held_by[seat] |= state.hands[index]
            assert view.seat == seat
            assert mask_of(view.hand) == state.hands[index] and mask_of(view.discards) == state.discards[index]
            assert 0 <= view.unseen <= 5 - len(view.hand) or len(view.hand) > 5, view
        for seat, other in (("A", "B"), ("B", "A")):
            mine = mask_of(outcome.private[seat].hand) | mask_of(outcome.private[seat].discards)
            assert not mine & held_by[other], (seat, line, [str(c) for c in CARDS if mine & held_by[other] & c.mask])
        holding += any(outcome.private[seat].hand for seat in "AB")
        counting += any(outcome.private[seat].unseen for seat in "AB")
    return holding, counting


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), rules=st.sampled_from(["classic", "italian", "german"]),
       stray=st.lists(st.tuples(st.integers(0, 400), st.sampled_from(ZONES), st.sampled_from(CARDS)), max_size=25))
def test_a_seats_private_view_never_holds_the_other_seats_cards(seed: int, rules: str,
                                                                stray: list[tuple[int, str, engine.Card]]) -> None:
    lines = game_transcript(engine.new_game(rules, dealer="A"), random.Random(seed), faults=True)
    for at, zone, card in sorted(stray, key=lambda s: -s[0]):  # stray cards laid anywhere, now and then
        lines.insert(min(max(at, 1), len(lines)), CardEvent(zone, str(card)))
    holding, counting = check_game(lines)
    assert holding and not counting  # full sight: every card is seen


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), depth=st.integers(1, 3), rules=st.sampled_from(["classic", "italian"]))
def test_at_partial_sight_the_view_holds_what_the_pads_read_and_counts_the_rest(seed: int, depth: int,
                                                                               rules: str) -> None:
    holding, counting = check_game(partial_sight_game(seed, depth, rules))
    assert holding and counting


def test_an_output_sees_only_its_own_seats_view() -> None:
    """The door (:meth:`Outcome.seen_by`): a seat's output its own view, any other output none."""
    referee = Controller()
    outcome: Outcome | None = None
    for line in game_transcript(engine.new_game("classic", dealer="A"), random.Random(3))[:12]:
        outcome = referee.handle(line)
    assert outcome is not None and outcome.private["A"].hand and outcome.private["B"].hand
    assert dict(outcome.seen_by(None).private) == {}
    assert dict(outcome.seen_by("A").private) == {"A": outcome.private["A"]}
    assert dict(outcome.seen_by("B").private) == {"B": outcome.private["B"]}
    assert outcome.seen_by("A").snapshot is outcome.snapshot and outcome.seen_by("B").events == outcome.events
    assert PrivateView("A") == PrivateView("A", (), 0, ())
