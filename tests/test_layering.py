"""The import direction (shared/STYLE.md, 'For this project' 1): ``engine/`` imports
nothing of ours and does no I/O; ``drivers/`` knows no rules and no wiring.

Checked on the source, by parsing every module's AST (imports inside functions
included), so a late import cannot slip through.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OURS = {"engine", "drivers", "hardware", "firmware_host", "catalogue", "cli"}
IO_MODULES = {
    "socket", "serial", "sqlite3", "threading", "multiprocessing", "asyncio", "subprocess",
    "time", "os", "io", "pathlib", "shutil", "tempfile", "glob", "select", "selectors", "signal",
    "logging", "urllib", "http", "ssl", "smtplib", "ftplib", "mmap", "fcntl", "termios", "pty",
    "tty", "ctypes", "usb", "nfc", "gpiozero", "luma", "PIL", "smbus2", "sdnotify", "random",
    "datetime", "sys", "builtins", "pickle", "shelve", "dbm", "json", "tomllib", "csv",
}
"""What a pure rules engine never needs: I/O, clocks, threads, global randomness
(``engine.random_play`` and ``engine.rollout`` take a ``random.Random`` from their caller and import
``random`` only for the type -- allowed below), and serialisation to files."""

ALLOWED_IN_ENGINE = {"engine/random_play.py": {"random"}, "engine/rollout.py": {"random"}}


def modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def _imported(tree: ast.AST, package: tuple[str, ...], *, members: bool = False, calls: bool = False) -> set[str]:
    """Every module ``tree`` (a module of ``package``) imports, absolute names (relative imports
    resolved); with ``members`` each ``module.name`` a ``from`` import takes too, with ``calls`` the
    modules named to ``__import__`` and ``import_module`` and ``builtins.open`` for a call of ``open``."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            found.add(module)
            if members:
                found.update(f"{module}.{alias.name}" for alias in node.names)
        elif calls and isinstance(node, ast.Call):
            if getattr(node.func, "id", getattr(node.func, "attr", "")) in ("__import__", "import_module"):
                found.update(arg.value for arg in node.args[:1]
                             if isinstance(arg, ast.Constant) and isinstance(arg.value, str))
            elif getattr(node.func, "id", "") == "open":
                found.add("builtins.open")
    return found


