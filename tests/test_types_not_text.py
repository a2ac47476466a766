"""What is compared as text has a type: a game's phase (:class:`engine.state.Phase`), a zone
(:class:`hardware.layout.Zone`, its kind and seat read once) and a fault's code
(:class:`engine.faults.FaultCode`). Checked on the source, by parsing every module's AST, each rule with a
case proving it can fail; and mypy (strict) refuses a phase, a zone or a code that does not exist.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import engine.state
from engine.fault_code import NoticeCode
from engine.faults import FaultCode
from engine.state import Phase
from hardware.layout import Zone

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "drivers", "hardware", "firmware_host", "coach", "venue", "catalogue", "cli", "bench")

PHASE_HOME = "engine/state.py"
ZONE_HOME = "hardware/layout.py"
CODE_HOME = "engine/fault_code.py"
"""The modules that define the types: the only ones that write their members' text."""

PHASES = frozenset(engine.state.PHASES)
CODES = frozenset(FaultCode) | frozenset(NoticeCode)
ZONE_TEXTS = frozenset(Zone) - {"A", "B"}  # a compact seat pad's name is a seat's
ZONE_PREFIXES = ("hand.", "play.")


def _sources(root: Path = ROOT) -> dict[str, ast.Module]:
    """Every module of ours (relative path → its AST)."""
    return {p.relative_to(root).as_posix(): ast.parse(p.read_text(encoding="utf-8"), filename=str(p))
            for package in PACKAGES if (root / package).is_dir() for p in sorted((root / package).rglob("*.py"))}


def _text(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _texts(node: ast.AST) -> list[str] | None:
    """The strings of a literal string, or of a literal tuple, list or set of strings (None: neither)."""
    one = _text(node)
    if one is not None:
        return [one]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("frozenset", "set") \
            and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, ast.Tuple | ast.List | ast.Set) and node.elts:
        found = [_text(e) for e in node.elts]
        return [t for t in found if t is not None] if all(t is not None for t in found) else None
    return None


def _mentions(node: ast.AST, word: str) -> bool:
    """Whether an expression is about ``word`` (a name, an attribute or a key: ``state.phase``,
    ``data.get("phase")``, ``event.zone``)."""
    for part in ast.walk(node):
        if isinstance(part, ast.Name) and word in part.id.lower():
            return True
        if isinstance(part, ast.Attribute) and word in part.attr.lower():
            return True
        if _text(part) == word:
            return True
    return False


def _compared(tree: ast.AST, word: str, values: frozenset[str]) -> Iterator[ast.AST]:
    """Comparisons of an expression about ``word`` with literal text among ``values``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_mentions(side, word) for side in sides) and any(
                    (texts := _texts(side)) and set(texts) <= values for side in sides):
                yield node


def _restated(tree: ast.AST, values: frozenset[str]) -> Iterator[ast.AST]:
    """Literal collections of two or more members' text (``("propose", "respond", "exchange", "force")``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple | ast.List | ast.Set) and len(node.elts) >= 2:
            texts = _texts(node)
            if texts is not None and len(texts) >= 2 and set(texts) <= values:
                yield node


def _given(tree: ast.AST, name: str, values: frozenset[str]) -> Iterator[ast.AST]:
    """A member's text given as ``name``: a keyword (``phase="deal"``), an assignment (``phase = "cut"``), a
    default (``code: str = "wrong_time"``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.arguments):
            named = [*node.posonlyargs, *node.args][-len(node.defaults):] if node.defaults else []
            pairs = [*zip(named, node.defaults, strict=True), *zip(node.kwonlyargs, node.kw_defaults, strict=True)]
            yield from (default for arg, default in pairs
                        if arg.arg == name and default is not None and _text(default) in values)
            continue
        keyword = isinstance(node, ast.keyword) and node.arg == name and _text(node.value) in values
        assigned = isinstance(node, ast.Assign) and _text(node.value) in values and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets)
        annotated = isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
            and node.target.id == name and node.value is not None and _text(node.value) in values
        if keyword or assigned or annotated:
            yield node


def phase_texts(tree: ast.AST) -> list[ast.AST]:
    """A phase written as text: compared (``state.phase == "play"``, ``phase in ("propose", "force")``), given
    (``phase="deal"``) or listed (``("propose", "respond", "exchange", "force")``)."""
    return [*_compared(tree, "phase", PHASES), *_given(tree, "phase", PHASES), *_restated(tree, PHASES)]


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _parses_a_zone(node: ast.AST) -> bool:
    if isinstance(node, ast.Call) and _call_name(node) in ("startswith", "endswith") and node.args:
        return any(t.startswith(ZONE_PREFIXES) for t in _texts(node.args[0]) or [])
    if isinstance(node, ast.Call) and _call_name(node) in ("partition", "rpartition", "split", "rsplit"):
        return isinstance(node.func, ast.Attribute) and _mentions(node.func.value, "zone") \
            and bool(node.args) and _text(node.args[0]) == "."
    if isinstance(node, ast.Subscript):  # zone[-1], pad[-1]
        return (_mentions(node.value, "zone") or _mentions(node.value, "pad")) and isinstance(node.slice, ast.UnaryOp) \
            and isinstance(node.slice.operand, ast.Constant) and node.slice.operand.value == 1
    if isinstance(node, ast.JoinedStr):  # f"hand.{seat}"
        return bool(node.values) and (_text(node.values[0]) or "") in ZONE_PREFIXES
    if isinstance(node, ast.BinOp):  # "play." + seat
        return isinstance(node.op, ast.Add) and (_text(node.left) or "") in ZONE_PREFIXES
    return False


def zone_parsing(tree: ast.AST) -> list[ast.AST]:
    """A zone parsed by hand: ``zone.startswith("hand.")``, ``zone[-1]``, ``zone.rpartition(".")``, built
    as text (``f"hand.{seat}"``, ``"play." + seat``) or compared with a zone's text (``zone == "turnup"``)."""
    return [*filter(_parses_a_zone, ast.walk(tree)), *_compared(tree, "zone", ZONE_TEXTS)]


