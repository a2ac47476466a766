"""An originality verdict is written once: :class:`drivers.device_events.Origin`.

The judge, the pads, the registry, the enrolment, the deck check, the doctor and the referee
all take the enum; its values are the text the registry file and the journal hold. The code is
scanned (every string constant outside docstrings, late imports and functions included) for a
verdict's text anywhere but the enum's module.
"""

from __future__ import annotations

import ast
from pathlib import Path

from drivers.device_events import Origin

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "coach", "drivers", "hardware", "firmware_host", "venue", "catalogue", "cli", "bench", "scripts")
ENUM_MODULE = "drivers/device_events.py"
VERDICTS = frozenset(Origin)

OTHER_WORDS = {
    "drivers/nfc/pn532sim/": "the simulated tag's kind (what a tag is made as: genuine, clone, counterfeit), "
                             "which the judge then finds out; not a verdict",
    "firmware_host/journal/store_chain.py": "a journal row that cannot be read (its checksum's words)",
}
"""Where the same words mean something else, and why."""


def _docstrings(tree: ast.AST) -> set[int]:
    """The ``id`` of every docstring's constant node."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _kinds(tree: ast.AST) -> set[int]:
    """The ``id`` of every constant given to, or defaulted for, a simulated tag's ``kind``."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "kind":
            found |= {id(c) for c in ast.walk(node.value) if isinstance(c, ast.Constant)}
        elif isinstance(node, ast.arguments):
            named = node.posonlyargs + node.args
            pairs = list(zip(named[len(named) - len(node.defaults):], node.defaults, strict=True))
            pairs += [(a, d) for a, d in zip(node.kwonlyargs, node.kw_defaults, strict=True) if d is not None]
            found |= {id(d) for a, d in pairs if a.arg == "kind"}
    return found


def bare_verdicts(source: str) -> list[tuple[int, str]]:
    """The line and text of each string constant in ``source`` that is a verdict's text (docstrings
    and a simulated tag's ``kind`` aside)."""
    tree = ast.parse(source)
    skip = _docstrings(tree) | _kinds(tree)
    return sorted((node.lineno, node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in VERDICTS
                  and id(node) not in skip)


def _code() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def test_no_verdict_is_a_bare_string() -> None:
    found = {}
    for path in _code():
        relative = path.relative_to(ROOT).as_posix()
        if relative == ENUM_MODULE or any(relative.startswith(where) for where in OTHER_WORDS):
            continue
        if bare := bare_verdicts(path.read_text(encoding="utf-8")):
            found[relative] = bare
    assert found == {}


def test_the_scan_finds_a_bare_verdict() -> None:
    """The scan can fail: a comparison with the text, a default and a tuple of them are found; the
    enum, a docstring and a simulated tag's kind are not."""
    source = '''
def refused(origin: str = "unchecked", kind: str = "genuine") -> bool:
    """A tag that is not "genuine"."""
    place(uid, kind="counterfeit")
    return origin == "genuine" or origin in ("no_signature", "bad_signature") or origin is Origin.GENUINE
'''
    assert bare_verdicts(source) == [(2, "unchecked"), (5, "bad_signature"), (5, "genuine"), (5, "no_signature")]


def test_the_values_are_the_files_text() -> None:
    """The registry file and the journal keep the words they held before the enum."""
    assert [str(origin) for origin in Origin] == [
        "genuine", "no_signature", "bad_signature", "counterfeit", "unreadable", "unchecked"]
