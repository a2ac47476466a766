"""Compile the catalogue's ``.po`` files to the ``.mo`` files :mod:`gettext` reads (Babel).

Run at build and install time by ``setup.py`` (a wheel and ``pip install -e .`` both carry
the compiled catalogues), and by hand after editing a ``.po``::

    .venv/bin/python -m catalogue.compile_po

:func:`catalogue.translations` compiles a stale or missing ``.mo`` in memory (with a warning),
so a developer who edits a ``.po`` sees the change before the next install.
"""

from __future__ import annotations

import io
import string
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from catalogue import DOMAIN, LOCALE_DIR


def read(po: Path) -> Catalog:
    """The catalogue a ``.po`` holds."""
    with po.open("rb") as f:
        return read_po(f, locale=po.parent.parent.name)


def mo_bytes(po: Path) -> bytes:
    """``po`` compiled, as the bytes of a ``.mo`` (fuzzy entries left out, as ``msgfmt`` does)."""
    buffer = io.BytesIO()
    write_mo(buffer, read(po))
    return buffer.getvalue()


def compile_all(locale_dir: Path = LOCALE_DIR) -> list[Path]:
    """Compile every ``<lang>/LC_MESSAGES/ecarte.po`` under ``locale_dir`` beside itself; the ``.mo`` written."""
    written = []
    for po in sorted(locale_dir.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        mo = po.with_suffix(".mo")
        data = mo_bytes(po)
        if not mo.exists() or mo.read_bytes() != data:
            mo.write_bytes(data)
        written.append(mo)
    return written


def placeholders(text: str) -> set[str]:
    """The ``{names}`` a template fills."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def check(locale_dir: Path = LOCALE_DIR, languages: tuple[str, ...] = ()) -> list[str]:
    """What is wrong with the catalogues under ``locale_dir``: an id one language lacks or leaves
    empty or fuzzy, one English does not have, a template whose ``{names}`` differ from English's.
    Every language of ``languages`` (default: those present) must have its ``.po``."""
    found = {po.parent.parent.name: read(po) for po in sorted(locale_dir.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))}
    problems = [f"{lang}: no {DOMAIN}.po" for lang in languages if lang not in found]
    english = found.get("en")
    if english is None:
        return [*problems, "en: no catalogue to compare with"]
    ids = {str(m.id): str(m.string) for m in english if m.id}
    for lang, catalog in found.items():
        have = {str(m.id): m for m in catalog if m.id}
        problems += [f"{lang}: {msgid!r} missing" for msgid in ids if msgid not in have]
        problems += [f"{lang}: {msgid!r} is not in English" for msgid in have if msgid not in ids]
        for msgid, message in have.items():
            if not message.string:
                problems.append(f"{lang}: {msgid!r} empty")
            elif message.fuzzy:
                problems.append(f"{lang}: {msgid!r} fuzzy")
            elif msgid in ids and placeholders(str(message.string)) != placeholders(ids[msgid]):
                problems.append(f"{lang}: {msgid!r} fills {sorted(placeholders(str(message.string)))}, "
                                f"English {sorted(placeholders(ids[msgid]))}")
    return problems


def main() -> int:
    for mo in compile_all():
        print(mo.relative_to(LOCALE_DIR.parent.parent))
    return 0


if __name__ == "__main__":
    sys.exit(main())
