"""Corrections: refused cards kept until taken back or put right by a legal play; warnings; notices."""

from __future__ import annotations

import dataclasses

import pytest
from referee_tables import DEAL, card_event, feed, summary, table_at

import engine
from engine import Card
from engine.actions import Announce, PlayCard
from engine.faults import fault
from engine.message import Phrase
from firmware_host.referee.corrections import Corrections, face_down, refusal
from firmware_host.referee.event_words import message, said_in
from firmware_host.referee.table_events import Corrected, Notice
from hardware.layout import Zone

SEVEN = Card.parse("7S")


def _revoke(seat: str = "A") -> engine.Fault:
    return fault("revoke", seat, f"{seat} must follow", SEVEN)


def test_a_refused_card_is_kept_until_taken_back_by_card_or_by_tag() -> None:
    fixes, _ = Corrections().refuse(_revoke(), Zone.PLAY_A, "7S", None, on_pad=True)
    fixes, _ = fixes.refuse(fault("unknown_tag", "B", "put it aside"), Zone.PLAY_B, None, "04FF", on_pad=True)
    assert [f.seat for f in fixes.faults] == ["A", "B"]
    assert fixes.taken_back("QH", None) == (fixes, [])
    fixes, corrected = fixes.taken_back(None, "04FF")
    assert corrected == [Corrected("unknown_tag", "B", None)]
    fixes, corrected = fixes.taken_back("7S", None)
    assert corrected == [Corrected("revoke", "A", "7S")]
    assert fixes.faults == ()


def test_a_legal_play_puts_right_that_seat_s_refused_plays_but_no_tag_fault() -> None:
    fixes, _ = Corrections().refuse(_revoke("A"), Zone.PLAY_A, "7S", None, on_pad=True)
    fixes, _ = fixes.refuse(_revoke("B"), Zone.PLAY_B, "7S", None, on_pad=True)
    fixes, _ = fixes.refuse(fault("foreign_pack", "A", "put it aside"), Zone.PLAY_A, None, "04EE", on_pad=True)
    fixes, out = fixes.judge(PlayCard("A", Card.parse("JS")), [], zone=Zone.PLAY_A, card="JS", button=None,
                             void_deal=False)
    assert out == [Corrected("revoke", "A", "7S")]
    assert [(f.code, f.seat) for f in fixes.faults] == [("revoke", "B"), ("foreign_pack", "A")]


def test_a_void_deal_is_a_warning_that_clears_the_refused_cards() -> None:
    fixes, _ = Corrections().refuse(_revoke(), Zone.PLAY_A, "7S", None, on_pad=True)
    misdeal = fault("misdeal", "A", "the deal is void")
    fixes, out = fixes.refuse(misdeal, Zone.TURNUP, None, None, on_pad=True, void_deal=True)
    assert out == [misdeal]
    assert fixes.faults == () and fixes.warning == misdeal


def test_a_button_s_fault_is_a_warning_until_the_next_accepted_action() -> None:
    false_king = fault("false_king", "A", "A has no king")
    fixes, out = Corrections().judge(Announce("A"), [false_king], zone=None, card=None, button="king",
                                     void_deal=False)
    assert out == [false_king]
    assert fixes.warning == false_king and fixes.faults == ()
    fixes, _ = fixes.judge(PlayCard("B", SEVEN), [], zone=Zone.PLAY_B, card="7S", button=None, void_deal=False)
    assert fixes.warning is None


@pytest.mark.parametrize(("code", "button"), [("wrong_time", None), ("out_of_turn", "yes"), ("out_of_turn", "no")])
def test_a_fault_of_time_is_only_a_notice(code: str, button: str | None) -> None:
    fixes, out = Corrections().judge(Announce("A"), [fault(code, "A", "not now")], zone=None, card=None,
                                     button=button, void_deal=False)
    assert out == [Notice(Phrase("says.not now"), "A", code)]
    assert fixes.faults == () and fixes.warning is None


def test_a_late_fault_is_no_refusal_and_stays_as_a_warning() -> None:
    late = dataclasses.replace(fault("revoke", "A", "A revoked", SEVEN), late=True)
    assert not refusal([late]) and refusal([_revoke()])
    fixes, out = Corrections().judge(PlayCard("A", SEVEN), [late], zone=Zone.PLAY_A, card="7S", button=None,
                                     void_deal=False)
    assert out == [late]
    assert fixes.warning == late


