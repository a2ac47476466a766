"""Whole hands, scripted: one test per rule of the flow, for every rule set.

The deals below have a known outcome when played as scripted (trump diamonds,
the 7D turned up, B deals and A is the elder unless said otherwise).

One file though over 600 lines: it is a catalogue, one short test per rule of the flow in the
order a hand runs (deal, proposal, exchange, king, tricks, score), each independent of the
others; read it by its section headers rather than whole.
"""

from __future__ import annotations

import pytest

from engine import (
    Card,
    Deal,
    DealCard,
    Fault,
    GameEnd,
    HandEnd,
    King,
    MatchEnd,
    Seating,
    TurnTarget,
    TurnUp,
    apply,
    expectation,
    legal_actions,
    new_game,
    parse_action,
    parse_cards,
)
from engine.game import GameState

C = Card.parse

# A 3 tricks, B 2
A32 = ("KD QD JD 7S 8S", "KS QS KH QH JH",
       ["A plays KD", "B plays JH", "A plays QD", "B plays QH", "A plays JD", "B plays KH",
        "A plays 7S", "B plays QS", "B plays KS", "A plays 8S"])
# A 2 tricks, B 3
B32 = ("KD QD 7C 8C 9C", "JD AD KC QC JC",
       ["A plays KD", "B plays AD", "A plays QD", "B plays JD", "A plays 7C", "B plays JC",
        "B plays QC", "A plays 8C", "B plays KC", "A plays 9C"])
# A all five
AVOLE = ("QD JD AD TD 9D", "7S 8S 9S TS AS",
         ["A plays QD", "B plays 7S", "A plays JD", "B plays 8S", "A plays AD", "B plays 9S",
          "A plays TD", "B plays TS", "A plays 9D", "B plays AS"])
# B all five
BVOLE = ("7S 8S 9S TS AS", "QD JD AD TD 9D",
         ["A plays 7S", "B plays 9D", "B plays AD", "A plays 8S", "B plays JD", "A plays 9S",
          "B plays QD", "A plays TS", "B plays TD", "A plays AS"])


def run(state: GameState, *lines: str) -> tuple[GameState, list]:
    """Apply actions written like ``A plays KD``; every one must be legal."""
    events: list = []
    for line in lines:
        action = parse_action(line)
        assert action in legal_actions(state), (line, list(legal_actions(state)))
        state, caused = apply(state, action)
        faults = [e for e in caused if isinstance(e, Fault)]
        assert not faults, (line, faults)
        events.extend(caused)
    return state, events


def deal(state: GameState, a: str, b: str, turn: str = "7D") -> tuple[GameState, list]:
    state, events = apply(state, Deal(parse_cards(a), parse_cards(b), C(turn)))
    return state, list(events)


def kinds(events) -> list[str]:
    return [e.event for e in events]


def hand_end(events) -> HandEnd:
    ends = [e for e in events if isinstance(e, HandEnd)]
    assert len(ends) == 1, events
    return ends[0]


def start(rules: str = "classic", hand=A32, opening: tuple[str, ...] = ("A stands",), dealer: str = "B",
          **options) -> tuple[GameState, list]:
    state = new_game(rules, dealer=dealer, **options)
    state, events = deal(state, hand[0], hand[1])
    state, more = run(state, *opening)
    return state, events + more


# -- a whole classic hand, pad by pad ------------------------------------------------------------

def test_classic_hand_dealt_card_by_card_with_exchange_king_and_tricks():
    state = new_game("classic", dealer="B")
    for card in parse_cards("KD QD 7C 8C 9H"):
        state, ev = apply(state, DealCard("A", card))
        assert ev == ()
    for card in parse_cards("KS QS KH QH 9C"):
        state, ev = apply(state, DealCard("B", card))
    assert expectation(state) == "B deals five cards each and turns up the eleventh"
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


# -- vulnerability (rule 49; 001 point de refus) --------------------------------------------------

