"""Each module's name says which one it is: no two modules of ours share a file name.

python-chess names its modules by what they hold (``pgn``, ``polyglot``, ``syzygy``), so a
reader knows from the path alone which ``history`` or ``errors`` is meant. A command module
of ``cli/`` may share its command's name (``cli/history.py`` prints what
``journal/summaries.py`` sums up); package files (``__init__``, ``__main__``) are not names.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "coach", "drivers", "hardware", "firmware_host", "venue", "catalogue", "cli")
NOT_NAMES = {"__init__.py", "__main__.py", "conftest.py"}


def shared_names(paths: list[Path], root: Path = ROOT) -> dict[str, list[str]]:
    """File name → the modules that bear it, for names borne by more than one (outside ``cli/``)."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        relative = path.relative_to(root).as_posix()
        if path.name in NOT_NAMES or relative.startswith("cli/"):
            continue
        found[path.name].append(relative)
    return {name: sorted(where) for name, where in sorted(found.items()) if len(where) > 1}


def test_no_two_modules_share_a_name() -> None:
    paths = [p for package in PACKAGES for p in (ROOT / package).rglob("*.py")]
    assert shared_names(paths) == {}


def test_the_name_check_sees_a_shared_name() -> None:
    """The check can fail: two ``history.py`` are caught, a command module and ``__init__`` are not."""
    paths = [ROOT / p for p in ("venue/history.py", "firmware_host/journal/history.py", "cli/history.py",
                                "engine/__init__.py", "drivers/__init__.py")]
    assert shared_names(paths) == {"history.py": ["firmware_host/journal/history.py", "venue/history.py"]}
