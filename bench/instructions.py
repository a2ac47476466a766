"""Instruction counts per event and per frame, under ``valgrind --tool=callgrind``.

Counts do not drift with the machine or with what else it runs, so two commits compare in one run
even on a busy machine (time does drift: ``bench/service.py`` measures that). Prints one line per
figure, ``name: value unit``:

- ``event_instructions``: one physical event through the service's loop step (journal in memory,
  the controller, the panel drawing its frame and sending it through luma to the simulated bus),
  over whole games of the built-in players, faults included;
- ``frame_instructions``: one display frame of those games (the screen chosen, drawn and sent):
  the same games with the panel and without it, the difference over the frames it drew;
- ``event_instructions_no_panel``: one event without the panel (the referee and the journal).

Start-up figures (``--startup``; what every restart pays: after the watchdog, a crash, a power cut),
each a whole process, bytecode cached (a run outside valgrind writes it first), in millions of
instructions:

- ``startup_python``: the bare interpreter (``site`` included), the floor of every figure below;
- ``startup_version`` / ``startup_help``: ``ecarte-table --version`` and ``ecarte-table --help``;
- ``startup_console_version`` / ``startup_console_help``: the same through the console script a person
  types, ``ecarte-table`` as pip wrote it in the checkout's ``.venv`` (``scripts/setup.sh``: an editable
  install, whose finder the venv's ``site`` imports at every start); not printed for a checkout without one;
- ``startup_wheel_version`` / ``startup_wheel_help``: the same through the console script of a wheel
  installed as ``systemd/install.sh`` installs the table (built from a copy of the checkout, installed
  without its dependencies, which these two commands do not import, in a throwaway venv);
- ``startup_import_engine``: ``import engine``; ``startup_import_app``: ``import firmware_host.app``
  (the composition root);
- ``startup_run_first_frame``: ``ecarte-table run`` on the simulated table started again (its
  journal, registry and kept compiled methods there from a first run), from the interpreter's start
  to its first display frame saved (``--png``; the process ends as the PNG is opened for writing,
  seen by an audit hook, so the figure is the same whatever the pads' threads do after).

Each figure is a difference of whole runs (``--games`` games against one game, the first game
warming every cache as a table's first hand does), so the interpreter's start and the imports cancel
out. ``--before DIR`` counts the same workload on another checkout (``git worktree add DIR REV``) in
the same run, and prints its figures with ``before_`` in front.

    python bench/instructions.py [--games 3] [--language en] [--before DIR] [--startup | --startup-only]

It needs valgrind (``apt-get install valgrind``; ``bash scripts/system-deps.sh bench`` installs it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The workload, run by the Python under valgrind with the checkout on sys.path. It uses only what
# every commit since round four has (TableService, Controller, open_panel, game_transcript), so an
# older checkout runs it unchanged.
WORKLOAD = r"""
import json, random, sys
sys.path.insert(0, sys.argv[1])
games, panel_on, language = int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
import dataclasses
import engine
from firmware_host.journal.store import Journal
from firmware_host.players.builtin import game_transcript
from firmware_host.referee import Controller
from firmware_host.screens.panel import open_panel
from firmware_host.service import InputLine, TableService
from hardware.table import simulated_table
table = simulated_table()
if hasattr(table, "language"):
    table = dataclasses.replace(table, language=language)
events = frames = 0
for seed in range(games):
    moves = game_transcript(engine.new_game("classic", dealer="A"), random.Random(seed), faults=True)
    with Journal(":memory:") as journal:
        panel = open_panel(table) if panel_on else None
        service = TableService(journal=journal, controller=Controller(), outputs=[panel] if panel else [])
        service.resume()
        for event in moves:
            service.handle(InputLine(event))
        events += len(moves)
        if panel is not None:
            frames += panel.frames
            panel.close()
