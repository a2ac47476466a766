"""Stand and refuse odds: Foster's counts, the pure search against the kernel, symmetry under suit permutations."""

from __future__ import annotations

import pytest
from coach_rule_sets import RULE_IDS, RULE_SETS

from coach import double_dummy as dd
from coach.jeu_de_regle import JEUX_DE_REGLE, foster_counts, hand_type
from coach.odds import OTHER_HANDS, hint_text, propose_value, refuse_odds, stand_odds
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


def test_hint_fits_the_oled_line() -> None:
    text = hint_text(rules("classic"), mask_of(["9H", "7S", "AD", "QC", "8C"]), Card.parse("7H").index)
    assert text.startswith("stand: pt ") and len(text) <= 21


def test_jeu_de_regle_rows_match_their_hands() -> None:
    turn_up = Card.parse("7H").index
    assert hand_type(mask_of(["8H", "9H", "TH", "7S", "7D"]), turn_up) is JEUX_DE_REGLE[0]
    assert hand_type(mask_of(["8H", "9H", "7S", "8S", "9S"]), turn_up) is JEUX_DE_REGLE[1]
    assert hand_type(mask_of(["8H", "9H", "KS", "8S", "9D"]), turn_up) is JEUX_DE_REGLE[2]
    assert hand_type(mask_of(["8H", "9H", "KS", "7D", "KC"]), turn_up) is JEUX_DE_REGLE[3]
    assert hand_type(mask_of(["8H", "QS", "7S", "8S", "9S"]), turn_up) is JEUX_DE_REGLE[4]
    assert hand_type(mask_of(["8H", "KS", "QS", "KD", "9C"]), turn_up) is JEUX_DE_REGLE[5]
    assert hand_type(mask_of(["KS", "QS", "JD", "KC", "9C"]), turn_up) is JEUX_DE_REGLE[6]
    assert hand_type(mask_of(["8H", "7S", "9D", "8C", "9C"]), turn_up) is None
