"""Legality of play and the fault codes: each with a fixed deal.

Every refused action must answer with one :class:`engine.Fault` naming the
code, the offending seat, the London rule, a message that names the seat and
the card, and leave the state exactly as it was (rule 39: a card taken back
costs nothing) -- save the italian -1 for a refused revoke (source 000).
"""

from __future__ import annotations

import pytest

import catalogue
import engine
from engine import (
    FAULT_CODES,
    Accept,
    Announce,
    Card,
    Deal,
    DealCard,
    Declare,
    Discard,
    Draw,
    Fault,
    Pass,
    PlayCard,
    Propose,
    Refuse,
    Stand,
    TurnUp,
    apply,
    check,
    legal_actions,
    legal_plays,
    new_game,
    parse_cards,
)
from firmware_host.referee.event_words import message, remedy

C = Card.parse

# Trump diamonds (7D turned up). B deals, A is the elder and leads.
A_HAND = "9H KS AC 8S 9D"
B_HAND = "QH 8H 7S JD 8D"


def dealt(rules: str = "classic", a: str = A_HAND, b: str = B_HAND, turn: str = "7D",
          **options: object) -> engine.GameState:
    """A fresh hand dealt by B, still in the proposal phase."""
    state = new_game(rules, dealer="B", **options)  # type: ignore[arg-type]
    state, events = apply(state, Deal(parse_cards(a), parse_cards(b), C(turn)))
    assert events[0].event == "trump"
    return state


def in_play(rules: str = "classic", a: str = A_HAND, b: str = B_HAND, turn: str = "7D",
            **options: object) -> engine.GameState:
    """The same hand with play begun (the elder plays without proposing)."""
    state = dealt(rules, a, b, turn, **options)
    if state.rules.declares_game:
        state, _ = apply(state, Declare("A"))
    else:
        state, _ = apply(state, Stand("A"))
    assert state.phase == "play"
    return state


def play(state: engine.GameState, *moves: str) -> engine.GameState:
    """Apply legal plays written ``"A 9H"``; fail loudly on any fault."""
    for move in moves:
        seat, card = move.split()
        state, events = apply(state, PlayCard(seat, C(card)))
        assert not any(isinstance(e, Fault) for e in events), events
    return state


def refused(state: engine.GameState, action: engine.Action, code: str, seat: str | None) -> Fault:
    """Apply ``action``, check it is refused with ``code`` by ``seat``, state unchanged."""
    new, events = apply(state, action)
    charged = bool(state.rules.revoke_penalty) and code in ("revoke", "not_trumping")
    assert len(events) == (2 if charged else 1), events
    fault = events[0]
    assert isinstance(fault, Fault)
    assert (fault.code, fault.seat) == (code, seat)
    assert fault.rule == FAULT_CODES[code]
    if charged:
        penalty = events[1]
        assert isinstance(penalty, engine.Penalty)
        assert (penalty.seat, penalty.points, penalty.reason) == (seat, -1, code)
        assert "point lost" in remedy(fault)
    else:
        assert remedy(fault) == catalogue.say("en", "remedy." + code)
    assert check(state, action) == fault
    assert action not in legal_actions(state)
    if state.rules.revoke_penalty == 0 or code not in ("revoke", "not_trumping"):
        assert new == state
    return fault


def names(fault: Fault, *words: str) -> None:
    for word in words:
        assert word in message(fault), (word, message(fault))


# -- faults of play (London rules 39, 40, 43) ----------------------------------------------