@pytest.mark.parametrize("rules", ["classic", "french"])
@pytest.mark.parametrize(("hand", "opening", "points"), [
    (A32, ("A stands",), (1, 0)),  # the vulnerable elder wins: 1
    (B32, ("A stands",), (0, 2)),  # the elder played d'autorité and lost: 2 to the dealer
    (BVOLE, ("A stands",), (0, 2)),  # never more than 2 for tricks (no vole then)
    (AVOLE, ("A stands",), (2, 0)),
    (A32, ("A proposes", "B refuses"), (2, 0)),  # the dealer refused the first proposal and lost
    (AVOLE, ("A proposes", "B refuses"), (2, 0)),
    (B32, ("A proposes", "B refuses"), (0, 1)),
    (BVOLE, ("A proposes", "B refuses"), (0, 2)),
])
def test_vulnerability_scoring(rules, hand, opening, points):
    state, events = start(rules, hand, opening)
    bids = [e for e in events if e.event == "bid"]
    assert bids[-1].vulnerable is True
    state, events = run(state, *hand[2])
    assert hand_end(events).points == points
    assert state.score == points


def test_refusing_a_later_proposal_is_not_vulnerable():
    state, events = start("classic", B32, ("A proposes", "B accepts", "A discards 9C", "A draws 9H",
                                           "B discards JC", "B draws 9S", "A proposes", "B refuses"))
    assert state.vulnerable is None
    assert not any(getattr(e, "vulnerable", False) for e in events)


def test_standing_after_a_round_is_not_vulnerable():
    state, _ = start("classic", A32, ("A proposes", "B accepts", "A discards 8S", "A draws 9S",
                                      "B discards JH", "B draws JS", "A stands"))
    assert state.vulnerable is None


def test_french_hand_worth_at_most_three():
    """001: 'le maximum ... 3 points seulement -- point de Levée, de Refus et de Roi'."""
    state, _ = start("french", ("KD QD JD AD TD", "7S 8S 9S TS AS"), ("A proposes", "B refuses"))
    state, events = run(state, "A announces", "A plays KD", "B plays 7S", "A plays QD", "B plays 8S",
                        "A plays JD", "B plays 9S", "A plays AD", "B plays TS", "A plays TD", "B plays AS")
    assert hand_end(events).points == (3, 0)


# -- the king of trumps ------------------------------------------------------------------------

@pytest.mark.parametrize("rules", ["classic", "french", "italian", "german"])
def test_turned_up_king_scores_for_the_dealer_at_once(rules):
    """Rules 22 and 47; 000 'se il Ré era la carta scoperta ... il punto va a chi ha fatto le carte'."""
    state = new_game(rules, dealer="B")
    state, events = deal(state, "7D QD 7C 8C 9C", "JD AD KC QC JC", turn="KD")
    assert kinds(events) == ["trump", "king"]
    assert events[1].seat == "B" and state.score == (0, 1) and state.king == "B"


@pytest.mark.parametrize("rules", ["classic", "french", "italian", "german"])
@pytest.mark.parametrize("how", ["turn-up", "announce"])
def test_game_ends_by_a_king_point_before_any_card(rules, how):
    state = new_game(rules, dealer="B")
    if how == "turn-up":
        state = state.evolve(score=(0, 4))
        state, events = deal(state, "7D QD 7C 8C 9C", "JD AD KC QC JC", turn="KD")
        winner = "B"
    else:
        state = state.evolve(score=(4, 0))
        state, events = deal(state, *A32[:2])
        state, more = run(state, "A declares" if rules == "german" else "A stands", "A announces")
        events += more
        winner = "A"
    assert kinds(events)[-2:] == ["king", "game_end"]
    assert isinstance(events[-1], GameEnd) and events[-1].winner == winner
    assert state.phase == "over" and state.is_over and state.winner == winner
    assert not any(e.event == "hand_end" for e in events)
    assert list(legal_actions(state)) == []


def test_king_may_be_announced_until_the_holder_plays_his_first_card():
    state, _ = start("classic", A32)
    assert parse_action("A announces") in legal_actions(state)
    state, _ = run(state, "A plays QD")  # a first card that is not the king
    state2, events = apply(state, parse_action("A announces"))
    assert events[0].code == "wrong_time" and "rule 23" in events[0].message
    assert state2 == state


def test_rule_24_a_king_led_first_may_still_be_announced_until_it_is_played_to():
    """Rule 24: 'Si el rey es la primera carta que sale, se puede anunciar en cualquier momento
    antes de que se juegue' (if the king is the first card led, it may be announced at any time
    before it is played to)."""
    state, _ = start("classic", A32)
    state, _ = run(state, "A plays KD")
    assert parse_action("A announces") in legal_actions(state)
    state, events = run(state, "A announces")
    assert kinds(events) == ["king"] and state.score == (1, 0)


