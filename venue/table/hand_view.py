"""A finished hand as a hand viewer shows it (BBO's handviewer, a PBN viewer's deal diagram):
the deal, the turn-up, the exchange, then trick by trick, each step with both hands as they
then were, and the coach's verdict beside each decision and each card where it has one.

Built from a hand's record (:class:`venue.table.record.HandLog`: the actions the table accepted,
given out only once the hand is over) replayed through the engine. A partial-sight table's
record holds only the dealt cards its pads saw; the deal is made whole from the plays as the
review does (:func:`coach.review.complete_deal`) and the cards the pads never saw are listed
(``unseen``). When the plays do not show them either, the hand is replayed as the table knew
it (partial sight): each hand shows the cards known and a count of cards never seen.

    >>> from engine.actions import action_from_json
    >>> from venue.table.record import HandLog
    >>> deal = {"action": "deal", "a": "KD QD JD 7S 8S".split(), "b": "KS QS KH QH JH".split(), "turn_up": "7D"}
    >>> moves = [deal, {"action": "stand", "seat": "A"}, {"action": "play", "seat": "A", "card": "KD"}]
    >>> view = hand_view(HandLog(1, 1, "B", tuple(action_from_json(m) for m in moves)), {"name": "classic"},
    ...                  coach=False)
    >>> [s["kind"] for s in view["steps"]], view["steps"][0]["hands"]["A"], view["steps"][-1]["trick"]
    (['deal', 'bid', 'play'], ['KD', 'QD', 'JD', '8S', '7S'], {'A': 'KD'})
"""

from __future__ import annotations

import logging
from typing import Any

import engine
from engine.cards import SUITS, cards_of
from engine.seats import SEATS, PerSeat
from engine.state import GameState
from venue.table.record import HandLog

logger = logging.getLogger(__name__)

_SUIT_ORDER = "".join(SUITS[i] for i in (0, 1, 3, 2))
"""Spades, hearts, clubs, diamonds: a diagram's suits, their colours alternating."""


def _sorted(state: GameState, mask: int) -> list[str]:
    """A hand as a diagram shows it: by suit (trumps first), high to low in the rule set's ranking."""
    trump = state.trump or ""
    order = [trump, *(s for s in _SUIT_ORDER if s != trump)]
    ranking = state.rules.ranking
    cards = cards_of(mask)
    return [str(c) for c in sorted(cards, key=lambda c: (order.index(str(c)[1]), -ranking.power[c.index]))]


def hand_view(hand: HandLog, rules: dict[str, Any], *, coach: bool = True, samples: int = 200) -> dict[str, Any]:
    """The hand as steps for a viewer (JSON data); ``coach``: with the coach's verdicts."""
    from coach.review import complete_deal

    actions = [m.to_json() for m in hand.moves]
    completed = list(complete_deal(hand.dealer, actions))
    seen_dealt = {a["card"] for a in actions if a.get("action") == "deal_card"}
    by_card = any(a.get("action") == "deal_card" for a in actions)
    dealt = [a for a in completed if a.get("action") == "deal_card"]
    whole = not by_card or len(dealt) == 10
    unseen = sorted({a["card"] for a in dealt} - seen_dealt) if by_card and whole else []
    options = {k: v for k, v in rules.items() if k not in ("name", "target")}
    state = engine.new_game(str(rules.get("name", "classic")), dealer=hand.dealer,
                            sight="full" if whole else "partial", **options)
    steps: list[dict[str, Any]] = []
    trick: dict[str, str] = {}
    tricks = {"A": 0, "B": 0}
    verdicts = _verdicts(rules, hand, completed, samples) if coach and whole else {}
    bids: dict[str, int] = {}

    def step(kind: str, **data: Any) -> None:
        hands = {seat: _sorted(state, state.hands[i]) for i, seat in enumerate(SEATS)}
        steps.append({"kind": kind, **data, "hands": hands,
                      "hidden": {seat: state.unseen[i] for i, seat in enumerate(SEATS)},
                      "trick": dict(trick), "tricks": dict(tricks)})

    for data in completed:
        try:
            action = engine.action_from_json(data)
        except engine.NotationError:  # pragma: no cover - a record the table wrote
            logger.warning("hand %s: a move the viewer cannot read: %s", hand.number, data)
            continue
        state, events = engine.apply(state, action)
        for ev in events:
            if isinstance(ev, engine.Fault):
                continue
            if isinstance(ev, engine.Trump):
                step("deal", turn_up=str(ev.card))
            elif isinstance(ev, engine.Bid):
                bids[ev.seat] = bids.get(ev.seat, 0) + 1
                verdict = verdicts.get(("bid", ev.seat)) if bids[ev.seat] == 1 else None
                step("bid", seat=ev.seat, bid=ev.bid, coach=verdict)
            elif isinstance(ev, engine.King):
                step("king", seat=ev.seat)
            elif isinstance(ev, engine.Played):
                if len(trick) == 2:
                    trick.clear()
                trick[ev.seat] = str(ev.card)
                number = tricks["A"] + tricks["B"] + 1
                step("play", seat=ev.seat, card=str(ev.card), number=number,
                     coach=verdicts.get(("play", ev.seat, str(ev.card))))
            elif isinstance(ev, engine.Trick):
                tricks[ev.winner] += 1
                steps[-1]["winner"] = ev.winner
                steps[-1]["tricks"] = dict(tricks)
            elif isinstance(ev, engine.HandEnd):
                steps.append({**steps[-1], "kind": "end", "points": PerSeat.of(ev.points).to_json(),
                              "coach": None})
        if isinstance(action, engine.Discard | engine.Draw):
            kind = "discard" if isinstance(action, engine.Discard) else "draw"
            step(kind, seat=action.seat, cards=[str(c) for c in action.cards])
    _merge_packets(steps)
    return {"game": hand.game, "hand": hand.number, "dealer": hand.dealer, "whole": whole,
            "unseen": unseen, "rules": str(rules.get("name", "classic")), "coached": bool(verdicts),
            "steps": steps}


def _merge_packets(steps: list[dict[str, Any]]) -> None:
    """Discards (or draws) of one seat in a row are one step: the packet, with the hands after it."""
    out: list[dict[str, Any]] = []
    for s in steps:
        last = out[-1] if out else None
        if last is not None and s["kind"] in ("discard", "draw") and last["kind"] == s["kind"] and (
                last["seat"] == s["seat"]):
            out[-1] = {**s, "cards": [*last["cards"], *s["cards"]]}
        else:
            out.append(s)
    steps[:] = out


def _verdicts(rules: dict[str, Any], hand: HandLog, actions: list[dict[str, Any]],
              samples: int) -> dict[tuple[str, ...], dict[str, Any]]:
    """The coach's verdicts: the first decision of each seat, and each card it finds wanting."""
    from coach.review import hands_of_record, review

    played = hands_of_record(rules, hand.dealer, actions, game=hand.game, hand=hand.number)
    if not played:
        return {}
    result = review(played[0], samples=samples)
    out: dict[tuple[str, ...], dict[str, Any]] = {}
    for seat, advice in zip((played[0].elder, played[0].dealer), result.advice, strict=False):
        out[("bid", SEATS[seat])] = {"best": advice.decision()}
    for finding in result.cards:
        out[("play", SEATS[finding.seat], str(finding.played))] = {
            "better": str(finding.better[0]), "points": finding.points_lost, "tricks": finding.tricks_lost,
            "knowable": finding.knowable,
        }
    return out


__all__ = ["hand_view"]
