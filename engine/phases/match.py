"""The end of a hand, of a game and of a match: points scored, penalties, the next dealer,
the rubber, and the pool's change of players."""

from __future__ import annotations

import dataclasses
from typing import Any

from engine.events import Event, GameEnd, HandEnd, MatchEnd, Penalty, Seating
from engine.faults import Fault, FaultCode
from engine.message import Phrase
from engine.phases.outcome import Result
from engine.scoring import add, hand_trick_points, reached
from engine.seats import INDEX, OTHER, SEATS
from engine.state import GameState, Phase


def penalty(state: GameState, seat: str, points: int, reason: str, events: list[Event]) -> GameState:
    i = INDEX[seat]
    events.append(Penalty(seat, -points, reason))
    return state.evolve(score=add(state.score, i, -points), hand_points=add(state.hand_points, i, -points))


def penalise(state: GameState, refused: Fault) -> Result:
    """Italian: a refused revoke still costs its point (source 000: "-1 a chi NON ha
    risposto al seme")."""
    points = state.rules.revoke_penalty
    if points and refused.code in (FaultCode.REVOKE, FaultCode.NOT_TRUMPING) and refused.seat:
        events: list[Event] = [
            dataclasses.replace(refused, says=Phrase(
                refused.says.msgid if refused.says else "", (*(refused.says.values if refused.says else ()),
                                                           ("penalty", str(points))))),
        ]
        return penalty(state, refused.seat, points, refused.code, events), tuple(events)
    return state, (refused,)


def end_hand(state: GameState, events: list[Event], forced: tuple[int, int] | None) -> Result:
    if forced is not None:
        points = forced
    else:
        points = hand_trick_points(
            state.rules, state.tricks,
            vulnerable=INDEX[state.vulnerable] if state.vulnerable else None,
            declarer=INDEX[state.declarer] if state.declarer else None,
            must_vole=INDEX[state.must_vole] if state.must_vole else None,
        )
    if state.reduced != (False, False):
        # rule 43: the offender scores the point as nothing, the vole (or a point won against a
        # seat that played d'autorité) as one
        points = (
            points[0] - 1 if state.reduced[0] and points[0] > 0 else points[0],
            points[1] - 1 if state.reduced[1] and points[1] > 0 else points[1],
        )
    m = state.multiplier
    hp = state.hand_points
    total = (points[0] * m + hp[0], points[1] * m + hp[1])
    score = (state.score[0] + points[0] * m, state.score[1] + points[1] * m)
    events.append(HandEnd(state.tricks, total, score))
    state = state.evolve(score=score)
    won = reached(score, state.target)
    if won is not None:
        return end_game(state, SEATS[won], events), tuple(events)
    if state.rules.winner_leads_next_hand:
        # 002: the hand's winner leads the next one, so its loser deals. The winner is the seat
        # whose trick points are the higher (never equal): who took three tricks or more, the
        # opponent of a declarer who failed, the seat scored as if it had won the point.
        dealer = SEATS[1] if points[0] > points[1] else SEATS[0]
    else:
        dealer = OTHER[state.dealer]
    return reset_hand(state, dealer, hand_no=state.hand_no + 1), tuple(events)


def reset_hand(state: GameState, dealer: str, **changes: Any) -> GameState:
    """``state`` ready for ``dealer`` to deal: nothing of the last deal is left (a void deal
    keeps its hand number; the next hand passes ``hand_no``)."""
    return state.evolve(
        phase=Phase.DEAL, dealer=dealer, turn=None, hands=(0, 0), turn_up=-1, discards=(0, 0),
        played=0, proposals=0, exchanges=0, vulnerable=None, declarer=None, exchanger=None,
        ex_discarded=0, ex_drawn=0, leader=None, led=-1, tricks=(0, 0), counts=(0, 0),
        first_cards=(-1, -1), king=None, king_played_by=None, king_to_lead=None, hand_points=(0, 0), multiplier=1,
        offer=None, offer_by=None, must_vole=None, unseen=(0, 0), seen_in=(0, 0), king_points=(0, 0), claims=(),
        history=(), proven=0, pending=(), awaiting=-1, reduced=(False, False), hand_over=False, replaying=False,
        **changes,
    )


def end_game(state: GameState, winner: str, events: list[Event]) -> GameState:
    ruleset = state.rules
    w = INDEX[winner]
    loser_score = state.score[1 - w]
    value = ruleset.game_points(loser_score)
    games = (state.games[0] + 1, state.games[1]) if w == 0 else (state.games[0], state.games[1] + 1)
    mp = state.match_points
    match_points = (mp[0] + value, mp[1]) if w == 0 else (mp[0], mp[1] + value)
    events.append(GameEnd(winner, state.score, value))
    state = state.evolve(games=games, match_points=match_points, winner=winner)
    if ruleset.pool:
        return _pool_change(state, winner, events)
    if ruleset.rubber > 1 and games[w] <= ruleset.rubber // 2:
        # german: the game's winner won its last hand (only a hand's winner gains trick points)
        # or scored the king that ended it: he leads the next game's first hand, the loser deals
        dealer = OTHER[winner] if ruleset.winner_leads_next_hand else OTHER[state.dealer]
        return reset_hand(
            state, dealer, score=(0, 0), hand_no=state.hand_no + 1, game_no=state.game_no + 1, winner=None,
        )
    if ruleset.rubber > 1:
        events.append(MatchEnd(winner, games, match_points, state.players[w]))
    return state.evolve(phase=Phase.OVER, turn=None)


def _pool_change(state: GameState, winner: str, events: list[Event]) -> GameState:
    """Pool écarté: the loser changes places with the watcher; two wins in a row take the pool."""
    w = INDEX[winner]
    player = state.players[w]
    name, run = state.streak
    streak = (player, run + 1 if name == player else 1)
    if streak[1] >= 2:
        events.append(MatchEnd(winner, state.games, state.match_points, player))
        return state.evolve(phase=Phase.OVER, turn=None, streak=streak)
    a, b, watcher = state.players
    loser = OTHER[winner]
    players = (watcher, b, a) if loser == "A" else (a, watcher, b)
    events.append(Seating(*players))
    # the newcomer deals: the winner leads the next game
    return reset_hand(
        state, loser, score=(0, 0), hand_no=state.hand_no + 1, game_no=state.game_no + 1, winner=None, players=players,
        streak=streak,
    )
