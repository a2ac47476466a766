"""The pad ledger: a card newly laid or read again where it lies, one pad at a time."""

from __future__ import annotations

import pytest

import engine
from firmware_host.referee.pad_ledger import PadLedger


def test_a_card_read_again_where_it_lies_is_no_new_card() -> None:
    ledger = PadLedger()
    assert ledger.lay("hand.B", "9S")
    assert not ledger.lay("hand.B", "9S")


def test_a_card_lies_on_one_pad_at_a_time() -> None:
    ledger = PadLedger()
    ledger.lay("hand.B", "TC")
    assert ledger.lay("discard", "TC")  # moved: new where it lands
    assert ledger.lay("hand.B", "TC")  # and new again where it was (a discard drawn again)


def test_lifted_cards_are_new_when_laid_again_and_a_clear_gathers_all() -> None:
    ledger = PadLedger()
    ledger.lay("play.A", "7S")
    ledger.lift("play.A", "7S")
    assert ledger.empty
    assert ledger.lay("play.A", "7S")
    ledger.lay("hand.A", "KC")
    ledger.lift("turnup", "QS")  # never there: nothing
    assert not ledger.empty
    ledger.clear()
    assert ledger.empty and ledger.lay("hand.A", "KC")


@pytest.mark.parametrize(("pad", "phase", "zone"), [
    ("hand.A", "deal", "hand.A"),
    ("A", "deal", "hand.A"),
    ("A", "play", "play.A"),
    ("centre", "deal", "turnup"),
    ("centre", "exchange", "discard"),
])
def test_the_zone_a_pad_stands_for(pad: str, phase: str, zone: str) -> None:
    state = engine.new_game("classic", dealer="A").evolve(phase=phase)
    assert PadLedger.zone(pad, state, None) == zone
