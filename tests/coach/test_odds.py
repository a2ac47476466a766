"""Stand and refuse odds: Foster's counts, the pure search against the kernel, symmetry under suit permutations."""

from __future__ import annotations

import pytest
from coach_rule_sets import RULE_IDS, RULE_SETS

from coach import double_dummy as dd
from coach.jeu_de_regle import ELDER_ROWS, classify, foster_counts, rows_of
from coach.odds import OTHER_HANDS, elder_advice, hint_text, propose_value, refuse_odds, stand_odds
from engine.cards import Card, mask_of
from engine.rules import RuleSet, rules


def test_foster_counts_one_trump() -> None:
    """Foster: with one trump the odds are 44,574 to 21,206 against the dealer holding two or more."""
    elder = mask_of(["9H", "7S", "8S", "AD", "TC"])
    assert foster_counts(elder, Card.parse("7H").index) == (44574, 21206)


def test_foster_counts_two_trumps() -> None:
    """Foster: with two trumps, 50,274 to 15,506."""
    elder = mask_of(["9H", "KH", "8S", "AD", "TC"])
    assert foster_counts(elder, Card.parse("7H").index) == (50274, 15506)
    assert sum(foster_counts(elder, Card.parse("7H").index)) == OTHER_HANDS == 65780


@pytest.mark.parametrize("rule_set", RULE_SETS, ids=RULE_IDS)
def test_stand_odds_cover_every_dealer_hand_and_agree_with_the_pure_search(rule_set: RuleSet) -> None:
    elder = mask_of(["KH", "9H", "QS", "8D", "7C"])
    turn_up = Card.parse("TH").index
    odds = stand_odds(rule_set, elder, turn_up)
    assert odds.total == 65780
    assert odds.holds_king and sum(odds.king_counts) == 0
    if dd.kernel is not None and rule_set.describe() in ("classic", "german"):
        assert stand_odds(rule_set, elder, turn_up, pure=True) == odds


def _permute(mask: int, perm: tuple[int, int, int, int]) -> int:
    out = 0
    for i in range(32):
        if mask >> i & 1:
            out |= 1 << (perm[i >> 3] * 8 + (i & 7))
    return out


@pytest.mark.parametrize("perm", [(1, 0, 2, 3), (3, 2, 1, 0), (2, 3, 0, 1)])
def test_odds_are_symmetric_under_suit_permutations(perm: tuple[int, int, int, int]) -> None:
    rule_set = rules("classic")
    elder = mask_of(["AH", "8H", "QS", "JS", "7C"])
    turn_up = Card.parse("KD").index  # a turned-up king: nobody holds it
    base = stand_odds(rule_set, elder, turn_up)
    moved = stand_odds(rule_set, _permute(elder, perm), _permute(1 << turn_up, perm).bit_length() - 1)
    assert moved == base
    dealer = mask_of(["TS", "9D", "8D", "KC", "QC"])
    assert refuse_odds(rule_set, _permute(dealer, perm), _permute(1 << turn_up, perm).bit_length() - 1) == \
        refuse_odds(rule_set, dealer, turn_up)


def test_refuse_odds_count_every_elder_hand() -> None:
    rule_set = rules("classic")
    odds = refuse_odds(rule_set, mask_of(["KH", "QH", "JH", "AS", "KS"]), Card.parse("7H").index)
    assert odds.total == 65780
    assert odds.point > 0.9


def test_propose_value_is_the_same_with_the_pure_search() -> None:
    rule_set = rules("classic")
    elder = mask_of(["9H", "7S", "AD", "QC", "8C"])
    turn_up = Card.parse("7H").index
    kernel = propose_value(rule_set, elder, turn_up, samples=60, seed=3)
    pure = propose_value(rule_set, elder, turn_up, samples=60, seed=3, pure=True)
    assert kernel == pure
    assert kernel.samples == 60 and kernel.stderr > 0


def test_hint_fits_the_oled_line_and_names_the_row() -> None:
    rule_set = rules("classic")
    text = hint_text(rule_set, mask_of(["9H", "7S", "AD", "QC", "8C"]), Card.parse("7H").index, samples=300)
    assert text.startswith(("stand ", "propose ")) and text.endswith(" -") and len(text) <= 21
    two_trumps = hint_text(rule_set, mask_of(["8H", "9H", "7S", "8S", "9S"]), Card.parse("7H").index, samples=300)
    assert two_trumps.split()[2].rstrip("!") == "2T+3"
    longest = max(len(r.name) for r in ELDER_ROWS)
    assert len(f"propose 100% {'x' * longest}!") <= 21


