"""Property tests: random legal games of every rule set, checked against an
independent model of the rules written here (scores, card accounting, legality).

Games are driven by a ``random.Random`` seeded by hypothesis, choosing uniformly
from ``legal_actions`` (single-card forms: what the pads produce) or with
:func:`engine.random_play.random_action` (whole forms); illegal plays are
injected at random positions.
"""

from __future__ import annotations

import json
import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    CARDS,
    Action,
    Bid,
    Card,
    Event,
    Fault,
    GameEnd,
    GameState,
    HandEnd,
    King,
    MatchEnd,
    Offer,
    Penalty,
    PlayBegins,
    PlayCard,
    TargetSet,
    Trick,
    Trump,
    action_from_json,
    apply,
    cards_of,
    check,
    event_from_json,
    legal_actions,
    legal_plays,
    new_game,
    replay,
)
from engine.random_play import play_random_game, random_action

CONFIGS = [
    ("classic", {}),
    ("french", {}),
    ("italian", {}),
    ("italian", {"forzare": True}),
    ("german", {}),
    ("classic", {"ace_high": True, "game_value": True}),
    ("classic", {"doubling": True, "offer_point": True}),
    ("italian", {"doubling": True, "offer_point": True, "forzare": True}),
    ("german", {"doubling": True, "offer_point": True, "rubber": 3, "target": 3}),
    ("classic", {"rubber": 3, "target": 3, "game_value": True}),
    ("french", {"a_la_retourne": True}),
    ("classic", {"pool": True, "target": 2}),
]
IDS = [name + "".join(f"-{k}" for k in opts) for name, opts in CONFIGS]


