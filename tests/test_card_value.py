"""A card is one value from the pad to the referee, and its alphabet is written once.

- The cards' alphabet (the rank and suit letters, the suits' symbols) is ``engine/cards.py``'s: no
  other module writes it again (a string of its letters, a suit-keyed table of its symbols); each
  asks ``engine.cards``.
- A tag's sighting is one frozen value, :class:`drivers.device_events.Sighting`: the pad makes it
  (``drivers/nfc/pad_contents.py``), a journal's line is read back into one
  (``firmware_host/referee/transcript.py``), and nothing else spells its fields again in a class of
  its own; the types it replaced are gone, and one door makes a pad's event a transcript event.

Checked on the source (every string constant outside docstrings, every class's annotated fields).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "coach", "drivers", "hardware", "firmware_host", "venue", "catalogue", "cli", "bench", "scripts")
ALPHABET_MODULE = "engine/cards.py"

SUIT_LETTERS = frozenset("SHDC")
SUIT_SYMBOLS = frozenset("♠♥♦♣")
RANK_RUN = re.compile(r"[2-9TJQKA]{6,}")
FACES = frozenset("TJQKA")

SIGHTING_FIELDS = frozenset({"uid", "card", "origin", "pack"})
SIGHTING_MODULE = "drivers/device_events.py"
OTHER_THINGS = {
    "hardware/tag_registry.py:TagEntry": "a registry's entry on disk: the card a tag was enrolled as, and what "
                                         "enrolment learnt (its verdict then, its signature, its lock, its seal), "
                                         "not what a pad sees now",
    "firmware_host/cards/deck_check.py:Stranger": "a line of the deck check's report: a tag that is not of the "
                                                  "pack checked, as the registry has it (the other pack's card) "
                                                  "or its NDEF record named it",
}
"""Classes that hold a tag's UID, a card, a pack or a verdict and are another thing than a sighting, and why."""

RETIRED = frozenset({"Seen", "Judgement", "NamedTag", "Enrolled", "card_event"})
"""The types and the second door a tag's sighting replaced: ``Seen`` (the pad's event as a protocol),
``Judgement`` (the pack guard's copy of the card), ``Enrolled`` (enrolment's copy of a registry entry),
``TableTags.card_event`` (a second door from a pad's event to a transcript event)."""

MAKERS = {"drivers/nfc/pad_contents.py", "firmware_host/referee/transcript.py"}
"""Where a :class:`Sighting` is made: by the pad, once a tag; from a journal's line read back."""


def _sources() -> dict[str, ast.Module]:
    return {p.relative_to(ROOT).as_posix(): ast.parse(p.read_text(encoding="utf-8"))
            for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))}


def _docstrings(tree: ast.AST) -> set[int]:
    """The ``id`` of every string statement's constant (docstrings, attribute docstrings)."""
    return {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}


def spells_the_alphabet(text: str) -> bool:
    """Whether ``text`` writes the cards' letters out: the four suit letters in a row (``SHDC``,
    ``[SHDC]``), or six ranks or more in a row, the faces among them (``789TAJQK``, ``[2-9TJQKA]``)."""
    if any(set(text[i:i + 4]) == SUIT_LETTERS for i in range(len(text) - 3)):
        return True
    return any(len(set(run)) >= 6 and len(set(run) & FACES) >= 4 for run in RANK_RUN.findall(text.replace("-", "")))


def alphabet_copies(sources: dict[str, ast.Module]) -> list[str]:
    """``path:line`` of each place outside :data:`ALPHABET_MODULE` that writes the alphabet again: a string
    (not a docstring) spelling it, a table keyed by the four suits whose values are strings (names,
    symbols), or a collection of the rank or suit letters one by one."""
    found = []
    for rel, tree in sources.items():
        if rel == ALPHABET_MODULE:
            continue
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                if spells_the_alphabet(node.value) or len(SUIT_SYMBOLS & set(node.value)) >= 3:
                    found.append(f"{rel}:{node.lineno}")
            elif isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) for k in node.keys):
                keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
                if keys == SUIT_LETTERS and all(isinstance(v, ast.Constant) for v in node.values):
                    found.append(f"{rel}:{node.lineno}")
            elif isinstance(node, ast.Tuple | ast.List | ast.Set):
                letters = "".join(e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
                                  and len(e.value) == 1)
                if len(letters) >= 4 and (set(letters) == SUIT_LETTERS or spells_the_alphabet("".join(sorted(letters)))
                                          or len(set(letters) - set("23456")) >= 6):
                    found.append(f"{rel}:{node.lineno}")
    return sorted(set(found))


def sighting_copies(sources: dict[str, ast.Module]) -> list[str]:
    """``path:Class`` of each class outside :data:`SIGHTING_MODULE` whose own fields spell three of the
    sighting's four again (a tag's UID, its card, its verdict, its pack), but :data:`OTHER_THINGS`."""
    found = []
    for rel, tree in sources.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef) or rel == SIGHTING_MODULE:
                continue
            fields = {s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
            if len(fields & SIGHTING_FIELDS) >= 3 and f"{rel}:{node.name}" not in OTHER_THINGS:
                found.append(f"{rel}:{node.name}")
    return found


def retired_names(sources: dict[str, ast.Module]) -> list[str]:
    """``path:name`` of each class or function defined with a name in :data:`RETIRED`."""
    return [f"{rel}:{node.name}" for rel, tree in sources.items() for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef | ast.FunctionDef) and node.name in RETIRED]