print(json.dumps({"events": events, "frames": frames}))
"""


def count(checkout: Path, games: int, *, panel: bool, language: str) -> tuple[int, dict[str, int]]:
    """(instructions, the workload's own counts) of one run under callgrind."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        script = Path(tmp) / "workload.py"
        script.write_text(WORKLOAD)
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
        proc = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, str(script),
             str(checkout), str(games), "1" if panel else "0", language],
            capture_output=True, text=True, env=env, cwd=checkout, check=False,
        )
        if proc.returncode != 0:
            raise SystemExit(f"bench/instructions.py: the workload failed in {checkout}:\n{proc.stderr[-2000:]}")
        totals = re.search(r"^summary:\s+(\d+)", out.read_text(), re.MULTILINE)
        if totals is None:
            raise SystemExit(f"bench/instructions.py: no summary line in {out}")
        return int(totals.group(1)), json.loads(proc.stdout.strip().splitlines()[-1])


# The start-up workloads: each runs in a fresh interpreter with the checkout first on sys.path.
STARTUP_PRELUDE = "import sys; sys.path.insert(0, sys.argv[1])\n"
STARTUP = {
    "startup_python": "",
    "startup_version": "from cli.main import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass\n",
    "startup_help": "from cli.main import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n",
    "startup_import_engine": "import engine\n",
    "startup_import_app": "import firmware_host.app\n",
    "startup_run_first_frame": r"""
import os
frames = sys.argv[2]

def first_frame(event, args):
    if event == "open" and str(args[0]).startswith(frames) and "w" in str(args[1]):
        os._exit(0)

if sys.argv[4] == "count":  # the warming run plays its (empty) input to the end and stops as a table stops
    sys.addaudithook(first_frame)
from cli.main import main
sys.exit(main(["run", "--journal", sys.argv[3], "--png", frames, "--events", "-"]))
""",
}


CONSOLE = {"version": ["--version"], "help": ["--help"]}
"""The console scripts' command lines (``startup_console_*``, ``startup_wheel_*``)."""


