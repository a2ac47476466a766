"""A whole hand through the engine's face (``engine/game.py``), pad by pad: deal, exchange, king, tricks, score.

The deals played below have a known outcome when played as scripted (``engine_scripts``: trump
diamonds, the 7D turned up, B deals and A is the elder unless said otherwise).
"""

from __future__ import annotations

from engine_scripts import A32, C, hand_end, kinds, run

from engine import (
    DealCard,
    King,
    TurnUp,
    apply,
    expectation,
    new_game,
    parse_cards,
)
from firmware_host.referee.event_words import said_in

# -- a whole classic hand, pad by pad ------------------------------------------------------------

def test_classic_hand_dealt_card_by_card_with_exchange_king_and_tricks():
    state = new_game("classic", dealer="B")
    for card in parse_cards("KD QD 7C 8C 9H"):
        state, ev = apply(state, DealCard("A", card))
        assert ev == ()
    for card in parse_cards("KS QS KH QH 9C"):
        state, ev = apply(state, DealCard("B", card))
    assert said_in(expectation(state)) == "B deals five cards each and turns up the eleventh"
    state, events = apply(state, TurnUp(C("7D")))
    assert [e.to_json() for e in events] == [{"event": "trump", "card": "7D"}]
    assert (state.phase, state.turn, state.stock_size) == ("propose", "A", 21)
    state, events = run(
        state,
        "A proposes", "B accepts",
        "A discards 7C", "A discards 8C 9H", "A draws JD", "A draws 7S 8S",
        "B discards 9C", "B draws JH",
        "A proposes", "B refuses",  # not the first proposal: nobody is vulnerable
        "A announces the king",
        *A32[2],
    )
    assert kinds(events)[:7] == ["bid", "bid", "exchange", "exchange", "bid", "bid", "play_begins"]
    assert [(e.seat, e.count, e.stock) for e in events if e.event == "exchange"] == [("A", 3, 18), ("B", 1, 17)]
    assert [(e.seat, e.bid, e.vulnerable) for e in events if e.event == "bid"] == [
        ("A", "propose", False), ("B", "accept", False), ("A", "propose", False), ("B", "refuse", False)]
    assert [e for e in events if isinstance(e, King)] == [King("A", (1, 0))]
    tricks = [e for e in events if e.event == "trick"]
    assert [t.winner for t in tricks] == ["A", "A", "A", "B", "B"]
    assert tricks[0].to_json() == {"event": "trick", "winner": "A", "cards": {"A": "KD", "B": "JH"}, "leader": "A"}
    end = hand_end(events)
    assert end.to_json() == {"event": "hand_end", "tricks": {"A": 3, "B": 2},
                             "points": {"A": 2, "B": 0}, "score": {"A": 2, "B": 0}}
    # the dealer alternates; a new hand begins
    assert (state.phase, state.dealer, state.hand_no, state.score) == ("deal", "A", 2, (2, 0))
    assert state.hands == (0, 0) and state.turn_up == -1