PLAY_FAULTS = [
    # rules, moves before, offending play, code, seat, London rule, words in the message
    ("classic", ["A 9H"], "B 8H", "not_overtaking", "B", "43", ["B", "8♥", "9♥"]),
    ("classic", ["A 9H"], "B 7S", "revoke", "B", "43", ["B", "7♠", "hearts", "win the trick"]),
    ("classic", ["A 9H"], "B JD", "revoke", "B", "43", ["B", "J♦", "hearts"]),
    ("classic", ["A KS"], "B QH", "revoke", "B", "43", ["B", "Q♥", "spades"]),
    ("classic", ["A AC"], "B 7S", "not_trumping", "B", "43", ["B", "7♠", "diamonds"]),
    ("classic", ["A AC"], "B QH", "not_trumping", "B", "43", ["B", "Q♥", "diamonds"]),
    ("classic", ["A 9D"], "B 8D", "not_overtaking", "B", "43", ["B", "8♦", "9♦"]),
    ("classic", [], "B QH", "out_of_turn", "B", "40", ["A", "Q♥"]),
    ("classic", ["A 9H"], "A KS", "out_of_turn", "A", "40", ["B", "K♠"]),
    ("classic", ["A 9H"], "B 9D", "card_not_in_hand", "B", "29-34, 43", ["B", "9♦"]),
    ("classic", [], "A 7C", "card_not_in_hand", "A", "29-34, 43", ["A", "7♣"]),
    ("classic", [], "A 7D", "card_not_in_hand", "A", "29-34, 43", ["A", "7♦"]),
    ("french", ["A 9H"], "B 8H", "not_overtaking", "B", "43", ["B", "8♥"]),
    ("french", ["A AC"], "B 7S", "not_trumping", "B", "43", ["B", "7♠"]),
    ("german", ["A 9H"], "B 8H", "not_overtaking", "B", "43", ["B", "8♥"]),
    ("german", ["A 9H"], "B 7S", "revoke", "B", "43", ["B", "7♠"]),
    ("german", ["A AC"], "B QH", "not_trumping", "B", "43", ["B", "Q♥"]),
    ("italian", ["A 9H"], "B 7S", "revoke", "B", "43", ["B", "7♠", "hearts"]),
    ("italian", ["A AC"], "B 7S", "not_trumping", "B", "43", ["B", "7♠", "diamonds"]),
    ("italian", [], "B QH", "out_of_turn", "B", "40", ["Q♥"]),
    ("italian", ["A 9H"], "B 9D", "card_not_in_hand", "B", "29-34, 43", ["9♦"]),
]


@pytest.mark.parametrize(("rules", "before", "move", "code", "seat", "rule", "words"), PLAY_FAULTS)
def test_fault_of_play_is_refused_and_state_kept(rules, before, move, code, seat, rule, words):
    state = play(in_play(rules), *before)
    who, card = move.split()
    fault = refused(state, PlayCard(who, C(card)), code, seat)
    assert fault.rule == rule
    assert fault.card == C(card)
    names(fault, *words)
    if code in ("revoke", "not_overtaking", "not_trumping") and state.rules.revoke_penalty == 0:
        assert "rule 39: no penalty" in remedy(fault)


@pytest.mark.parametrize(("rules", "before", "legal"), [
    # overtake when able (rule 43)
    ("classic", ["A 9H"], "QH"),
    ("classic", ["A 9D"], "JD"),
    ("classic", ["A AC"], "JD 8D"),  # void: any trump wins the trick
    ("classic", ["A KS"], "7S"),  # cannot beat: any card of the suit
    ("classic", [], "9H KS AC 8S 9D"),
    # italian: follow suit, no obligation to win
    ("italian", ["A 9H"], "QH 8H"),
    ("italian", ["A 9D"], "JD 8D"),
    ("italian", ["A AC"], "JD 8D"),
    ("german", ["A 9H"], "QH"),
    ("french", ["A 9H"], "QH"),
])
def test_legal_plays_table(rules, before, legal):
    state = play(in_play(rules), *before)
    seat = state.turn
    assert legal_plays(state, seat) == engine.mask_of(parse_cards(legal))
    plays = {a.card for a in legal_actions(state) if isinstance(a, PlayCard)}
    assert plays == set(parse_cards(legal))
    other = engine.OTHER[seat]
    assert legal_plays(state, other) == 0


@pytest.mark.parametrize(("before", "move", "best"), [
    (["A 9H"], "B 8H", "Q♥"),  # following suit: the highest of the suit
    (["A AC"], "B 8D", "J♦"),  # void: the highest trump
    (["A 9D"], "B 8D", "J♦"),
])
def test_forzare_not_highest(before, move, best):
    state = play(in_play("italian", forzare=True), *before)
    who, card = move.split()
    fault = refused(state, PlayCard(who, C(card)), "not_highest", who)
    names(fault, who, best, C(card).symbol(), "forzare")
    assert fault.rule == "forzare (000)"
    assert legal_plays(state, who) == engine.mask_of(parse_cards(best.replace("♥", "H").replace("♦", "D")))