def test_rule_24_the_elder_s_led_king_is_too_late_once_played_to():
    """The elder does not get the dealer's longer window: once B has played to the led king,
    the announcement is refused, though A has not played again."""
    state, _ = start("classic", A32)
    state, _ = run(state, "A plays KD", "B plays JH")
    assert state.counts == (1, 1) and state.turn == "A"
    after, events = apply(state, parse_action("A announces"))
    assert events[0].code == "wrong_time" and "played to (rule 24)" in events[0].message
    assert after == state and parse_action("A announces") not in legal_actions(state)


def test_rule_24_the_dealer_s_first_card_king_until_he_plays_again():
    """Rule 24: 'Si el rey es la primera carta que juega el crupier, puede anunciarla en cualquier
    momento antes de volver a jugar' (if the king is the dealer's first card, he may announce it
    at any time before he plays again)."""
    hand = ("7S 8S 9S TS AS", "KD QD JD AD TD")
    state, _ = start("classic", hand)
    state, _ = run(state, "A plays 7S", "B plays KD")  # B trumps with the king and leads next
    state, events = run(state, "B announces")
    assert kinds(events) == ["king"] and state.score == (0, 1)
    state2, _ = start("classic", hand)
    state2, _ = run(state2, "A plays 7S", "B plays KD", "B plays QD")
    _, events = apply(state2, parse_action("B announces"))
    assert events[0].code == "wrong_time" and "playing again (rule 24)" in events[0].message


def test_rule_24_expires_when_the_holder_plays_again():
    state, _ = start("classic", A32)
    state, _ = run(state, "A plays KD", "B plays JH", "A plays QD")
    _, events = apply(state, parse_action("A announces"))
    assert events[0].code == "wrong_time"


@pytest.mark.parametrize("rules", ["french", "italian"])
@pytest.mark.parametrize(("hand", "script", "seat"), [
    (A32, ("A plays KD",), "A"),  # the elder's king led, not yet played to
    (("7S 8S 9S TS AS", "KD QD JD AD TD"), ("A plays 7S", "B plays KD"), "B"),  # the dealer's first card
])
def test_no_rule_24_in_french_and_italian(rules, hand, script, seat):
    """001: 'il marque 1 point (point du Roi) s'il l'annonce avant de jouer sa première carte';
    000: the holder 'è obbligato a dichiararlo' as play begins. Neither has rule 24's exception."""
    state, _ = start(rules, hand)
    state, _ = run(state, *script)
    after, events = apply(state, parse_action(f"{seat} announces"))
    assert [e.event for e in events] == ["fault"] and events[0].code == "wrong_time"
    assert ("001" if rules == "french" else "000") in events[0].message
    assert after == state and parse_action(f"{seat} announces") not in legal_actions(state)


def test_a_king_never_held_is_false_at_any_moment():
    """Rule 25: the non-holder's announcement is false before and after his first card."""
    state, _ = start("classic", A32)
    _, events = apply(state, parse_action("B announces"))
    assert events[0].code == "false_king"
    state, _ = run(state, "A plays QD", "B plays JH")
    after, events = apply(state, parse_action("B announces"))
    assert (events[0].code, events[0].seat) == ("false_king", "B")
    assert after == state


def test_the_dealer_may_announce_before_his_first_card_only():
    hand = ("7S 8S 9S TS AS", "KD QD JD AD TD")
    state, _ = start("classic", hand)
    state, _ = run(state, "A plays 7S", "B announces", "B plays TD")
    assert state.score == (0, 1)
    state2, _ = start("classic", hand)
    state2, _ = run(state2, "A plays 7S", "B plays TD")
    _, events = apply(state2, parse_action("B announces"))
    assert events[0].code == "wrong_time"


def test_announcing_twice_scores_once():
    state, _ = start("classic", A32)
    state, _ = run(state, "A announces")
    _, events = apply(state, parse_action("A announces"))
    assert events[0].code == "wrong_time" and state.score == (1, 0)


def test_italian_king_must_be_declared():
    """000: '-1 punto a chi aveva il Ré di briscola e NON lo ha dichiarato'."""
    state, _ = start("italian", A32)
    state, events = run(state, "A plays QD")
    assert [(e.event, e.seat, e.points, e.reason) for e in events if e.event == "penalty"] == [
        ("penalty", "A", -1, "king_not_declared")]
    assert state.score == (-1, 0)
    state, events = run(state, *A32[2][1:2], "A plays KD", *A32[2][3:])
    end = hand_end(events)
    assert end.points == (0, 0) and end.score == (0, 0)  # -1 for the king, +1 for the point


