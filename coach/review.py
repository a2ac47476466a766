"""The review of a played hand: what best play would have changed, card by card and at the first decision.

For each card played, :func:`review` compares the double-dummy result before it with the one
after it: a card that loses a trick the seat could have won (both hands known) is a
:class:`CardFinding`. The finding then says whether the seat *could have known*: with only what
it had seen (:mod:`coach.single_dummy`), was the better card also better on average? The first
decisions (the elder's stand or proposal, the dealer's answer) are weighed with
:mod:`coach.odds`. A hand played perfectly has nothing to say.

The hands come from the engine's own states and events (:class:`HandRecorder`), so a review
reads the journal through the same referee that played it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import engine
from catalogue import card_words, number, say, say_n
from catalogue.phrase import said
from coach.double_dummy import Position, best_cards, card_values
from coach.jeu_de_regle import Classical
from coach.odds import Advice, dealer_advice, elder_advice
from coach.single_dummy import Step, utility, worlds
from coach.single_dummy import card_values as sd_card_values
from engine.cards import CARDS, Card
from engine.events import Bid, Event, HandEnd, King, PlayBegins, Played, Trump
from engine.rules import RuleSet
from engine.seats import INDEX, SEATS
from engine.state import GameState


@dataclass(frozen=True, slots=True)
class PlayedHand:
    """One hand as the table saw it: the deal, the first decisions, and every card with the position before it.

    Seats are indices (0 = A). ``elder_bid``/``dealer_bid``: the first decision of each
    (``stand``, ``propose``, ``accept``, ``refuse``, german ``declare``, ``pass``; ``""`` none).
    """

    rules: RuleSet
    dealer: int
    turn_up: int
    dealt: tuple[int, int]
    elder_bid: str
    dealer_bid: str
    vulnerable: int | None
    declarer: int | None
    discards: tuple[int, int]
    steps: tuple[Step, ...]
    game: int = 1
    hand: int = 1

    @property
    def elder(self) -> int:
        return 1 - self.dealer


@dataclass(frozen=True, slots=True)
class CardFinding:
    """A card that lost what best play would have kept.

    ``trick``: 1 to 5; ``better``: the cards that keep the double-dummy result; ``tricks_lost``
    and ``points_lost`` (the seat's net score, in points) double dummy; ``knowable``: with what the
    seat could know, a better card was also better on average (else it was bad luck).
    """

    seat: int
    trick: int
    played: Card
    better: tuple[Card, ...]
    tricks_lost: int
    points_lost: int
    knowable: bool
    what: str
    """What the better card would have done, a message id of its own (``coach.won_point``...)."""

    def text(self, lang: str = "en", names: Sequence[str] = SEATS) -> str:
        """``'B could have won the point: 9♥ at trick 3'`` (in ``lang``, ``names`` for the seats)."""
        what = say(lang, "coach." + self.what, n=self.tricks_lost)
        return say(lang, "coach.could_have", who=names[self.seat], what=what,
                   card=card_words(lang, str(self.better[0])), trick=self.trick)

    def said(self, lang: str = "en", names: Sequence[str] = SEATS) -> str:
        """The finding for a club player, in ``lang``: ``'B could have won the point by playing the 9♥
        at trick 3 instead of the 7♠: it cost 1 point.'``, and whether B could have known."""
        who = names[self.seat]
        lost = self.points_lost
        cost = (say(lang, "coach.cost_none") if lost == 0 else
                say_n(lang, "coach.cost", 1 if abs(lost) == 1 else lost))
        known = "" if self.knowable else " " + say(lang, "coach.bad_luck", who=who)
        return say(lang, "coach.said_card", who=who, what=say(lang, "coach." + self.what, n=self.tricks_lost),
                   better=card_words(lang, str(self.better[0])), trick=self.trick,
                   played=card_words(lang, str(self.played)),
                   cost=cost) + known


@dataclass(frozen=True, slots=True)
class DecisionFinding:
    """A first decision that was worth less than the other choice (expected net points, ``cost``)."""

    seat: int
    chose: str
    better: str
    cost: float
    classical: Classical
    """The classical row of the hand and its advice (:meth:`coach.jeu_de_regle.Classical.words`)."""

    def text(self, lang: str = "en", names: Sequence[str] = SEATS) -> str:
        """``'A should propose (not stand): +0.39 pt'``; :meth:`long_text` adds the classical row."""
        return say(lang, "coach.should", who=names[self.seat], better=say(lang, "bid." + self.better),
                   chose=say(lang, "bid." + self.chose), cost=f"{self.cost:+.2f}")

    def said(self, lang: str = "en", names: Sequence[str] = SEATS) -> str:
        """The finding for a club player, in ``lang``: ``'A should have proposed, not stood: over many such
        deals that is worth 0.39 points more each time; the classical rules of thumb ... propose too.'``"""
        return say(lang, "coach.said_decision", who=names[self.seat], better=say(lang, "past." + self.better),
                   chose=say(lang, "past." + self.chose), cost=number(lang, self.cost),
                   agree=classical_said(self.classical, self.better, lang))

    def long_text(self, lang: str = "en", names: Sequence[str] = SEATS) -> str:
        """``'A should propose (not stand): +0.39 pt (jeu de règle 3T, with the king of trumps: the classics
        propose)'``."""
        return f"{self.text(lang, names)} ({self.classical.words(lang)})"


@dataclass(frozen=True, slots=True)
class Review:
    """What the coach has to say of a hand: nothing, for a hand played perfectly."""

    hand: PlayedHand
    cards: tuple[CardFinding, ...] = ()
    decisions: tuple[DecisionFinding, ...] = ()
    advice: tuple[Advice, ...] = field(default=(), compare=False)

    @property
    def perfect(self) -> bool:
        return not self.cards and not self.decisions

    def cost(self, seat: int) -> int:
        """The points ``seat``'s cards cost it, double dummy."""
        return sum(f.points_lost for f in self.cards if f.seat == seat)

    def lines(self, lang: str = "en", names: Sequence[str] = SEATS) -> list[str]:
        """The review in words, one finding a line (``ecarte-table review``), in ``lang``."""
        out = [f.text(lang, names) + ("" if f.knowable else " " + say(lang, "coach.unknowable"))
               + " " + say(lang, "coach.points_lost", n=f.points_lost) for f in self.cards]
        out += [d.long_text(lang, names) for d in self.decisions]
        return out

    def said(self, lang: str = "en", names: Sequence[str] = SEATS) -> list[str]:
        """The review in words for a club player (``ecarte-table review``; :meth:`lines` with
        ``--detail``), in ``lang``."""
        return [f.said(lang, names) for f in self.cards] + [d.said(lang, names) for d in self.decisions]

    def oled_line(self, lang: str = "en", names: Sequence[str] = SEATS) -> str:
        """The one line for the OLED after the hand (``""``: nothing to say): the costliest
        finding, one the player could have known first."""
        if not self.cards:
            return self.decisions[0].text(lang, names) if self.decisions else ""
        worst = max(self.cards, key=lambda f: (f.knowable, f.points_lost, f.tricks_lost, -f.trick))
        return worst.text(lang, names)


def chance_said(p: float, lang: str = "en") -> str:
    """A probability as a club player says it: ``'about 4 times in 10'``, ``'almost never'``.

    >>> chance_said(0.395), chance_said(0.001), chance_said(0.997), chance_said(0.04)
    ('about 4 times in 10', 'almost never', 'almost always', 'less than once in 10')
    >>> chance_said(0.395, "es")
    'unas 4 veces de cada 10'
    """
    if p < 0.01:
        return say(lang, "chance.never")
    if p > 0.99:
        return say(lang, "chance.always")
    tenths = round(p * 10)
    if tenths == 0:
        return say(lang, "chance.less_than_one")
    if tenths == 10:
        return say(lang, "chance.more_than_nine")
    return say_n(lang, "chance.tenths", tenths)


def classical_said(classical: Classical, best: str, lang: str = "en") -> str:
    """What the classical rules of thumb (the *jeu de règle*) say of the hand, in words, and
    whether they agree with ``best`` (the exact choice); the row said in words (:meth:`Row.said`)."""
    play, other = (("stand", "propose") if classical.seat == "elder" else ("refuse", "accept"))
    verb = play if classical.plays else other
    if classical.row is None:
        where = say(lang, "rules_of_thumb.none")
    else:
        king = say(lang, "rules_of_thumb.with_king") if classical.king else ""
        where = say(lang, "rules_of_thumb.row", name=classical.row.name, row=said(classical.row.words, lang), king=king)
    verb_said = say(lang, "bid." + verb)
    if best in (play, other) and best != verb:
        return say(lang, "rules_of_thumb.disagree", where=where, verb=verb_said)
    return say(lang, "rules_of_thumb.too" if best in (play, other) else "rules_of_thumb.say", where=where,
               verb=verb_said)


def advice_said(seat: str, advice: Advice, lang: str = "en") -> str:
    """A seat's first decision weighed, in words (``--detail``: :meth:`coach.odds.Advice.text`):
    ``'A: best was to propose. Playing the cards as dealt, A would win the point about 4 times in 10
    and the vole almost never; proposing is worth 0.67 points more on average. ...'``"""
    play, other = advice.words()
    best = advice.decision()
    gap = abs(advice.stand - advice.propose.mean)
    odds = advice.odds
    worse = other if best == play else play
    best_said, worse_said = say(lang, "bid." + best), say(lang, "bid." + worse)
    worth = (say(lang, "coach.worth_more", best=best_said, gap=number(lang, gap), worse=worse_said)
             if gap > 2 * advice.propose.stderr else say(lang, "coach.worth_same", best=best_said, worse=worse_said))
    where = classical_said(advice.classical, best, lang)
    return say(lang, "coach.advice_said", who=seat, best=best_said, point=chance_said(odds.point, lang),
               vole=chance_said(odds.vole, lang), worth=worth, classical=where[:1].upper() + where[1:])


def _what(before: int, after: int) -> str:
    """What the better card would have done: the id of its words (``coach.<what>``)."""
    if before == 5:
        return "won_vole"
    if before >= 3 > after:
        return "won_point"
    if before >= 1 and after == 0:
        return "saved_vole"
    return "one_more_trick" if before - after == 1 else "more_tricks"


def review(hand: PlayedHand, *, decisions: bool = True, samples: int = 1000, limit: int = 24,
           pure: bool = False) -> Review:
    """Review ``hand``: every card against double dummy (then single dummy), and the first decisions."""
    rules = hand.rules
    rng = random.Random(hand.game * 1000 + hand.hand)
    values = (utility(rules, 0, vulnerable=hand.vulnerable, declarer=hand.declarer),
              utility(rules, 1, vulnerable=hand.vulnerable, declarer=hand.declarer))
    cards: list[CardFinding] = []
    for k, step in enumerate(hand.steps):
        position = step.position
        seat = position.to_play
        results = card_values(rules, position, pure=pure)
        best = max(r[seat] for r in results.values())
        got = results[step.card][seat]
        if got >= best:
            continue
        better = best_cards(rules, position, pure=pure)
        hidden = worlds(rules, position, hand.steps[:k], known=hand.discards[seat], limit=limit, rng=rng)
        sd = sd_card_values(rules, position, hidden, values[seat], pure=pure)
        knowable = max(sd[c.index] for c in better) > sd[step.card] + 1e-9
        cards.append(CardFinding(
            seat, position.tricks[0] + position.tricks[1] + 1, CARDS[step.card], better, best - got,
            values[seat][best] - values[seat][got], knowable, _what(best, got),
        ))
    found: list[DecisionFinding] = []
    advice: list[Advice] = []
    if decisions and hand.elder_bid:
        elder = elder_advice(rules, hand.dealt[hand.elder], hand.turn_up, samples=samples, pure=pure)
        advice.append(elder)
        found += _weigh(hand.elder, hand.elder_bid, elder)
        if hand.dealer_bid:
            dealer = dealer_advice(rules, hand.dealt[hand.dealer], hand.turn_up, samples=samples, pure=pure)
            advice.append(dealer)
            found += _weigh(hand.dealer, hand.dealer_bid, dealer)
    return Review(hand, tuple(cards), tuple(found), tuple(advice))


def _weigh(seat: int, bid: str, advice: Advice) -> list[DecisionFinding]:
    """A finding when the choice made (``bid``) is worse by more than twice the estimate's standard error."""
    stand, other = advice.words()
    stood = bid == stand
    gap = advice.stand - advice.propose.mean
    margin = 2 * advice.propose.stderr
    if stood and gap < -margin:
        return [DecisionFinding(seat, stand, other, -gap, advice.classical)]
    if not stood and gap > margin:
        return [DecisionFinding(seat, other, stand, gap, advice.classical)]
    return []


# -- hands from the referee's states and events -----------------------------------------------------------


@dataclass
class HandRecorder:
    """Collects :class:`PlayedHand` values from the referee: feed it each action's state before, its
    events and the state after (:meth:`feed`); finished hands are in ``hands``."""

    hands: list[PlayedHand] = field(default_factory=list)
    _dealt: tuple[int, int] = (0, 0)
    _turn_up: int = -1
    _bids: dict[int, str] = field(default_factory=dict)
    _start: GameState | None = None
    _now: Position | None = None
    _steps: list[Step] = field(default_factory=list)

    def feed(self, events: list[Event] | tuple[Event, ...], after: GameState) -> None:
        """Take the events of one action (or one physical event) and the referee's state after them.

        The positions of the play are followed card by card from the first one (the state when
        play begins), with the engine's own :meth:`Position.play`; a king announced under a rule set
        where it must be led makes its holder lead it."""
        for event in events:
            if isinstance(event, Trump):
                self._dealt = after.hands
                self._turn_up = after.turn_up
                self._bids = {}
                self._steps = []
                self._start = None
                self._now = None
            elif isinstance(event, Bid):
                seat = INDEX[event.seat]
                self._bids.setdefault(seat, event.bid)
            elif isinstance(event, PlayBegins):
                self._start = after
                self._now = position_of(after)
            elif isinstance(event, King) and self._now is not None and after.rules.king_must_be_led:
                self._now = replace(self._now, king_to_lead=INDEX[event.seat])
            elif isinstance(event, Played) and self._now is not None:
                self._steps.append(Step(self._now, event.card.index))
                self._now = self._now.play(after.rules, event.card.index)
            elif isinstance(event, HandEnd) and self._start is not None:
                start = self._start
                dealer = INDEX[start.dealer]
                self.hands.append(PlayedHand(
                    rules=start.rules, dealer=dealer, turn_up=self._turn_up, dealt=self._dealt,
                    elder_bid=self._bids.get(1 - dealer, ""), dealer_bid=self._bids.get(dealer, ""),
                    vulnerable=None if start.vulnerable is None else INDEX[start.vulnerable],
                    declarer=None if start.declarer is None else INDEX[start.declarer],
                    discards=start.discards, steps=tuple(self._steps), game=start.game_no, hand=start.hand_no,
                ))
                self._start = None
                self._now = None


def hands_of_record(rules: Mapping[str, Any], dealer: str, actions: Sequence[dict[str, Any]], *,
                    game: int = 1, hand: int = 1) -> list[PlayedHand]:
    """The hand a table's hand record holds (the ``hand_record`` event: the rule set, the dealer
    and the actions it accepted), replayed through the engine; empty when the hand did not
    reach its end (a game won by a king point before the last trick)."""
    options = {k: v for k, v in rules.items() if k != "name"}
    state = engine.new_game(str(rules.get("name", "classic")), dealer=dealer, **options)
    recorder = HandRecorder()
    for data in complete_deal(dealer, actions):
        state, events = engine.apply(state, engine.action_from_json(data))
        recorder.feed(events, state)
    return [replace(h, game=game, hand=hand) for h in recorder.hands]


def complete_deal(dealer: str, actions: Sequence[dict[str, Any]]) -> Sequence[dict[str, Any]]:
    """A partial-sight table's record (its pads saw only some dealt cards) with the deal made
    whole where the hand shows it: a seat's dealt cards are the cards it played and discarded,
    less those it drew. Unchanged when the record's deal is whole or the hand does not show it
    (a discard the pads did not see)."""
    seats = SEATS
    if any(data.get("action") in ("deal", "elder_deal") for data in actions):
        return actions  # the whole deal at once: nothing to make whole
    dealt: dict[str, list[str]] = {seat: [] for seat in seats}
    shown: dict[str, set[str]] = {seat: set() for seat in seats}  # played or discarded
    drawn: dict[str, set[str]] = {seat: set() for seat in seats}
    for data in actions:
        seat, kind = data.get("seat"), data.get("action")
        if seat not in shown:
            continue
        if kind == "deal_card":
            dealt[seat].append(data["card"])
        elif kind in ("play", "discard"):
            shown[seat].update([data["card"]] if kind == "play" else data["cards"])
        elif kind == "draw":
            drawn[seat].update(data["cards"])
    if all(len(dealt[seat]) == 5 for seat in seats):
        return actions
    # a drawn card is played or discarded after it is drawn: what a seat was dealt is what it
    # showed, less what it drew (counted once the whole hand is read)
    held = {seat: shown[seat] - drawn[seat] for seat in seats}
    if not all(len(held[seat]) == 5 and set(dealt[seat]) <= held[seat] for seat in seats):
        return actions
    elder = "B" if dealer == "A" else "A"
    cards = {seat: [*dealt[seat], *sorted(held[seat] - set(dealt[seat]))] for seat in seats}
    packets = ((elder, slice(0, 3)), (dealer, slice(0, 3)), (elder, slice(3, 5)), (dealer, slice(3, 5)))
    deal = [{"action": "deal_card", "seat": seat, "card": card}
            for seat, packet in packets for card in cards[seat][packet]]
    others = [a for a in actions if a.get("action") != "deal_card"]
    at = next((i for i, a in enumerate(others) if a.get("action") not in ("cut",)), len(others))
    return [*others[:at], *deal, *others[at:]]


def why_not_reviewed(dealer: str, actions: Sequence[dict[str, Any]], lang: str = "en") -> str:
    """Why the coach cannot review a hand record, in ``lang``'s words (``""``: the deal can be made
    whole), the cards the pads saw named as ``lang``'s pack prints them.

    A partial-sight table may not see some dealt cards; when the plays do not show them either
    (they were discarded unseen, or an unseen replacement makes it unclear which cards were dealt),
    the deal cannot be made whole (:func:`complete_deal`) and the hand cannot be reviewed.

    >>> said = why_not_reviewed("B", [{"action": "deal_card", "seat": "A", "card": "KH"}])
    >>> said.startswith("the pads saw only 1 of A's five dealt cards (K♥) and none of B's five dealt cards, and")
    True
    >>> why_not_reviewed("B", [{"action": "deal_card", "seat": "A", "card": "KH"}], "fr")[:61]
    'les tapis ont vu seulement 1 des cinq cartes données à A (R♥)'
    """
    if complete_deal(dealer, actions) is not actions:
        return ""
    if any(data.get("action") in ("deal", "elder_deal") for data in actions):
        return ""
    seen: dict[str, list[str]] = {seat: [] for seat in SEATS}
    for data in actions:
        if data.get("action") == "deal_card" and data.get("seat") in seen:
            seen[str(data["seat"])].append(str(data["card"]))
    if all(len(cards) == 5 for cards in seen.values()):
        return ""
    parts = [say(lang, "review.saw_none", seat=seat) if not cards else
             say(lang, "review.saw_all", seat=seat) if len(cards) >= 5 else
             say(lang, "review.saw_some", seat=seat, n=len(cards),
                 cards=" ".join(card_words(lang, str(Card.parse(c))) for c in cards))
             for seat, cards in seen.items()]
    return say(lang, "review.unseen_cards", seen=f" {say(lang, 'voice.and')} ".join(parts))


def position_of(state: GameState) -> Position:
    """The double-dummy position of a state in the play phase."""
    leader = state.leader if state.led >= 0 else state.turn
    return Position(
        hands=state.hands, leader=INDEX[leader or "A"], turn_up=state.turn_up, led=state.led,
        king_to_lead=-1 if state.king_to_lead is None else INDEX[state.king_to_lead], tricks=state.tricks,
    )