def examples(n: int) -> int:
    """``n`` at the default 100 examples; scaled by the loaded hypothesis profile."""
    return max(1, n * settings.default.max_examples // 100)


# -- the independent model ---------------------------------------------------------------------

SEAT = {"A": 0, "B": 1}


def order(state: GameState) -> str:
    return "AKQJT987" if state.rules.ace_high else "KQJAT987"


def beats(state: GameState, card: Card, other: Card) -> bool:
    o = order(state)
    return o.index(card.rank) < o.index(other.rank)


def naive_play_fault(state: GameState, seat: str, card: Card) -> str | None:
    """The fault code a referee would call for ``seat`` playing ``card``, or None."""
    if state.offer is not None:
        return "out_of_turn"
    hand = set(state.hand(seat))
    if card not in hand:
        return "card_not_in_hand"  # docs/transcript.md: whoever's turn it is
    if seat != state.turn:
        return "out_of_turn"
    trump = state.trump
    king = Card("K", trump)
    if state.led < 0:
        if state.king_to_lead == seat and king in hand and card != king:
            return "king_not_led"
        return None
    led = CARDS[state.led]
    same = [c for c in hand if c.suit == led.suit]
    rules = state.rules
    if same:
        if card.suit != led.suit:
            return "revoke"
        higher = [c for c in same if beats(state, c, led)]
        if rules.must_overtake and higher and not beats(state, card, led):
            return "not_overtaking"
        pool = higher if rules.must_overtake and higher else same
        if rules.forzare and any(beats(state, c, card) for c in pool):
            return "not_highest"
        return None
    trumps = [c for c in hand if c.suit == trump]
    if trumps:
        if card.suit != trump:
            return "not_trumping"
        if rules.forzare and any(beats(state, c, card) for c in trumps):
            return "not_highest"
    return None


def trick_points(name: str, tricks: list[int], vulnerable: int | None, declarer: int | None) -> list[int]:
    """The source tables, written again: 003 rules 48-49, 001, 000, 002."""
    points = [0, 0]
    if name == "german":
        made = tricks[declarer]  # type: ignore[index]
        points[declarer] = 2 if made == 5 else 1 if made >= 3 else -2  # type: ignore[index]
        return points
    winner = 0 if tricks[0] >= 3 else 1
    if name == "italian":
        points[winner] = 2 if tricks[winner] == 5 else 1
        if vulnerable is not None and tricks[vulnerable] < 3:
            points[vulnerable] -= 1
        return points
    points[winner] = 2 if tricks[winner] == 5 or vulnerable == 1 - winner else 1
    return points


def game_value(state: GameState, loser: int) -> int:
    if state.rules.game_value:
        return 3 if loser <= 0 else 2 if loser <= 2 else 1
    if state.rules.name == "german":
        return 2 if loser <= 0 else 1
    return 1


class Referee:
    """Follows the event stream and recomputes every score the engine announces."""

    def __init__(self, state: GameState) -> None:
        self.name = state.rules.name
        self.target = state.target
        self.score = [0, 0]
        self.games = [0, 0]
        self.over = False
        self.new_hand()

    def new_hand(self) -> None:
        self.tricks = [0, 0]
        self.extra = [0, 0]  # kings and penalties
        self.vulnerable: int | None = None
        self.declarer: int | None = None
        self.multiplier = 1
        self.forced: list[int] | None = None
        self.must_vole: int | None = None
        self.stock = 21

    def add(self, seat: int, points: int) -> None:
        self.score[seat] += points
        self.extra[seat] += points

    def as_if_point(self, winner: int) -> list[int]:
        tricks = [3, 2] if winner == 0 else [2, 3]
        return trick_points(self.name, tricks, self.vulnerable, winner)

    def see(self, before: GameState, after: GameState, events: tuple[Event, ...]) -> None:
        for event in events:
            if isinstance(event, TargetSet):
                self.target = event.target
            elif isinstance(event, Trump):
                self.new_hand()
            elif isinstance(event, King):
                self.add(SEAT[event.seat], 1)
                assert tuple(self.score) == event.score
            elif isinstance(event, Penalty):
                self.add(SEAT[event.seat], event.points)
            elif isinstance(event, Fault):
                # 000: -1 to who did not follow suit, announced by a Penalty event
                charged = self.name == "italian" and event.code in ("revoke", "not_trumping")
                following = events[events.index(event) + 1:]
                assert any(isinstance(e, Penalty) and e.reason == event.code for e in following) == charged
            elif isinstance(event, Bid):
                if event.vulnerable:
                    assert self.vulnerable is None
                    self.vulnerable = SEAT[event.seat]
            elif isinstance(event, PlayBegins):
                self.declarer = SEAT[event.declarer] if event.declarer else None
                assert (self.declarer is not None) == (self.name == "german")
            elif isinstance(event, Trick):
                self.tricks[SEAT[event.winner]] += 1
            elif isinstance(event, Offer) and event.accepted is not None:
                by = SEAT[event.seat]
                if event.offer == "double" and event.accepted:
                    self.multiplier = 2
                elif event.offer == "double":
                    self.forced = self.as_if_point(by)
                elif event.accepted:
                    self.forced = self.as_if_point(1 - by)
                else:
                    self.must_vole = 1 - by
            elif event.event == "exchange":
                self.stock -= event.count  # type: ignore[attr-defined]
                assert event.stock == self.stock  # type: ignore[attr-defined]
            elif isinstance(event, HandEnd):
                assert tuple(self.tricks) == event.tricks
                if self.forced is not None:
                    points = self.forced
                elif self.must_vole is not None and self.tricks[self.must_vole] != 5:
                    points = [0, 0]
                    points[1 - self.must_vole] = 2
                else:
                    assert sum(self.tricks) == 5
                    points = trick_points(self.name, self.tricks, self.vulnerable, self.declarer)
                for i in (0, 1):
                    self.score[i] += points[i] * self.multiplier
                expected = tuple(points[i] * self.multiplier + self.extra[i] for i in (0, 1))
                assert event.points == expected, (event, self.tricks, self.vulnerable, self.extra)
                assert event.score == tuple(self.score)
            elif isinstance(event, GameEnd):
                w = SEAT[event.winner]
                assert event.score == tuple(self.score)
                assert self.score[w] >= self.target
                assert event.value == game_value(before, self.score[1 - w])
                self.games[w] += 1
                self.score = [0, 0]
            elif isinstance(event, MatchEnd):
                self.over = True
        if after.phase != "over":
            assert after.score == tuple(self.score), (after.score, self.score, events)
            assert max(after.score) < after.target  # the game ends the moment a seat reaches it
        assert after.games == tuple(self.games)


def check_cards(state: GameState) -> None:
    """Every one of the 32 cards is in exactly one place."""
    places = [state.hands[0], state.hands[1], state.discards[0], state.discards[1], state.played]
    if state.led >= 0:
        places.append(1 << state.led)
    if state.turn_up >= 0:
        places.append(1 << state.turn_up)
    seen = 0
    for mask in places:
        assert seen & mask == 0
        seen |= mask
    if state.turn_up >= 0:
        assert seen.bit_count() + state.stock_size == 32
        assert seen | state.stock_mask == (1 << 32) - 1
    sizes = [state.hands[0].bit_count(), state.hands[1].bit_count()]
    if state.phase in ("propose", "respond", "force"):
        assert sizes == [5, 5]
    if state.phase == "play":
        assert sizes == [5 - state.counts[0], 5 - state.counts[1]]
        assert state.played.bit_count() == 2 * sum(state.tricks)
        assert (state.led >= 0) == (sum(state.counts) % 2 == 1)
    if state.phase == "exchange":
        drawn = sum(sizes) - 10 + state.discards[0].bit_count() + state.discards[1].bit_count()
        assert drawn >= 0


CARD_TOKEN = re.compile(r'"([789TAJQK][SHDC])"')


def check_public_view(state: GameState) -> None:
    text = json.dumps(state.public().to_json())
    visible = {str(c) for c in cards_of(state.played)}
    if state.turn_up >= 0:
        visible.add(str(CARDS[state.turn_up]))
    if state.led >= 0:
        visible.add(str(CARDS[state.led]))
    assert set(CARD_TOKEN.findall(text)) <= visible


def play_game(name: str, options: dict, seed: int, *, whole_forms: bool, illegal: float,
              dealer_cut: bool) -> tuple[GameState, list[Action], list[Event], GameState]:
    rng = random.Random(seed)
    start = new_game(name, dealer=None if dealer_cut else rng.choice("AB"), **options)
    state = start
    referee = Referee(state)
    actions: list[Action] = []
    events: list[Event] = []
    for _ in range(8_000):
        if state.is_over:
            break
        check_cards(state)
        if state.phase == "play" and rng.random() < illegal:
            seat = rng.choice("AB")
            own = state.hand(state.turn or "A")
            # mostly a card of the hand of the seat to play: the faults of rule 43
            card = rng.choice(own) if own and rng.random() < 0.7 else rng.choice(CARDS)
            action: Action = PlayCard(seat, card)
            expected = naive_play_fault(state, seat, card)
            assert (action in legal_actions(state)) == (expected is None)
            if expected is not None:
                new, caused = apply(state, action)
                codes = [getattr(e, "code", getattr(e, "reason", None)) for e in caused]
                if name == "italian" and expected in ("revoke", "not_trumping"):
                    assert codes == [expected, expected], (state.hand(seat), card)
                    i = SEAT[seat]
                    score = list(state.score)
                    score[i] -= 1
                    hp = list(state.hand_points)
                    hp[i] -= 1
                    assert new == state.evolve(score=tuple(score), hand_points=tuple(hp))
                else:
                    assert codes == [expected], (state.hand(seat), card)
                    assert new == state
                referee.see(state, new, caused)
                actions.append(action)
                events.extend(caused)
                state = new
                continue
        if whole_forms or (state.rules.declares_game and state.phase in ("propose", "respond", "force")):
            # german: uniform declaring loses -2 so often that a game can run for ever;
            # random_action declares on strong hands
            action = random_action(state, rng)
        else:
            legal = list(legal_actions(state))
            assert legal, state.phase
            action = rng.choice(legal)
            assert check(state, action) is None
        assert action in legal_actions(state)
        assert action_from_json(json.loads(json.dumps(action.to_json()))) == action
        new, caused = apply(state, action)
        assert not any(isinstance(e, Fault) for e in caused)
        for event in caused:
            assert event_from_json(json.loads(json.dumps(event.to_json()))) == event
        referee.see(state, new, caused)
        actions.append(action)
        events.extend(caused)
        state = new
        if state.phase == "play":
            check_public_view(state)
            # every card the seat to play holds is either legal or refused with a fault
            seat = state.turn or "A"
            mask = legal_plays(state, seat)
            for card in state.hand(seat):
                assert (mask >> card.index & 1) == (naive_play_fault(state, seat, card) is None)
    assert state.is_over, "the game did not end"
    assert referee.over == (state.rules.rubber > 1 or state.rules.pool)
    return start, actions, events, state


@settings(max_examples=examples(150), deadline=None)
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**32 - 1), cut=st.booleans())
def test_random_games_from_legal_actions(config, seed, cut):
    name, options = config
    start, actions, events, final = play_game(name, options, seed, whole_forms=False, illegal=0.3, dealer_cut=cut)
    # replay from the action list gives the identical state and events
    state, replayed = replay(start, actions)
    assert state == final and list(replayed) == events
    # and so does a replay of the actions read back from JSON
    again = [action_from_json(json.loads(json.dumps(a.to_json()))) for a in actions]
    assert replay(start, again)[0] == final
    assert GameState.from_json(json.loads(json.dumps(final.to_json()))) == final