def test_forzare_without_trump_or_suit_any_card():
    # B void in clubs and trumps: any card (rule unchanged by forzare)
    state = play(in_play("italian", a="9H KS AC 8S 9D", b="QH 8H 7S JS TS", forzare=True), "A AC")
    assert legal_plays(state, "B") == engine.mask_of(parse_cards("QH 8H 7S JS TS"))


@pytest.mark.parametrize(("code", "before", "move"), [
    ("revoke", ["A 9H"], "B 7S"),
    ("not_trumping", ["A AC"], "B QH"),
])
def test_italian_refused_revoke_still_costs_one(code, before, move):
    """000: '-1 a chi NON ha risposto al seme', even though the card is taken back."""
    state = play(in_play("italian"), *before)
    who, card = move.split()
    new, events = apply(state, PlayCard(who, C(card)))
    assert [type(e).__name__ for e in events] == ["Fault", "Penalty"]
    assert events[0].code == code  # type: ignore[attr-defined]
    assert (events[1].seat, events[1].points, events[1].reason) == ("B", -1, code)  # type: ignore[attr-defined]
    assert new.score == (0, -1)
    assert new.hand_points == (0, -1)
    # nothing else moved: the card is still in B's hand, B still to play
    assert new.evolve(score=state.score, hand_points=state.hand_points) == state
    assert C(card) in new.hand("B")


def test_italian_not_highest_and_out_of_turn_cost_nothing():
    state = play(in_play("italian", forzare=True), "A 9H")
    for action in (PlayCard("B", C("8H")), PlayCard("A", C("KS"))):
        new, _ = apply(state, action)
        assert new == state


# -- the king of trumps ----------------------------------------------------------------------

KING_A = "KD KS AC 8S 9H"  # A holds the king of diamonds
KING_B = "QH 8H 7S JD 8D"


@pytest.mark.parametrize("rules", ["classic", "french", "italian"])
def test_false_king_by_non_holder(rules):
    state = in_play(rules, a=KING_A, b=KING_B)
    fault = refused(state, Announce("B"), "false_king", "B")
    assert fault.rule == "25"
    names(fault, "B", "does not hold")


def test_false_king_when_nobody_holds_it():
    state = in_play()
    refused(state, Announce("A"), "false_king", "A")
    refused(state, Announce("B"), "false_king", "B")


def test_false_king_german():
    state = in_play("german", a=KING_A, b=KING_B)
    refused(state, Announce("B"), "false_king", "B")


def test_false_king_after_the_king_was_turned_up():
    state = in_play(turn="KD", a="7D KS AC 8S 9H")
    assert state.king == "B"
    refused(state, Announce("B"), "false_king", "B")
    refused(state, Announce("A"), "false_king", "A")


def test_king_not_led_german():
    """002: 'Der betreffende Spieler muß dann den Trumpf-König aufspielen.'"""
    state = in_play("german", a=KING_A, b=KING_B)
    state, events = apply(state, Announce("A"))
    assert [e.event for e in events] == ["king"]
    fault = refused(state, PlayCard("A", C("KS")), "king_not_led", "A")
    assert fault.rule == "002"
    names(fault, "A", "K♠", "king")
    assert legal_plays(state, "A") == C("KD").mask
    state = play(state, "A KD")
    assert state.king_to_lead is None


# -- the deal: misdeal and duplicate card (rules 8-9, 15-21, 45) -----------------------------

def deal_cards(state: engine.GameState, seat: str, cards: str) -> engine.GameState:
    for card in parse_cards(cards):
        state, events = apply(state, DealCard(seat, card))
        assert events == ()
    return state