@pytest.mark.parametrize("first", ["A plays KD", "A plays QD"])
def test_italian_late_declaration_does_not_cancel_the_penalty(first):
    """000: '-1 punto a chi aveva il Ré di briscola e NON lo ha dichiarato'. The -1 falls with the
    holder's first card; a declaration after it is refused (no +1), also when that first card was
    the king itself (rule 24 does not apply to 000), so the -1 stands."""
    state, _ = start("italian", A32)
    state, events = run(state, first)
    assert [e.event for e in events] == ["penalty", "play"] and state.score == (-1, 0)
    after, events = apply(state, parse_action("A announces"))
    assert events[0].code == "wrong_time" and "the -1 stands" in events[0].message
    assert after == state and after.score == (-1, 0) and after.king is None


def test_italian_declared_king_and_no_penalty_for_the_other_seat():
    state, _ = start("italian", A32)
    state, events = run(state, "A announces", *A32[2])
    assert hand_end(events).points == (2, 0)
    assert not any(e.event == "penalty" for e in events)


def test_german_king_declared_before_the_first_lead_must_be_led():
    state, _ = start("german", A32, ("A declares",))
    state, events = run(state, "A announces", *A32[2])
    assert hand_end(events).points == (2, 0)  # king 1 + declarer 1


def test_german_king_declarable_once_a_trick_is_won_even_by_the_king():
    """002: 'sobald er einen Stich erhalten hat bzw. dies vor dem ersten Aufspielen meldet'."""
    hand = ("QD JD 7C 8C 9C", "KD AD KC QC JC")
    state, _ = start("german", hand, ("A declares",))
    state, _ = run(state, "A plays QD")
    _, events = apply(state, parse_action("B announces"))
    assert events[0].code == "wrong_time" and events[0].seat == "B"
    state, _ = run(state, "B plays KD")  # must overtake
    assert state.tricks == (0, 1)
    # 002 "sobald er einen Stich erhalten hat": the king itself won the trick, so it counts now
    after, events = apply(state, parse_action("B announces"))
    assert [e.event for e in events] == ["king"] and after.score == (0, 1)
    # A never held it: false at any moment
    _, events = apply(state, parse_action("A announces"))
    assert events[0].code == "false_king"


def test_german_dealer_declares_the_king_before_the_first_lead():
    hand = ("QD JD 7C 8C 9C", "KD AD KC QC JC")
    state, _ = start("german", hand, ("A declares",))
    state, events = run(state, "B announces", "A plays 7C", "B plays JC")
    assert state.score == (0, 1) and state.king_to_lead == "B"
    _, events = apply(state, parse_action("B plays QC"))
    assert events[0].code == "king_not_led"


def test_german_king_announced_after_a_won_trick():
    hand = ("QD 7S 7C 8C 9C", "KD AD KC QC JC")
    state, _ = start("german", hand, ("A declares",))
    state, _ = run(state, "A plays 7C", "B plays JC")  # B wins a trick, still holds the king
    state, events = run(state, "B announces")
    assert kinds(events) == ["king"] and state.king_to_lead == "B"
    assert [str(a) for a in legal_actions(state) if a.kind == "play"] == ["B plays KD"]


def test_german_king_played_later_counts_once_its_holder_has_won_a_trick():
    """002: 'Wer den König der Trumpfkarte in Händen hat, darf 1 Punkt für sich buchen, sobald er
    einen Stich erhalten hat' (whoever has the king of trumps may score 1 as soon as he has won a
    trick). B held the king in this hand and won trick 2 with it (his second card): it counts,
    and there is no king left to lead. A never held it: false at any moment."""
    hand = ("KC QH JH 8H 9S", "KD AD QC JC 7C")
    state, _ = start("german", hand, ("A declares",))
    state, _ = run(state, "A plays KC", "B plays 7C")  # A wins trick 1
    _, events = apply(state, parse_action("B announces"))
    assert events[0].code == "wrong_time"  # after the first lead and no trick won yet
    state, _ = run(state, "A plays QH", "B plays KD")  # B must trump: the king wins trick 2
    assert state.king_played_by == "B" and state.tricks == (1, 1)
    for seat in "AB":
        assert state.hand(seat).count(C("KD")) == 0
    _, events = apply(state, parse_action("A announces"))
    assert (events[0].code, events[0].seat) == ("false_king", "A")
    state, events = run(state, "B announces")
    assert kinds(events) == ["king"] and state.score == (0, 1) and state.king == "B"
    assert state.king_to_lead is None  # the king is gone: nothing to lead
    assert {str(a) for a in legal_actions(state) if a.kind == "play"} == {"B plays AD", "B plays QC", "B plays JC"}