def test_the_issues_three_trumps_lose_more_than_the_classics_allow() -> None:
    """8H 9H TH 7S 7D, the 7H turned: a hand of the row "three trumps" wins the point against 37,310 of
    the 65,780 dealer hands (0.567), under two to one: the coach says stand or propose by the odds, and
    names the row."""
    rule_set = rules("classic")
    hand, turn_up = mask_of(["8H", "9H", "TH", "7S", "7D"]), Card.parse("7H").index
    odds = stand_odds(rule_set, hand, turn_up)
    assert sum(odds.counts[3:]) == 37310 and odds.total == 65780
    advice = elder_advice(rule_set, hand, turn_up, samples=300)
    assert advice.classical.row is not None and advice.classical.row.name == "3T" and advice.classical.plays
    assert "jeu de règle 3T (three trumps or more, whatever the other cards): the classics stand" in advice.text()


def test_rows_match_their_hands_and_the_king_turns_the_advice() -> None:
    turn_up = Card.parse("7H").index

    def names(cards: str, seat: str = "elder") -> list[str]:
        return [r.name for r in rows_of(mask_of(cards.split()), turn_up, seat)]

    assert names("8H 9H TH 7S 7D") == ["3T", "T+K=3"]
    assert names("8H 9H 7S 8S 9S") == ["2T+3"]
    assert names("8H 9H 7S 8S 9S", "dealer") == []  # the dealer's suit must be headed by a court card
    assert names("8H 9H 7S JS 9S", "dealer") == ["2T+3C"]
    assert names("8H 9H QS 8S 9D") == ["2T+Qxx"]
    assert names("8H KS QS JS 7D") == ["1T+KQJ"]
    assert names("8H KS QS JS 7D", "dealer") == []
    assert names("8H KS QS JS JD", "dealer") == ["1T+KQJ+C"]
    assert names("8H QS 7S 8S 9S") == ["1T+4"]
    assert names("8H QS 7S QD 9C") == ["1T+2Q"]
    assert names("8H QS 7S QD 9D", "dealer") == ["1T+2Qx"]
    assert names("8H QS JD 7D 9C") == ["1T+QJx"]
    assert names("8H QS JD 7D 9C", "dealer") == []
    assert names("8H QS JD 7D KC", "dealer") == ["1T+QJx", "1T+K/Q+A"]  # the court card is a king
    assert names("8H KS QD 7C 9C") == ["1T+K/Q"]
    assert names("8H KS QD AC 9C", "dealer") == ["1T+K/Q+A"]
    assert names("KS QS JD KC 9C") == ["0T+4C"]
    assert names("KS QS JS KC 9C", "dealer") == []  # four court cards of two suits
    assert names("QS QD QC 7C 9C") == ["0T+3Q"]
    assert names("QS 7S QD 8D QC", "dealer") == ["0T+3Q2"]
    assert names("8H KS 8S KD 9C") == ["T+K=3"]
    assert names("8H 9H KS 8S 9D") == ["T+K=3", "2T+Kx"]
    assert names("8H KS QS KD 9C") == ["T+K=3", "1T+KQK"]
    assert names("8H 7S 9D 8C 9C") == []
    plain = classify(mask_of(["8H", "9H", "7S", "8S", "9S"]), turn_up, "elder")
    assert plain.plays and plain.words() == ("jeu de règle 2T+3 (two trumps, the other three cards of one plain "
                                             "suit): the classics stand")
    king = classify(mask_of(["KH", "9H", "7S", "8S", "9S"]), turn_up, "elder")
    assert not king.plays and king.words() == ("jeu de règle 2T+3 (two trumps, the other three cards of one plain "
                                               "suit), with the king of trumps: the classics propose")
    own = classify(mask_of(["8H", "9H", "KS", "8S", "9D"]), turn_up, "elder")
    assert own.row is not None and own.row.name == "T+K=3"  # a sourced row comes before the project's own
    assert classify(mask_of(["8H", "7S", "9D", "8C", "9C"]), turn_up, "dealer").words() == \
        "no jeu de règle: the classics accept"
