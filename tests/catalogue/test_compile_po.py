"""``python -m catalogue.compile_po``: a ``.mo`` it leaves is never older than its ``.po``."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from catalogue import LOCALE_DIR
from catalogue.compile_po import compile_all


def test_a_po_changed_in_its_comments_only_leaves_a_mo_as_new(tmp_path: Path) -> None:
    """A comment of a ``.po`` changed (a path it cites, say) compiles to the same bytes: the ``.mo``
    is its compiled form all the same, so it must not stay older than the ``.po``, or every start
    of the table compiled the catalogue again with Babel, warning that the ``.mo`` was stale."""
    folder = tmp_path / "en" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    po = folder / "ecarte.po"
    shutil.copy(LOCALE_DIR / "en" / "LC_MESSAGES" / "ecarte.po", po)
    (mo,) = compile_all(tmp_path)
    os.utime(mo, (1_000_000, 1_000_000))
    po.write_text("#. a comment changed\n" + po.read_text(encoding="utf-8"), encoding="utf-8")
    before = mo.read_bytes()
    assert compile_all(tmp_path) == [mo]
    assert mo.read_bytes() == before
    assert mo.stat().st_mtime >= po.stat().st_mtime