def wheel_console(checkout: Path, folder: Path) -> Path:
    """``ecarte-table`` of ``checkout`` built as a wheel (from a copy: the checkout is left as it is) and
    installed without its dependencies in a venv made in ``folder`` with this interpreter, by this
    interpreter's pip (whose console-script template ``systemd/install.sh``'s upgraded pip writes too)."""
    source, wheels, venv = folder / "source", folder / "wheels", folder / "venv"
    shutil.copytree(checkout, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "__pycache__", "build", "*.egg-info", "node_modules", ".mypy_cache", ".ruff_cache",
        ".lgd-nfy*"))  # lgpio's notification FIFOs, left in the folder a test ran lgpio from
    steps = [
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(wheels), str(source)],
        [sys.executable, "-m", "venv", "--without-pip", str(venv)],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"bench/instructions.py: {' '.join(step)} failed:\n{done.stderr[-2000:]}")
    built = sorted(wheels.glob("ecarte_table-*.whl"))
    install = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet",
               "--no-deps", "--no-index", str(built[-1])]
    done = subprocess.run(install, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench/instructions.py: installing the wheel failed:\n{done.stderr[-2000:]}")
    return venv / "bin" / "ecarte-table"


def startup_count(checkout: Path, name: str, home: Path, *, valgrind: bool = True,
                  console: Path | None = None) -> int:
    """Instructions of one start-up workload, a whole process (0 when not under valgrind). ``home``
    holds what a table keeps from one start to the next: its state (the journal, the tag registry)
    and its bytecode (``PYTHONPYCACHEPREFIX``), the dataclasses' methods :mod:`cli.compiled_methods`
    keeps beside it. ``console``: a console script run with :data:`CONSOLE`'s line for ``name``'s
    last word, in place of a workload."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        script = Path(tmp) / f"{name}.py"
        if console is None:
            script.write_text(STARTUP_PRELUDE + STARTUP[name])
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("PYTHON", "LC_", "LANG")) and key != "STATE_DIRECTORY"}
        env.update(PYTHONHASHSEED="0", XDG_STATE_HOME=str(home / "state"), PYTHONPYCACHEPREFIX=str(home / "pycache"),
                   LANG="C.UTF-8", COLUMNS="80")
        command = [sys.executable, str(script), str(checkout), str(home / "frames"), str(home / "journal.sqlite"),
                   "count" if valgrind else "warm"]
        if console is not None:
            command = [str(console), *CONSOLE[name.rpartition("_")[2]]]
        if valgrind:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command]
        errors = Path(tmp) / "stderr"
        # `run --events -` reads standard input: counted, kept open (and empty) until the first frame ends it
        stdin = subprocess.PIPE if valgrind else subprocess.DEVNULL
        with errors.open("w") as sink, subprocess.Popen(command, stdin=stdin, stdout=subprocess.DEVNULL, stderr=sink,
                                                        env=env, cwd=tmp) as proc:
            try:
                proc.wait(timeout=600)
            except subprocess.TimeoutExpired:
                proc.kill()
                raise SystemExit(f"bench/instructions.py: {name} did not end in {checkout}") from None
        err = errors.read_text(errors="replace")
        if proc.returncode != 0:
            raise SystemExit(f"bench/instructions.py: {name} failed in {checkout}:\n{err[-2000:]}")
        if not valgrind:
            return 0
        totals = re.search(r"^summary:\s+(\d+)", out.read_text(), re.MULTILINE)
        if totals is None:
            raise SystemExit(f"bench/instructions.py: no summary line in {out}")
        return int(totals.group(1))


def startup_figures(checkout: Path) -> dict[str, int]:
    """Instructions of each start-up workload as a table restarts: its bytecode, its journal and the
    compiled methods a command keeps written by a first run outside valgrind that ends as a table
    stops (``run``: its empty input played to the end)."""
    with tempfile.TemporaryDirectory() as home:
        for name in STARTUP:
            startup_count(checkout, name, Path(home), valgrind=False)
        counted = {name: startup_count(checkout, name, Path(home)) for name in STARTUP}
        consoles = {"startup_wheel": wheel_console(checkout, Path(home) / "wheel")}
        if (checkout / ".venv" / "bin" / "ecarte-table").exists():
            consoles["startup_console"] = checkout / ".venv" / "bin" / "ecarte-table"
        for prefix, console in consoles.items():
            for line in CONSOLE:
                startup_count(checkout, f"{prefix}_{line}", Path(home), valgrind=False, console=console)
                counted[f"{prefix}_{line}"] = startup_count(checkout, f"{prefix}_{line}", Path(home), console=console)
        return counted


def figures(checkout: Path, games: int, language: str) -> dict[str, float]:
    """Instructions per event (with and without the panel) and per frame, games 2..N over game 1."""
    one, one_counts = count(checkout, 1, panel=True, language=language)
    many, many_counts = count(checkout, games, panel=True, language=language)
    bare_one, _ = count(checkout, 1, panel=False, language=language)
    bare_many, _ = count(checkout, games, panel=False, language=language)
    events = many_counts["events"] - one_counts["events"]
    frames = many_counts["frames"] - one_counts["frames"]
    return {
        "event_instructions": (many - one) / events,
        "event_instructions_no_panel": (bare_many - bare_one) / events,
        "frame_instructions": ((many - one) - (bare_many - bare_one)) / frames,
        "events_counted": events,
        "frames_counted": frames,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3, help="games in the long run (the short run plays one)")
    parser.add_argument("--language", default="en", help="the panel's language")
    parser.add_argument("--before", type=Path, help="another checkout, counted in the same run")
    parser.add_argument("--startup", action="store_true", help="also the start-up figures")
    parser.add_argument("--startup-only", action="store_true", help="only the start-up figures")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("bench/instructions.py: valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    if args.games < 2:
        parser.error("--games must be 2 or more")
    runs = [("", ROOT)] + ([("before_", args.before.resolve())] if args.before else [])
    if args.startup or args.startup_only:
        counted = {prefix: startup_figures(checkout) for prefix, checkout in runs}
        names = [*STARTUP, *(f"{how}_{line}" for how in ("startup_console", "startup_wheel") for line in CONSOLE)]
        for name in names:
            for prefix, _ in runs:
                if name in counted[prefix]:
                    print(f"{prefix}{name}: {counted[prefix][name] / 1e6:,.1f} M instructions", flush=True)
        if args.startup_only:
            return 0
    for prefix, checkout in runs:
        result = figures(checkout, args.games, args.language)
        for name in ("event_instructions", "event_instructions_no_panel", "frame_instructions"):
            print(f"{prefix}{name}: {result[name]:,.0f} instructions", flush=True)
        print(f"{prefix}events_counted: {result['events_counted']} events ({result['frames_counted']} frames)",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
