"""No string meant for players is written outside the catalogue: a check over the code.

The modules that make what a player reads (the OLED's screens, the narration, the coach, review,
history, the page's words, enrolment) and what the tools say (every command of the command line, the
refusals of the rooms it calls) are parsed; a string literal holding an English word of the game
(:data:`catalogue.english.ENGLISH`) and a space is a sentence written in the code, and fails —
unless it is a docstring, a log line or an exception's message (developers', in English), a
command line's help (a message of the catalogue by its English: ``tests/cli/test_help_words.py``), or a
comment. A refusal a person reads is not a developer's exception: a string in a :class:`BadInput` or an
``argparse.ArgumentTypeError`` fails as a printed one does. Message ids (``coach.won_point``) hold no space."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from catalogue.english import english_words

ROOT = Path(__file__).resolve().parents[2]
PLAYER_FACING: dict[str, tuple[str, ...]] = {
    "firmware_host/screens/chooser.py": (), "firmware_host/screens/deck.py": (),
    "firmware_host/screens/coaching.py": (), "firmware_host/screens/i18n.py": (),
    "firmware_host/players/demo.py": ("Narrator", "HandNarrator"),
    "firmware_host/players/packets.py": ("PacketPlayers",),
    "cli/review.py": (), "cli/history.py": (),
    "cli/demo.py": (),
    "firmware_host/journal/summaries.py": ("format_game", "format_player", "_counted", "_fault_list"),
    "coach/review.py": ("CardFinding", "DecisionFinding", "Review", "chance_said", "classical_said", "advice_said",
                       "why_not_reviewed"),
    "coach/odds.py": (), "coach/jeu_de_regle.py": ("Classical",),
    "venue/table/words.py": (), "venue/table/public.py": ("PublicFeed",), "venue/table/hand_view.py": (),
    "firmware_host/screens/public_faults.py": ("public_fault",),
    "firmware_host/cards/enroll.py": (), "firmware_host/voice/spoken.py": (),
    "firmware_host/voice/announcer.py": (), "firmware_host/voice/hands.py": (),
    "firmware_host/checks/doctor.py": (), "cli/doctor.py": (),
    "firmware_host/cards/deck_check.py": (), "cli/deck.py": (), "cli/enroll.py": (),
    "firmware_host/players/console.py": (), "cli/sim.py": (),
    # the tools: every command, and the refusals of the rooms they call
    "cli/main.py": (), "cli/args.py": (), "cli/words.py": (), "cli/chips.py": (), "cli/export.py": (),
    "cli/journal.py": (), "cli/replay.py": (), "cli/run.py": (), "cli/hub.py": (),
    "firmware_host/journal/tools.py": (), "firmware_host/errors.py": ("BadInput",),
    "catalogue/__init__.py": ("os_reason",),
    "firmware_host/app.py": ("load_table_or_exit", "run_service", "_open_events", "table_defaults"),
    "firmware_host/screens/panel.py": ("check_png_dir",), "firmware_host/voice/voice_parts.py": ("open_voice",),
    "firmware_host/cards/table_tags.py": ("TableTags",), "venue/table/wiring.py": ("VenueOutputs",),
    "venue/hub/scoreboard.py": ("_check_free",),
}
"""The modules whose strings reach players, and in them the top-level functions and classes that make
them (none named: the whole module). ``demo.run_demo``'s lines are read by a test in five languages."""

_LOGGING = {"debug", "info", "warning", "error", "exception", "critical", "log", "paused"}
"""A logger's methods, and the panel's ``paused`` (its message is the log's; the screen says its own words)."""
_REFUSALS = {"BadInput", "ArgumentTypeError"}
"""The exceptions whose message a person reads (the command line prints it): not exempt."""


