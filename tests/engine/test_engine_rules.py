"""Rule sets: the registry, the flags, and the scoring tables of every rule set."""

from __future__ import annotations

import pytest

from engine import RULE_SETS, French, German, Italian, RuleSet, UnknownRulesError, rules

# -- the registry ---------------------------------------------------------------------------


def test_registry_names():
    assert set(RULE_SETS) == {"classic", "french", "italian", "german"}
    assert RULE_SETS["classic"] is RuleSet and RULE_SETS["french"] is French
    assert RULE_SETS["italian"] is Italian and RULE_SETS["german"] is German
    for name, cls in RULE_SETS.items():
        assert rules(name).name == name and type(rules(name)) is cls


@pytest.mark.parametrize(("name", "hint"), [("clasic", "'classic'"), ("italien", "'italian'"), ("xyz", None)])
def test_unknown_rule_set(name, hint):
    with pytest.raises(UnknownRulesError) as info:
        rules(name)
    assert repr(name) in str(info.value)
    assert isinstance(info.value, KeyError)
    if hint:
        assert hint in str(info.value)


def test_unknown_option_suggests():
    with pytest.raises(UnknownRulesError) as info:
        rules("classic", forzar=True)
    assert "'forzare'" in str(info.value)


@pytest.mark.parametrize("options", [{"target": 0}, {"target": 100}, {"rubber": 2}, {"rubber": 0}])
def test_bad_option_values(options):
    with pytest.raises(ValueError):
        rules("classic", **options)


@pytest.mark.parametrize(("name", "options", "text"), [
    ("classic", {}, "classic"),
    ("italian", {"forzare": True}, "italian(forzare)"),
    ("classic", {"target": 7, "ace_high": True}, "classic(ace_high, target=7)"),
])
def test_options_and_describe(name, options, text):
    ruleset = rules(name, **options)
    assert ruleset.options() == options
    assert ruleset.describe() == text


def test_ace_high_switches_the_ranking():
    assert rules("classic").ranking.order == "KQJAT987"
    assert rules("german", ace_high=True).ranking.order == "AKQJT987"


# -- flags per rule set -----------------------------------------------------------------------

@pytest.mark.parametrize(
    ("name", "declares", "overtake", "king_led", "elder", "dealer", "revoke", "king_penalty", "rule_24",
     "winner_leads"),
    [
        # 003 rules 43, 23-24; "al menos una carta" for the dealer
        ("classic", False, True, False, (1, 5), (1, 5), 0, 0, True, False),
        # 001: "de 1 à 5 cartes" both, "monter s'il le peut"; the king "avant de jouer sa première carte"
        ("french", False, True, False, (1, 5), (1, 5), 0, 0, False, False),
        # 000: no obligation to win, king mandatory (before the first card), -1 penalties, dealer any number
        ("italian", False, False, False, (1, 5), (0, 5), 1, 1, False, False),
        # 002: declarer; "überstochen"; "Wer gewonnen hat, spielt beim nächsten Spiel auf"
        ("german", True, True, True, (1, 5), (0, 5), 0, 0, False, True),
    ],
)
def test_rule_set_flags(name, declares, overtake, king_led, elder, dealer, revoke, king_penalty, rule_24,
                        winner_leads):
    r = rules(name)
    assert (r.declares_game, r.must_overtake, r.king_must_be_led) == (declares, overtake, king_led)
    assert (r.elder_discard, r.dealer_discard) == (elder, dealer)
    assert (r.revoke_penalty, r.king_penalty) == (revoke, king_penalty)
    assert (r.king_rule_24, r.winner_leads_next_hand) == (rule_24, winner_leads)
    assert r.target == 5 and not r.forzare


# -- trick points ----------------------------------------------------------------------------
# (tricks A, tricks B), vulnerable seat index or None, declarer index or None -> points (A, B)

CLASSIC_POINTS = [
    ((3, 2), None, (1, 0)),  # the point (rule 48)
    ((4, 1), None, (1, 0)),
    ((5, 0), None, (2, 0)),  # the vole
    ((2, 3), None, (0, 1)),
    ((1, 4), None, (0, 1)),
    ((0, 5), None, (0, 2)),
    # rule 49: the vulnerable seat fails, its opponent scores 2
    ((2, 3), 0, (0, 2)),
    ((0, 5), 0, (0, 2)),  # never more than 2
    ((3, 2), 1, (2, 0)),
    ((5, 0), 1, (2, 0)),
    # the vulnerable seat wins: normal scoring
    ((3, 2), 0, (1, 0)),
    ((4, 1), 0, (1, 0)),
    ((5, 0), 0, (2, 0)),
    ((0, 5), 1, (0, 2)),
    ((1, 4), 1, (0, 1)),
]


