"""A seat's own cards as the referee judged them, from its private view only: dealt and drawn cards in,
discards and plays out, the tricks' cards back in when the hand is played again, all gone at the hand's
end; and what the pads could not read counted, never guessed."""

from __future__ import annotations

from pathlib import Path

from engine import HandEnd, PlayBegins
from engine.events import HandReplayed
from firmware_host.outputs import deliver
from firmware_host.referee.controller import Controller
from firmware_host.referee.snapshot import Outcome
from firmware_host.referee.transcript import ButtonEvent, CardEvent, PhysicalEvent, Setup, read_transcript
from firmware_host.voice.hands import Earpiece
from firmware_host.voice.spoken import spoken

GAME = Path(__file__).resolve().parents[2] / "golden" / "voice" / "partial_game.jsonl"


def test_the_hands_follow_the_pads_through_a_partial_sight_game() -> None:
    ears, controller = {seat: Earpiece(seat, None, "fr") for seat in "AB"}, Controller()
    heard: list[tuple[str, str]] = []
    replayed = False
    for _, event in read_transcript(GAME.read_text(encoding="utf-8").splitlines()):
        outcome = controller.handle(event)
        deliver(ears.values(), outcome)
        if any(isinstance(e, PlayBegins) for e in outcome.events):
            heard += [(seat, ears[seat].text()) for seat in "AB"]
        if any(isinstance(e, HandReplayed) for e in outcome.events):
            replayed = True
            assert spoken("fr").cards_in(ears["A"].text()) | spoken("fr").cards_in(ears["B"].text())
        if any(isinstance(e, HandEnd) for e in outcome.events):
            assert ears["A"].text() == ears["B"].text() == "La table n'a vu aucune de vos cartes."
    assert replayed and len(heard) == 6
    assert all(text.startswith("Vos cartes : ") for _, text in heard)
    assert any("que la table n'a pas vues" in text for _, text in heard), "a card the pads could not read is counted"


def dealt(controller: Controller, a: list[str], b: list[str], turn_up: str, pad: str = "hand.") -> list[Outcome]:
    """B deals ``a`` to A and ``b`` to B (on ``pad``: ``hand.`` or, on a compact table, the seat's own pad)."""
    events: list[PhysicalEvent] = [Setup(rules="classic", dealer="B")]
    events += [CardEvent(f"{pad}A" if pad == "hand." else "A", c) for c in a]
    events += [CardEvent(f"{pad}B" if pad == "hand." else "B", c) for c in b]
    events.append(CardEvent("turnup" if pad == "hand." else "centre", turn_up))
    return [controller.handle(event) for event in events]


def test_a_discard_leaves_the_hand_and_a_draw_joins_it() -> None:
    controller, ear = Controller(), Earpiece("A", None)
    for outcome in dealt(controller, ["KS", "9H", "7C", "8C", "9C"], ["7S", "8S", "9S", "TS", "AS"], "7D"):
        deliver([ear], outcome)
    assert spoken("en").cards_in(ear.text()) == {"KS", "9H", "7C", "8C", "9C"}
    for event in (ButtonEvent("A", "yes"), ButtonEvent("B", "yes"), CardEvent("discard", "7C"),
                  CardEvent("hand.A", "AH"), CardEvent("hand.A", "9H", gone=True)):  # picked up: still A's
        deliver([ear], controller.handle(event))
    assert spoken("en").cards_in(ear.text()) == {"KS", "9H", "8C", "9C", "AH"}
    assert Earpiece("B", None).text() == "The table has seen none of your cards."


def test_a_compact_tables_seat_pad_is_the_hand_until_the_tricks() -> None:
    """Compact layout: one pad a seat, hand then play; the referee says which the pad stands for."""
    controller, ear = Controller(), Earpiece("A", None)
    for outcome in dealt(controller, ["KS", "9H", "7C", "8C", "9C"], ["7S", "8S", "9S", "TS", "AS"], "7D", pad=""):
        deliver([ear], outcome)
    assert spoken("en").cards_in(ear.text()) == {"KS", "9H", "7C", "8C", "9C"}
    for event in (ButtonEvent("A", "no"), CardEvent("A", "KS")):  # A plays: its pad is its play pad now
        outcome = controller.handle(event)
        deliver([ear], outcome)
    assert [e.event for e in outcome.events][:1] == ["play"]
    assert spoken("en").cards_in(ear.text()) == {"9H", "7C", "8C", "9C"}


def test_an_earpiece_hears_its_own_seat_only() -> None:
    """Given an outcome with both seats' views (never through the service's door), it still keeps its own."""
    controller, ear = Controller(), Earpiece("B", None)
    for outcome in dealt(controller, ["KS", "9H", "7C", "8C", "9C"], ["7S", "8S", "9S", "TS", "AS"], "7D"):
        ear.publish(outcome)
    assert spoken("en").cards_in(ear.text()) == {"7S", "8S", "9S", "TS", "AS"}



def test_a_card_that_means_nothing_on_the_hand_pad_is_not_said_as_the_seats() -> None:
    """During the tricks a card laid on A's hand pad means nothing (the referee ignores it): A's
    earpiece says the four cards A holds, not that one too, as a ledger fed by the pads did."""
    controller, ear = Controller(), Earpiece("A", None)
    for outcome in dealt(controller, ["KH", "QH", "JH", "AH", "TH"], ["7S", "8S", "9S", "TS", "AS"], "7D"):
        deliver([ear], outcome)
    for event in (ButtonEvent("A", "no"), CardEvent("play.A", "KH"), CardEvent("hand.A", "9C")):
        outcome = controller.handle(event)
        deliver([ear], outcome)
    assert outcome.events == ()
    assert ear.text() == "Your cards: the ace of hearts, the queen of hearts, the jack of hearts and the ten of hearts."