def test_a_king_discarded_in_the_exchange_is_not_held():
    """Rule 25: after discarding the king its former holder does not hold it: a false king."""
    state, _ = start("classic", A32, ("A proposes", "B accepts", "A discards KD", "A draws 9D",
                                       "B discards KS", "B draws 9H", "A stands"))
    _, events = apply(state, parse_action("A announces"))
    assert (events[0].code, events[0].seat) == ("false_king", "A")


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
    assert events[0].code == "exchange_count" and "rule 38" in events[0].message and events[0].seat == "B"
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
    assert events[0].code == "exchange_count" and "rule 38" in events[0].message
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


# -- italian ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("hand", "opening", "points"), [
    (B32, ("A stands",), (-1 + 1, 1)),  # prepotenza and under three: -1 (and +1 for the declared king)
    (BVOLE, ("A stands",), (-1, 2)),
    (A32, ("A proposes", "B refuses"), (2, -1)),  # king 1 + point 1; the refusing dealer -1
    (AVOLE, ("A proposes", "B refuses"), (2, -1)),
])
def test_italian_prepotenza(hand, opening, points):
    state, _ = start("italian", hand, opening)
    script = list(hand[2])
    if "KD" in hand[0]:
        script.insert(0, "A announces")
    state, events = run(state, *script)
    assert hand_end(events).points == points


def test_italian_scores_go_below_zero():
    state, _ = start("italian", BVOLE)
    state, events = run(state, *BVOLE[2])
    assert state.score == (-1, 2)
    assert hand_end(events).score == (-1, 2)


# -- german --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("hand", "opening", "declarer", "points"), [
    (A32, ("A declares",), "A", (1, 0)),
    (B32, ("A declares",), "A", (-2, 0)),
    (BVOLE, ("A declares",), "A", (-2, 0)),
    (AVOLE, ("A declares",), "A", (2, 0)),
    (B32, ("A passes", "B declares"), "B", (0, 1)),
    (A32, ("A passes", "B declares"), "B", (0, -2)),
    (BVOLE, ("A passes", "B declares"), "B", (0, 2)),
])
def test_german_declarer_scoring(hand, opening, declarer, points):
    state, events = start("german", hand, opening)
    begins = [e for e in events if e.event == "play_begins"]
    assert begins[0].declarer == declarer and begins[0].leader == "A"
    state, events = run(state, *hand[2])
    assert hand_end(events).points == points


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
    assert expectation(state) == "A: declare or pass?"
    assert {str(a) for a in legal_actions(state)} == {"A declares", "A passes"}
    state, events = run(state, decision)
    assert state.phase == "play" and state.declarer == declarer
    assert [e.seat for e in events if e.event == "bid"][-1] == declarer


# -- misdeal and duplicate: the deal is void, the same dealer deals again (rules 9, 45) -----------

@pytest.mark.parametrize(("first", "offending"), [
    ("A 7S 8S 9S TS AS", DealCard("A", C("JS"))),  # a sixth card: misdeal
    ("A 7S 8S 9S TS AS", DealCard("B", C("9S"))),  # already in A's hand: duplicate
    ("A 7S 8S 9S TS", TurnUp(C("7D"))),  # turned up while a hand is short: misdeal
])
def test_void_deal_then_the_same_dealer_deals_again(first, offending):
    state = new_game("classic", dealer="B")
    seat, *cards = first.split()
    for card in cards:
        state, _ = apply(state, DealCard(seat, C(card)))
    state, events = apply(state, offending)
    assert kinds(events) == ["fault"] and events[0].seat == "B"
    assert "trump" not in kinds(events)
    assert state.phase == "deal" and state.dealer == "B" and state.hands == (0, 0) and state.hand_no == 1
    state, events = deal(state, *A32[:2])
    assert kinds(events) == ["trump"] and state.phase == "propose" and state.elder == "A"


def test_duplicate_draw_voids_the_deal_after_an_exchange():
    state, _ = start("classic", A32, ("A proposes", "B accepts", "A discards 8S"))
    state, events = apply(state, parse_action("A draws KS"))  # in B's hand
    assert kinds(events) == ["fault"] and events[0].code == "duplicate_card"
    assert state.phase == "deal" and state.dealer == "B" and state.discards == (0, 0)