@pytest.mark.parametrize("name", ["classic", "french"])
@pytest.mark.parametrize(("tricks", "vulnerable", "points"), CLASSIC_POINTS)
def test_classic_and_french_trick_points(name, tricks, vulnerable, points):
    assert rules(name).trick_points(tricks, vulnerable, None) == points


ITALIAN_POINTS = [
    ((3, 2), None, (1, 0)),
    ((4, 1), None, (1, 0)),
    ((5, 0), None, (2, 0)),  # +1 and +1 more for all five
    ((0, 5), None, (0, 2)),
    ((2, 3), None, (0, 1)),
    # di prepotenza and under three tricks: -1
    ((2, 3), 0, (-1, 1)),
    ((0, 5), 0, (-1, 2)),
    ((3, 2), 1, (1, -1)),
    ((5, 0), 1, (2, -1)),
    ((3, 2), 0, (1, 0)),
    ((5, 0), 0, (2, 0)),
    ((1, 4), 1, (0, 1)),
]


@pytest.mark.parametrize(("tricks", "vulnerable", "points"), ITALIAN_POINTS)
def test_italian_trick_points(tricks, vulnerable, points):
    assert rules("italian").trick_points(tricks, vulnerable, None) == points


GERMAN_POINTS = [
    # only the declarer scores: +1, +2 for five, -2 under three (002)
    ((3, 2), 0, (1, 0)),
    ((4, 1), 0, (1, 0)),
    ((5, 0), 0, (2, 0)),
    ((2, 3), 0, (-2, 0)),
    ((0, 5), 0, (-2, 0)),
    ((2, 3), 1, (0, 1)),
    ((0, 5), 1, (0, 2)),
    ((3, 2), 1, (0, -2)),
    ((5, 0), 1, (0, -2)),
]


@pytest.mark.parametrize(("tricks", "declarer", "points"), GERMAN_POINTS)
def test_german_trick_points(tricks, declarer, points):
    assert rules("german").trick_points(tricks, None, declarer) == points


# -- game value (rule 46; 002 double against 0) -------------------------------------------------

@pytest.mark.parametrize(("name", "game_value", "loser", "value"), [
    ("classic", False, 0, 1), ("classic", False, 4, 1),
    ("classic", True, 0, 3), ("classic", True, 1, 2), ("classic", True, 2, 2),
    ("classic", True, 3, 1), ("classic", True, 4, 1),
    ("french", True, 0, 3), ("italian", True, -2, 3), ("italian", False, -2, 1),
    ("german", False, 0, 2), ("german", False, -3, 2), ("german", False, 1, 1), ("german", False, 4, 1),
    ("german", True, 0, 3), ("german", True, 2, 2), ("german", True, 3, 1),
])
def test_game_points(name, game_value, loser, value):
    assert rules(name, game_value=game_value).game_points(loser) == value


# -- à la retourne (001): ace 11, figures and ten 10, others face value ------------------------

@pytest.mark.parametrize(("rank", "target"), [
    ("A", 11), ("K", 10), ("Q", 10), ("J", 10), ("T", 10), ("9", 9), ("8", 8), ("7", 7),
])
@pytest.mark.parametrize("name", ["classic", "french", "italian", "german"])
def test_retourne_targets(name, rank, target):
    assert rules(name, a_la_retourne=True).retourne_target(rank) == target


@pytest.mark.parametrize("name", ["classic", "french", "italian", "german"])
def test_a_king_penalty_closes_the_announcement_at_the_first_card(name):
    """000: the -1 for an undeclared king falls with the holder's first card; a rule set with that
    penalty must refuse every later declaration, or one would cancel the penalty."""
    r = rules(name)
    if not r.king_penalty:
        return
    for dealer in (False, True):
        for on_trick in (False, True):
            assert r.king_too_late(
                count=1, king_first=True, dealer=dealer, king_on_trick=on_trick, won=1, any_card=True,
            )
