"""Docs that stay true: every path of the repository that a doc (README.md, docs/*.md, every other
Markdown file) or a docstring or comment of our code cites exists.

gpiozero and python-chess build their API pages from their docstrings, so that a page cannot name
what is gone; here the docs are written by hand, and this check keeps their paths true. Twenty-one
source files cited the transcript's contract by the name of the shared copy, which a clone does not
have (``shared/TRANSCRIPT.md``; the repository's is docs/transcript.md). A page that names a path
outside the repository says so: a leading ``/`` or ``shared/`` is not ours (``shared/RULES.md``,
``/etc/ecarte-table/``).
"""
from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOP = ("engine", "drivers", "hardware", "firmware_host", "coach", "venue", "catalogue", "cli", "docs", "tests",
       "bench", "scripts", "systemd")
"""The repository's folders: a path beginning with one of them is the repository's."""

PATH = re.compile(r"(?<![\w./~@:-])((?:" + "|".join(TOP) + r")/[\w./-]*|README\.md|pyproject\.toml|setup\.py)")
BARE_MD = re.compile(r"(?<![\w./~@:-])([\w-]+\.md)\b")
LINK = re.compile(r"\]\(([^)\s]+)\)")
OUTSIDE_LINK = re.compile(r"\[[^\]]*\]\([a-z]+://[^)]*\)")
PLACEHOLDER = re.compile(r"(^|/)([A-Z][A-Z_]*|__pycache__)(\.|/|$)")
"""``bench/NAME.py``, ``tests/transcripts/SOME_GAME.jsonl``: a name in capitals stands for any; a cache is made."""
PATTERN = "<*{$[|"
"""A path followed by one of these is a pattern (``tests/firmware_host/<room>/test_*.py``), not a path."""


def _docstrings_and_comments(source: str) -> str:
    """The docstrings (module, class, function) and comments of a Python module, one a line: strings
    that are code (a fixture written to a temporary folder, say) are not read."""
    tree = ast.parse(source)
    found = [doc for node in ast.walk(tree)
             if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
             and (doc := ast.get_docstring(node, clean=False))]
    found += [token.string for token in tokenize.generate_tokens(io.StringIO(source).readline)
              if token.type == tokenize.COMMENT]
    return "\n".join(found)


def missing_paths(text: str, where: Path, root: Path = ROOT) -> list[str]:
    """The paths ``text`` (the text of ``where``, a file of ``root``) cites that do not exist."""
    missing = []
    for match in LINK.finditer(text):
        target = match.group(1).split("#")[0]
        if target and "://" not in target and not target.startswith("mailto:") \
                and not (where.parent / target).exists():
            missing.append(target)
    text = LINK.sub("]", OUTSIDE_LINK.sub("", text))  # each link once: read above, or not ours
    for match in PATH.finditer(text):
        path = match.group(1).rstrip(".,:;")
        after = text[match.end():match.end() + 1]
        if (after and after in PATTERN) or PLACEHOLDER.search(path):
            continue
        if not (root / path).exists():
            missing.append(path)
    for match in BARE_MD.finditer(text):
        name = match.group(1)
        if not any((folder / name).exists() for folder in (where.parent, root, root / "docs")):
            missing.append(name)
    return missing


def _tracked(pattern: str) -> list[Path]:
    """Our files matching ``pattern``: git's list in a clone, else the tree without its environment."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", pattern], cwd=ROOT, capture_output=True,
                                check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return [p for p in sorted(ROOT.rglob(pattern)) if not any(
            part.startswith(".") or part.endswith(".egg-info") for part in p.relative_to(ROOT).parts)]
    return [ROOT / name for name in listed.decode().split("\0") if name]


def cited_but_missing(root: Path = ROOT) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in _tracked("*.md"):
        found[path.relative_to(root).as_posix()] = missing_paths(path.read_text(encoding="utf-8"), path, root)
    for path in _tracked("*.py"):
        text = _docstrings_and_comments(path.read_text(encoding="utf-8"))
        found[path.relative_to(root).as_posix()] = missing_paths(text, path, root)
    return {name: paths for name, paths in found.items() if paths}


def test_every_path_a_doc_or_a_docstring_cites_exists() -> None:
    assert cited_but_missing() == {}


def test_the_path_check_can_fail(tmp_path: Path) -> None:
    """A page the repository does not have, a module moved away, a broken relative link are caught;
    a pattern, a placeholder, a path outside the repository and a web link are not paths of ours."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "venue" / "table").mkdir(parents=True)
    (tmp_path / "venue" / "table" / "page.py").write_text("")
    (tmp_path / "docs" / "web.md").write_text("")
    text = ("the format of TRANSCRIPT.md; the page `venue/page.py`, now `venue/table/page.py`; [web](web.md), "
            "[gone](gone.md#x), [sbc](https://example.org/Results.md); `tests/firmware_host/<room>/test_*.py`, "
            "`bench/NAME.py`, shared/RULES.md, /etc/ecarte-hub/venue.toml, web.md.")
    assert missing_paths(text, tmp_path / "docs" / "x.md", tmp_path) == ["gone.md", "venue/page.py", "TRANSCRIPT.md"]
    source = '"""The page (venue/page.py)."""\nx = ("venue/page.py",\n     "venue/page.py")  # see docs/gone.md\n'
    assert missing_paths(_docstrings_and_comments(source), tmp_path / "x.py", tmp_path) == [
        "venue/page.py", "docs/gone.md"]