def test_dealer_alternates_each_hand():
    state = new_game("classic", dealer="B")
    dealers = []
    for _ in range(3):
        dealers.append(state.dealer)
        hand = A32 if state.dealer == "B" else (A32[1], A32[0], [])
        state, _ = deal(state, *hand[:2])
        state, _ = run(state, f"{state.elder} stands")
        while state.phase == "play":
            state, _ = apply(state, next(a for a in legal_actions(state) if a.kind == "play"))
    assert dealers == ["B", "A", "B"] and state.dealer == "A" and state.hand_no == 4


# -- cut and à la retourne --------------------------------------------------------------------------

@pytest.mark.parametrize(("ace_high", "a", "b", "dealer"), [
    (False, "KS", "AH", "A"),  # rule 5: the higher écarté card deals
    (False, "AS", "JH", "B"),
    (False, "7S", "8H", "B"),
    (True, "AS", "KH", "A"),  # 003 'Rangos'
    (True, "QS", "AH", "B"),
])
def test_cut_for_the_deal(ace_high, a, b, dealer):
    state = new_game("classic", ace_high=ace_high)
    assert state.phase == "cut"
    state, events = run(state, f"A cuts {a}", f"B cuts {b}")
    assert [(e.event, e.seat) for e in events] == [("dealer", dealer)]
    assert state.phase == "deal" and state.dealer == dealer


def test_equal_cut_cuts_again():
    state = new_game("classic")
    state, events = run(state, "A cuts KS", "B cuts KH")
    assert [(e.event, e.seat) for e in events] == [("dealer", None)]
    assert state.phase == "cut" and state.cuts == (-1, -1)
    state, events = run(state, "B cuts 7S", "A cuts 8S")
    assert state.dealer == "A"


def test_cut_the_same_card_twice_is_a_duplicate():
    state, _ = run(new_game("classic"), "A cuts KS")
    _, events = apply(state, parse_action("B cuts KS"))
    assert events[0].code == "duplicate_card"


@pytest.mark.parametrize(("card", "target"), [("AH", 11), ("KS", 10), ("TD", 10), ("9C", 9), ("7H", 7)])
def test_a_la_retourne_sets_the_target(card, target):
    state = new_game("french", a_la_retourne=True)
    assert state.phase == "retourne"
    state, events = apply(state, TurnTarget(C(card)))
    assert [(e.event, e.target) for e in events] == [("target", target)]
    assert state.target == target and state.phase == "cut"
    state = new_game("french", a_la_retourne=True, dealer="A")
    state, _ = apply(state, TurnTarget(C(card)))
    assert state.phase == "deal"


# -- doubling (003 'Apuesta') ------------------------------------------------------------------

def test_double_accepted_doubles_the_points():
    state, _ = start("classic", A32, doubling=True)
    state, events = run(state, "A doubles")
    assert [(e.event, e.seat, e.offer, e.accepted) for e in events] == [("offer", "A", "double", None)]
    assert {str(a) for a in legal_actions(state)} == {"B accepts", "B refuses"}
    _, ev = apply(state, parse_action("A plays KD"))
    assert ev[0].code == "out_of_turn"
    state, events = run(state, "B accepts", *A32[2])
    assert events[0].accepted is True
    assert hand_end(events).points == (2, 0)


def test_double_with_vulnerability_included_and_king_not_doubled():
    state, _ = start("classic", B32, doubling=True)  # A stood: vulnerable
    state, events = run(state, "A announces", "B doubles", "A accepts", *B32[2])
    assert hand_end(events).points == (1, 4)


@pytest.mark.parametrize(("opening", "points"), [
    (("A stands",), (1, 0)),  # as if the proposer had won the point
    (("A proposes", "B refuses"), (2, 0)),  # ... 2 if the decliner was vulnerable
])
def test_double_declined_ends_the_hand(opening, points):
    state, _ = start("classic", A32, opening, doubling=True)
    state, events = run(state, "A plays 7S", "B plays KS", "A doubles", "B refuses")
    end = hand_end(events)
    assert end.points == points and state.phase == "deal" and state.hand_no == 2