CODE_MAKERS = {"fault": 0, "Fault": 0, "_late": 0, "Corrected": 0, "void_deal": 1, "Judgement": 1, "Proof": 1}
"""The calls that make a fault (or its proof), and the position of its code among their arguments."""


def code_texts(tree: ast.AST) -> list[ast.AST]:
    """A fault's code written as text: compared (``code == "revoke"``), made (``fault("revoke", …)``),
    returned, given (``code="wrong_time"``) or listed (``frozenset({"revoke", "not_trumping"})``)."""
    found: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _call_name(node) in CODE_MAKERS:
            at = CODE_MAKERS[_call_name(node)]
            if len(node.args) > at and _text(node.args[at]) in CODES:
                found.append(node)
        elif isinstance(node, ast.Return) and node.value is not None and _text(node.value) in CODES:
            found.append(node)
    return [*found, *_compared(tree, "code", CODES), *_given(tree, "code", CODES), *_restated(tree, CODES)]


Rule = Callable[[ast.AST], list[ast.AST]]


def _outside(sources: dict[str, ast.Module], home: str, rule: Rule) -> dict[str, list[int]]:
    """Where ``rule`` finds text outside the type's ``home``: module → line numbers."""
    found: dict[str, list[int]] = {}
    for rel, tree in sources.items():
        if rel == home:
            continue
        lines = sorted({getattr(node, "lineno", 0) for node in rule(tree)})
        if lines:
            found[rel] = lines
    return found


@pytest.fixture(scope="module")
def sources() -> dict[str, ast.Module]:
    return _sources()


def test_no_phase_is_compared_as_text(sources: dict[str, ast.Module]) -> None:
    assert _outside(sources, PHASE_HOME, phase_texts) == {}


def test_no_zone_is_parsed_by_hand(sources: dict[str, ast.Module]) -> None:
    assert _outside(sources, ZONE_HOME, zone_parsing) == {}


def test_no_fault_code_is_bare_text(sources: dict[str, ast.Module]) -> None:
    assert _outside(sources, CODE_HOME, code_texts) == {}


def _lines(text: str, rule: Rule) -> list[int]:
    return sorted({getattr(node, "lineno", 0) for node in rule(ast.parse(text))})


def test_the_phase_rule_can_fail() -> None:
    """The code as it was: each way a phase was written as text is caught; its members, and words that are
    no phase (an action's ``kind``, the prompt's ``"play"``), are not."""
    old = "\n".join((
        'if state.phase == "play": pass',                                # 1
        'if phase in ("propose", "force"): pass',                        # 2
        'state = state.evolve(phase="deal", turn=None)',                 # 3
        'phase = "deal" if state.dealer else "cut"',                     # 4 (not caught: an expression)
        '_HOLDING = ("propose", "respond", "exchange", "force")',         # 5
        'if live.feed.state.get("view", {}).get("phase") != "over": pass',  # 6
        'if "over" == snapshot.phase: pass',                             # 7
        'phase = "retourne"',                                            # 8
        'if state.phase == Phase.PLAY and kind == "play": pass',         # 9 (fine)
        'return _prompt("play", state.turn)',                            # 10 (fine)
    ))
    assert _lines(old, phase_texts) == [1, 2, 3, 5, 6, 7, 8]


