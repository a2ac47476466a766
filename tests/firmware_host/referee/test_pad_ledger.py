"""The pad ledger: a card newly laid or read again where it lies, one pad at a time."""

from __future__ import annotations

import random

import pytest
from referee_tables import DEAL, card_event, compact_event, feed, summary, table_at

import engine
from firmware_host.players.builtin import game_transcript
from firmware_host.referee.controller import Controller
from firmware_host.referee.pad_ledger import PadLedger
from firmware_host.referee.table_events import CONTRACT_EVENTS
from firmware_host.referee.transcript import CardEvent
from hardware.layout import Zone


def test_a_card_read_again_where_it_lies_is_no_new_card() -> None:
    ledger, laid = PadLedger().lay("hand.B", "9S")
    assert laid
    assert not ledger.lay("hand.B", "9S")[1]


def test_a_card_lies_on_one_pad_at_a_time() -> None:
    ledger, _ = PadLedger().lay("hand.B", "TC")
    ledger, laid = ledger.lay("discard", "TC")
    assert laid  # moved: new where it lands
    assert ledger.lay("hand.B", "TC")[1]  # and new again where it was (a discard drawn again)


def test_lifted_cards_are_new_when_laid_again_and_a_clear_gathers_all() -> None:
    ledger, _ = PadLedger().lay("play.A", "7S")
    ledger = ledger.lift("play.A", "7S")
    assert ledger.empty
    ledger, laid = ledger.lay("play.A", "7S")
    assert laid
    ledger, _ = ledger.lay("hand.A", "KC")
    ledger = ledger.lift("turnup", "QS")  # never there: nothing
    assert not ledger.empty
    ledger = PadLedger()  # the cards gathered
    assert ledger.empty and ledger.lay("hand.A", "KC")[1]


@pytest.mark.parametrize(("pad", "phase", "zone"), [
    ("hand.A", "deal", "hand.A"),
    ("A", "deal", "hand.A"),
    ("A", "play", "play.A"),
    ("centre", "deal", "turnup"),
    ("centre", "exchange", "discard"),
])
def test_the_zone_a_pad_stands_for(pad: str, phase: str, zone: str) -> None:
    state = engine.new_game("classic", dealer="A").evolve(phase=phase)
    assert PadLedger().seen(Zone(pad), "KS", state, None)[1] == zone


# -- moved from test_controller: the same tests through the Controller --------------------------


def test_deal_cards_read_again_are_ignored() -> None:
    table = table_at("deal")
    for zone, card in DEAL:
        assert table.handle(card_event(zone, card)).events == ()
        assert table.handle(card_event(zone, card)).events == ()  # the same card read twice
    assert table.state.engine_state.hands[0].bit_count() == table.state.engine_state.hands[1].bit_count() == 5
    assert summary(table.handle(card_event("turnup", "7H")).events) == [("trump", "7H", "")]
    assert table.handle(card_event("turnup", "7H")).events == ()


def test_hand_card_lifted_and_slid_again_is_ignored() -> None:
    table = table_at("deal")
    feed(table, [card_event("hand.B", "9S"), card_event("hand.B", "9S", gone=True)])
    assert table.handle(card_event("hand.B", "9S")).events == ()
    assert table.state.engine_state.hands[1].bit_count() == 1


@pytest.mark.parametrize("rules", ["classic", "french", "italian", "german"])
@pytest.mark.parametrize("seed", range(4))
def test_compact_layout_referees_like_the_full_one(rules: str, seed: int) -> None:
    events = game_transcript(engine.new_game(rules, dealer="A"), random.Random(seed), faults=True)
    full, compact = Controller(), Controller()  # the compact pads are known by their names
    a = [e.to_json() for ev in events for e in full.handle(ev).events if e.event in CONTRACT_EVENTS]
    b = [e.to_json() for ev in events for e in compact.handle(compact_event(ev)).events if e.event in CONTRACT_EVENTS]
    assert a == b
    assert a[-1]["event"] == "game_end"
    assert compact.state.engine_state == full.state.engine_state


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
    table = table_at(phase)
    assert summary(table.handle(event).events) == expected
