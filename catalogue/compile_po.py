"""Compile the catalogue's ``.po`` files to the ``.mo`` files :mod:`gettext` reads (Babel).

Run at build and install time by ``setup.py`` (a wheel and ``pip install -e .`` both carry
the compiled catalogues), and by hand after editing a ``.po``::

    .venv/bin/python -m catalogue.compile_po

:func:`catalogue.translations` compiles a stale or missing ``.mo`` in memory (with a warning),
so a developer who edits a ``.po`` sees the change before the next install.
"""

from __future__ import annotations

import io
import re
import string
import sys
from pathlib import Path

from babel.messages.catalog import Catalog, Message
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
        else:
            mo.touch()  # a .po changed in its comments only: the .mo is its compiled form, not stale
        written.append(mo)
    return written


def placeholders(text: str) -> set[str]:
    """The ``{names}`` a template fills."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


GUESSED_PLURAL = re.compile(r"\w+\((?:s|es|e|n|en|i|a|o|er|x)\)|(?<![\w/.])[^\W\d_]+/(?:i|e|a|o|s|n|en|es)\b(?!/)")
"""A plural written by hand ("carta(s)", "Karte(n)", "carta(e)", Italian "punto/i"): the message wants
plural forms (a path such as ``docs/nfc.md`` is not one)."""


def _key(message: Message) -> str:
    return str(message.id[0] if message.pluralizable else message.id)


def forms(message: Message) -> list[str]:
    """A message's words: its one ``msgstr``, or each of its plural forms."""
    string = message.string
    if isinstance(string, tuple | list):
        return [str(f) for f in string]
    return [str(string or "")]


def check(locale_dir: Path = LOCALE_DIR, languages: tuple[str, ...] = ()) -> list[str]:
    """What is wrong with the catalogues under ``locale_dir``: an id one language lacks or leaves
    empty or fuzzy, one English does not have, a template whose ``{names}`` differ from English's,
    a plural written by hand (``(s)``: :data:`GUESSED_PLURAL`), a message with plural forms in one
    language and not in another, or without as many forms as its language's ``Plural-Forms`` says.
    Every language of ``languages`` (default: those present) must have its ``.po``."""
    found = {po.parent.parent.name: read(po) for po in sorted(locale_dir.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))}
    problems = [f"{lang}: no {DOMAIN}.po" for lang in languages if lang not in found]
    english = found.get("en")
    if english is None:
        return [*problems, "en: no catalogue to compare with"]
    ids = {_key(m): m for m in english if m.id}
    for lang, catalog in found.items():
        have = {_key(m): m for m in catalog if m.id}
        problems += [f"{lang}: {msgid!r} missing" for msgid in ids if msgid not in have]
        problems += [f"{lang}: {msgid!r} is not in English" for msgid in have if msgid not in ids]
        for msgid, message in have.items():
            words = forms(message)
            filled = [w for w in words if w]
            if message.pluralizable and 0 < len(filled) != catalog.num_plurals:
                # Babel fills the forms a message lacks with empty ones
                problems.append(f"{lang}: {msgid!r} has {len(filled)} plural forms, its language "
                                f"{catalog.num_plurals} (Plural-Forms)")
                continue
            if not all(words):
                problems.append(f"{lang}: {msgid!r} empty")
                continue
            if message.fuzzy:
                problems.append(f"{lang}: {msgid!r} fuzzy")
                continue
            guessed = sorted({m.group(0) for w in words for m in GUESSED_PLURAL.finditer(w)})
            if guessed:
                problems.append(f"{lang}: {msgid!r} writes a plural by hand ({', '.join(guessed)}): give it "
                                "plural forms (msgid_plural, said with catalogue.say_n)")
            theirs = ids.get(msgid)
            if theirs is None:
                continue
            if message.pluralizable != theirs.pluralizable:
                problems.append(f"{lang}: {msgid!r} has plural forms in "
                                f"{'this language' if message.pluralizable else 'English'} only")
                continue
            english_names = set().union(*(placeholders(w) for w in forms(theirs)))
            names = set().union(*(placeholders(w) for w in words))
            if names != english_names or any(not placeholders(w) <= english_names for w in words):
                problems.append(f"{lang}: {msgid!r} fills {sorted(names)}, English {sorted(english_names)}")
    return problems


def main() -> int:
    for mo in compile_all():
        print(mo.relative_to(LOCALE_DIR.parent.parent))
    return 0


if __name__ == "__main__":
    sys.exit(main())
