"""The controller: physical events in, table events out, phase by phase.

Tables of one physical event in a known position and the events it must cause;
the compact layout against the full one; tags, re-reads, LEDs; and hypothesis
streams of right and wrong events that must never break the game's bookkeeping.
"""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.cards import ALL_CARDS
from firmware_host.players.builtin import game_transcript, physical_events
from firmware_host.referee.controller import Controller
from firmware_host.referee.table_events import CONTRACT_EVENTS, NewGame, Notice
from firmware_host.referee.transcript import ZONES, ButtonEvent, CardEvent, PhysicalEvent, Setup

# B is elder (A deals); hearts are trumps. B: 9S KD QD 7C TC; A: 7S JS 9H KC 8D.
DEAL = [
    ("hand.B", "9S"), ("hand.B", "KD"), ("hand.B", "QD"),
    ("hand.A", "7S"), ("hand.A", "JS"), ("hand.A", "9H"),
    ("hand.B", "7C"), ("hand.B", "TC"),
    ("hand.A", "KC"), ("hand.A", "8D"),
]
TAG_KS = "04A224B2C31D80"


def _card(zone: str, card: str, gone: bool = False) -> CardEvent:
    return CardEvent(zone, card, gone=gone)


def _feed(table: Controller, events: list[PhysicalEvent]) -> list[engine.Event]:
    out: list[engine.Event] = []
    for event in events:
        out.extend(table.handle(event).events)
    return out


def _at(phase: str, rules: str = "classic", **options: object) -> Controller:
    """A controller brought to ``phase`` (deal, propose, respond, exchange, play, trick)."""
    table = Controller()
    table.handle(Setup(rules=rules, dealer="A", tags={TAG_KS: "KS"}, options=dict(options)))
    if phase == "deal":
        return table
    steps: list[PhysicalEvent] = [_card(z, c) for z, c in DEAL] + [_card("turnup", "7H")]
    if phase in ("respond", "exchange"):
        steps.append(ButtonEvent("B", "yes"))
    if phase == "exchange":
        steps.append(ButtonEvent("A", "yes"))
    if phase in ("play", "trick"):
        steps.append(ButtonEvent("B", "no"))
    if phase == "trick":
        steps.append(_card("play.B", "9S"))
    _feed(table, steps)
    assert table.engine_state.phase == ("play" if phase == "trick" else phase)
    return table


