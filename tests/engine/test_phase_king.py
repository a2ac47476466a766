"""The king of trumps (``engine/phases/king.py``): turned up, announced, claimed, too late (rule 24),
and each rule set's way with it.

The deals played below have a known outcome when played as scripted (``engine_scripts``: trump
diamonds, the 7D turned up, B deals and A is the elder unless said otherwise).
"""

from __future__ import annotations

import pytest
from engine_scripts import A32, C, deal, hand_end, kinds, run, start

from engine import (
    GameEnd,
    apply,
    legal_actions,
    new_game,
    parse_action,
)
from firmware_host.referee.event_words import message

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
    assert events[0].code == "wrong_time" and "rule 23" in message(events[0])
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
    assert events[0].code == "wrong_time" and "played to (rule 24)" in message(events[0])
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
    assert events[0].code == "wrong_time" and "playing again (rule 24)" in message(events[0])


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
    assert ("001" if rules == "french" else "000") in message(events[0])
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
    assert events[0].code == "wrong_time" and "the -1 stands" in message(events[0])
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
