"""The hand log: a consumer of the engine's events that keeps the last trick and hand, the hand's
notes, and writes the record of each hand, which replays to the hand."""

from __future__ import annotations

import random

from referee_tables import DEAL, card_event, feed, summary

import engine
from drivers.device_events import Sighting
from engine.actions import Action, action_from_json
from firmware_host.referee.controller import Controller
from firmware_host.referee.corrections import refusal
from firmware_host.referee.hand_log import HandLog, new_deal
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.referee.table_events import HandRecord, NewGame
from firmware_host.referee.transcript import ButtonEvent, CardEvent, Setup


def _play_a_hand(log: HandLog, seed: int, state: engine.GameState | None = None,
                 ) -> tuple[HandLog, engine.GameState, list[engine.Event]]:
    """Random legal actions until the first hand ends; the log after it and everything the log gave."""
    rng = random.Random(seed)
    state = state or engine.new_game("classic", dealer="A")
    given: list[engine.Event] = []
    while state.hand_no == 1 and state.phase != "over":
        action: Action = rng.choice(list(engine.legal_actions(state)))
        after, events = engine.apply(state, action)
        log, records = log.consume(state, after, action, events, refused=refusal(events))
        given += records
        state = after
    return log, state, given


def _replays(record: engine.Event, state: engine.GameState) -> bool:
    assert isinstance(record, HandRecord)
    replayed = engine.new_game("classic", dealer=record.dealer)
    for data in record.actions:
        replayed, _ = engine.apply(replayed, action_from_json(data))
    return replayed.score == state.score and replayed.hand_no == state.hand_no


def test_the_record_of_a_hand_replays_to_the_hand() -> None:
    for seed in range(5):
        log, state, given = _play_a_hand(HandLog(game=3), seed)
        (record,) = given
        assert isinstance(record, HandRecord) and (record.game, record.hand, record.dealer) == (3, 1, "A")
        assert _replays(record, state)
        assert log.last_hand is not None and log.last_hand.score == state.score


def test_a_refused_action_is_not_recorded_and_a_void_deal_starts_the_record_again() -> None:
    log = HandLog()
    state = engine.new_game("classic", dealer="A")
    deal = engine.actions.DealCard("B", engine.Card.parse("KS"))
    after, events = engine.apply(state, deal)
    log, _ = log.consume(state, after, deal, events, refused=False)
    twice = engine.actions.DealCard("A", engine.Card.parse("KS"))
    again, events = engine.apply(after, twice)  # the same card in both hands: the deal is void
    assert refusal(events) and new_deal(after, again)
    log, _ = log.consume(after, again, twice, events, refused=True)
    _, state, (record,) = _play_a_hand(log, 1, again)
    assert _replays(record, state)  # nothing of the void deal in it


def test_a_new_game_numbers_itself_and_forgets_the_last_hand() -> None:
    log, _, _ = _play_a_hand(HandLog(), 0)
    log = log.new_game()
    assert (log.game, log.last_hand, log.last_trick) == (2, None, None)


# -- moved from test_controller: the same tests through the Controller --------------------------


def test_game_over_then_yes_starts_a_new_game_dealt_by_the_other_seat() -> None:
    table = Controller()
    table.handle(Setup(rules="classic", dealer="A", target=1))
    feed(table, [card_event(z, c) for z, c in DEAL])
    out = summary(table.handle(card_event("turnup", "KH")).events)
    assert out == [("trump", "KH", ""), ("king", "", "A"), ("game_end", "A", ""), ("hand_record", "", "")]
    assert table.handle(ButtonEvent("B", "no")).events == ()
    new = table.handle(ButtonEvent("B", "yes")).events
    assert isinstance(new[0], NewGame) and new[0].dealer == "B"
    engine = table.state.engine_state
    assert engine.phase == "deal" and engine.score == (0, 0) and table.snapshot().game == 2


def test_a_game_started_again_before_its_first_card_is_the_next_game() -> None:
    """A badge, a rule card or the menu starts the game again: the journal begins a new game with
    its setup, so the referee numbers it next itself (the service no longer renumbers it)."""
    table = Controller(TableDefaults(dealer="A", badges={"04B0": "player:Anne"}))
    assert table.snapshot().game == 1
    outcome = table.handle(CardEvent("hand.A", sighting=Sighting("04B0")))
    assert [e.event for e in outcome.events] == ["new_game"] and outcome.snapshot.game == 2
    table.handle(ButtonEvent("B", "king"))  # the menu ...
    outcome = table.handle(ButtonEvent("B", "king"))  # ... closed: the game it shows starts
    assert [e.event for e in outcome.events] == ["new_game"] and outcome.snapshot.game == 3