@settings(max_examples=examples(80), deadline=None)
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**32 - 1))
def test_random_games_with_whole_forms(config, seed):
    name, options = config
    start, actions, events, final = play_game(name, options, seed, whole_forms=True, illegal=0.1, dealer_cut=False)
    assert replay(start, actions) == (final, tuple(events))


@settings(max_examples=examples(40), deadline=None)
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**32 - 1))
def test_random_play_module_ends_and_is_deterministic(config, seed):
    name, options = config
    start = new_game(name, dealer="A", **options)
    a = play_random_game(start, random.Random(seed))
    b = play_random_game(start, random.Random(seed))
    assert a == b and a.is_over and a.winner in ("A", "B")


@settings(max_examples=examples(150), deadline=None)
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 120))
def test_states_round_trip_through_json_anywhere(config, seed, steps):
    name, options = config
    rng = random.Random(seed)
    state = new_game(name, **options)
    for _ in range(steps):
        if state.is_over:
            break
        state, _ = apply(state, rng.choice(list(legal_actions(state))))
    text = json.dumps(state.to_json())
    back = GameState.from_json(json.loads(text))
    assert back == state
    assert list(legal_actions(back)) == list(legal_actions(state))
    for seat in (None, "A", "B"):
        view = state.public() if seat is None else state.view(seat)
        json.dumps(view.to_json())


def test_the_injected_illegal_plays_cover_every_code_of_play():
    """The property above is only as good as the faults it provokes: check it sees them all."""
    seen: set[str] = set()
    for seed in range(5):
        for name, options in (("classic", {}), ("italian", {"forzare": True}), ("german", {})):
            _, _, events, _ = play_game(name, options, seed, whole_forms=False, illegal=0.5, dealer_cut=False)
            seen |= {e.code for e in events if isinstance(e, Fault)}
    assert seen >= {"out_of_turn", "card_not_in_hand", "revoke", "not_overtaking", "not_trumping",
                    "not_highest"}
