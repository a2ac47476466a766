"""Words only at the edge: the rules below the catalogue name what they mean by ids, and each piece of
words is written once (issue 42, item 4). Checked on the source, by parsing every module's AST, each
rule with a case proving it can fail.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "drivers", "hardware", "firmware_host", "coach", "venue", "catalogue", "cli")


def _sources(root: Path = ROOT) -> dict[str, ast.Module]:
    """Every module of ours (relative path → its AST)."""
    return {p.relative_to(root).as_posix(): ast.parse(p.read_text(encoding="utf-8"), filename=str(p))
            for package in PACKAGES if (root / package).is_dir() for p in sorted((root / package).rglob("*.py"))}


def _strings(tree: ast.AST) -> list[str]:
    """The string constants of ``tree``, an f-string's literal parts included."""
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]


# -- a card as a language prints it: one function --------------------------------------------------

CARD_WORDS_HOME = "catalogue/__init__.py"
"""The one module that words a printed card (:func:`catalogue.card_words`): the ``rank.*`` ids."""


def rank_word_readers(sources: dict[str, ast.Module]) -> list[str]:
    """The modules other than :data:`CARD_WORDS_HOME` that read a ``rank.*`` message (a card worded by
    hand: its rank looked up, its suit's symbol put after it)."""
    return sorted(rel for rel, tree in sources.items()
                  if rel != CARD_WORDS_HOME and any(s.startswith("rank.") for s in _strings(tree)))


def test_a_card_is_worded_in_one_place() -> None:
    assert rank_word_readers(_sources()) == []


def test_the_card_words_rule_can_fail() -> None:
    """``coach/odds.card_words`` as it was: a second card-words function."""
    probe = ast.parse('def card_words(card, lang):\n    return say_or(lang, "rank." + card.rank, card.rank)\n')
    spoken = ast.parse('def card(code):\n    return say(lang, "voice.rank." + code[0])\n')
    assert rank_word_readers({"coach/odds.py": probe, "firmware_host/voice/spoken.py": spoken}) == ["coach/odds.py"]


# -- the fault codes: named once -------------------------------------------------------------------

CODES_HOME = "engine/faults.py"
"""Where the fault codes are listed (:data:`engine.faults.FAULT_CODES`) and the ones that void a deal
(:data:`engine.faults.VOID_DEAL_CODES`)."""


def _code_collections(tree: ast.AST) -> list[set[str]]:
    """The string sets of ``tree``'s literal tuples, lists and sets (``("misdeal", "duplicate_card")``)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            found.append({e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)})
    return found


def restated_codes(sources: dict[str, ast.Module]) -> dict[str, list[str]]:
    """Outside :data:`CODES_HOME`, the modules with a literal collection that restates every fault code
    (``FAULT_WORDS`` as it was) or the void-deal codes (``("misdeal", "duplicate_card")``, written in
    three places as it was)."""
    from engine.faults import FAULT_CODES, VOID_DEAL_CODES

    found: dict[str, list[str]] = {}
    for rel, tree in sources.items():
        if rel == CODES_HOME:
            continue
        for strings in _code_collections(tree):
            if set(FAULT_CODES).issubset(strings):
                found.setdefault(rel, []).append("every fault code")
            elif VOID_DEAL_CODES.issubset(strings):
                found.setdefault(rel, []).append("the void-deal codes")
    return found


def test_the_fault_codes_are_listed_once() -> None:
    assert restated_codes(_sources()) == {}


def test_the_codes_rule_can_fail() -> None:
    from engine.faults import FAULT_CODES

    words = ast.parse(f"FAULT_WORDS = {tuple(FAULT_CODES)!r}\n")
    chooser = ast.parse('if code in ("misdeal", "duplicate_card"):\n    pass\n')
    hands = ast.parse('DEAL_VOID = frozenset({"misdeal", "duplicate_card"})\n')
    tag = ast.parse('TAG_FAULTS = ("unknown_tag", "foreign_pack", "counterfeit_card")\n')
    assert restated_codes({"firmware_host/screens/i18n.py": words, "firmware_host/screens/chooser.py": chooser,
                           "firmware_host/voice/hands.py": hands, "firmware_host/referee/pack_guard.py": tag}) == {
        "firmware_host/screens/i18n.py": ["every fault code"],
        "firmware_host/screens/chooser.py": ["the void-deal codes"],
        "firmware_host/voice/hands.py": ["the void-deal codes"],
    }


# -- faults and notices carry no words ---------------------------------------------------------------

WORDLESS_PLACES = ("engine/", "firmware_host/referee/")
"""Where faults and notices are made: they say what they mean by ids and values, never in words."""

MAKERS = frozenset({"fault", "Fault", "Notice", "notice", "Judgement", "wrong_time", "void_deal", "Says", "_late",
                    "revoke_fault", "not_overtaking_fault", "not_trumping_fault"})
"""The calls that make a fault or a notice, or what it says."""


def worded_faults(sources: dict[str, ast.Module]) -> list[str]:
    """``path:line`` of each call in :data:`WORDLESS_PLACES` that makes a fault or a notice with words:
    a string (or an f-string) holding a space among its arguments (an id holds none: ``says.revoke``)."""
    found = []
    for rel, tree in sources.items():
        if not rel.startswith(WORDLESS_PLACES):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if name not in MAKERS:
                continue
            arguments = [*node.args, *(k.value for k in node.keywords)]
            if any(" " in text for argument in arguments for text in _strings(argument)):
                found.append(f"{rel}:{node.lineno}")
    return found


def test_no_fault_or_notice_is_made_with_words() -> None:
    assert worded_faults(_sources()) == []


def test_a_fault_and_a_notice_have_no_words_to_carry() -> None:
    import dataclasses

    from engine import Fault
    from firmware_host.referee.table_events import Notice

    for kind in (Fault, Notice):
        assert not {"message", "remedy"} & {f.name for f in dataclasses.fields(kind)}, kind


def test_the_wordless_rule_can_fail() -> None:
    """The faults as they were: an English message built in the engine and in the referee."""
    engine_fault = ast.parse('return fault("false_king", seat, f"{seat} announced the king but does not hold it")\n')
    notice = ast.parse('return [Notice(f"{seat}\'s {button} means nothing now", seat)]\n')
    wordless = ast.parse('return fault("false_king", seat, "false_king")\n')
    coach = ast.parse('return fault("x", seat, "a sentence outside the places")\n')
    assert worded_faults({"engine/phases/king.py": engine_fault, "firmware_host/referee/game_under_way.py": notice,
                          "engine/phases/deal.py": wordless, "coach/odds.py": coach}) == [
        "engine/phases/king.py:1", "firmware_host/referee/game_under_way.py:1"]