def _called(tree: ast.AST, name: str) -> list[ast.Call]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)
            and (getattr(node.func, "id", None) == name or getattr(node.func, "attr", None) == name)]


def sighting_makers(sources: dict[str, ast.Module]) -> list[str]:
    """The modules that make a ``Sighting(...)`` or a ``CardEvent(..., sighting=...)``."""
    made = {rel for rel, tree in sources.items() if _called(tree, "Sighting")}
    made |= {rel for rel, tree in sources.items()
             if any(k.arg == "sighting" for call in _called(tree, "CardEvent") for k in call.keywords)}
    return sorted(made)


def doors(sources: dict[str, ast.Module]) -> list[str]:
    """The modules that call the door from a pad's event to a transcript event (``sighting_event``)."""
    return sorted(rel for rel, tree in sources.items() if _called(tree, "sighting_event"))


def test_the_alphabet_is_written_once() -> None:
    assert alphabet_copies(_sources()) == []


def test_no_class_spells_a_sighting_again() -> None:
    assert sighting_copies(_sources()) == []


def test_the_retired_types_and_the_second_door_are_gone() -> None:
    assert retired_names(_sources()) == []


def test_a_sighting_is_made_at_the_pad_and_read_back_from_the_journal_only() -> None:
    assert sighting_makers(_sources()) == sorted(MAKERS)


def test_one_door_from_a_pad_s_event_to_a_transcript_event() -> None:
    assert doors(_sources()) == ["firmware_host/service.py"]


def _parsed(files: dict[str, str]) -> dict[str, ast.Module]:
    return {path: ast.parse(text) for path, text in files.items()}


def test_the_checks_can_fail() -> None:
    """Each check finds what it looks for: the copies this module replaced, as they were written."""
    copies = _parsed({
        "hardware/tag_registry.py": 'RANKS = "KQJAT987"\nSUITS = "SHDC"\n"""Spades first: SHDC."""\n',
        "drivers/nfc/pad_contents.py": 'import re\n_NDEF_CARD = re.compile(r"^ecarte:([KQJAT987][SHDC])$")\n',
        "catalogue/__init__.py": 'SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}\n',
        "venue/table/words.py": 'RANKS = ("7", "8", "9", "T", "J", "Q", "K", "A")\n',
        "venue/table/hand_view.py": '_SUIT_ORDER = "SHCD"\n',
        "firmware_host/voice/hands.py": '_RANKS = "AKQJT987"\n',
        "venue/table/public.py": 'import re\nCARD_SYMBOL = re.compile(r"(?:10|[2-9JQKA])[♠♥♦♣]")\n',
        "engine/cards.py": 'SUITS = "SHDC"\n',
        "firmware_host/referee/transcript.py": 'HEX = "0123456789ABCDEF"\nSEATS = ("A", "B")\n',
        "firmware_host/screens/drawing.py": 'ROWS = {"S": ["#"], "H": ["#"], "D": ["#"], "C": ["#"]}\n',
    })
    assert alphabet_copies(copies) == [
        "catalogue/__init__.py:1", "drivers/nfc/pad_contents.py:2", "firmware_host/voice/hands.py:1",
        "hardware/tag_registry.py:1", "hardware/tag_registry.py:2", "venue/table/hand_view.py:1",
        "venue/table/public.py:2", "venue/table/words.py:1"]
    retired = _parsed({
        "firmware_host/referee/transcript.py": "class Sighting:\n    uid: str\n    card: str | None\n    origin: str\n"
                                               "    pack: int\nclass Seen:\n    zone: str\n",
        "firmware_host/referee/pack_guard.py": "class Judgement:\n    card: str | None\n    code: str | None\n",
        "firmware_host/cards/table_tags.py": "class TableTags:\n    def card_event(self, seen): ...\n",
        "firmware_host/cards/enroll.py": "class Enrolled:\n    card: str\n    uid: str\n    pack: int\n"
                                         "    origin: str\n",
        "hardware/tag_registry.py": "class TagEntry:\n    uid: str\n    card: str\n    pack: int\n    origin: str\n",
        "firmware_host/service.py": "def _physical(item):\n    return sighting_event(item, by_tag=False)\n",
        "firmware_host/cards/table_tag2.py": "def put(seen):\n"
                                             "    sink.put_physical(sighting_event(seen, by_tag=True))\n",
        "drivers/nfc/pad_contents.py": "def arrive(uid):\n    return Sighting(uid)\n",
        "firmware_host/referee/card_namer.py": "def sight(event):\n    return Sighting(event.uid, event.card)\n",
    })
    assert sighting_copies(retired) == ["firmware_host/referee/transcript.py:Sighting",
                                        "firmware_host/cards/enroll.py:Enrolled"]
    assert retired_names(retired) == ["firmware_host/referee/transcript.py:Seen",
                                      "firmware_host/referee/pack_guard.py:Judgement",
                                      "firmware_host/cards/table_tags.py:card_event",
                                      "firmware_host/cards/enroll.py:Enrolled"]
    assert doors(retired) == ["firmware_host/cards/table_tag2.py", "firmware_host/service.py"]
    assert sighting_makers(retired) == ["drivers/nfc/pad_contents.py", "firmware_host/referee/card_namer.py"]