def imports(path: Path, root: Path = ROOT) -> set[str]:
    """Every module ``path`` imports, absolute names (relative imports resolved), late ones included."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return _imported(tree, path.relative_to(root).parent.parts, calls=True)


def top(name: str) -> str:
    return name.split(".")[0]


@pytest.mark.parametrize("path", modules("engine"), ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_imports_nothing_of_ours_and_no_io(path):
    rel = str(path.relative_to(ROOT))
    allowed = ALLOWED_IN_ENGINE.get(rel, set())
    names = imports(path)
    ours = {n for n in names if top(n) in OURS - {"engine"}}
    assert not ours, f"{rel} imports {sorted(ours)}: the engine must not know the table"
    io = {n for n in names if top(n) in IO_MODULES and top(n) not in allowed}
    assert not io, f"{rel} imports {sorted(io)}: the engine does no I/O"


THE_ALPHABET = "engine.cards"
"""The cards' one alphabet (ranks, suits, their symbols, the pack): a value, no rule. Every module asks
it for the alphabet, the drivers (a pad reading an ``ecarte:KS`` record) and the catalogue (a card
printed) too, who import nothing else of the engine."""

THE_WORDS = "engine.message"
"""The one carrier of words (:class:`engine.message.Phrase`: a message's id and its values): the engine makes
it, the drivers too (a pad's retried frames), the catalogue words it; a value, no rule."""

BELOW_THE_ENGINE = (THE_ALPHABET, THE_WORDS)
"""What the drivers and the catalogue may ask of the engine: values, no rule."""


def _drivers_bad(names: set[str]) -> set[str]:
    return {n for n in names if top(n) in ("engine", "firmware_host", "catalogue", "hardware", "venue", "cli")
            and n not in BELOW_THE_ENGINE}


def _catalogue_bad(names: set[str]) -> set[str]:
    return {n for n in names if top(n) in OURS | {"coach", "venue"} and top(n) != "catalogue"
            and n not in BELOW_THE_ENGINE}


@pytest.mark.parametrize("path", modules("drivers"), ids=lambda p: str(p.relative_to(ROOT)))
def test_drivers_know_no_rules_and_no_wiring(path):
    bad = _drivers_bad(imports(path))
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


@pytest.mark.parametrize("path", modules("catalogue"), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_catalogue_imports_nothing_of_ours(path):
    """The players' words are a leaf: the engine names what it means by ids, the catalogue words them
    (of the engine it reads only the cards' alphabet)."""
    ours = _catalogue_bad(imports(path))
    assert not ours, f"{path.relative_to(ROOT)} imports {sorted(ours)}"


def test_the_alphabet_and_the_words_are_all_the_drivers_and_the_catalogue_may_ask_of_the_engine() -> None:
    assert _drivers_bad({"engine.cards", "engine.message", "engine", "engine.game", "nfc"}) == {"engine", "engine.game"}
    assert _catalogue_bad({"engine.cards", "engine.message", "engine.events", "gettext"}) == {"engine.events"}


def test_the_checker_sees_late_and_relative_imports(tmp_path):
    """The AST walk finds imports inside functions, relative ones, __import__ and open()."""
    probe = tmp_path / "engine" / "probe.py"
    probe.parent.mkdir()
    probe.write_text(
        "from . import cards\n"
        "from .game import apply\n"
        "def f():\n    import socket\n    from drivers.nfc import x\n    __import__('time')\n"
        "    open('f')\n",
        encoding="utf-8",
    )
    names = imports(probe, root=tmp_path)
    assert {"engine", "engine.game", "socket", "drivers.nfc", "time", "builtins.open"} <= names


def test_there_are_modules_to_check():
    assert len(modules("engine")) >= 10
    assert modules("drivers")


# -- the import graph ----------------------------------------------------------------------------

PACKAGES = ("engine", "drivers", "hardware", "firmware_host", "coach", "venue", "catalogue", "cli")


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _runtime_imports(path: Path, root: Path = ROOT, types: bool = False) -> set[str]:
    """The modules ``path`` imports when it runs (a ``TYPE_CHECKING`` block imports nothing), and with
    ``types`` those it imports for its annotations too (a ``TYPE_CHECKING`` block)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    if not types:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                node.body = []
    return _imported(tree, path.relative_to(root).parent.parts, members=True)


def import_graph(root: Path = ROOT, types: bool = False) -> dict[str, set[str]]:
    """Our modules and the modules of ours each imports at run time (late imports included), and with
    ``types`` for its annotations too."""
    paths = [p for package in PACKAGES if (root / package).is_dir() for p in sorted((root / package).rglob("*.py"))]
    names = {_module_name(p, root): p for p in paths}
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        graph[name] = {m for m in _runtime_imports(path, root, types) if m in names and m != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _module_cycles(root: Path = ROOT) -> list[list[str]]:
    """The circles of the modules' imports, late ones and those for annotations included: a module that
    imports another inside a function while that one imports it back under ``TYPE_CHECKING`` is one
    design in two files, however the interpreter is kept from noticing."""
    graph = import_graph(root, types=True)
    # a package __init__ that re-exports its modules is the package itself: a module importing
    # ``engine`` while ``engine/__init__.py`` imports it back is not a cycle of design
    for name in list(graph):
        if (root / name.replace(".", "/") / "__init__.py").exists():
            graph[name] = set()
    return _cycles(graph)


def test_no_import_cycles() -> None:
    """No two modules of ours import each other, even through others, late or for annotations only
    (a package's ``__init__`` re-exporting its modules counts as the package)."""
    assert _module_cycles() == []


def test_the_cycle_checker_sees_a_circle_dodged(tmp_path: Path) -> None:
    """The venue's ledger and room were such a circle: the room imported the ledger inside a method,
    the ledger the room's types under ``TYPE_CHECKING``."""
    (tmp_path / "venue").mkdir()
    (tmp_path / "venue" / "__init__.py").write_text("")
    (tmp_path / "venue" / "ledger.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from venue.room import Result\n")
    (tmp_path / "venue" / "room.py").write_text("def make():\n    from venue.ledger import Ledger\n")
    (tmp_path / "venue" / "pairing.py").write_text("from venue import ledger\n")
    assert _module_cycles(tmp_path) == [["venue.ledger", "venue.room"]]
    assert import_graph(tmp_path)["venue.ledger"] == set()  # what the run-time graph alone would miss


def test_the_checker_finds_cycles() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


BELOW_THE_SERVICE = ("engine", "catalogue", "drivers", "hardware", "coach")

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # the packages below the service
    ("engine", ()),
    ("catalogue", BELOW_THE_ENGINE),  # of the engine only the cards' alphabet and the words' carrier (modules)
    ("drivers", BELOW_THE_ENGINE),
    ("hardware", ("engine", "catalogue", "drivers")),
    ("coach", ("engine", "catalogue")),
    # the service, room by room (firmware_host/<room>/ or firmware_host/<room>.py)
    ("firmware_host", ()),
    ("firmware_host.errors", ("catalogue",)),
    ("firmware_host.referee", ("engine", "catalogue", "drivers", "hardware", "firmware_host.errors")),
    ("firmware_host.journal", ("engine", "catalogue", "drivers", "firmware_host.errors", "firmware_host.referee")),
    ("firmware_host.screens", ("engine", "catalogue", "drivers", "coach", "firmware_host.errors",
                               "firmware_host.referee")),
    ("firmware_host.cards", ("engine", "catalogue", "drivers", "hardware", "firmware_host.errors",
                             "firmware_host.referee")),
    ("firmware_host.checks", ("catalogue", "drivers", "hardware")),
    ("firmware_host.outputs", ("engine", "catalogue", "hardware", "firmware_host.errors", "firmware_host.referee",
                               "firmware_host.journal")),
    ("firmware_host.voice", ("engine", "catalogue", "drivers", "hardware", "firmware_host.errors",
                             "firmware_host.referee", "firmware_host.screens")),
    ("firmware_host.service", ("engine", "catalogue", "drivers", "firmware_host.errors", "firmware_host.referee",
                               "firmware_host.journal", "firmware_host.outputs")),
    ("firmware_host.feeder", ("catalogue", "firmware_host.errors", "firmware_host.referee", "firmware_host.service")),
    ("firmware_host.players", (*BELOW_THE_SERVICE, "firmware_host.errors", "firmware_host.referee",
                               "firmware_host.journal", "firmware_host.screens", "firmware_host.outputs",
                               "firmware_host.service")),
    ("firmware_host.app", (*BELOW_THE_SERVICE, "firmware_host.errors", "firmware_host.referee",
                           "firmware_host.journal", "firmware_host.screens", "firmware_host.cards",
                           "firmware_host.checks", "firmware_host.outputs", "firmware_host.voice",
                           "firmware_host.service", "firmware_host.feeder", "firmware_host.players")),
    # the venue: what its two programs share (venue/*.py), the table's page and feed, the venue's hub
    ("venue", ("catalogue", "hardware", "firmware_host.errors")),
    ("venue.table", ("engine", "catalogue", "hardware", "coach", "firmware_host.errors", "firmware_host.referee",
                     "firmware_host.journal", "firmware_host.screens", "firmware_host.outputs", "venue")),
    ("venue.hub", ("engine", "catalogue", "hardware", "firmware_host.errors", "firmware_host.journal", "venue")),
    # the command line on top, which nothing imports
    ("cli", (*BELOW_THE_SERVICE, "firmware_host", "venue")),
)
"""The one list of what may import what, from the bottom up: each package, and each room of a package
that has rooms (``firmware_host/``'s, ``venue/``'s), with the names it may import; a name is a
package (all of it, from outside it), a room, or a package's own shared modules (``venue``, from its
rooms: ``venue/*.py``). A module belongs to the longest name of the list its name begins with.
Each name may import only names above it in the list, so the list is a stack and the import graph
of packages and rooms has no circle. docs/architecture.md's *may import* column is checked against
it (:func:`test_the_docs_table_is_the_list`); each room's ``__init__`` says the same in words."""

UNITS = tuple(name for name, _ in LAYERS)
MAY_IMPORT = dict(LAYERS)


def unit(module: str) -> str | None:
    """The name of :data:`LAYERS` that ``module`` belongs to: the longest that it is or begins with."""
    found = [u for u in UNITS if module == u or module.startswith(u + ".")]
    return max(found, key=len) if found else None


def covers(name: str, importer: str, target: str) -> bool:
    """Whether ``name`` (one of ``importer``'s) lets ``importer`` import ``target`` (two units): the
    name itself, or a package named from outside it (from inside, a package's name is its shared part)."""
    return target == name or (target.startswith(name + ".") and not importer.startswith(name + "."))


def forbidden_imports(graph: dict[str, set[str]], layers: tuple[tuple[str, tuple[str, ...]], ...] = LAYERS
                      ) -> list[str]:
    """The edges of ``graph`` that :data:`LAYERS` does not allow (a module of ours outside every unit too)."""
    may = dict(layers)
    units = [u for u, _ in layers]

    def unit_of(module: str) -> str | None:
        found = [u for u in units if module == u or module.startswith(u + ".")]
        return max(found, key=len) if found else None

    bad = []
    for name, imported in graph.items():
        for other in imported:
            a, b = unit_of(name), unit_of(other)
            if a is None or b is None:
                bad.append(f"{name} -> {other} (not in the list)")
            elif a != b and not any(covers(n, a, b) or other == n for n in may[a]):
                bad.append(f"{name} -> {other}")
    return sorted(bad)


def upward_names(layers: tuple[tuple[str, tuple[str, ...]], ...] = LAYERS) -> list[str]:
    """The names a unit may import that are not below it in the list (or in no unit's name)."""
    bad = []
    for i, (name, allowed) in enumerate(layers):
        below = [u for u, _ in layers[:i]]
        above = [u for u, _ in layers[i:]]
        for other in allowed:
            owner = max((u for u, _ in layers if other == u or other.startswith(u + ".")), key=len, default=None)
            if owner not in below or any(covers(other, name, u) for u in above):
                bad.append(f"{name} -> {other}")
    return bad


def test_every_package_and_room_is_in_the_list() -> None:
    """Every package is a name of the list, so is every room of ``firmware_host`` (a folder with an
    ``__init__`` or a module at its top) and of ``venue`` (a folder), and nothing else."""
    rooms = {f"{package}.{p.stem}" for package in ("firmware_host", "venue") for p in (ROOT / package).iterdir()
             if (p / "__init__.py").exists() or (package == "firmware_host" and p.suffix == ".py"
                                                  and p.stem != "__init__")}
    assert set(UNITS) == set(PACKAGES) | rooms


def test_the_list_is_a_stack() -> None:
    """Each name may import only names below it: no upward arrow, so no circle either."""
    assert upward_names() == []


def test_each_module_imports_only_what_its_layer_may() -> None:
    assert forbidden_imports(import_graph(types=True)) == []


def test_the_layer_rule_can_fail() -> None:
    """The simulator signing with the table file's key was an upward arrow (drivers -> hardware); the
    screens importing the journal, or the hub the table's page, cross rooms the list keeps apart."""
    graph = {"drivers.nfc.pn532sim.chip_host": {"hardware.ntag_signature"},
             "hardware.ntag_signature": {"drivers.nfc.originality"}, "cli.main": {"venue.hub.scoreboard"},
             "firmware_host.screens.chooser": {"firmware_host.journal.store", "firmware_host.referee.snapshot"},
             "venue.hub.scoreboard": {"venue.table.page", "venue.sse", "firmware_host.journal.store"},
             "venue.table.page": {"venue.guard", "firmware_host.players.demo"},
             "venue.sse": {"venue.table.public"}}
    assert forbidden_imports(graph) == [
        "drivers.nfc.pn532sim.chip_host -> hardware.ntag_signature",
        "firmware_host.screens.chooser -> firmware_host.journal.store",
        "venue.hub.scoreboard -> venue.table.page", "venue.sse -> venue.table.public",
        "venue.table.page -> firmware_host.players.demo"]
    assert upward_names((("a", ()), ("b", ("a", "c")), ("c", ("b",)))) == ["b -> c"]
    assert upward_names((("venue", ()), ("venue.table", ("venue",)), ("venue.hub", ("venue",)),
                         ("cli", ("venue",)))) == []
    assert upward_names((("venue", ()), ("cli", ("venue",)), ("venue.table", ("venue",)))) == ["cli -> venue"]
    assert unit("firmware_host.referee.controller") == "firmware_host.referee"
    assert unit("venue.guard") == "venue" and unit("venue.hub.room") == "venue.hub"


def may_import_column(markdown: str) -> dict[str, set[str]]:
    """docs/architecture.md's table of packages: each package's backquoted names in its *may import*
    column (prose around them is free; a name not backquoted is not read)."""
    section = markdown.split("## The packages", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1:-1] for line in section.splitlines() if line.startswith("| `")]
    return {row[0].strip().strip("`").rstrip("/"): set(re.findall(r"`([a-z_.]+)`", row[-1])) for row in rows}


def package_may_import(package: str, layers: tuple[tuple[str, tuple[str, ...]], ...] = LAYERS) -> set[str]:
    """What the package's units together may import of other packages, by the list."""
    inside = [u for u, _ in layers if u == package or u.startswith(package + ".")]
    return {n for u in inside for n in dict(layers)[u] if n != package and not n.startswith(package + ".")}


def test_the_docs_table_is_the_list() -> None:
    """docs/architecture.md's *may import* column names what :data:`LAYERS` allows each package, no more
    and no less (its ``venue/`` row named the service's outputs, while the venue read the journal,
    the referee's values, the screens' words and the coach too)."""
    column = may_import_column((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    assert set(column) == set(PACKAGES)
    assert {p: column[p] for p in PACKAGES} == {p: package_may_import(p) for p in PACKAGES}


def test_the_docs_table_check_can_fail() -> None:
    row = "| `venue/` | the page | `engine`, `firmware_host` outputs, `catalogue` |\n"
    table = f"## The packages\n\n| package | what | may import |\n|---|---|---|\n{row}\n## Next\n| `x/` | | `y` |\n"
    assert may_import_column(table) == {"venue": {"engine", "firmware_host", "catalogue"}}
    assert may_import_column(table)["venue"] != package_may_import("venue")
    assert package_may_import("venue", (("a", ()), ("venue", ("a",)), ("venue.hub", ("venue", "b")))) == {"a", "b"}


@pytest.mark.parametrize("path", modules("hardware"), ids=lambda p: str(p.relative_to(ROOT)))
def test_hardware_knows_no_service(path: Path) -> None:
    """A table file and its tags are plain values: no part of the service."""
    bad = {n for n in imports(path) if top(n) == "firmware_host"}
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_the_renderer_knows_no_engine() -> None:
    """Drawing a screen needs strings and numbers, never the game's internals."""
    names = imports(ROOT / "firmware_host" / "screens" / "drawing.py")
    assert not {n for n in names if top(n) == "engine" and n != "engine.cards"}, sorted(names)
    assert not {n for n in names if n.startswith("firmware_host") and n != "firmware_host.screens.fonts"}


def test_only_tests_read_the_referees_engine_state() -> None:
    """Outputs take outcomes and snapshots; a white-box test reads the state the controller holds
    (``controller.state.engine_state``), the referee's own walk its state's ``engine_state``."""
    referee = ROOT / "firmware_host" / "referee"
    readers = [
        str(p.relative_to(ROOT)) for package in PACKAGES if (ROOT / package).is_dir()
        for p in modules(package) if ".engine_state" in p.read_text(encoding="utf-8") and p.parent != referee
    ]
    assert readers == []


def test_the_controller_keeps_nothing_for_tests_only() -> None:
    """``Controller.engine_state`` was a property of the production class for white-box tests only;
    they read ``controller.state.engine_state``, the frozen state the controller holds."""
    from firmware_host.referee import Controller

    assert not hasattr(Controller, "engine_state")
    assert hasattr(Controller(), "state")


# -- the referee is a function of its state ------------------------------------------------------

REFEREE_HOLDERS = {"controller.Controller": {"state"}}
"""The referee's classes that are not frozen values, and the one attribute each may set after its
``__init__``: the Controller holds the current :class:`RefereeState` for its callers."""

MUTABLE = ("list", "set", "dict", "deque", "defaultdict", "Counter", "bytearray")
"""Containers that change in place: no field of the referee's holds one (``Mapping``, ``tuple``,
``frozenset`` instead)."""


def _frozen(node: ast.ClassDef) -> bool:
    return any(isinstance(d, ast.Call) and getattr(d.func, "id", "") == "dataclass"
               and any(k.arg == "frozen" and getattr(k.value, "value", False) is True for k in d.keywords)
               for d in node.decorator_list)


def _not_a_value(node: ast.ClassDef) -> bool:
    """An error, a protocol or an enum: a type, not a part of the referee's state."""
    bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
    return bool(bases & {"Protocol", "Enum", "StrEnum", "IntEnum"}) or any(b.endswith("Error") for b in bases)


def mutable_state(package: Path) -> list[str]:
    """The classes of ``package`` that keep mutable state: not a frozen dataclass (but a holder,
    setting only its attribute), or a field holding a container that changes in place."""
    found: list[str] = []
    for path in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef) or _not_a_value(node):
                continue
            name = f"{path.stem}.{node.name}"
            for field in (f for f in node.body if isinstance(f, ast.AnnAssign)):
                held = ast.unparse(field.annotation).split("[")[0].split(".")[-1]
                if held in MUTABLE:
                    found.append(f"{name}.{ast.unparse(field.target)}: {ast.unparse(field.annotation)}")
            if name in REFEREE_HOLDERS:
                set_later = {t.attr for f in node.body if isinstance(f, ast.FunctionDef) and f.name != "__init__"
                             for a in ast.walk(f) if isinstance(a, ast.Assign | ast.AugAssign | ast.AnnAssign)
                             for t in (a.targets if isinstance(a, ast.Assign) else [a.target])
                             for t in ast.walk(t) if isinstance(t, ast.Attribute)}
                found += [f"{name} sets {attr}" for attr in sorted(set_later - REFEREE_HOLDERS[name])]
            elif not _frozen(node):
                found.append(f"{name} is not a frozen dataclass")
    return found


def test_the_referee_keeps_no_mutable_state() -> None:
    """The referee is a function of its state (docs/architecture.md, *The referee's parts*): every
    part is a frozen value whose steps give the next one; the Controller only holds the state."""
    assert mutable_state(ROOT / "firmware_host" / "referee") == []


def test_the_mutable_state_rule_can_fail(tmp_path: Path) -> None:
    (tmp_path / "controller.py").write_text(
        "class Controller:\n    def __init__(self):\n        self.state = 1\n"
        "    def handle(self, e):\n        self.state = 2\n        self._notice = e\n")
    (tmp_path / "pad_ledger.py").write_text(
        "from dataclasses import dataclass\n\n"
        "class PadLedger:\n    lying: set[str]\n\n"
        "@dataclass(frozen=True, slots=True)\nclass Corrections:\n    rejected: list[int]\n"
        "    warning: int | None = None\n\n"
        "@dataclass(frozen=True)\nclass Kept:\n    faults: tuple[int, ...] = ()\n\n"
        "class TranscriptError(ValueError):\n    pass\n")
    assert mutable_state(tmp_path) == ["controller.Controller sets _notice", "pad_ledger.PadLedger.lying: set[str]",
                                       "pad_ledger.PadLedger is not a frozen dataclass",
                                       "pad_ledger.Corrections.rejected: list[int]"]


# -- the rooms of firmware_host ------------------------------------------------------------------

PLAYERS_SEE_OF_THE_REFEREE = {"protocol", "transcript", "snapshot", "controller", "table_defaults", "table_events",
                              "event_words"}
"""Players play through the physical protocol and watch snapshots; they drive a ``Controller``
(built from its ``TableDefaults``) only through its public face (``handle`` → ``Outcome``, its events
and their words), never the pack guard, the namer, the ledger or the menu."""


def _room(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "firmware_host" and len(parts) > 1 else None


def _room_imports() -> dict[str, dict[str, set[str]]]:
    """For each room, the modules of other rooms that its modules import (late imports included)."""
    found: dict[str, dict[str, set[str]]] = {}
    for name, imported in import_graph().items():
        room = _room(name)
        if room is None:
            continue
        for other in imported:
            target = _room(other)
            if target is not None and target != room:
                found.setdefault(room, {}).setdefault(target, set()).add(f"{name} -> {other}")
    return found


def test_every_room_says_what_it_may_import() -> None:
    rooms = [p.name for p in sorted((ROOT / "firmware_host").iterdir()) if (p / "__init__.py").exists()]
    for room in rooms:
        doc = ast.get_docstring(ast.parse((ROOT / "firmware_host" / room / "__init__.py").read_text()))
        assert doc and "May import" in doc, f"firmware_host/{room}/__init__.py must say what it owns and may import"


def test_nothing_imports_the_command_line() -> None:
    importers = sorted(
        f"{name} -> {other}" for name, imported in import_graph().items() for other in imported
        if top(other) == "cli" and top(name) != "cli"
    )
    assert importers == []


def _referee_seen(paths: list[Path]) -> set[str]:
    """The referee's modules whose names ``paths`` import: through its face (each name's module, by
    :data:`firmware_host.referee.FACE`) or, against the rule, an inner module itself."""
    from firmware_host.referee import FACE

    seen: set[str] = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "firmware_host.referee":
                seen.update(FACE.get(alias.name, alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("firmware_host.referee."):
                seen.add(str(node.module).split(".")[2])
    return seen


def test_players_see_the_referee_through_protocol_and_snapshots() -> None:
    seen = _referee_seen(modules("firmware_host/players"))
    assert seen <= PLAYERS_SEE_OF_THE_REFEREE, sorted(seen - PLAYERS_SEE_OF_THE_REFEREE)


# -- the referee's face ---------------------------------------------------------------------------

def inner_referee_imports(paths: list[Path], root: Path = ROOT) -> list[str]:
    """The imports of the referee's inner modules from ``paths`` outside ``firmware_host/referee/``."""
    return sorted(f"{path.relative_to(root).as_posix()} -> {name}" for path in paths
                  if path.relative_to(root).parts[:2] != ("firmware_host", "referee")
                  for name in imports(path, root) if name.startswith("firmware_host.referee."))


def test_nothing_outside_the_referee_imports_its_inner_modules() -> None:
    """The house sees the referee through its face, ``firmware_host/referee/__init__.py``: outside
    modules imported eight of its modules directly (controller, event_words, protocol, snapshot,
    table_defaults, table_events, table_setup, transcript). The referee's own tests may open its parts."""
    paths = [p for package in (*PACKAGES, "bench", "scripts") for p in modules(package)]
    assert inner_referee_imports(paths) == []


def test_the_face_rule_can_fail(tmp_path: Path) -> None:
    (tmp_path / "firmware_host" / "referee").mkdir(parents=True)
    (tmp_path / "venue").mkdir()
    (tmp_path / "firmware_host" / "referee" / "controller.py").write_text("from .snapshot import Outcome\n")
    (tmp_path / "venue" / "page.py").write_text(
        "from firmware_host.referee import Outcome\ndef f():\n    from firmware_host.referee.snapshot import X\n")
    paths = sorted(tmp_path.rglob("*.py"))
    assert inner_referee_imports(paths, tmp_path) == ["venue/page.py -> firmware_host.referee.snapshot"]


def test_the_face_names_what_its_modules_define() -> None:
    """Each name of the face is its module's, and ``__all__`` is the face."""
    import importlib

    import firmware_host.referee as referee

    assert list(referee.FACE) == referee.__all__
    for name, module in referee.FACE.items():
        assert getattr(referee, name) is getattr(importlib.import_module(f"firmware_host.referee.{module}"), name)


def test_the_rooms_import_each_other_without_a_cycle() -> None:
    """A card's path from the pad to the frame visits each room once without coming back."""
    graph = {room: set(targets) for room, targets in _room_imports().items()}
    for name in UNITS:
        if _room(name):
            graph.setdefault(str(_room(name)), set())
    assert _cycles(graph) == []


def test_the_room_checker_sees_a_forbidden_import() -> None:
    """The rules above can fail: the screens importing the journal is caught."""
    assert "firmware_host.journal" not in MAY_IMPORT["firmware_host.screens"]
    assert _room("firmware_host.journal.store") == "journal"
    assert _room("firmware_host.app") == "app"
    assert _room("venue.hub.scoreboard") is None


REFEREE_SEES_OF_THE_DRIVERS = {"drivers.device_events"}
"""What the referee may import of ``drivers``: the values the devices report (a tag's
:class:`~drivers.device_events.Sighting`, its :class:`~drivers.device_events.Origin`), never a
device (it imported ``drivers.nfc.originality``, the pads' originality check, for ``Origin``)."""


def _device_imports_of_the_referee(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{name} -> {other}" for name, imported in graph.items() if _room(name) == "referee"
                  for other in imported if top(other) == "drivers" and other not in REFEREE_SEES_OF_THE_DRIVERS)


def test_the_referee_knows_no_device() -> None:
    """The referee's docstring says it knows no device: of ``drivers`` it imports only the values."""
    assert _device_imports_of_the_referee(import_graph(types=True)) == []


def test_the_device_check_can_fail() -> None:
    graph = {"firmware_host.referee.transcript": {"drivers.nfc.originality", "drivers.device_events"},
             "firmware_host.cards.table_tags": {"drivers.nfc.originality"}}
    assert _device_imports_of_the_referee(graph) == [
        "firmware_host.referee.transcript -> drivers.nfc.originality"]


# -- the composition on top: the command line and the venue --------------------------------------

COMMAND_LINE_PLACES = ("cli/", "bench/", "scripts/")
"""Where the command line may be read (``argparse``): the commands, the benchmarks, the scripts.
Everything below takes plain values (mopidy's ``_app/``: nothing below reads the command line)."""


def _argparse_readers(root: Path = ROOT) -> list[str]:
    """Our modules outside :data:`COMMAND_LINE_PLACES` that import ``argparse``."""
    found = []
    for package in (*PACKAGES, "bench", "scripts"):
        for path in sorted((root / package).rglob("*.py")) if (root / package).is_dir() else []:
            rel = path.relative_to(root).as_posix()
            if not rel.startswith(COMMAND_LINE_PLACES) and "argparse" in {top(n) for n in imports(path, root)}:
                found.append(rel)
    return found


def _venue_importers(graph: dict[str, set[str]]) -> list[str]:
    """Edges from ``firmware_host`` into ``venue`` (late imports included)."""
    return sorted(f"{name} -> {other}" for name, imported in graph.items() for other in imported
                  if top(other) == "venue" and top(name) == "firmware_host")


def test_only_the_command_line_reads_argparse() -> None:
    assert _argparse_readers() == []


def test_firmware_host_never_imports_the_venue() -> None:
    """The venue sits above the service: it registers its outputs (``OutputSource``), the service never imports it."""
    assert _venue_importers(import_graph()) == []


def test_the_command_line_rule_can_fail(tmp_path: Path) -> None:
    (tmp_path / "firmware_host" / "players").mkdir(parents=True)
    (tmp_path / "cli").mkdir()
    (tmp_path / "firmware_host" / "players" / "demo.py").write_text("def run(args):\n    import argparse\n")
    (tmp_path / "cli" / "demo.py").write_text("import argparse\n")
    assert _argparse_readers(tmp_path) == ["firmware_host/players/demo.py"]


def test_the_venue_rule_can_fail() -> None:
    graph = {"firmware_host.app": {"venue.table.wiring"}, "cli.run": {"venue.table.wiring"},
             "venue.table.page": {"firmware_host.service"}}
    assert _venue_importers(graph) == ["firmware_host.app -> venue.table.wiring"]
