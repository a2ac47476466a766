"""The controller: physical events in, table events out, phase by phase.

Tables of one physical event in a known position and the events it must cause;
the compact layout against the full one; tags, re-reads, LEDs; and hypothesis
streams of right and wrong events that must never break the game's bookkeeping.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referee_tables import TAG_KS, card_event, compact_event, correct_move, feed, summary, table_at

import engine
from drivers.device_events import Sighting
from engine.cards import ALL_CARDS
from firmware_host.referee.controller import Controller
from firmware_host.referee.table_events import NewGame
from firmware_host.referee.transcript import ZONES, ButtonEvent, CardEvent, PhysicalEvent, Setup
from hardware.tag_registry import TagRegistry

# B is elder (A deals); hearts are trumps. B: 9S KD QD 7C TC; A: 7S JS 9H KC 8D.


TABLE = [
    # phase, physical event, expected (event, detail, seat)
    ("deal", card_event("hand.B", "KS"), []),
    ("deal", card_event("turnup", "7H"), [("fault", "misdeal", "A")]),
    ("deal", ButtonEvent("B", "yes"), [("notice", "wrong_time", "B")]),
    ("deal", card_event("play.A", "KS"), [("notice", "wrong_time", "A")]),
    ("deal", CardEvent("hand.A", sighting=Sighting(TAG_KS)), []),
    ("deal", CardEvent("hand.A", sighting=Sighting("0011223344")), [("fault", "unknown_tag", "A")]),
    ("deal", card_event("discard", "KS"), []),
    ("propose", ButtonEvent("B", "yes"), [("bid", "propose", "B")]),
    ("propose", ButtonEvent("B", "no"), [("bid", "stand", "B"), ("play_begins", "", "")]),
    ("propose", ButtonEvent("A", "yes"), [("notice", "out_of_turn", "A")]),
    ("propose", ButtonEvent("B", "king"), [("notice", "wrong_time", "B")]),
    ("propose", card_event("play.B", "9S"), [("fault", "out_of_turn", "B")]),
    ("propose", card_event("turnup", "7H"), []),
    ("propose", card_event("hand.B", "9S"), []),
    ("propose", card_event("hand.B", "8H"), [("fault", "exchange_count", "A")]),
    ("propose", card_event("hand.B", "7S"), [("fault", "duplicate_card", "A")]),
    ("respond", ButtonEvent("A", "yes"), [("bid", "accept", "A")]),
    ("respond", ButtonEvent("A", "no"), [("bid", "refuse", "A"), ("play_begins", "", "")]),
    ("respond", ButtonEvent("B", "yes"), [("notice", "out_of_turn", "B")]),
    ("exchange", card_event("discard", "TC"), []),
    ("exchange", card_event("discard", "7S"), [("fault", "card_not_in_hand", "B")]),
    ("exchange", card_event("hand.B", "8H"), [("fault", "exchange_count", "A")]),
    ("exchange", card_event("hand.A", "8H"), [("fault", "exchange_count", "A")]),
    ("exchange", card_event("hand.B", "7H"), [("fault", "duplicate_card", "A")]),
    ("exchange", ButtonEvent("B", "no"), [("notice", "wrong_time", "B")]),
    ("play", card_event("play.B", "9S"), [("play", "9S", "B")]),
    ("play", card_event("play.A", "7S"), [("fault", "out_of_turn", "A")]),
    ("play", card_event("play.B", "7S"), [("fault", "card_not_in_hand", "B")]),
    ("play", card_event("play.B", "KH"), [("fault", "card_not_in_hand", "B")]),
    ("play", ButtonEvent("A", "king"), [("fault", "false_king", "A")]),
    ("play", ButtonEvent("A", "yes"), [("notice", "wrong_time", "A")]),
    ("play", card_event("hand.B", "8H"), []),
    ("trick", card_event("play.A", "7S"), [("fault", "not_overtaking", "A")]),
    ("trick", card_event("play.A", "KC"), [("fault", "revoke", "A")]),
    ("trick", card_event("play.A", "JS"), [("play", "JS", "A"), ("trick", "A", "")]),
    ("trick", card_event("play.B", "9S"), []),
    ("trick", card_event("play.B", "9S", gone=True), []),
    ("trick", card_event("play.B", "KD"), [("fault", "out_of_turn", "B")]),
]


@pytest.mark.parametrize(("phase", "event", "expected"), TABLE, ids=[f"{p}-{e}" for p, e, _ in TABLE])
def test_physical_event_in_phase(phase: str, event: PhysicalEvent, expected: list[tuple[str, ...]]) -> None:
    table = table_at(phase)
    assert summary(table.handle(event).events) == expected


@pytest.mark.parametrize(("rules", "button", "expected"), [
    ("german", ButtonEvent("B", "yes"), [("bid", "declare", "B"), ("play_begins", "", "")]),
    ("german", ButtonEvent("B", "no"), [("bid", "pass", "B")]),
    ("italian", ButtonEvent("B", "no"), [("bid", "stand", "B"), ("play_begins", "", "")]),
])
def test_buttons_by_rule_set(rules: str, button: ButtonEvent, expected: list[tuple[str, ...]]) -> None:
    table = table_at("propose", rules)
    assert summary(table.handle(button).events) == expected


def test_refused_card_then_doubling_buttons() -> None:
    table = table_at("play", doubling=True)
    feed(table, [card_event("play.B", "KD")])
    assert summary(table.handle(card_event("play.A", "7S")).events) == [("fault", "revoke", "A")]
    assert table.snapshot().faulty_seats == {"A"}
    feed(table, [card_event("play.A", "7S", gone=True)])
    assert table.snapshot().faulty_seats == set()
    assert summary(table.handle(ButtonEvent("B", "yes")).events) == [("offer", "", "B")]
    assert summary(table.handle(ButtonEvent("A", "yes")).events) == [("offer", "", "B")]
    assert table.state.engine_state.multiplier == 2


# -- re-reads, flickers, tags --------------------------------------------------------------------


# -- LEDs ------------------------------------------------------------------------------------------


# -- compact layout --------------------------------------------------------------------------------


# -- properties ------------------------------------------------------------------------------------

CARD_NAMES = [str(c) for c in engine.CARDS]
UIDS = [TAG_KS, "04112233445566", "DEADBEEF"]
REGISTRY = TagRegistry()
REGISTRY.add("04112233445566", "7C")


physical = st.one_of(
    st.builds(lambda z, c, g: CardEvent(z, c, gone=g), st.sampled_from(ZONES), st.sampled_from(CARD_NAMES),
              st.booleans()),
    st.builds(lambda z, u, g: CardEvent(z, gone=g, sighting=Sighting(u)), st.sampled_from(ZONES), st.sampled_from(UIDS),
              st.booleans()),
    st.builds(ButtonEvent, st.sampled_from("AB"), st.sampled_from(("yes", "no", "king"))),
    st.builds(lambda r: Setup(rules=r), st.sampled_from(["classic", "german"])),
)
steps = st.lists(st.one_of(st.just("move"), st.just("move"), st.just("move"), physical), max_size=160)


def _places(state: engine.GameState) -> list[int]:
    """Every card set the state keeps, the stock last."""
    sets = [state.hands[0], state.hands[1], state.discards[0], state.discards[1], state.played]
    if state.turn_up >= 0:
        sets.append(1 << state.turn_up)
    if state.led >= 0:
        sets.append(1 << state.led)
    if state.turn_up >= 0:
        sets.append(state.stock_mask)
    return sets


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(["classic", "french", "italian", "german"]),
    options=st.sampled_from([{}, {"doubling": True}, {"offer_point": True}]),
    layout=st.sampled_from(["full", "compact"]),
    seed=st.integers(0, 2**16),
    stream=steps,
)
def test_random_streams_keep_the_game_whole(rules: str, options: dict, layout: str, seed: int,
                                            stream: list) -> None:
    rng = random.Random(seed)
    table = Controller(registry=REGISTRY)
    table.handle(Setup(rules=rules, dealer="A", tags={TAG_KS: "KS"}, options=options))
    score = table.state.engine_state.score
    hand_start = score
    for step in stream:
        events = correct_move(table.state.engine_state, rng) if step == "move" else [step]
        for event in events:
            if layout == "compact":
                event = compact_event(event)
            out = table.handle(event).events
            state = table.state.engine_state
            # every card in exactly one place
            places = _places(state)
            union = 0
            for s in places:
                assert union & s == 0, (state.to_json(), event)
                union |= s
            if state.turn_up >= 0:
                assert union == ALL_CARDS
            assert all(h.bit_count() <= 5 for h in state.hands)
            # the score moves only by the events that say so, by their points
            for ev in out:
                if isinstance(ev, engine.Trump):
                    hand_start = score
                elif isinstance(ev, engine.King):
                    score = (score[0] + (ev.seat == "A"), score[1] + (ev.seat == "B"))
                    assert ev.score == score
                elif isinstance(ev, engine.Penalty):
                    score = (score[0] + ev.points * (ev.seat == "A"), score[1] + ev.points * (ev.seat == "B"))
                elif isinstance(ev, engine.HandEnd):
                    assert ev.score == (hand_start[0] + ev.points[0], hand_start[1] + ev.points[1])
                    score = ev.score
                elif isinstance(ev, NewGame):
                    score = hand_start = (0, 0)
            assert state.score == score, (out, event)


def test_the_led_card_is_not_in_the_stock() -> None:
    table = table_at("trick")
    led = table.state.engine_state.led
    assert not table.state.engine_state.stock_mask >> led & 1
    assert table.state.engine_state.stock_size == 32 - 11


def test_without_a_dealer_the_first_card_dealt_names_the_elder() -> None:
    """No setup and no cut: dealing starts with the non-dealer (rule 8)."""
    table = Controller()
    assert table.state.engine_state.phase == "cut"
    events = table.handle(CardEvent("hand.B", "KH")).events
    assert [e.to_json() for e in events] == [{"event": "dealer", "seat": "A", "cut": None}]
    assert table.state.engine_state.dealer == "A" and table.state.engine_state.phase == "deal"
    assert [str(c) for c in table.state.engine_state.hand("B")] == ["KH"]


def test_the_seats_cut_on_their_play_pads() -> None:
    table = Controller()
    assert table.handle(CardEvent("play.A", "7S")).events == ()
    events = table.handle(CardEvent("play.B", "KD")).events
    assert [e.to_json() for e in events] == [{"event": "dealer", "seat": "B", "cut": {"A": "7S", "B": "KD"}}]
    assert table.state.engine_state.dealer == "B"
    # an equal rank: cut again
    again = Controller()
    again.handle(CardEvent("play.A", "7S"))
    assert again.handle(CardEvent("play.B", "7H")).events[0].to_json()["seat"] is None
    assert again.state.engine_state.phase == "cut"


def test_a_reader_coming_up_at_the_start_is_no_news_and_one_back_from_offline_is() -> None:
    """Each reader coming up as the table started was a "reader back" event: six bare "the … reader is
    back" lines on the page at every start. Only a reader that was offline comes back."""
    from firmware_host.referee.table_events import ReaderState

    table = Controller()
    assert table.reader("turnup", online=True).events == ()
    assert table.reader("turnup", online=False, reason="EIO").events == (ReaderState("turnup", False, "EIO"),)
    assert table.snapshot().offline == {"turnup"}
    assert table.reader("turnup", online=True).events == (ReaderState("turnup", True, ""),)
    assert table.snapshot().offline == frozenset()