def test_the_zone_rule_can_fail() -> None:
    old = "\n".join((
        'if zone.startswith("hand."): seat = zone[-1]',                  # 1 (twice)
        'return Cut(zone[-1], card) if zone.startswith("play.") else None',  # 2
        'out.append(CardEvent(f"hand.{seat}", str(c)))',                 # 3
        'return ("play." if playing else "hand.") + pad',                # 4 (a conditional: not caught)
        'zone_seat = event.zone.rpartition(".")[2]',                     # 5
        'if event.zone.startswith(("play.", "discard")): pass',          # 6
        'if zone == "turnup": pass',                                     # 7
        'seat = pad[-1] if pad[-1] in engine.SEATS else None',           # 8
        'if zone.kind == ZoneKind.HAND and zone.seat is not None: pass',  # 9 (fine)
        'key = f"rank.{card}"',                                          # 10 (fine)
    ))
    assert _lines(old, zone_parsing) == [1, 2, 3, 5, 6, 7, 8]


def test_the_code_rule_can_fail() -> None:
    old = "\n".join((
        'return fault("revoke", seat, "revoke_win", card)',              # 1
        'if code in ("revoke", "not_trumping"): pass',                   # 2
        'return "not_overtaking"',                                       # 3
        'TAG_FAULTS = frozenset({"unknown_tag", "foreign_pack", "counterfeit_card"})',  # 4
        'def notice(says, seat=None, code="wrong_time"): pass',         # 5
        'return void_deal(state, "misdeal", "five_each", None)',         # 6
        'found.append(Proof(trick, "false_king", seat))',               # 7
        'if r.fault.code == "false_king": pass',                         # 8
        'return fault(FaultCode.WRONG_TIME, seat, "wrong_time")',        # 9 (fine: its words' id)
        'w.say("duplicate_card", card=card)',                            # 10 (fine: a message id)
    ))
    assert _lines(old, code_texts) == [1, 2, 3, 4, 5, 6, 7, 8]


def test_the_members_write_the_contract_s_text() -> None:
    """A member is its text: JSON, f-strings and comparisons with text see what they saw before."""
    import json

    assert json.dumps([Phase.PLAY, Zone.HAND_A, FaultCode.REVOKE]) == '["play", "hand.A", "revoke"]'
    assert f"{Phase.OVER} {Zone.PLAY_B}" == "over play.B"
    assert Phase.DEAL == "deal" and {"revoke": 1}[FaultCode.REVOKE] == 1


def test_a_zone_is_read_once() -> None:
    assert [(z.kind, z.seat) for z in (Zone("hand.A"), Zone("play.B"), Zone("turnup"), Zone("A"), Zone("centre"))] \
        == [("hand", "A"), ("play", "B"), ("turnup", None), ("pad", "A"), ("centre", None)]
    assert all(Zone.hand(seat).seat == seat and Zone.play(seat).kind == "play" for seat in "AB")
    with pytest.raises(ValueError):
        Zone("hand.C")


WRONG = '''
from engine.events import Fault
from engine.fault_code import NoticeCode
from engine.faults import FaultCode, fault
from engine.state import GameState, Phase
from hardware.layout import Zone


def right(state: GameState) -> list[object]:
    return [state.evolve(phase=Phase.PLAY), fault(FaultCode.REVOKE, "A", "revoke"), Zone.hand("A"),
            Fault(NoticeCode.LOCKED, None)]


def wrong(state: GameState) -> list[object]:
    return [
        GameState(state.rules, "plya", "A"),
        Phase.PLYA,
        fault("revoke", "A", "revoke"),
        FaultCode.REVOK,
        Zone.HAND_C,
        Fault("locked", None),
    ]
'''


def test_mypy_refuses_a_phase_a_zone_or_a_code_that_is_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """mypy strict, as the project runs it, on a module that writes a phase, a code and a zone wrongly: each
    wrong line is an error, and the right ones are not."""
    from mypy import api

    module = tmp_path / "wrong_types.py"
    module.write_text(WRONG, encoding="utf-8")
    monkeypatch.setenv("MYPYPATH", str(ROOT))
    out, _err, status = api.run(["--strict", "--cache-dir", str(tmp_path / "cache"), "--follow-imports", "silent",
                                 "--no-error-summary", str(module)])
    lines = WRONG.splitlines()
    errors = sorted({lines[int(line.split(":")[1]) - 1].strip() for line in out.splitlines() if ": error:" in line})
    assert status == 1, out
    assert errors == ['Fault("locked", None),', 'FaultCode.REVOK,', 'GameState(state.rules, "plya", "A"),',
                      'Phase.PLYA,', 'Zone.HAND_C,', 'fault("revoke", "A", "revoke"),'], out