def test_a_face_down_card_is_never_named_and_clear_gathers_everything() -> None:
    fixes, _ = Corrections().refuse(fault("duplicate_card", "A", "K♠ is in B's hand", Card.parse("KS")), Zone.HAND_A,
                                    "KS", None, on_pad=True)
    assert fixes.faults[0].card is None and "K" not in message(fixes.faults[0])
    assert face_down(_revoke(), Zone.PLAY_A).card == SEVEN
    fixes = Corrections()  # the cards gathered
    assert fixes.faults == () and fixes.warning is None


# -- moved from test_controller: the same tests through the Controller --------------------------


def test_refused_card_lifted_and_laid_again_is_refused_again() -> None:
    table = table_at("trick")
    assert summary(table.handle(card_event("play.A", "7S")).events)[0][1] == "not_overtaking"
    assert summary(table.handle(card_event("play.A", "7S")).events)[0:1] == []  # read again where it lies
    assert summary(table.handle(card_event("play.A", "7S", gone=True)).events) == [("corrected", "not_overtaking", "A")]
    assert summary(table.handle(card_event("play.A", "7S")).events)[0][1] == "not_overtaking"


def test_leds_lit_on_a_fault_and_cleared_by_lifting() -> None:
    table = table_at("play")
    table.handle(card_event("play.A", "7S"))
    assert table.snapshot().faulty_seats == {"A"}
    assert "take back" in said_in(table.snapshot().expectation)
    table.handle(card_event("play.A", "7S", gone=True))
    assert table.snapshot().faulty_seats == set()
    assert said_in(table.snapshot().expectation) == "B plays"


def test_leds_cleared_by_the_seats_next_legal_play() -> None:
    table = table_at("trick")
    table.handle(card_event("play.A", "KC"))
    table.handle(card_event("play.B", "QD"))  # B out of turn too
    assert table.snapshot().faulty_seats == {"A", "B"}
    out = summary(table.handle(card_event("play.A", "JS")).events)
    assert ("corrected", "revoke", "A") in out
    assert table.snapshot().faulty_seats == {"B"}


def test_exchange_count_led_is_the_dealers_and_lifting_returns_the_card() -> None:
    table = table_at("exchange")
    feed(table, [card_event("discard", "TC"), card_event("hand.B", "8H")])
    stock = table.state.engine_state.stock_size
    assert summary(table.handle(card_event("hand.B", "9D")).events) == [("fault", "exchange_count", "A")]
    assert table.snapshot().faulty_seats == {"A"}
    assert table.state.engine_state.stock_size == stock
    assert summary(table.handle(card_event("hand.B", "9D", gone=True)).events) == [("corrected", "exchange_count", "A")]
    assert table.snapshot().faulty_seats == set()
    # the card is back in the stock: the dealer may draw it after discarding
    feed(table, [card_event("discard", "8D")])
    assert table.handle(card_event("hand.A", "9D")).events[0].event == "exchange"


def test_a_new_deal_clears_faults_left_on_the_pads() -> None:
    table = table_at("propose")
    table.handle(card_event("hand.B", "8H"))  # exchange_count, never lifted
    assert table.snapshot().faulty_seats == {"A"}
    table.handle(card_event("hand.B", "7S"))  # duplicate_card: the deal is void
    assert table.state.engine_state.phase == "deal"
    assert table.snapshot().faulty_seats == set()
    assert "deals" in said_in(table.snapshot().expectation)


def test_a_void_deal_then_the_next_hand_card_starts_a_new_deal() -> None:
    table = table_at("deal")
    feed(table, [card_event(z, c) for z, c in DEAL])
    assert summary(table.handle(card_event("hand.B", "AS")).events)[0][1] == "misdeal"
    # the same cards again, from the start
    feed(table, [card_event(z, c) for z, c in DEAL])
    assert summary(table.handle(card_event("turnup", "7H")).events) == [("trump", "7H", "")]
    assert table.state.engine_state.dealer == "A"
