"""``ecarte-table review``: the coach's review of the hands of a journaled game.

The game's lines are read from the journal and replayed through the real controller as every reader
of the journal does (:func:`firmware_host.journal.replay.replay_game`); each hand's ``hand_record``
event (published once the hand is over) gives the hand (:func:`coach.review.hands_of_record`) and
:func:`coach.review.review` says, hand by hand, where a seat lost what best play would have kept and
whether standing or proposing was right.

Registered by ``firmware_host.cli.main`` with :func:`add_parser` and :func:`run_review`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from firmware_host.errors import BadInput


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``review`` command to the ``ecarte-table`` sub-commands."""
    from firmware_host.journal.store import default_journal

    review = subparsers.add_parser("review", help="the coach's review of a game's hands", description=(
        "Review the hands of a game of the journal: the cards that lost a trick best play would have "
        "won (double dummy, then with what the player could know), and the first decisions."
    ))
    review.add_argument("--journal", type=Path, help=f"the journal (default: {default_journal()})")
    review.add_argument("--game", type=int, default=None, help="the game number (default: the last)")
    review.add_argument("--hand", type=int, default=None, help="only this hand of the game (1, 2, ...)")
    review.add_argument("--samples", type=int, default=1000,
                        help="deals sampled to value proposing (default 1000)")
    review.add_argument("--detail", action="store_true",
                        help="the figures behind each finding (odds, expected points, the jeu de règle's row)")
    return review  # type: ignore[no-any-return]


def run_review(args: argparse.Namespace) -> int:
    """Print the review; 0, or raise :class:`BadInput` for a missing journal, game or hand."""
    from coach.review import advice_said, hands_of_record, review, why_not_reviewed
    from firmware_host.cli.args import journal_game
    from firmware_host.journal.replay import replay_game, strict
    from firmware_host.referee.controller import Controller
    from firmware_host.referee.table_events import HandRecord
    from firmware_host.referee.transcript import TranscriptError

    path, record = journal_game(args.journal, args.game)
    source = f"{path} game {record.game}"
    records: list[HandRecord] = []
    try:
        for step in replay_game(record, strict(Controller()), source=source):
            records += [ev for ev in (step.outcome.events if step.outcome is not None else ())
                        if isinstance(ev, HandRecord)]
            if step.new_game:
                break
    except TranscriptError as exc:
        raise BadInput(str(exc)) from None
    chosen = [r for r in records if args.hand is None or r.hand == args.hand]
    if args.hand is not None and not chosen:
        numbers = ", ".join(str(r.hand) for r in records) or "none"
        raise BadInput(f"game {record.game} of {path} has no hand {args.hand} (its hands: {numbers})")
    out = sys.stdout
    for hand_record in chosen:
        played = hands_of_record(hand_record.rules, hand_record.dealer, hand_record.actions,
                                 game=record.game, hand=hand_record.hand)
        if not played:
            why = (why_not_reviewed(hand_record.dealer, hand_record.actions)
                   or "the hand did not reach its last trick (the game ended first)")
            out.write(f"game {record.game} hand {hand_record.hand}: not reviewed: {why}\n")
            continue
        hand = played[0]
        result = review(hand, samples=args.samples)
        out.write(f"game {record.game} hand {hand.hand} ({hand.rules.describe()}): ")
        lines = result.lines() if args.detail else result.said()
        out.write("nothing to say: well played\n" if not lines else f"{len(lines)} finding(s)\n")
        for line in lines:
            out.write(f"  {line}\n")
        for seat, advice in zip((hand.elder, hand.dealer), result.advice, strict=False):
            out.write(f"  {'AB'[seat]}: {advice.text()}\n" if args.detail else f"  {advice_said('AB'[seat], advice)}\n")
    if not chosen:
        out.write(f"game {record.game}: no hand to review\n")
    return 0


run = run_review
"""The command, as :mod:`firmware_host.cli.main` calls every command."""
