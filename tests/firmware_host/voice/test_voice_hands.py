"""A seat's own cards as its hand pad read them: dealt and drawn cards in, discards and plays out,
the tricks' cards back in when the hand is played again, all gone at the hand's end; and what the
pads could not read counted, never guessed."""

from __future__ import annotations

from pathlib import Path

from engine import HandEnd, PlayBegins
from engine.events import HandReplayed
from firmware_host.referee.controller import Controller
from firmware_host.referee.transcript import CardEvent, read_transcript
from firmware_host.voice.hands import SeatHands
from firmware_host.voice.spoken import spoken

GAME = Path(__file__).resolve().parents[2] / "golden" / "voice" / "partial_game.jsonl"


def test_the_hands_follow_the_pads_through_a_partial_sight_game() -> None:
    hands, controller = SeatHands({}, "fr"), Controller()
    heard: list[tuple[str, str]] = []
    replayed = False
    for _, event in read_transcript(GAME.read_text(encoding="utf-8").splitlines()):
        hands.device_event(event)
        outcome = controller.handle(event)
        hands.publish(outcome)
        if any(isinstance(e, PlayBegins) for e in outcome.events):
            heard += [(seat, hands.text(seat)) for seat in "AB"]
        if any(isinstance(e, HandReplayed) for e in outcome.events):
            replayed = True
            assert spoken("fr").cards_in(hands.text("A")) | spoken("fr").cards_in(hands.text("B"))
        if any(isinstance(e, HandEnd) for e in outcome.events):
            assert hands.text("A") == hands.text("B") == "La table n'a vu aucune de vos cartes."
    assert replayed and len(heard) == 6
    assert all(text.startswith("Vos cartes : ") for _, text in heard)
    assert any("que la table n'a pas vues" in text for _, text in heard), "a card the pads could not read is counted"


def test_a_discard_leaves_the_hand_and_a_draw_joins_it() -> None:
    hands = SeatHands({})
    for card in ("KS", "9H", "7C"):
        hands.seen("hand.A", card)
    hands.seen("discard", "7C")
    hands.seen("hand.A", "AS")
    hands.seen("hand.A", "9H", gone=True)  # picked up: still in the seat's hand
    assert spoken("en").cards_in(hands.text("A")) == {"KS", "9H", "AS"}
    assert hands.text("B") == "The table has seen none of your cards."
    event = CardEvent("play.A", "KS")
    hands.device_event(event)
    assert spoken("en").cards_in(hands.text("A")) == {"9H", "AS"}


def test_a_compact_tables_seat_pad_is_the_hand_until_the_tricks() -> None:
    """Compact layout: one pad a seat, hand then play; the referee's ``play`` events say what left."""
    from engine import Card, Played
    from firmware_host.referee.snapshot import Outcome

    hands, controller = SeatHands({}), Controller()
    snapshot = controller.snapshot()
    for card in ("KS", "9H"):
        hands.seen("A", card)
    assert spoken("en").cards_in(hands.text("A")) == {"KS", "9H"}
    hands.publish(Outcome((Played("A", Card.parse("KS")),), snapshot))
    assert spoken("en").cards_in(hands.text("A")) == {"9H"}
