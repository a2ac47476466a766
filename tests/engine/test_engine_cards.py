"""Cards: notation, the pack, the two rankings (003 'Rangos')."""

from __future__ import annotations

import itertools

import pytest

from engine import ACE_HIGH, CARDS, CLASSIC, PACK, Card, EcarteError, NotationError, cards_of, mask_of, parse_cards


def test_the_pack_has_32_distinct_cards_seven_to_king():
    assert len(PACK) == 32 == len(set(PACK))
    assert {c.rank for c in PACK} == set("789TAJQK")
    assert {c.suit for c in PACK} == set("SHDC")
    assert [c.index for c in CARDS] == list(range(32))
    assert mask_of(PACK) == (1 << 32) - 1


@pytest.mark.parametrize("card", PACK, ids=str)
def test_every_card_round_trips(card):
    assert Card.parse(str(card)) is card
    assert eval(repr(card), {"Card": Card}) == card
    assert Card.parse(card.symbol()) == card
    assert Card.parse(str(card).lower()) == card
    assert Card(card.rank, card.suit) == card
    assert hash(Card(card.rank, card.suit)) == hash(card)


@pytest.mark.parametrize(("text", "card"), [
    ("TH", "TH"), ("10H", "TH"), ("10h", "TH"), ("th", "TH"), ("10♥", "TH"), ("T♡", "TH"),
    ("K♠", "KS"), ("K♤", "KS"), ("AD", "AD"), ("A♦", "AD"), ("7♣", "7C"), (" QC ", "QC"),
])
def test_parse_accepts_the_table_notations(text, card):
    assert str(Card.parse(text)) == card


@pytest.mark.parametrize("text", ["", "X", "1H", "6S", "2C", "KX", "TT", "10", "KSS", "11H", "JOKER"])
def test_parse_rejects_what_is_not_a_card(text):
    with pytest.raises(NotationError) as info:
        Card.parse(text)
    assert repr(text) in str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, EcarteError)


@pytest.mark.parametrize(("rank", "suit"), [("6", "S"), ("K", "X"), ("10", "H"), ("", "")])
def test_constructor_checks_rank_and_suit(rank, suit):
    with pytest.raises(NotationError):
        Card(rank, suit)


@pytest.mark.parametrize(("card", "symbol", "name"), [
    ("TH", "10♥", "ten of hearts"), ("KS", "K♠", "king of spades"),
    ("AD", "A♦", "ace of diamonds"), ("7C", "7♣", "seven of clubs"),
])
def test_symbol_and_name(card, symbol, name):
    assert Card.parse(card).symbol() == symbol
    assert Card.parse(card).name() == name


def test_masks_and_card_lists():
    cards = parse_cards("KS, 7H QD")
    assert [str(c) for c in cards] == ["KS", "7H", "QD"]
    mask = mask_of(cards)
    assert mask == mask_of(["KS", "7H", "QD"]) == sum(c.mask for c in cards)
    assert cards_of(mask) == tuple(sorted(cards, key=lambda c: c.index))
    assert cards_of(0) == ()
    with pytest.raises(NotationError):
        parse_cards("KS 1H")


# 003: "K Q J A 10 9 8 7" -- the ace between the jack and the ten; 'Rangos': ace high
@pytest.mark.parametrize(("ranking", "order"), [(CLASSIC, "KQJAT987"), (ACE_HIGH, "AKQJT987")])
def test_rankings_order_every_suit(ranking, order):
    assert ranking.order == order
    for suit in "SHDC":
        cards = [Card.parse(r + suit) for r in order]
        for high, low in itertools.pairwise(cards):
            assert ranking.beats(high, low) and not ranking.beats(low, high)
        assert ranking.highest(mask_of(cards[3:])) == cards[3].index
        assert ranking.highest(mask_of(cards)) == cards[0].index
        # above: the cards of the suit that outrank each card
        for i, card in enumerate(cards):
            assert ranking.above[card.index] == mask_of(cards[:i])


@pytest.mark.parametrize(("high", "low", "classic", "ace_high"), [
    ("KH", "AH", True, False), ("JH", "AH", True, False), ("AH", "TH", True, True),
    ("QH", "JH", True, True), ("8H", "7H", True, True), ("AH", "KH", False, True),
])
def test_ace_between_jack_and_ten(high, low, classic, ace_high):
    assert CLASSIC.beats(Card.parse(high), Card.parse(low)) is classic
    assert ACE_HIGH.beats(Card.parse(high), Card.parse(low)) is ace_high


def test_a_ranking_must_order_all_eight_ranks():
    from engine import Ranking

    with pytest.raises(NotationError):
        Ranking("KQJAT98")
