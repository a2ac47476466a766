"""JSON: states, actions and events round-trip through json.dumps / json.loads,
and the views show each seat only what it may know."""

from __future__ import annotations

import json
import re

import pytest

from engine import (
    ACTION_TYPES,
    CARDS,
    Accept,
    Announce,
    Bid,
    Card,
    Cut,
    Deal,
    DealCard,
    DealerChosen,
    Declare,
    Discard,
    Double,
    Draw,
    Exchanged,
    Fault,
    GameEnd,
    GameState,
    HandEnd,
    King,
    MatchEnd,
    NotationError,
    Offer,
    OfferPoint,
    Pass,
    Penalty,
    PlayBegins,
    PlayCard,
    Played,
    Propose,
    Refuse,
    Seating,
    Stand,
    TargetSet,
    Trick,
    Trump,
    TurnTarget,
    TurnUp,
    action_from_json,
    apply,
    cards_of,
    event_from_json,
    new_game,
    parse_action,
    parse_cards,
    parse_deal,
)
from engine.actions import PlayOn, ReplayHand
from engine.faults import FaultCode
from engine.state import Phase

C = Card.parse


def through_json(data):
    return json.loads(json.dumps(data))


ACTIONS = [
    TurnTarget(C("AH")), Cut("A", C("KS")), DealCard("B", C("TH")),
    Deal(parse_cards("7S 8S 9S TS AS"), parse_cards("7H 8H 9H TH AH"), C("7D")),
    TurnUp(C("9D")), Propose("A"), Stand("A"), Accept("B"), Refuse("B"), Declare("A"), Pass("B"),
    Discard("A", parse_cards("KS 7H")), Draw("A", (C("QC"),)), Announce("B"), PlayCard("B", C("7S")),
    Double("A"), OfferPoint("B"), parse_deal("7S 8S 9S TS AS / 7H 8H 9H TH AH / 7D"),
    ReplayHand("B"), PlayOn("A"),
]


@pytest.mark.parametrize("action", ACTIONS, ids=str)
def test_actions_round_trip(action):
    data = through_json(action.to_json())
    assert data["action"] == action.kind
    back = action_from_json(data)
    assert back == action and type(back) is type(action)


def test_every_action_kind_is_covered():
    assert {a.kind for a in ACTIONS} == set(ACTION_TYPES)


def test_elder_first_deal_keeps_its_meaning_through_json():
    """parse_deal writes the elder first: replayed from JSON it must give the same hands."""
    deal = parse_deal("7S 8S 9S TS AS / 7H 8H 9H TH AH / 7D")
    state = new_game("classic", dealer="A")  # B is the elder
    direct, _ = apply(state, deal)
    replayed, _ = apply(state, action_from_json(through_json(deal.to_json())))
    assert direct == replayed and direct.hand("B") == parse_cards("7S 8S 9S TS AS")


@pytest.mark.parametrize(("text", "action"), [
    ("A plays KS", PlayCard("A", C("KS"))), ("b accepts", Accept("B")), ("turn 9D", TurnUp(C("9D"))),
    ("A announces the king", Announce("A")), ("B offers the point", OfferPoint("B")),
    ("A discards KS 10H", Discard("A", parse_cards("KS TH"))), ("target AH", TurnTarget(C("AH"))),
])
def test_parse_action(text, action):
    assert parse_action(text) == action


@pytest.mark.parametrize("data", [
    {}, {"action": "fly"}, {"action": "play", "seat": "A"}, {"action": "play", "seat": "C", "card": "KS"},
    {"action": "play", "seat": "A", "card": "1S"}, {"action": "play", "seat": "A", "card": "KS", "x": 1},
    {"action": "discard", "seat": "A", "cards": []}, "play",
])
def test_bad_action_json_is_a_notation_error(data):
    with pytest.raises(NotationError):
        action_from_json(data)  # type: ignore[arg-type]


EVENTS = [
    TargetSet(11, C("AH")), DealerChosen("A", (C("KS"), C("7H"))), DealerChosen(None, (C("KS"), C("KH"))),
    Trump(C("9D")), King("A", (1, 0)), Bid("A", "stand", True), Bid("B", "accept"),
    Exchanged("A", 3, 18), PlayBegins("A", None), PlayBegins("A", "B"), Played("B", C("7S")),
    Trick("A", C("KD"), C("AD"), "A"), Offer("A", "double", None), Offer("A", "point", False),
    Penalty("B", -1, "revoke"), HandEnd((3, 2), (1, 0), (4, 2)), GameEnd("A", (5, 2), 2),
    MatchEnd("A", (2, 1), (4, 1), "Ann"), Seating("Cy", "Bob", "Ann"),
    Fault("revoke", "B", "43", C("7S"), detail=(("suit", "H"), ("win", "no"))),
    Fault("misdeal", "A", "8, 9, 15-21", None),
]


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: e.event)
def test_events_round_trip(event):
    data = through_json(event.to_json())
    assert data["event"] == event.event
    assert event_from_json(data) == event


