"""What several commands' arguments share: the journal's default place and its opening for reading,
numbers checked as argparse types, the rule set's name."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from cli.words import said
from firmware_host.errors import BadInput
from firmware_host.journal.store import GameRecord, Journal, JournalError, default_journal

EXIT_BAD_INPUT = 2

__all__ = ["EXIT_BAD_INPUT", "card_name", "check_rules", "default_journal", "depth", "journal_game", "language_option",
           "read_journal", "seconds", "sim_registry"]

T = TypeVar("T")


def read_journal(given: Path | None, read: Callable[[Journal], T]) -> T:
    """``read(journal)`` on the journal at ``given`` (None: the table's), opened read-only
    (``export``, ``review``, ``history``).

    :raises BadInput: no journal there, one that cannot be read, a game it does not hold.
    """
    path = given or default_journal()
    if not Path(path).exists():
        raise BadInput(msgid="error.no_journal", path=path)
    try:
        with Journal(path, readonly=True) as journal:
            return read(journal)
    except KeyError as exc:
        raise BadInput(str(exc.args[0])) from None
    except JournalError as exc:
        raise BadInput.of(exc) from None


def journal_game(given: Path | None, game: int | None) -> tuple[Path, GameRecord]:
    """The journal's path and its game ``game`` (None: the last).

    :raises BadInput: as :func:`read_journal`, and for a journal that holds no game.
    """
    path = given or default_journal()

    def the_game(journal: Journal) -> GameRecord | None:
        if game is not None and game not in {number for number, _ in journal.games()}:
            raise BadInput(msgid="error.no_such_game", game=game, path=path)
        return journal.game(game) if game is not None else journal.current_game()

    record = read_journal(path, the_game)
    if record is None:
        raise BadInput(msgid="error.no_game", path=path)
    return path, record


def journal_language(record: GameRecord | None, given: str | None = None) -> str:
    """The language a journaled game's players read (``given``, else its setup line's: the table's
    language when it was played, else English)."""
    from catalogue import language
    from firmware_host.referee import Setup, TranscriptError, parse_line

    if given is not None:
        return language(given)
    if record is None or not record.lines:
        return "en"
    try:
        first = parse_line(record.lines[0])
    except TranscriptError:
        return "en"
    return language(first.language) if isinstance(first, Setup) and first.language else "en"


def language_option(parser: argparse.ArgumentParser, *, help: str) -> None:
    """``--language``: one of the table's languages (None when not given: the command takes its default,
    which ``help``, a message of the catalogue, says: the table file's, the journal's...)."""
    from catalogue import LANGUAGES

    parser.add_argument("--language", choices=LANGUAGES, default=None, help=help)


def sim_registry() -> Path:
    """The simulated table's tag registry (its table file names none): in the state directory,
    beside the journal, never in the folder the command is typed in."""
    return default_journal().with_name("registry.json")


def card_name(text: str) -> str:
    """A card as the command line takes it (``KS``, ``TH``, ``7C``), checked."""
    from engine import Card, NotationError

    try:
        return str(Card.parse(text.strip().upper()))
    except (NotationError, ValueError):
        raise argparse.ArgumentTypeError(said("error.not_a_card", text=repr(text))) from None


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(said("error.seconds", text=repr(text))) from None
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError(said("error.seconds_range", text=text))
    return value


def depth(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(said("error.depth", text=repr(text))) from None
    if not 1 <= value <= 10:
        raise argparse.ArgumentTypeError(said("error.depth_range", text=text))
    return value


def noise_level(text: str) -> float:
    """A simulated radio's noise level (``--noise``): 0 to 100 times the noise model's rates."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(said("error.noise_level", text=repr(text))) from None
    if not 0 <= value <= 100:  # NaN too
        raise argparse.ArgumentTypeError(said("error.noise_level", text=text))
    return value


def check_rules(name: str) -> None:
    """:raises BadInput: a rule set the engine does not know, naming those it knows."""
    from engine import RULE_SETS

    if name not in RULE_SETS:
        raise BadInput(msgid="error.unknown_rules", name=repr(name), known=", ".join(sorted(RULE_SETS)))