def test_double_only_once_and_before_the_third_trick():
    state, _ = start("classic", A32, doubling=True)
    state, _ = run(state, *A32[2][:4])
    assert parse_action("B doubles") in legal_actions(state)  # two tricks done, third not begun
    state2, _ = run(state, "A doubles", "B accepts")
    _, events = apply(state2, parse_action("B doubles"))
    assert events[0].code == "wrong_time"
    state, _ = run(state, A32[2][4])  # the third trick has begun
    _, events = apply(state, parse_action("B doubles"))
    assert events[0].code == "wrong_time"


def test_double_not_played_without_the_option():
    state, _ = start("classic", A32)
    _, events = apply(state, parse_action("A doubles"))
    assert events[0].code == "wrong_time" and "not played at this table" in events[0].message


# -- offering the point (003 'Apuesta', Cady 1896) ----------------------------------------------

@pytest.mark.parametrize(("opening", "points"), [
    (("A proposes", "B accepts", "A discards 8S", "A draws 9S", "B discards JH", "B draws JS", "A stands"), (0, 1)),
    (("A stands",), (0, 2)),  # the offerer was vulnerable: the opponent scores as if he won the point
])
def test_offer_point_accepted(opening, points):
    state, _ = start("classic", A32, opening, offer_point=True)
    state, events = run(state, "A offers the point", "B accepts")
    assert hand_end(events).points == points


@pytest.mark.parametrize(("hand", "points"), [
    (BVOLE, (0, 2)),  # the refuser won the vole: normal scoring
    (B32, (2, 0)),  # he did not (three tricks only): the offerer scores 2
])
def test_offer_point_refused_the_refuser_must_win_the_vole(hand, points):
    state, _ = start("classic", hand, offer_point=True)
    state, events = run(state, "A offers the point", "B refuses")
    assert [(e.seat, e.offer, e.accepted) for e in events] == [("A", "point", None), ("A", "point", False)]
    assert state.must_vole == "B"
    _, again = apply(state, parse_action("A offers the point"))
    assert again[0].code == "wrong_time"
    state, events = run(state, *hand[2])
    assert hand_end(events).points == points


def test_offer_point_only_before_the_first_card():
    state, _ = start("classic", A32, offer_point=True)
    state, _ = run(state, "A plays KD")
    _, events = apply(state, parse_action("B offers the point"))
    assert events[0].code == "wrong_time" and "before the first card" in events[0].message


# -- games, rubbers, pool ---------------------------------------------------------------------------

def play_hand(state: GameState, winner: str) -> tuple[GameState, list]:
    """A hand that ``winner`` takes 3-2 (whoever deals); german: the winner declares,
    the others: the elder proposes and the dealer refuses (the winner scores 1 or 2)."""
    elder, dealer = state.elder, state.dealer
    a, b, script = A32 if winner == elder else B32
    if elder == "B":
        swap = {"A": "B", "B": "A"}
        script = [swap[line[0]] + line[1:] for line in script]
        a, b = b, a
    if state.rules.declares_game:
        opening = [f"{elder} declares"] if winner == elder else [f"{elder} passes", f"{dealer} declares"]
    else:
        opening = [f"{elder} proposes", f"{dealer} refuses"]
    state, events = deal(state, a, b)
    state, more = run(state, *opening, *script)
    return state, events + more


def test_game_to_five_then_over():
    state = new_game("classic", dealer="B")
    events: list = []
    while not state.is_over:
        state, more = play_hand(state, "A")
        events += more
    ends = [e for e in events if isinstance(e, GameEnd)]
    assert ends == [GameEnd("A", (5, 0), 1)]
    assert state.score == (5, 0) and state.games == (1, 0)


def test_game_value_rule_46():
    state = new_game("classic", dealer="B", game_value=True, target=3)
    events: list = []
    state, more = play_hand(state, "B")
    while not state.is_over:
        state, more = play_hand(state, "A")
        events += more
    end = next(e for e in events if isinstance(e, GameEnd))
    assert end.score == (3, 1) and end.value == 2  # the loser had scored 1: double


@pytest.mark.parametrize(("rules", "dealers"), [
    ("classic", ["B", "A", "B"]),  # dealers keep alternating
    ("german", ["B", "B", "A"]),  # the loser deals: the winner leads (002)
])
def test_rubber_best_of_three(rules, dealers):
    state = new_game(rules, dealer="B", rubber=3, target=1)
    seen = []
    events: list = []
    for winner in ("A", "B", "A"):
        seen.append(state.dealer)
        assert state.score == (0, 0)
        state, more = play_hand(state, winner)
        events += more
    assert seen == dealers
    assert [e.winner for e in events if isinstance(e, GameEnd)] == ["A", "B", "A"]
    match = [e for e in events if isinstance(e, MatchEnd)]
    assert len(match) == 1 and match[0].winner == "A" and match[0].games == (2, 1)
    assert state.is_over and state.games == (2, 1)