@pytest.mark.parametrize(("event", "wire"), [
    (Trump(C("9D")), {"event": "trump", "card": "9D"}),
    (King("A", (1, 0)), {"event": "king", "seat": "A", "score": {"A": 1, "B": 0}}),
    (Trick("A", C("KD"), C("AD"), "A"), {"event": "trick", "winner": "A", "cards": {"A": "KD", "B": "AD"},
                                         "leader": "A"}),
    (GameEnd("A", (5, 2)), {"event": "game_end", "winner": "A", "score": {"A": 5, "B": 2}, "value": 1}),
])
def test_events_carry_the_transcript_fields(event, wire):
    """docs/transcript.md: at least these fields, cards in two-character notation."""
    assert event.to_json() == wire


@pytest.mark.parametrize("data", [{}, {"event": "nope"}, {"event": "hand_end", "tricks": {"A": 3}}])
def test_bad_event_json(data):
    with pytest.raises(NotationError):
        event_from_json(data)


# -- states and views -------------------------------------------------------------------------


def mid_hand() -> GameState:
    state = new_game("italian", dealer="B", forzare=True, doubling=True)
    state, _ = apply(state, Deal(parse_cards("KD QD 7C 8C 9C"), parse_cards("JD AD KC QC JC"), C("7D")))
    for text in ("A proposes", "B accepts", "A discards 9C", "A draws 9H", "A stands", "A announces",
                 "A plays 7C", "B plays KC", "B plays QC"):
        state, events = apply(state, parse_action(text))
        assert not any(isinstance(e, Fault) for e in events), (text, events)
    return state


def test_state_round_trips_mid_hand():
    state = mid_hand()
    data = through_json(state.to_json())
    assert GameState.from_json(data) == state
    assert data["hands"][0] == [str(c) for c in state.hand("A")]
    assert data["rules"] == {"name": "italian", "forzare": True, "doubling": True}


def test_state_round_trips_with_the_king_played():
    """``king_played_by`` (002: the king point may be his once he has won a trick) goes through
    JSON; a state written before the field existed reads as nobody."""
    state = new_game("german", dealer="B")
    state, _ = apply(state, Deal(parse_cards("KC QH JH 8H 9S"), parse_cards("KD AD QC JC 7C"), C("7D")))
    for text in ("A declares", "A plays KC", "B plays 7C", "A plays QH", "B plays KD"):
        state, events = apply(state, parse_action(text))
        assert not any(isinstance(e, Fault) for e in events), (text, events)
    data = through_json(state.to_json())
    assert data["king_played_by"] == "B"
    assert GameState.from_json(data) == state
    del data["king_played_by"]
    assert GameState.from_json(data).king_played_by is None


def test_new_game_states_round_trip():
    for state in (new_game("classic"), new_game("french", a_la_retourne=True),
                  new_game("german", dealer="B", rubber=5), new_game("classic", pool=True, dealer="A")):
        assert GameState.from_json(through_json(state.to_json())) == state


def test_bad_state_json():
    with pytest.raises(NotationError):
        GameState.from_json({"rules": {"name": "bezique"}, "phase": "deal", "dealer": "A"})
    with pytest.raises(NotationError):
        GameState.from_json({"rules": {"name": "classic"}, "phase": "deal", "dealer": "A", "turn_up": "ZZ"})


def test_a_state_read_from_json_has_a_phase_and_codes_not_text():
    """The phase and a late fault's code are read once, as their types, where the JSON comes in: a phase the
    game has not is refused there."""
    state = mid_hand().evolve(pending=((FaultCode.REVOKE, 1, 2),))
    back = GameState.from_json(through_json(state.to_json()))
    assert type(back.phase) is Phase and back.phase is Phase.PLAY
    assert type(back.pending[0][0]) is FaultCode
    with pytest.raises(NotationError):
        GameState.from_json({"rules": {"name": "classic"}, "phase": "plya", "dealer": "A"})


CARD_TOKEN = re.compile(r'"([789TAJQK][SHDC])"')


def test_public_view_shows_no_hand_no_stock_no_discard():
    state = mid_hand()
    view = state.public()
    assert view.hand is None and view.discards is None and view.seat is None
    text = json.dumps(view.to_json())
    on_table = {str(c) for c in cards_of(state.played)} | {"7D", str(CARDS[state.led])}
    assert set(CARD_TOKEN.findall(text)) <= on_table
    hidden = state.hands[0] | state.hands[1] | state.discards[0] | state.discards[1] | state.stock_mask
    assert not {str(c) for c in cards_of(hidden)} & set(CARD_TOKEN.findall(text))
    assert view.hand_sizes == (4, 3) and view.discard_sizes == (1, 0)
    assert view.stock_size == 32 - 7 - 1 - 2 - 1 - 1 == state.stock_size  # hands, discard, played, led, turn-up


@pytest.mark.parametrize("seat", ["A", "B"])
def test_seat_view_adds_only_its_own_hand_and_discards(seat):
    state = mid_hand()
    view = state.view(seat)
    assert view.hand == state.hand(seat)
    assert view.discards == cards_of(state.discards[0 if seat == "A" else 1])
    text = json.dumps(view.to_json())
    other = state.hands[1 if seat == "A" else 0] | state.discards[1 if seat == "A" else 0] | state.stock_mask
    assert not {str(c) for c in cards_of(other)} & set(CARD_TOKEN.findall(text))
