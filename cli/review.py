"""``ecarte-table review``: the coach's review of the hands of a journaled game.

The game's lines are read from the journal and replayed through the real controller as every reader
of the journal does (:func:`firmware_host.journal.replay.replay_game`); each hand's ``hand_record``
event (published once the hand is over) gives the hand (:func:`coach.review.hands_of_record`) and
:func:`coach.review.review` says, hand by hand, where a seat lost what best play would have kept and
whether standing or proposing was right.

Registered by ``cli.main`` with :func:`add_parser` and :func:`run_review`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from cli.args import language_option
from engine.seats import SEATS
from firmware_host.errors import BadInput


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``review`` command to the ``ecarte-table`` sub-commands."""
    from firmware_host.journal.store import default_journal

    review = subparsers.add_parser("review", description=(
        "Review the hands of a game of the journal: the cards that lost a trick best play would have "
        "won (double dummy, then with what the player could know), and the first decisions."
    ))
    review.add_argument("--journal", type=Path, default=default_journal(), help="the journal (default: %(default)s)")
    review.add_argument("--game", type=int, default=None, help="the game number (default: the last)")
    review.add_argument("--hand", type=int, default=None, help="only this hand of the game (1, 2, ...)")
    review.add_argument("--samples", type=int, default=1000,
                        help="deals sampled to value proposing (default 1000)")
    review.add_argument("--detail", action="store_true",
                        help="the figures behind each finding (odds, expected points, the jeu de règle's row)")
    language_option(review, help="the review's language (default: the language of the table that played the game)")
    return review  # type: ignore[no-any-return]


def run_review(args: argparse.Namespace) -> int:
    """Print the review; 0, or raise :class:`BadInput` for a missing journal, game or hand."""
    from catalogue import rule_set, say, say_n
    from cli.args import journal_game, journal_language
    from coach.review import advice_said, hands_of_record, review, why_not_reviewed
    from firmware_host.journal.replay import replay_game, strict
    from firmware_host.referee import Controller, HandRecord, TranscriptError

    path, record = journal_game(args.journal, args.game)
    lang = journal_language(record, args.language)
    source = f"{path} game {record.game}"
    records: list[HandRecord] = []
    names: dict[int, tuple[str, str]] = {}
    """Each hand's players (A, B) by the hand's number: the review names them, not their seats."""
    try:
        for step in replay_game(record, strict(Controller()), source=source):
            if step.outcome is None:
                continue
            players = step.outcome.snapshot.players
            for ev in step.outcome.events:
                if isinstance(ev, HandRecord):
                    records.append(ev)
                    names[ev.hand] = (players[0] or SEATS[0], players[1] or SEATS[1])
            if step.new_game:
                break
    except TranscriptError as exc:
        raise BadInput(str(exc)) from None
    chosen = [r for r in records if args.hand is None or r.hand == args.hand]
    if args.hand is not None and not chosen:
        raise BadInput(msgid="error.no_such_hand", game=record.game, path=path, hand=args.hand,
                       hands=", ".join(str(r.hand) for r in records) or "-")
    out = sys.stdout
    for hand_record in chosen:
        played = hands_of_record(hand_record.rules, hand_record.dealer, hand_record.actions,
                                 game=record.game, hand=hand_record.hand)
        if not played:
            why = why_not_reviewed(hand_record.dealer, hand_record.actions, lang) or say(lang, "review.cut_short")
            out.write(say(lang, "review.not_reviewed", game=record.game, hand=hand_record.hand, why=why) + "\n")
            continue
        hand = played[0]
        result = review(hand, samples=args.samples)
        who = names.get(hand_record.hand, SEATS)
        lines = result.lines(lang, who) if args.detail else result.said(lang, who)
        rules = rule_set(lang, hand.rules.describe())
        verdict = say(lang, "review.perfect") if not lines else say_n(lang, "review.findings", len(lines))
        out.write(say(lang, "review.hand", game=record.game, hand=hand.hand, rules=rules) + f" {verdict}\n")
        for line in lines:
            out.write(f"  {line}\n")
        for seat, advice in zip((hand.elder, hand.dealer), result.advice, strict=False):
            said = advice.text(lang) if args.detail else advice_said(who[seat], advice, lang)
            out.write(f"  {say(lang, 'colon', label=who[seat], text=said)}\n" if args.detail else f"  {said}\n")
    if not chosen:
        out.write(say(lang, "review.none", game=record.game) + "\n")
    return 0


run = run_review
"""The command, as :mod:`cli.main` calls every command."""
