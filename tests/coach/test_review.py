"""The review of a hand: nothing to say of perfect play, the right finding for a lost trick; the CLI on a journal."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import pytest

from coach import double_dummy as dd
from coach.double_dummy import best_cards, brute_force
from coach.review import HandRecorder, PlayedHand, position_of, review
from coach.single_dummy import Step, play_out, worlds
from engine import legal_actions
from engine.actions import Action, PlayCard
from engine.cards import Card
from engine.game import apply, new_game, parse_deal
from engine.rules import rules
from engine.state import GameState

Chooser = Callable[[GameState], Card]


def play_hand(deal: str, choose: Chooser, rule_name: str = "classic") -> PlayedHand:
    """Deal, the elder stands (german: declares), then each card from ``choose``; the recorded hand."""
    state = new_game(rule_name, dealer="B")
    recorder = HandRecorder()

    def act(action: Action) -> None:
        nonlocal state
        state, events = apply(state, action)
        recorder.feed(events, state)

    act(parse_deal(deal))
    act(state.rules.elder_choice("A")[1] if not state.rules.declares_game else state.rules.elder_choice("A")[0])
    while not recorder.hands:
        act(PlayCard(state.turn or "A", choose(state)))
    return recorder.hands[0]


def perfect(state: GameState) -> Card:
    return best_cards(state.rules, position_of(state))[0]


def first_legal(state: GameState) -> Card:
    return min((a.card for a in legal_actions(state) if isinstance(a, PlayCard)), key=lambda c: c.index)


STRONG = "KH QH JH AS KD / 7H 9S 8S 7D 9C / TH"


def test_a_hand_played_perfectly_finds_nothing_to_say() -> None:
    hand = play_hand(STRONG, perfect)
    assert hand.elder_bid == "stand" and hand.vulnerable == 0 and len(hand.steps) == 10
    result = review(hand, samples=300)
    assert result.cards == ()
    assert result.perfect or all(d.better == "propose" for d in result.decisions)
    assert review(hand, decisions=False).perfect
    assert review(hand, decisions=False).oled_line() == ""


@pytest.mark.parametrize("rule_name", ["classic", "italian", "german"])
def test_every_card_of_perfect_play_keeps_the_result(rule_name: str) -> None:
    hand = play_hand("KH 9H 7S 8D AC / 7H 9S AS KD 9C / TH", perfect, rule_name)
    assert review(hand, decisions=False).cards == ()


def test_a_lost_trick_is_found_with_the_better_card() -> None:
    deal = "AS AH AD TC QC / KS 7D AC JC KC / 7S"

    def blunder(state: GameState) -> Card:
        if state.turn == "A" and state.tricks == (0, 0) and state.led < 0:
            return Card.parse("AS")  # AD keeps the point (the doctest of coach.double_dummy)
        return perfect(state)

    hand = play_hand(deal, blunder)
    result = review(hand, decisions=False)
    finding = result.cards[0]
    assert finding.seat == 0 and finding.trick == 1 and finding.played == Card.parse("AS")
    assert finding.better == (Card.parse("AD"),)
    assert finding.what == "won_point" and finding.points_lost == 3  # +1 rather than -2 (vulnerable)
    assert result.oled_line() == "A could have won the point: A♦ at trick 1"
    assert result.cost(0) == 3


def test_recorded_positions_follow_the_referee() -> None:
    hand = play_hand("KH 9H 7S 8D AC / 7H 9S AS KD 9C / TH", first_legal, "german")
    assert hand.declarer == 0
    for step in hand.steps:
        assert step.position.legal(hand.rules) >> step.card & 1
    last = hand.steps[-1].position.play(hand.rules, hand.steps[-1].card)
    assert sum(last.tricks) == 5


def test_single_dummy_worlds_agree_with_the_play_so_far() -> None:
    hand = play_hand("KH 9H 7S 8D AC / 7H 9S AS KD 9C / TH", first_legal)
    rule_set = hand.rules
    for k in range(1, len(hand.steps)):
        position = hand.steps[k].position
        seat = position.to_play
        for world in worlds(rule_set, position, hand.steps[:k], limit=40):
            assert world.bit_count() == position.hands[1 - seat].bit_count()
            assert not world & position.hands[seat]
        assert position.hands[1 - seat] in worlds(rule_set, position, hand.steps[:k], limit=10**6)


def test_single_dummy_play_is_legal_and_never_beats_double_dummy_for_both() -> None:
    rule_set = rules("classic")
    hand = play_hand(STRONG, perfect)
    start = hand.steps[0].position
    tricks, steps = play_out(rule_set, start, vulnerable=0)
    assert sum(tricks) == 5 and len(steps) == 10
    assert all(isinstance(s, Step) and s.position.legal(rule_set) >> s.card & 1 for s in steps)
    assert brute_force(rule_set, start) == dd.solve(rule_set, start)


def test_pure_fallback_gives_the_same_review(monkeypatch: pytest.MonkeyPatch) -> None:
    hand = play_hand("KH 9H 7S 8D AC / 7H 9S AS KD 9C / TH", first_legal)
    with_kernel = review(hand, samples=100)
    monkeypatch.setattr(dd, "kernel", None)
    assert review(hand, samples=100) == with_kernel


def test_review_command_on_a_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cli.review import add_parser, run_review
    from firmware_host.journal.store import Journal

    transcript = Path(__file__).parent.parent / "transcripts" / "french_vole_refus.jsonl"
    lines = [ln for ln in transcript.read_text(encoding="utf-8").splitlines() if ln and not ln.startswith("#")]
    path = tmp_path / "journal.sqlite"
    with Journal(path) as journal:
        game = journal.start_game(lines[0])
        for line in lines[1:]:
            journal.mark_done(journal.append(game, line))
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["review", "--journal", str(path), "--samples", "50", "--detail"])
    assert run_review(args) == 0
    out = capsys.readouterr().out
    assert "game 1 hand 1 (french)" in out and "game 1 hand 2 (french)" in out
    assert "jeu de règle" in out and "the classics" in out  # each seat's decision names its row (--detail)
    args = parser.parse_args(["review", "--journal", str(path), "--hand", "2", "--samples", "50"])
    assert run_review(args) == 0
    assert "hand 1 " not in capsys.readouterr().out


def test_review_command_says_what_is_missing(tmp_path: Path) -> None:
    from cli.review import add_parser, run_review
    from firmware_host.errors import BadInput

    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    with pytest.raises(BadInput, match="no journal"):
        run_review(parser.parse_args(["review", "--journal", str(tmp_path / "none.sqlite")]))


def test_the_review_names_the_classical_row_and_whether_the_classics_agree() -> None:
    """A stood with three trumps and the king: the row is 3T, and with the king the classics propose."""
    result = review(play_hand(STRONG, perfect), samples=300)
    elder = result.advice[0]
    assert elder.classical.row is not None and elder.classical.row.name == "3T" and elder.classical.king
    assert not elder.classical.plays and elder.agrees == (not elder.should_stand)
    assert "jeu de règle 3T (three trumps or more, whatever the other cards), with the king of trumps: the classics " \
        "propose" in elder.text()
    assert elder.text().startswith(elder.decision() + " (point ")
    for finding, line in zip(result.decisions, result.lines()[len(result.cards):], strict=True):
        assert line == finding.long_text() and "jeu de règle 3T" in line


# -- a partial-sight table's records: the deal made whole from the plays (complete_deal) ---------


def _hand_with_an_exchange(seed: int) -> list[dict[str, object]]:
    """A whole classic hand played at random (dealer B) that has an exchange, its deal written
    card by card as the table records it (elder's 3, dealer's 3, elder's 2, dealer's 2, turn-up)."""
    import random

    import engine
    from engine.random_play import random_action

    for tries in range(seed, seed + 200):
        state = engine.new_game("classic", dealer="B")
        rng = random.Random(tries)
        actions: list[dict[str, object]] = []
        for _ in range(200):
            action = random_action(state, rng)
            state, events = engine.apply(state, action)
            actions.append(action.to_json())
            if any(e.event == "hand_end" for e in events):
                break
        kinds = [a["action"] for a in actions]
        if "draw" not in kinds or kinds[-1] != "play":
            continue
        deal = actions[0]
        assert deal["action"] == "deal"
        cards = {"A": list(deal["a"]), "B": list(deal["b"])}
        packets = (("A", slice(0, 3)), ("B", slice(0, 3)), ("A", slice(3, 5)), ("B", slice(3, 5)))
        dealt = [{"action": "deal_card", "seat": seat, "card": card}
                 for seat, part in packets for card in cards[seat][part]]
        return [*dealt, {"action": "turn_up", "card": deal["turn_up"]}, *actions[1:]]
    raise AssertionError("no random hand with an exchange")


@pytest.mark.parametrize("seed", [0, 100, 200])
def test_a_partial_sight_record_with_an_exchange_is_made_whole(seed: int) -> None:
    """Two dealt cards the pads did not see (one a seat, discarded or played later): the hand
    is still reviewed, with the same hands as the whole record."""
    from coach.review import hands_of_record

    whole = _hand_with_an_exchange(seed)
    seen = [a for i, a in enumerate(whole) if i not in (1, 4)]  # the elder's 2nd and the dealer's 2nd card
    expected = hands_of_record({"name": "classic"}, "B", whole)
    assert len(expected) == 1
    assert hands_of_record({"name": "classic"}, "B", seen) == expected


def test_a_record_with_a_whole_deal_is_left_as_it_is() -> None:
    """A record whose deal is one ``deal`` action (not card by card) holds the whole deal already."""
    from coach.review import complete_deal, hands_of_record

    whole = _hand_with_an_exchange(0)
    at_once = {"action": "deal", "a": [a["card"] for a in whole[:10] if a["seat"] == "A"],
               "b": [a["card"] for a in whole[:10] if a["seat"] == "B"], "turn_up": whole[10]["card"]}
    record = [at_once, *whole[11:]]
    assert complete_deal("B", record) == record
    assert len(hands_of_record({"name": "classic"}, "B", record)) == 1
