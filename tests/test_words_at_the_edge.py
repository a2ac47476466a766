"""Words only at the edge: the rules below the catalogue name what they mean by ids, and each piece of
words is written once. Checked on the source, by parsing every module's AST, each
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


def test_the_printed_suits_are_the_ones_the_notation_reads() -> None:
    """The catalogue prints a card's suit (``catalogue.SUIT_SYMBOLS``); the engine's notation reads the same
    symbols (``Card.parse("K♠")``): a card printed is a card read."""
    import catalogue
    from engine.cards import CARDS, SUIT_SYMBOLS, Card

    assert catalogue.SUIT_SYMBOLS == SUIT_SYMBOLS
    assert all(Card.parse(catalogue.card_words("en", str(card))) == card for card in CARDS)


def test_the_card_words_rule_can_fail() -> None:
    """``coach/odds.py``'s ``card_words`` as it was: a second card-words function."""
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


# -- a value for each seat: PerSeat owns the {"A": ..., "B": ...} shape ------------------------------

SEATS_HOME = "engine/seats.py"
"""Where the seats are named, and the shape of a value for each (:class:`engine.seats.PerSeat`)."""


def pairs_by_hand(sources: dict[str, ast.Module]) -> list[str]:
    """``path:line`` of each ``{"A": x[0], "B": x[1]}`` outside :data:`SEATS_HOME`: a pair written in
    the seats' shape by hand (what ``PerSeat.of(x).to_json()`` writes)."""
    found = []
    for rel, tree in sources.items():
        if rel == SEATS_HOME:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Dict) or len(node.keys) != 2:
                continue
            keys = [k.value if isinstance(k, ast.Constant) else None for k in node.keys]
            if keys == ["A", "B"] and all(f"[{i}]" in ast.unparse(v) for i, v in enumerate(node.values)):
                found.append(f"{rel}:{node.lineno}")
    return found


def test_a_pair_is_put_in_the_seats_shape_by_per_seat() -> None:
    assert pairs_by_hand(_sources()) == []


def test_the_per_seat_rule_can_fail() -> None:
    """``venue/hub/room.py`` as it was, beside a seat's list of cards (no pair) and the seats' own module."""
    room = ast.parse('score = {"A": score[0], "B": score[1]}\n')
    held = ast.parse('held = {"A": [], "B": []}\n')
    seats = ast.parse('out = {"A": pair[0], "B": pair[1]}\n')
    assert pairs_by_hand({"venue/hub/room.py": room, "firmware_host/players/console.py": held,
                          "engine/seats.py": seats}) == ["venue/hub/room.py:1"]


def test_per_seat_reads_and_writes_the_shape() -> None:
    import pytest

    from engine.seats import PerSeat

    assert PerSeat.of((3, 2)).to_json() == {"A": 3, "B": 2}
    assert PerSeat.from_json({"A": "KD", "B": "AD"}) == PerSeat("KD", "AD")
    assert list(PerSeat(1, 2).map(str)) == ["1", "2"] and PerSeat(1, 2)["B"] == 2
    for bad in ({"A": 1}, {"A": 1, "B": 2, "C": 3}, [1, 2], None):
        with pytest.raises(ValueError, match="must name A and B"):
            PerSeat.from_json(bad)
    with pytest.raises(ValueError):
        PerSeat.of((1, 2, 3))
    with pytest.raises(KeyError):
        PerSeat(1, 2)["C"]


def said_ids(sources: dict[str, ast.Module]) -> set[str]:
    """The catalogue ids the engine and the referee name for what a fault or a notice says: ``fault``'s
    and ``void_deal``'s third argument (``says.<id>``), ``wrong_time``'s (``says.doing.<id>``), ``notice``'s
    first and ``_late``'s fourth (``says.<id>``)."""
    places = {"fault": (2, "says."), "void_deal": (2, "says."), "wrong_time": (2, "says.doing."),
              "notice": (0, "says."), "_late": (3, "says.")}
    found = set()
    for rel, tree in sources.items():
        if not rel.startswith(WORDLESS_PLACES):
            continue
        for node in ast.walk(tree):
            name = getattr(node.func, "id", "") if isinstance(node, ast.Call) else ""
            if name in places and len(node.args) > places[name][0]:  # type: ignore[attr-defined]
                arg = node.args[places[name][0]]  # type: ignore[attr-defined]
                for text in _strings(arg):
                    found.add(places[name][1] + text)
    return found


def test_every_message_the_engine_and_the_referee_name_is_in_the_catalogue() -> None:
    import catalogue

    named = said_ids(_sources())
    assert len(named) > 60  # the check sees the calls
    assert {i for i in named if not catalogue.has(i)} == set()