def test_rubber_ends_early_when_won():
    state = new_game("classic", dealer="B", rubber=3, target=1, game_value=True)
    state, _ = play_hand(state, "A")
    state, events = play_hand(state, "A")
    match = [e for e in events if isinstance(e, MatchEnd)]
    assert match[0].games == (2, 0) and match[0].points == (6, 0) and state.is_over


@pytest.mark.parametrize(("rules", "hand", "opening", "next_dealer"), [
    # 002 "Wer gewonnen hat, spielt beim nächsten Spiel auf": the hand's winner is the next elder
    ("german", A32, ("A declares",), "B"),  # the declarer A makes 3: A leads again, B deals again
    ("german", B32, ("A declares",), "A"),  # A fails (-2): B won the hand, A deals
    ("german", B32, ("A passes", "B declares"), "A"),  # the dealer declares and makes 3
    ("german", A32, ("A passes", "B declares"), "B"),  # the dealer fails: A won, B deals again
    ("classic", A32, ("A stands",), "A"),  # elsewhere the dealer alternates, whoever won
    ("classic", B32, ("A stands",), "A"),
])
def test_german_the_winner_of_a_hand_leads_the_next(rules, hand, opening, next_dealer):
    state, _ = start(rules, hand, opening)
    state, events = run(state, *hand[2])
    assert hand_end(events) and state.phase == "deal" and state.hand_no == 2
    assert state.dealer == next_dealer


def test_german_the_winner_of_a_hand_ended_early_leads_the_next():
    """A hand ended by a declined double: the proposer scored as if he had won the point."""
    state, _ = start("german", A32, ("A passes", "B declares"), doubling=True)
    state, events = run(state, "B doubles", "A refuses")
    assert hand_end(events).points == (0, 1) and state.dealer == "A"


def test_pool_the_watcher_comes_in_after_a_lost_game_not_a_lost_hand():
    """003: 'El jugador que pierde la mano luego intercambia lugares con el jugador observador, hasta
    que uno de los jugadores gana dos juegos consecutivos'. Read as the loser of a game (see
    docs/rules.md): a lost hand inside a game changes no one."""
    state = new_game("classic", dealer="B", pool=True, target=2, players=("Ann", "Bob", "Cy"))
    state, events = play_hand(state, "B")  # Bob, dealing, wins a hand: 1 point of 2, Ann stays
    assert state.score == (0, 1) and not any(isinstance(e, (GameEnd, Seating)) for e in events)
    assert state.players == ("Ann", "Bob", "Cy") and state.dealer == "A"
    state, events = play_hand(state, "B")  # Bob wins again: the game, Ann goes out, Cy comes in
    assert [e for e in events if isinstance(e, Seating)] == [Seating("Cy", "Bob", "Ann")]
    assert state.score == (0, 0) and state.streak == ("Bob", 1)


def test_pool_loser_swaps_with_the_watcher_two_wins_take_the_pool():
    state = new_game("classic", dealer="B", pool=True, target=1, players=("Ann", "Bob", "Cy"))
    state, events = play_hand(state, "B")  # Bob beats Ann: Ann goes out, Cy comes in at A and deals
    seat = [e for e in events if isinstance(e, Seating)]
    assert seat == [Seating("Cy", "Bob", "Ann")]
    assert state.players == ("Cy", "Bob", "Ann") and state.dealer == "A" and state.streak == ("Bob", 1)
    state, events = play_hand(state, "A")  # Cy beats Bob: Bob out, Ann in at B and deals
    assert state.players == ("Cy", "Ann", "Bob") and state.dealer == "B" and state.streak == ("Cy", 1)
    state, events = play_hand(state, "A")  # Cy again: two in a row take the pool
    match = [e for e in events if isinstance(e, MatchEnd)]
    assert len(match) == 1 and match[0].player == "Cy" and state.is_over


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
    assert prompt(state).short == "discard or draw 2"
    step(Discard, single=True)
    assert not any(isinstance(a, Discard) for a in legal_actions(state))
    assert prompt(state).short == "draw 3"