def _summary(events: list[engine.Event]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for e in events:
        data = e.to_json()
        detail = data.get("code") or data.get("bid") or data.get("card") or data.get("winner") or ""
        out.append((data["event"], str(detail), str(data.get("seat") or "")))
    return out


TABLE = [
    # phase, physical event, expected (event, detail, seat)
    ("deal", _card("hand.B", "KS"), []),
    ("deal", _card("turnup", "7H"), [("fault", "misdeal", "A")]),
    ("deal", ButtonEvent("B", "yes"), [("notice", "wrong_time", "B")]),
    ("deal", _card("play.A", "KS"), [("notice", "wrong_time", "A")]),
    ("deal", CardEvent("hand.A", uid=TAG_KS), []),
    ("deal", CardEvent("hand.A", uid="0011223344"), [("fault", "unknown_tag", "A")]),
    ("deal", _card("discard", "KS"), []),
    ("propose", ButtonEvent("B", "yes"), [("bid", "propose", "B")]),
    ("propose", ButtonEvent("B", "no"), [("bid", "stand", "B"), ("play_begins", "", "")]),
    ("propose", ButtonEvent("A", "yes"), [("notice", "out_of_turn", "A")]),
    ("propose", ButtonEvent("B", "king"), [("notice", "wrong_time", "B")]),
    ("propose", _card("play.B", "9S"), [("fault", "out_of_turn", "B")]),
    ("propose", _card("turnup", "7H"), []),
    ("propose", _card("hand.B", "9S"), []),
    ("propose", _card("hand.B", "8H"), [("fault", "exchange_count", "A")]),
    ("propose", _card("hand.B", "7S"), [("fault", "duplicate_card", "A")]),
    ("respond", ButtonEvent("A", "yes"), [("bid", "accept", "A")]),
    ("respond", ButtonEvent("A", "no"), [("bid", "refuse", "A"), ("play_begins", "", "")]),
    ("respond", ButtonEvent("B", "yes"), [("notice", "out_of_turn", "B")]),
    ("exchange", _card("discard", "TC"), []),
    ("exchange", _card("discard", "7S"), [("fault", "card_not_in_hand", "B")]),
    ("exchange", _card("hand.B", "8H"), [("fault", "exchange_count", "A")]),
    ("exchange", _card("hand.A", "8H"), [("fault", "exchange_count", "A")]),
    ("exchange", _card("hand.B", "7H"), [("fault", "duplicate_card", "A")]),
    ("exchange", ButtonEvent("B", "no"), [("notice", "wrong_time", "B")]),
    ("play", _card("play.B", "9S"), [("play", "9S", "B")]),
    ("play", _card("play.A", "7S"), [("fault", "out_of_turn", "A")]),
    ("play", _card("play.B", "7S"), [("fault", "card_not_in_hand", "B")]),
    ("play", _card("play.B", "KH"), [("fault", "card_not_in_hand", "B")]),
    ("play", ButtonEvent("A", "king"), [("fault", "false_king", "A")]),
    ("play", ButtonEvent("A", "yes"), [("notice", "wrong_time", "A")]),
    ("play", _card("hand.B", "8H"), []),
    ("trick", _card("play.A", "7S"), [("fault", "not_overtaking", "A")]),
    ("trick", _card("play.A", "KC"), [("fault", "revoke", "A")]),
    ("trick", _card("play.A", "JS"), [("play", "JS", "A"), ("trick", "A", "")]),
    ("trick", _card("play.B", "9S"), []),
    ("trick", _card("play.B", "9S", gone=True), []),
    ("trick", _card("play.B", "KD"), [("fault", "out_of_turn", "B")]),
]


@pytest.mark.parametrize(("phase", "event", "expected"), TABLE, ids=[f"{p}-{e}" for p, e, _ in TABLE])
def test_physical_event_in_phase(phase: str, event: PhysicalEvent, expected: list[tuple[str, ...]]) -> None:
    table = _at(phase)
    assert _summary(table.handle(event).events) == expected


@pytest.mark.parametrize(("rules", "button", "expected"), [
    ("german", ButtonEvent("B", "yes"), [("bid", "declare", "B"), ("play_begins", "", "")]),
    ("german", ButtonEvent("B", "no"), [("bid", "pass", "B")]),
    ("italian", ButtonEvent("B", "no"), [("bid", "stand", "B"), ("play_begins", "", "")]),
])
def test_buttons_by_rule_set(rules: str, button: ButtonEvent, expected: list[tuple[str, ...]]) -> None:
    table = _at("propose", rules)
    assert _summary(table.handle(button).events) == expected


def test_refused_card_then_doubling_buttons() -> None:
    table = _at("play", doubling=True)
    _feed(table, [_card("play.B", "KD")])
    assert _summary(table.handle(_card("play.A", "7S")).events) == [("fault", "revoke", "A")]
    assert table.snapshot().faulty_seats == {"A"}
    _feed(table, [_card("play.A", "7S", gone=True)])
    assert table.snapshot().faulty_seats == set()
    assert _summary(table.handle(ButtonEvent("B", "yes")).events) == [("offer", "", "B")]
    assert _summary(table.handle(ButtonEvent("A", "yes")).events) == [("offer", "", "B")]
    assert table.engine_state.multiplier == 2


# -- re-reads, flickers, tags --------------------------------------------------------------------


def test_deal_cards_read_again_are_ignored() -> None:
    table = _at("deal")
    for zone, card in DEAL:
        assert table.handle(_card(zone, card)).events == ()
        assert table.handle(_card(zone, card)).events == ()  # the same card read twice
    assert table.engine_state.hands[0].bit_count() == table.engine_state.hands[1].bit_count() == 5
    assert _summary(table.handle(_card("turnup", "7H")).events) == [("trump", "7H", "")]
    assert table.handle(_card("turnup", "7H")).events == ()


def test_hand_card_lifted_and_slid_again_is_ignored() -> None:
    table = _at("deal")
    _feed(table, [_card("hand.B", "9S"), _card("hand.B", "9S", gone=True)])
    assert table.handle(_card("hand.B", "9S")).events == ()
    assert table.engine_state.hands[1].bit_count() == 1


def test_refused_card_lifted_and_laid_again_is_refused_again() -> None:
    table = _at("trick")
    assert _summary(table.handle(_card("play.A", "7S")).events)[0][1] == "not_overtaking"
    assert _summary(table.handle(_card("play.A", "7S")).events)[0:1] == []  # read again where it lies
    assert _summary(table.handle(_card("play.A", "7S", gone=True)).events) == [("corrected", "not_overtaking", "A")]
    assert _summary(table.handle(_card("play.A", "7S")).events)[0][1] == "not_overtaking"


def test_registry_lookup_resolves_uids_not_in_setup() -> None:
    table = Controller(card_for_uid={"0A0B0C0D": "QH"}.get)
    table.handle(Setup(rules="classic", dealer="A", tags={TAG_KS: "KS"}))
    table.handle(CardEvent("hand.B", uid="0A0B0C0D"))
    table.handle(CardEvent("hand.B", uid=TAG_KS))
    assert {str(c) for c in table.engine_state.hand("B")} == {"QH", "KS"}
    refused = table.handle(CardEvent("hand.B", uid="FFFF")).events
    assert _summary(refused) == [("fault", "unknown_tag", "A")]  # the dealer handles the hand pads
    assert table.engine_state.hands[1].bit_count() == 2


def test_setup_after_the_first_event_is_a_notice() -> None:
    table = _at("deal")
    table.handle(_card("hand.B", "9S"))
    out = table.handle(Setup(rules="german")).events
    assert isinstance(out[0], Notice) and out[0].code == "setup_ignored"
    assert table.engine_state.rules.name == "classic"


def test_bad_rules_in_setup_raise_a_notation_error() -> None:
    with pytest.raises(engine.NotationError, match="setup"):
        Controller().handle(Setup(rules="bezique"))


# -- LEDs ------------------------------------------------------------------------------------------


def test_leds_lit_on_a_fault_and_cleared_by_lifting() -> None:
    table = _at("play")
    table.handle(_card("play.A", "7S"))
    assert table.snapshot().faulty_seats == {"A"}
    assert "take back" in table.snapshot().expectation
    table.handle(_card("play.A", "7S", gone=True))
    assert table.snapshot().faulty_seats == set()
    assert table.snapshot().expectation == "B plays"


def test_leds_cleared_by_the_seats_next_legal_play() -> None:
    table = _at("trick")
    table.handle(_card("play.A", "KC"))
    table.handle(_card("play.B", "QD"))  # B out of turn too
    assert table.snapshot().faulty_seats == {"A", "B"}
    out = _summary(table.handle(_card("play.A", "JS")).events)
    assert ("corrected", "revoke", "A") in out
    assert table.snapshot().faulty_seats == {"B"}


def test_exchange_count_led_is_the_dealers_and_lifting_returns_the_card() -> None:
    table = _at("exchange")
    _feed(table, [_card("discard", "TC"), _card("hand.B", "8H")])
    stock = table.engine_state.stock_size
    assert _summary(table.handle(_card("hand.B", "9D")).events) == [("fault", "exchange_count", "A")]
    assert table.snapshot().faulty_seats == {"A"}
    assert table.engine_state.stock_size == stock
    assert _summary(table.handle(_card("hand.B", "9D", gone=True)).events) == [("corrected", "exchange_count", "A")]
    assert table.snapshot().faulty_seats == set()
    # the card is back in the stock: the dealer may draw it after discarding
    _feed(table, [_card("discard", "8D")])
    assert table.handle(_card("hand.A", "9D")).events[0].event == "exchange"


def test_a_new_deal_clears_faults_left_on_the_pads() -> None:
    table = _at("propose")
    table.handle(_card("hand.B", "8H"))  # exchange_count, never lifted
    assert table.snapshot().faulty_seats == {"A"}
    table.handle(_card("hand.B", "7S"))  # duplicate_card: the deal is void
    assert table.engine_state.phase == "deal"
    assert table.snapshot().faulty_seats == set()
    assert "deals" in table.snapshot().expectation


def test_a_void_deal_then_the_next_hand_card_starts_a_new_deal() -> None:
    table = _at("deal")
    _feed(table, [_card(z, c) for z, c in DEAL])
    assert _summary(table.handle(_card("hand.B", "AS")).events)[0][1] == "misdeal"
    # the same cards again, from the start
    _feed(table, [_card(z, c) for z, c in DEAL])
    assert _summary(table.handle(_card("turnup", "7H")).events) == [("trump", "7H", "")]
    assert table.engine_state.dealer == "A"


def test_game_over_then_yes_starts_a_new_game_dealt_by_the_other_seat() -> None:
    table = Controller()
    table.handle(Setup(rules="classic", dealer="A", target=1))
    _feed(table, [_card(z, c) for z, c in DEAL])
    out = _summary(table.handle(_card("turnup", "KH")).events)
    assert out == [("trump", "KH", ""), ("king", "", "A"), ("game_end", "A", ""), ("hand_record", "", "")]
    assert table.handle(ButtonEvent("B", "no")).events == ()
    new = table.handle(ButtonEvent("B", "yes")).events
    assert isinstance(new[0], NewGame) and new[0].dealer == "B"
    assert table.engine_state.phase == "deal" and table.engine_state.score == (0, 0) and table.snapshot().game == 2


# -- compact layout --------------------------------------------------------------------------------

COMPACT = {"hand.A": "A", "play.A": "A", "hand.B": "B", "play.B": "B", "turnup": "centre", "discard": "centre"}


def _compact(event: PhysicalEvent) -> PhysicalEvent:
    if isinstance(event, CardEvent):
        return dataclasses.replace(event, zone=COMPACT[event.zone])
    return event


@pytest.mark.parametrize("rules", ["classic", "french", "italian", "german"])
@pytest.mark.parametrize("seed", range(4))
def test_compact_layout_referees_like_the_full_one(rules: str, seed: int) -> None:
    events = game_transcript(engine.new_game(rules, dealer="A"), random.Random(seed), faults=True)
    full, compact = Controller(), Controller(layout="compact")
    a = [e.to_json() for ev in events for e in full.handle(ev).events if e.event in CONTRACT_EVENTS]
    b = [e.to_json() for ev in events for e in compact.handle(_compact(ev)).events if e.event in CONTRACT_EVENTS]
    assert a == b
    assert a[-1]["event"] == "game_end"
    assert compact.engine_state == full.engine_state


@pytest.mark.parametrize(("phase", "event", "expected"), [
    ("deal", CardEvent("A", "KS"), []),
    ("deal", CardEvent("centre", "7H"), [("fault", "misdeal", "A")]),
    ("propose", CardEvent("centre", "7H"), []),
    ("propose", CardEvent("B", "9S"), []),
    ("propose", CardEvent("B", "8H"), [("fault", "exchange_count", "A")]),
    ("exchange", CardEvent("centre", "TC"), []),
    ("exchange", CardEvent("centre", "7S"), [("fault", "card_not_in_hand", "B")]),
    ("play", CardEvent("B", "9S"), [("play", "9S", "B")]),
    ("play", CardEvent("A", "7S"), [("fault", "out_of_turn", "A")]),
    ("trick", CardEvent("A", "JS"), [("play", "JS", "A"), ("trick", "A", "")]),
    ("trick", CardEvent("B", "9S"), []),
])
def test_compact_pads_by_phase(phase: str, event: CardEvent, expected: list[tuple[str, ...]]) -> None:
    table = _at(phase)
    assert _summary(table.handle(event).events) == expected


# -- properties ------------------------------------------------------------------------------------

CARD_NAMES = [str(c) for c in engine.CARDS]
UIDS = [TAG_KS, "0011223344556677", "DEADBEEF"]


def _correct_move(state: engine.GameState, rng: random.Random) -> list[PhysicalEvent]:
    """What the players would rightly do next (a single dealt card mid-deal)."""
    if state.phase == "over":
        return [ButtonEvent("A", "yes")]
    if state.phase == "deal":
        free = [c for c in engine.CARDS if state.stock_mask >> c.index & 1]
        short = [s for s in "AB" if state.hands[0 if s == "A" else 1].bit_count() < 5]
        card = str(rng.choice(free))
        return [CardEvent(f"hand.{rng.choice(short)}", card) if short else CardEvent("turnup", card)]
    return physical_events(state, engine.random_play.random_action(state, rng))


physical = st.one_of(
    st.builds(lambda z, c, g: CardEvent(z, c, gone=g), st.sampled_from(ZONES), st.sampled_from(CARD_NAMES),
              st.booleans()),
    st.builds(lambda z, u, g: CardEvent(z, uid=u, gone=g), st.sampled_from(ZONES), st.sampled_from(UIDS),
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
    table = Controller(layout=layout, card_for_uid={"0011223344556677": "7C"}.get)
    table.handle(Setup(rules=rules, dealer="A", tags={TAG_KS: "KS"}, options=options))
    score = table.engine_state.score
    hand_start = score
    for step in stream:
        events = _correct_move(table.engine_state, rng) if step == "move" else [step]
        for event in events:
            if layout == "compact":
                event = _compact(event)
            out = table.handle(event).events
            state = table.engine_state
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
    table = _at("trick")
    led = table.engine_state.led
    assert not table.engine_state.stock_mask >> led & 1
    assert table.engine_state.stock_size == 32 - 11


def test_without_a_dealer_the_first_card_dealt_names_the_elder() -> None:
    """No setup and no cut: dealing starts with the non-dealer (rule 8)."""
    table = Controller()
    assert table.engine_state.phase == "cut"
    events = table.handle(CardEvent("hand.B", "KH")).events
    assert [e.to_json() for e in events] == [{"event": "dealer", "seat": "A", "cut": None}]
    assert table.engine_state.dealer == "A" and table.engine_state.phase == "deal"
    assert [str(c) for c in table.engine_state.hand("B")] == ["KH"]


def test_the_seats_cut_on_their_play_pads() -> None:
    table = Controller()
    assert table.handle(CardEvent("play.A", "7S")).events == ()
    events = table.handle(CardEvent("play.B", "KD")).events
    assert [e.to_json() for e in events] == [{"event": "dealer", "seat": "B", "cut": {"A": "7S", "B": "KD"}}]
    assert table.engine_state.dealer == "B"
    # an equal rank: cut again
    again = Controller()
    again.handle(CardEvent("play.A", "7S"))
    assert again.handle(CardEvent("play.B", "7H")).events[0].to_json()["seat"] is None
    assert again.engine_state.phase == "cut"
