"""The methods ``@dataclass`` writes, compiled once and kept: a table starts again without compiling them.

:mod:`dataclasses` writes each class's ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` (and, for
a frozen one, ``__setattr__`` and ``__delattr__``) as Python source and compiles it with ``exec`` as
the class is made: at import, in every process. ``ecarte-table run`` makes about 130 such classes
before its first frame, and parsing and compiling their 760 small functions was about a quarter of
its start-up's instructions (``bench/instructions.py --startup``), paid again at each restart:
after the watchdog, a crash, every power cut.

:func:`install` gives :mod:`dataclasses` an ``exec`` that compiles each text once and keeps its
code (marshalled, as a ``.pyc`` keeps a module's) in a file read at the next start. A text is its
own key and compiles to the same code whoever asks (no compiler flag inherited, as ``dataclasses``
has none), so every class is what it was: only the compiling is saved. The file is stamped with the
interpreter's magic number (another Python's code is not read), written when something new was
compiled: :data:`SETTLED_S` after the start (a table is mostly stopped by its plug, never at its
exit) and at exit, atomically (a temporary file renamed), never when Python writes no bytecode
(``PYTHONDONTWRITEBYTECODE``), and silently not when its folder cannot be written: the classes are
then compiled as before.

It lives where Python keeps this package's bytecode (``cli/__pycache__``, or below
``PYTHONPYCACHEPREFIX``), and is trusted as the ``.pyc`` files beside it are: whoever can write
one can write the other. The service cannot write there (``ProtectSystem=strict``): the installer
writes it once, as it installs the code (``python -P -m cli.compiled_methods`` imports every module of
ours, and so makes every class; ``systemd/install.sh``; ``-P``: the installed package, never the
``cli/`` of a clone in the folder the installer is run from, which ``python -m`` would find first and
where the file would be written for no one).

Whatever the file holds, a class is what it would be without it: a text compiles to one code, so a
class changed since the file was written has a new text and is compiled (and kept at the next write);
only the compiling is saved, never a method of another text. Another Python (another magic number, or
cache tag in the name) reads none of it; a file that cannot be read is compiled over.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import importlib.util
import marshal
import os
import sys
import threading
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import CodeType

__all__ = ["cache_file", "install", "save"]

LIMIT = 4000
"""At most this many texts kept (the classes of every command are fewer than 1,000): beyond, the
file starts again from what the last process used, so that old code does not pile up."""

SETTLED_S = 10.0
"""Seconds after :func:`install` when what was compiled is written: the command has made its
classes by then (``run`` shows its first frame within a second or two on a Pi)."""

_code: dict[str, CodeType] = {}
_used: set[str] = set()
_state = {"installed": False, "new": False}
_kept_in: list[Path] = []
"""The file :func:`install` read, where :func:`save` writes (the environment of the start decides)."""


def cache_file(prefix: str | None = None) -> Path:
    """Where the compiled methods are kept, for this interpreter (its cache tag in the name): beside
    this package's bytecode, as :func:`importlib.util.cache_from_source` places it (``prefix``:
    ``sys.pycache_prefix``, ``PYTHONPYCACHEPREFIX``)."""
    prefix = sys.pycache_prefix if prefix is None else prefix
    package = Path(__file__).resolve().parent
    folder = Path(prefix) / package.relative_to(package.anchor) if prefix else package / "__pycache__"
    return folder / f"dataclass-methods.{sys.implementation.cache_tag}.marshal"


def _compiled_exec(source: object, globals: dict[str, object] | None = None,
                   locals: dict[str, object] | None = None) -> None:
    """``exec`` for :mod:`dataclasses`: a text compiled once (then its kept code), anything else as given.
    Without ``globals``, the caller's, as ``exec`` takes them (here they would be this module's)."""
    if globals is None:
        caller = sys._getframe(1)
        globals, locals = caller.f_globals, caller.f_locals if locals is None else locals
    if isinstance(source, str):
        code = _code.get(source)
        if code is None:
            code = _code[source] = compile(source, "<string>", "exec", dont_inherit=True)
            _state["new"] = True
        _used.add(source)
        exec(code, globals, locals)  # the text dataclasses wrote, run as dataclasses runs it
        return
    exec(source, globals, locals)  # type: ignore[arg-type]


def _load(path: Path) -> None:
    try:
        data = path.read_bytes()
    except OSError:
        return
    if data[:4] != importlib.util.MAGIC_NUMBER:
        return
    try:
        kept = marshal.loads(data[4:])
    except (EOFError, ValueError, TypeError):
        return
    if isinstance(kept, dict):
        _code.update({text: code for text, code in kept.items() if isinstance(text, str)})


def save(path: Path | None = None) -> None:
    """Write what was compiled, when something new was and Python writes bytecode."""
    if not _state["new"] or sys.dont_write_bytecode:
        return
    path = path or (_kept_in[0] if _kept_in else cache_file())
    _state["new"] = False
    code = dict(_code)  # copies (a class may be made in another thread meanwhile)
    kept = code if len(code) <= LIMIT else {text: code[text] for text in set(_used) if text in code}
    temporary = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(importlib.util.MAGIC_NUMBER + marshal.dumps(kept))
        os.replace(temporary, path)
    except OSError:  # a folder the process cannot write (the service's): the classes compile as before
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)


def install() -> None:
    """Compile :mod:`dataclasses`' methods once: read the kept code, and keep the new :data:`SETTLED_S`
    after and at exit (installed twice: once)."""
    if _state["installed"]:
        return
    _state["installed"] = True
    _kept_in.append(cache_file())
    _load(_kept_in[0])
    dataclasses.exec = _compiled_exec  # type: ignore[attr-defined]  # the name _create_fn calls
    atexit.register(save)
    settled = threading.Timer(SETTLED_S, save)
    settled.daemon = True
    settled.start()


def warm() -> int:
    """Compile and keep the methods of every class of ours: every module of our packages imported (the
    installer runs it, as root, where the service cannot write). Returns how many texts are kept."""
    import importlib
    import pkgutil

    install()
    root = Path(__file__).resolve().parents[1]
    for package in ("engine", "catalogue", "drivers", "hardware", "coach", "firmware_host", "venue", "cli"):
        for found in pkgutil.walk_packages([str(root / package)], prefix=f"{package}."):
            if found.name.endswith("__main__"):
                continue
            try:
                importlib.import_module(found.name)
            except Exception:  # a module that needs what this machine lacks: its classes wait for it
                continue
    save()
    return len(_code)


if __name__ == "__main__":  # the module itself does the work (run as __main__, it is a second copy)
    from cli import compiled_methods

    print(f"{compiled_methods.cache_file()}: {compiled_methods.warm()} methods kept")
