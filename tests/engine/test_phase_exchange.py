"""Proposals, discards and draws (``engine/phases/exchange.py``): rule 38, the dealer's minimum, the
italian dealer taking none, german rounds and the prompt while the stock runs out.

The deals played below have a known outcome when played as scripted (``engine_scripts``: trump
diamonds, the 7D turned up, B deals and A is the elder unless said otherwise).
"""

from __future__ import annotations

import pytest
from engine_scripts import A32, kinds, run, start

from engine import (
    apply,
    expectation,
    legal_actions,
    new_game,
    parse_action,
)
from engine.game import GameState
from firmware_host.referee.event_words import message, prompt_words, said_in

# -- exchanges: rule 38, dealer's minimum, italian/german dealer taking none ------------------------

def drain(state: GameState, elder: str = "A", dealer: str = "B", declarer: bool = False) -> GameState:
    """Four full rounds of five: 21 -> 1 card left in the stock."""
    for _ in range(2):
        for seat in (elder, dealer):
            if seat == elder:
                state, _ = run(state, *(("A passes", "B passes") if declarer else ("A proposes", "B accepts")))
            hand = " ".join(str(c) for c in state.hand(seat))
            state, _ = run(state, f"{seat} discards {hand}")
            draw = " ".join(str(c) for c in list(_stock(state))[:5])
            state, _ = run(state, f"{seat} draws {draw}")
    return state


def _stock(state: GameState):
    from engine import cards_of

    return cards_of(state.stock_mask)


@pytest.mark.parametrize("rules", ["classic", "french", "italian"])
def test_rule_38_discards_limited_by_the_stock_and_play_begins_when_it_is_gone(rules):
    state, _ = start(rules, A32, ())
    state = drain(state)
    assert state.stock_size == 1 and state.phase == "propose"
    state, _ = run(state, "A proposes", "B accepts")
    hand = state.hand("A")
    state2, events = apply(state, parse_action(f"A discards {hand[0]} {hand[1]}"))
    assert events[0].code == "exchange_count" and "rule 38" in message(events[0]) and events[0].seat == "B"
    assert state2 == state
    last = _stock(state)[0]
    state, events = run(state, f"A discards {hand[0]}", f"A draws {last}")
    assert kinds(events) == ["exchange", "play_begins"]  # the dealer must play
    assert state.phase == "play" and state.stock_size == 0 and state.turn == "A"
    assert sum(len(state.hand(s)) for s in "AB") == 10


def test_rule_38_the_dealer_is_limited_too():
    state, _ = start("classic", A32, ())
    for seat, n in (("A", 5), ("B", 5), ("A", 5), ("B", 4)):
        if seat == "A":
            state, _ = run(state, "A proposes", "B accepts")
        cards = " ".join(str(c) for c in state.hand(seat)[:n])
        state, _ = run(state, f"{seat} discards {cards}",
                       f"{seat} draws {' '.join(str(c) for c in _stock(state)[:n])}")
    assert state.stock_size == 2
    state, _ = run(state, "A proposes", "B accepts", f"A discards {state.hand('A')[0]}",
                   f"A draws {_stock(state)[0]}")
    assert state.exchanger == "B" and state.stock_size == 1
    _, events = apply(state, parse_action(f"B discards {state.hand('B')[0]} {state.hand('B')[1]}"))
    assert events[0].code == "exchange_count" and "rule 38" in message(events[0])
    state, events = run(state, f"B discards {state.hand('B')[0]}", f"B draws {_stock(state)[0]}")
    assert kinds(events) == ["exchange", "play_begins"] and state.phase == "play"


def test_italian_dealer_may_take_no_card():
    """000: 'scartano quante carte desiderano': the elder's next decision ends the dealer's part."""
    state, _ = start("italian", A32, ("A proposes", "B accepts", "A discards 8S", "A draws 9S"))
    assert state.exchanger == "B"
    state, events = run(state, "A stands")
    assert [(e.event, getattr(e, "seat", None), getattr(e, "count", None)) for e in events][:2] == [
        ("exchange", "B", 0), ("bid", "A", None)]
    assert state.phase == "play" and state.vulnerable is None


def test_classic_dealer_cannot_skip_his_exchange():
    state, _ = start("classic", A32, ("A proposes", "B accepts", "A discards 8S", "A draws 9S"))
    _, events = apply(state, parse_action("A stands"))
    assert (events[0].code, events[0].seat) == ("exchange_count", "B")


def test_german_exchange_rounds_elder_decides_first_each_time():
    state, events = start("german", A32, ("A passes", "B passes"))
    assert state.phase == "exchange" and state.exchanger == "A"
    state, events = run(state, "A discards 8S", "A draws 9S", "A passes")  # dealer takes none
    assert [(e.event, e.seat) for e in events] == [("exchange", "A"), ("exchange", "B"), ("bid", "A")]
    assert state.phase == "respond" and state.turn == "B"
    state, events = run(state, "B passes", "A discards 7S", "A draws TS", "B discards JH", "B draws JS")
    assert state.phase == "propose" and state.turn == "A"
    state, events = run(state, "A declares")
    assert state.declarer == "A" and state.phase == "play"


@pytest.mark.parametrize(("decision", "declarer"), [("A declares", "A"), ("A passes", "B")])
def test_german_stock_gone_someone_must_take_the_game(decision, declarer):
    """002: 'Dann muß jedoch einer der beiden Teilnehmer das Spiel übernehmen': the elder
    chooses first; if he passes the dealer is forced to take it."""
    state, _ = start("german", A32, ())
    state = drain(state, declarer=True)
    state, _ = run(state, "A passes", "B passes", f"A discards {state.hand('A')[0]}", f"A draws {_stock(state)[0]}")
    assert state.phase == "force" and state.turn == "A" and state.stock_size == 0
    assert said_in(expectation(state)) == "A: declare or pass?"
    assert {str(a) for a in legal_actions(state)} == {"A declares", "A passes"}
    state, events = run(state, decision)
    assert state.phase == "play" and state.declarer == declarer
    assert [e.seat for e in events if e.event == "bid"][-1] == declarer


def test_the_prompt_offers_more_discards_only_while_the_stock_can_replace_them() -> None:
    """With 3 cards left in the stock and 3 discards laid, the seat can only draw (rule 38): the
    prompt says 'draw 3', not 'discard or draw 3' (a fourth discard would be refused)."""
    import random

    from engine.actions import Accept, Discard, Draw, Propose
    from engine.prompts import prompt
    from engine.random_play import random_deal

    state = new_game("classic", dealer="B")
    state, _ = apply(state, random_deal(state, random.Random(3)))

    def step(kind: type, single: bool = False) -> None:
        nonlocal state
        action = next(a for a in legal_actions(state) if isinstance(a, kind) and (not single or len(a.cards) == 1))
        state, _ = apply(state, action)

    for discards in (5, 5, 4, 4):  # two whole rounds: the stock goes 21 -> 11 -> 3
        if state.exchanger in (None, state.elder) and state.ex_discarded == 0 and state.phase == "propose":
            step(Propose)
            step(Accept)
        for _ in range(discards):
            step(Discard, single=True)
        while state.ex_drawn < state.ex_discarded:
            step(Draw)
    assert state.stock_size == 3
    step(Propose)
    step(Accept)
    for _ in range(2):
        step(Discard, single=True)
    assert prompt_words(prompt(state))["short"] == "discard or draw 2"
    step(Discard, single=True)
    assert not any(isinstance(a, Discard) for a in legal_actions(state))
    assert prompt_words(prompt(state))["short"] == "draw 3"
