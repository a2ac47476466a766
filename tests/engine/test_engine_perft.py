"""Perft: pinned counts of legal action sequences from fixed deals.

Like perft in chess, the number of leaves of the full tree of legal actions
from a fixed position pins the legality rules: any change in follow / overtake /
trump / forzare legality changes a count. Each count is computed twice, by the
engine (``legal_actions`` + ``apply``) and by a naive brute force written here
from the rules' text, and compared with the pinned number.

Nobody holds the king of trumps in these deals (it lies in the stock), so the
only legal actions in play are cards.
"""

from __future__ import annotations

import pytest

from engine import Card, Deal, GameState, apply, legal_actions, new_game, parse_cards

C = Card.parse

DEALS = {
    # A (elder), B (dealer), turn-up: trump diamonds, KD in the stock
    "one": ("9H KS AC 8S 9D", "QH 8H 7S JD 8D", "7D"),
    "two": ("KH JH 7C QS TD", "AH 9C KC 8S QD", "7D"),
    "three": ("7H 8H 9H TH AD", "JH QH KC QC 9D", "7D"),
}


def position(rules: str, deal: str, **options) -> GameState:
    a, b, turn = DEALS[deal]
    state = new_game(rules, dealer="B", **options)
    state, _ = apply(state, Deal(parse_cards(a), parse_cards(b), C(turn)))
    return state


def at_play(rules: str, deal: str, **options) -> GameState:
    state = position(rules, deal, **options)
    action = next(a for a in legal_actions(state) if a.kind in ("stand", "declare"))
    state, _ = apply(state, action)
    assert state.phase == "play"
    return state


def engine_perft(state: GameState, hand_no: int | None = None, depth: int | None = None) -> int:
    """Leaves of the tree of legal actions, to the end of the hand (or ``depth``)."""
    if hand_no is None:
        hand_no = state.hand_no
    if state.hand_no != hand_no or state.is_over or depth == 0:
        return 1
    total = 0
    for action in legal_actions(state):
        child, _ = apply(state, action)
        total += engine_perft(child, hand_no, None if depth is None else depth - 1)
    return total


def naive_perft(a: list[Card], b: list[Card], trump: str, leader: str, *, overtake: bool,
                forzare: bool, order: str = "KQJAT987") -> int:
    """Brute force from the rules' text: follow suit (and beat the card led if
    ``overtake`` and you can); void, trump; else any card. Forzare: the highest
    card of the suit you must play."""
    hands = {"A": a, "B": b}

    def higher(x: Card, y: Card) -> bool:
        return order.index(x.rank) < order.index(y.rank)

    def highest(cards: list[Card]) -> list[Card]:
        return [c for c in cards if not any(higher(o, c) for o in cards)]

    def follows(hand: list[Card], led: Card) -> list[Card]:
        same = [c for c in hand if c.suit == led.suit]
        if same:
            beating = [c for c in same if higher(c, led)]
            if overtake and beating:
                same = beating
            return highest(same) if forzare else same
        trumps = [c for c in hand if c.suit == trump]
        if trumps:
            return highest(trumps) if forzare else trumps
        return list(hand)

    def wins(led: Card, card: Card) -> bool:
        if card.suit == led.suit:
            return higher(card, led)
        return card.suit == trump

    def count(leader: str) -> int:
        if not hands[leader]:
            return 1
        follower = "B" if leader == "A" else "A"
        total = 0
        for led in list(hands[leader]):
            hands[leader].remove(led)
            for card in follows(hands[follower], led):
                hands[follower].remove(card)
                total += count(follower if wins(led, card) else leader)
                hands[follower].append(card)
            hands[leader].append(led)
        return total

    return count(leader)


# rules, options, deal -> pinned leaf count
PINNED = [
    ("classic", {}, "one", 358),
    ("classic", {}, "two", 304),
    ("classic", {}, "three", 768),
    ("french", {}, "two", 304),
    ("german", {}, "one", 358),
    ("german", {}, "two", 304),
    ("italian", {}, "one", 582),
    ("italian", {}, "two", 304),
    ("italian", {}, "three", 768),
    ("italian", {"forzare": True}, "one", 225),
    ("italian", {"forzare": True}, "two", 164),
    ("italian", {"forzare": True}, "three", 264),
    ("classic", {"ace_high": True}, "two", 264),
]


@pytest.mark.parametrize(("rules", "options", "deal", "pinned"), PINNED)
def test_perft_of_the_play(rules, options, deal, pinned):
    state = at_play(rules, deal, **options)
    a, b, turn = DEALS[deal]
    naive = naive_perft(
        list(parse_cards(a)), list(parse_cards(b)), C(turn).suit, "A",
        overtake=state.rules.must_overtake, forzare=state.rules.forzare,
        order=state.rules.ranking.order,
    )
    counted = engine_perft(state)
    assert counted == naive == pinned


def test_perft_pins_differ_where_the_rules_differ():
    """Deal 'one': italian's freedom not to overtake gives more sequences, forzare fewer."""
    counts = {(r, tuple(o)): n for r, o, d, n in PINNED if d == "one"}
    assert counts[("italian", ())] > counts[("classic", ())] > counts[("italian", ("forzare",))]


@pytest.mark.parametrize(("rules", "deal"), [("classic", "one"), ("classic", "two"), ("german", "one"),
                                             ("italian", "three")])
def test_perft_depth_three_from_the_proposal(rules, deal):
    """From the elder's first decision: play at once (lead, answer), propose and be
    refused (5 leads), propose and be accepted (5 first discards); german: declare
    (lead, answer), pass and the dealer declares (5 leads) or insists (5 discards)."""
    state = position(rules, deal)
    a, b, turn = DEALS[deal]
    pairs = _lead_answer_pairs(state, list(parse_cards(a)), list(parse_cards(b)), C(turn).suit)
    assert engine_perft(state, depth=3) == pairs + 5 + 5


def _lead_answer_pairs(state: GameState, a: list[Card], b: list[Card], trump: str) -> int:
    order = state.rules.ranking.order
    total = 0
    for led in a:
        same = [c for c in b if c.suit == led.suit]
        beating = [c for c in same if order.index(c.rank) < order.index(led.rank)]
        if same:
            total += len(beating) if state.rules.must_overtake and beating else len(same)
        else:
            trumps = [c for c in b if c.suit == trump]
            total += len(trumps) or len(b)
    return total