def _refusal(node: ast.AST | None) -> bool:
    """Whether ``node`` makes a refusal a person reads (``BadInput(...)``, ``argparse.ArgumentTypeError(...)``)."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Name) and func.id in _REFUSALS) or (
        isinstance(func, ast.Attribute) and func.attr in _REFUSALS)
_HELP_KEYWORDS = {"help", "description", "metavar", "epilog"}
_READING = {"split", "rsplit", "partition", "rpartition", "startswith", "endswith", "find"}


def _exempt(tree: ast.Module) -> set[int]:
    """The ids of the string nodes that are not for players."""
    out: set[int] = set()

    def mark(node: ast.AST | None) -> None:
        for sub in ast.walk(node) if node is not None else ():
            out.add(id(sub))

    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                mark(first)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):  # attribute docstrings
            mark(node)
        if isinstance(node, ast.Raise) and not _refusal(node.exc):
            mark(node.exc)
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in _LOGGING:
                mark(node)
            for keyword in node.keywords:
                if keyword.arg in _HELP_KEYWORDS:
                    mark(keyword.value)
            if isinstance(func, ast.Attribute) and func.attr.startswith("_rng"):
                mark(node)  # a random generator's seed: the same words at every table
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "re":
                mark(node)  # a regular expression (the articles the voice merges)
            if isinstance(func, ast.Attribute) and func.attr in _READING:
                mark(node)  # text read (another program's output split at its words), never said
        if isinstance(node, ast.Assert):
            mark(node)
    return out


def _scoped(tree: ast.Module, names: tuple[str, ...]) -> list[ast.AST]:
    """The top-level definitions ``names`` of ``tree`` (all of it when none are named)."""
    if not names:
        return [tree]
    found = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in names]
    assert len(found) == len(names), f"not all of {names} are defined"
    return found


def sentences(source: str, names: tuple[str, ...] = ()) -> list[tuple[int, str, set[str]]]:
    """The string literals of ``source`` (in its definitions ``names``) that read as English sentences
    for players: (line, text, words). A command shown to a player (``ecarte-table review ...``) is the
    command line's, in every language."""
    tree = ast.parse(source)
    exempt = _exempt(tree)
    found = []
    for scope in _scoped(tree, names):
        for node in ast.walk(scope):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in exempt:
                words = english_words(node.value)
                if words and " " in node.value.strip() and not node.value.startswith("ecarte-table "):
                    found.append((node.lineno, node.value, words))
    return found


@pytest.mark.parametrize("module", PLAYER_FACING)
def test_no_players_sentence_is_written_outside_the_catalogue(module: str) -> None:
    assert sentences((ROOT / module).read_text(encoding="utf-8"), PLAYER_FACING[module]) == []


def strerrors(source: str, names: tuple[str, ...] = ()) -> list[int]:
    """The lines of ``source`` (in its definitions ``names``) that read the C library's English reason
    (``exc.strerror``, ``os.strerror``) where a person reads it: :func:`firmware_host.errors.os_reason`
    says it in words (:func:`catalogue.os_reason`, which it re-exports)."""
    tree = ast.parse(source)
    exempt = _exempt(tree)
    return sorted(node.lineno for scope in _scoped(tree, names) for node in ast.walk(scope)
                  if isinstance(node, ast.Attribute) and node.attr == "strerror" and id(node) not in exempt)


@pytest.mark.parametrize("module", PLAYER_FACING)
def test_no_systems_reason_in_english(module: str) -> None:
    assert strerrors((ROOT / module).read_text(encoding="utf-8"), PLAYER_FACING[module]) == []


def test_the_check_finds_the_systems_english_reason() -> None:
    code = '''
import logging
import os
logger = logging.getLogger(__name__)

def refused(path: str, exc: OSError) -> str:
    logger.info("cannot read %s: %s", path, exc.strerror)  # the log's, in English
    if exc.errno == 1:
        return f"{path}: {os.strerror(exc.errno)}"
    raise BadInput(f"cannot read {path}: {exc.strerror}")
'''
    assert strerrors(code) == [9, 10]


def test_the_check_finds_a_sentence_written_in_the_code() -> None:
    code = '''
"""A module: its docstring is for developers."""
import logging
logger = logging.getLogger(__name__)

def hand_over(who: str) -> str:
    """Docstring with the trick and the hand."""
    logger.info("the hand is over for %s", who)
    if not who:
        raise ValueError("the hand has no winner")
    return f"{who} takes the hand"

def said(who: str) -> str:
    return say("en", "demo.hand_over", who=who)
'''
    found = sentences(code)
    assert [(text, words) for _, text, words in found] == [(" takes the hand", {"takes", "the", "hand"})]


def test_the_check_finds_a_tools_refusal_written_in_the_code() -> None:
    """A refusal the command line prints (``BadInput``, an argument's type refusing its value) is a
    person's, not a developer's exception; one from the catalogue is not found."""
    code = '''
import argparse
from firmware_host.errors import BadInput

def journal(path: str) -> None:
    if not path:
        raise ValueError("the journal has no path")  # a developer's
    raise BadInput(f"the journal {path} holds no game")

def seconds(text: str) -> float:
    raise argparse.ArgumentTypeError(f"expected seconds, not {text} of the clock")

def worded(path: str) -> None:
    raise BadInput(msgid="error.no_game", path=path)
'''
    found = [(text, words) for _, text, words in sentences(code)]
    assert found == [("the journal ", {"the"}), (" holds no game", {"game"}), ("expected seconds, not ", {"not"}),
                     (" of the clock", {"of", "the"})]
