"""The dataclasses' methods compiled once and kept (:mod:`cli.compiled_methods`): a second start
compiles none of them again, and every class is what it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG_S

from cli.compiled_methods import cache_file

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
compiled = []
sys.addaudithook(lambda event, args: compiled.append(1) if event == "compile" and sys._getframe(1).f_code.co_name
                 in ("_create_fn", "_compiled_exec") else None)
if sys.argv[1] == "install":
    from cli.compiled_methods import install
    install()
import dataclasses, engine, importlib
importlib.import_module(sys.argv[2])
game = engine.new_game("classic", dealer="A")
action = engine.parse_action("B plays 7S")
seen = {
    "action": [repr(action), str(action), action == engine.parse_action("B plays 7S"), hash(action) == hash(
        engine.parse_action("B plays 7S"))],
    "game": repr(game)[:400],
    "fields": sorted(f.name for f in dataclasses.fields(game)),
    "init": str(__import__("inspect").signature(type(game).__init__)),
}
try:
    action.seat = "A"
except dataclasses.FrozenInstanceError:
    seen["frozen"] = True
print(json.dumps({"compiled": len(compiled), "seen": seen}))
"""


def _environ(tmp_path: Path) -> dict[str, str]:
    """The environment with this test's own bytecode folder (where the methods are kept too)."""
    return {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
            "PYTHONPYCACHEPREFIX": str(tmp_path)}


def _start(tmp_path: Path, how: str, module: str = "engine", **env: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", PROBE, how, module], capture_output=True, text=True, cwd=ROOT,
                          timeout=HANG_S, env={**_environ(tmp_path), **env}, check=False)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_a_second_start_compiles_no_method_and_makes_the_same_classes(tmp_path: Path) -> None:
    plain = _start(tmp_path, "plain")
    first = _start(tmp_path, "install")
    second = _start(tmp_path, "install")
    assert int(plain["compiled"]) > 100  # type: ignore[call-overload]  # every dataclass compiles its methods
    # the first start compiles each text once (classes of the same fields share theirs), and keeps them
    assert 100 < int(first["compiled"]) <= int(plain["compiled"])  # type: ignore[call-overload]
    assert cache_file(str(tmp_path)).exists()
    assert second["compiled"] == 0
    assert first["seen"] == second["seen"] == plain["seen"]
    assert plain["seen"]["frozen"] is True  # type: ignore[index]


def test_kept_while_the_command_runs_a_table_killed_later_keeps_them(tmp_path: Path) -> None:
    """A table is mostly stopped by its plug or a kill -9, never at its exit: what it compiled is
    written once it has settled, not only at exit."""
    killed = ("import os, signal, time\nimport cli.compiled_methods as kept\nkept.SETTLED_S = 3.0\n"
              "kept.install()\nimport engine\ntime.sleep(8)\nos.kill(os.getpid(), signal.SIGKILL)\n")
    done = subprocess.run([sys.executable, "-c", killed], capture_output=True, text=True, cwd=ROOT, timeout=HANG_S,
                          env=_environ(tmp_path), check=False)
    assert done.returncode == -9, done.stderr
    assert cache_file(str(tmp_path)).exists()
    assert _start(tmp_path, "install")["compiled"] == 0


def test_nothing_kept_when_python_writes_no_bytecode(tmp_path: Path) -> None:
    _start(tmp_path, "install", PYTHONDONTWRITEBYTECODE="1")
    assert not cache_file(str(tmp_path)).exists()


def test_a_damaged_or_foreign_file_is_compiled_over(tmp_path: Path) -> None:
    kept = cache_file(str(tmp_path))
    kept.parent.mkdir(parents=True)
    for damage in (b"", b"\x00\x01garbage", kept.read_bytes()[:4] if kept.exists() else b"\x42" * 50):
        kept.write_bytes(damage)
        again = _start(tmp_path, "install")
        assert int(again["compiled"]) > 100  # type: ignore[call-overload]
        assert _start(tmp_path, "install")["compiled"] == 0  # and kept anew


def test_kept_beside_the_bytecode_and_written_by_the_installer(tmp_path: Path) -> None:
    """Beside the package's bytecode, as trusted as it (the service cannot write there: the installer
    runs ``python -m cli.compiled_methods``, which makes every class of ours); after it, the
    composition root imports without compiling a method."""
    package = ROOT / "cli"
    assert cache_file("").parent == package / "__pycache__"
    assert cache_file(str(tmp_path)).parent == tmp_path / package.relative_to("/")
    done = subprocess.run([sys.executable, "-m", "cli.compiled_methods"], capture_output=True, text=True, cwd=ROOT,
                          timeout=HANG_S, env=_environ(tmp_path), check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(str(cache_file(str(tmp_path))))
    assert _start(tmp_path, "install", "firmware_host.app")["compiled"] == 0
    assert int(_start(tmp_path, "plain", "firmware_host.app")["compiled"]) > 500  # type: ignore[call-overload]


def test_a_folder_that_cannot_be_written_is_passed_over_in_silence(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The installed service runs where it cannot write (``ProtectSystem=strict``): a start that compiled
    a class the installer had not ended, at its exit, in a traceback from the cleanup of the temporary
    file ("Exception ignored in atexit callback … Read-only file system": the booted unit's refusals of
    a bad table file and a damaged journal). Here the folder is below a file, which no one can write."""
    from cli import compiled_methods

    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # as the service runs
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    compiled_methods._state["new"] = True
    try:
        compiled_methods.save(blocked / "__pycache__" / "dataclass-methods.marshal")
    finally:
        compiled_methods._state["new"] = False
    assert blocked.read_text() == "not a folder"


def test_the_installers_step_warms_the_installed_package_not_a_clone_in_its_folder(tmp_path: Path) -> None:
    """``systemd/install.sh`` is run from a clone (``sudo bash systemd/install.sh``), whose ``cli/`` is in
    the folder: ``python -m cli.compiled_methods`` warmed that one and wrote its file there, for no
    one, and every start of the service compiled every method. The step as install.sh writes it, run
    from a folder with another ``cli/``: the installed package's file is written."""
    import re
    import shlex

    line = next(line for line in (ROOT / "systemd" / "install.sh").read_text().splitlines()
                if re.match(r'run "\$VENV/bin/python" .*-m cli\.compiled_methods$', line))
    words = shlex.split(line)[2:]  # after run "$VENV/bin/python"
    clone = tmp_path / "clone"
    (clone / "cli").mkdir(parents=True)
    (clone / "cli" / "__init__.py").write_text("")
    (clone / "cli" / "compiled_methods.py").write_text("print('the clone warmed')\n")
    done = subprocess.run([sys.executable, *words], capture_output=True, text=True, cwd=clone, timeout=HANG_S,
                          env=_environ(tmp_path / "pycache"), check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(str(cache_file(str(tmp_path / "pycache")))), done.stdout
    assert cache_file(str(tmp_path / "pycache")).exists()


def test_an_exec_without_globals_runs_in_the_callers_as_exec_does() -> None:
    """``exec(text, None, ns)`` (how a ``dataclasses`` may call it) runs in the caller's globals, as the
    built-in does: not in this module's."""
    from cli import compiled_methods

    namespace: dict[str, object] = {}
    compiled_methods._compiled_exec("def f():\n    return __name__\n", None, namespace)
    assert namespace["f"]() == __name__  # type: ignore[operator]
    assert __name__ != compiled_methods.__name__