@pytest.mark.parametrize(("a", "b", "action", "code", "words"), [
    ("7S 8S 9S TS AS", "", DealCard("A", C("JS")), "misdeal", ["A", "sixth"]),
    ("7S 8S 9S TS AS", "7H 8H 9H TH AH", DealCard("B", C("JH")), "misdeal", ["B", "sixth"]),
    ("7S 8S 9S TS AS", "7H 8H 9H TH", TurnUp(C("7D")), "misdeal", ["B", "five"]),
    ("7S 8S 9S", "7H 8H 9H TH AH", TurnUp(C("7D")), "misdeal", ["A", "five"]),
    ("7S 8S 9S", "7H", DealCard("B", C("8S")), "duplicate_card", ["8♠", "A"]),
    ("7S 8S 9S TS AS", "7H 8H 9H TH AH", TurnUp(C("TH")), "duplicate_card", ["10♥", "B"]),
])
def test_deal_faults_void_the_deal_and_name_the_dealer(a, b, action, code, words):
    state = new_game("classic", dealer="B")
    state = deal_cards(deal_cards(state, "A", a), "B", b)
    assert check(state, action).code == code
    assert action not in legal_actions(state)
    new, events = apply(state, action)
    assert len(events) == 1 and isinstance(events[0], Fault)
    fault = events[0]
    assert (fault.code, fault.seat) == (code, "B")  # the dealer answers for the deal
    names(fault, *words, "void")
    assert new.phase == "deal" and new.dealer == "B" and new.hands == (0, 0)
    assert new.turn_up == -1 and new.score == (0, 0) and new.hand_no == state.hand_no


def test_card_read_again_on_its_own_pad_is_ignored():
    state = deal_cards(new_game("classic", dealer="B"), "A", "7S 8S")
    new, events = apply(state, DealCard("A", C("7S")))
    assert (new, events) == (state, ())


@pytest.mark.parametrize(("deal", "code"), [
    (Deal(parse_cards("7S 8S 9S TS AS"), parse_cards("7H 8H 9H TH 7S"), C("7D")), "duplicate_card"),
    (Deal(parse_cards("7S 8S 9S TS AS"), parse_cards("7H 8H 9H TH AH"), C("9S")), "duplicate_card"),
    (Deal(parse_cards("7S 8S 9S TS"), parse_cards("7H 8H 9H TH AH"), C("7D")), "misdeal"),
    (Deal(parse_cards("7S 8S 9S TS AS JS"), parse_cards("7H 8H 9H TH AH"), C("7D")), "misdeal"),
])
def test_whole_deal_faults(deal, code):
    state = new_game("classic", dealer="A")
    new, events = apply(state, deal)
    assert [(e.code, e.seat) for e in events] == [(code, "A")]  # type: ignore[attr-defined]
    assert new.phase == "deal" and new.hands == (0, 0) and new.dealer == "A"


# -- the exchange (rules 28-38) ---------------------------------------------------------------

def accepted(rules: str = "classic") -> engine.GameState:
    state = dealt(rules)
    state, _ = apply(state, Propose("A"))
    state, _ = apply(state, Accept("B"))
    assert state.phase == "exchange" and state.exchanger == "A"
    return state


def test_exchange_count_drawing_more_than_discarded_names_the_dealer():
    state = accepted()
    state, _ = apply(state, Discard("A", (C("9H"),)))
    state, _ = apply(state, Draw("A", (C("7C"),)))
    state, _ = apply(state, Discard("B", (C("8H"),)))
    # the elder's part is done: A may not draw; the fault names the dealer (docs/transcript.md)
    fault = refused(state, Draw("A", (C("7H"),)), "exchange_count", "B")
    names(fault, "A", "7♥")
    state, _ = apply(state, Draw("B", (C("TC"),)))
    assert state.phase == "propose"


def test_exchange_count_elder_draws_beyond_discards():
    state = accepted()
    state, _ = apply(state, Discard("A", (C("9H"),)))
    fault = refused(state, Draw("A", parse_cards("7C TC")), "exchange_count", "B")
    names(fault, "A", "discarded 1")
    state, _ = apply(state, Draw("A", (C("7C"),)))
    fault = refused(state, Draw("A", (C("TC"),)), "exchange_count", "B")


def test_exchange_count_drawing_before_discarding():
    state = accepted()
    fault = refused(state, Draw("A", (C("7C"),)), "exchange_count", "B")
    names(fault, "A", "7♣")


def test_exchange_count_discarding_after_drawing_began():
    state = accepted()
    state, _ = apply(state, Discard("A", parse_cards("9H KS")))
    state, _ = apply(state, Draw("A", (C("7C"),)))
    fault = refused(state, Discard("A", (C("AC"),)), "exchange_count", "B")
    names(fault, "A", "begun to draw")


def test_discard_of_a_card_not_held():
    state = accepted()
    fault = refused(state, Discard("A", (C("QH"),)), "card_not_in_hand", "A")
    names(fault, "A", "Q♥")


def test_discard_by_the_wrong_seat_is_out_of_turn():
    state = accepted()
    fault = refused(state, Discard("B", (C("QH"),)), "out_of_turn", "B")
    names(fault, "A")


def test_classic_dealer_must_take_at_least_one():
    state = accepted()
    state, _ = apply(state, Discard("A", (C("9H"),)))
    state, _ = apply(state, Draw("A", (C("7C"),)))
    assert state.exchanger == "B"
    refused(state, Propose("A"), "exchange_count", "B")
    refused(state, Stand("A"), "exchange_count", "B")


@pytest.mark.parametrize("where", ["QH", "7D", "9H"])  # B's hand, the turn-up, a discard
def test_drawing_a_card_that_is_not_in_the_stock_voids_the_deal(where):
    state = accepted()
    state, _ = apply(state, Discard("A", (C("9H"),)))
    new, events = apply(state, Draw("A", (C(where),)))
    assert [(e.code, e.seat) for e in events] == [("duplicate_card", "B")]  # type: ignore[attr-defined]
    assert C(where).symbol() in message(events[0])  # type: ignore[arg-type]
    assert new.phase == "deal" and new.hands == (0, 0) and new.dealer == "B"


def test_replacement_read_again_on_its_own_pad_is_ignored():
    state = accepted()
    state, _ = apply(state, Discard("A", parse_cards("9H KS")))
    state, _ = apply(state, Draw("A", (C("7C"),)))
    assert apply(state, Draw("A", (C("7C"),))) == (state, ())


# -- decisions out of turn, and nothing to do now ----------------------------------------------

@pytest.mark.parametrize(("rules", "phase_actions", "action", "code", "seat"), [
    ("classic", [], Accept("B"), "out_of_turn", "B"),
    ("classic", [], Propose("B"), "out_of_turn", "B"),
    ("classic", [Propose("A")], Accept("A"), "out_of_turn", "A"),
    ("classic", [Propose("A")], Refuse("A"), "out_of_turn", "A"),
    ("classic", [], Declare("A"), "wrong_time", "A"),
    ("german", [], Propose("A"), "wrong_time", "A"),
    ("german", [], Declare("B"), "out_of_turn", "B"),
    ("german", [Pass("A")], Declare("A"), "out_of_turn", "A"),
    ("classic", [], PlayCard("A", C("9H")), "out_of_turn", "A"),
    ("classic", [], Announce("A"), "wrong_time", "A"),
    ("classic", [], Discard("A", (C("9H"),)), "wrong_time", "A"),
    ("classic", [], DealCard("A", C("7H")), "wrong_time", "B"),
    ("classic", [], engine.Double("A"), "wrong_time", "A"),
    ("classic", [], engine.OfferPoint("A"), "wrong_time", "A"),
])
def test_decisions_at_the_wrong_moment(rules, phase_actions, action, code, seat):
    state = dealt(rules)
    for earlier in phase_actions:
        state, _ = apply(state, earlier)
    fault = refused(state, action, code, seat)
    assert message(fault)


def test_every_fault_code_but_unknown_tag_is_produced_by_this_file():
    """docs/rules.md's table of faults: the engine handles every code but the tag faults (a tag, not a card:
    unknown_tag, and the table's foreign_pack and counterfeit_card, firmware_host/referee/pack_guard.py)."""
    produced = {row[3] for row in PLAY_FAULTS} | {
        "misdeal", "duplicate_card", "exchange_count", "false_king", "not_highest",
        "king_not_led", "wrong_time",
    }
    assert set(FAULT_CODES) - produced == {"unknown_tag", "foreign_pack", "counterfeit_card"}
