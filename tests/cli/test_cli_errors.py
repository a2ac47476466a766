"""No tracebacks, clear logs: each bad invocation gives one line and exit 2,
or goes on where that is right."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG_S

CLI = Path(sys.executable).parent / "ecarte-table"
ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = HANG_S
UNWRITABLE = Path("/proc/ecarte-nowhere")  # not even root can make a file there


def _cli(*args: str, stdin: bytes | None = b"", cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(CLI), *args], input=stdin, capture_output=True, timeout=TIMEOUT, check=False,
                          cwd=cwd)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(errors="replace"),
                                       done.stderr.decode(errors="replace"))


def _bad(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    for word in words:
        assert word in done.stderr


@pytest.fixture
def binary(tmp_path: Path) -> Path:
    path = tmp_path / "binary.dat"
    path.write_bytes(bytes(range(256)) * 8)
    return path


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    path = tmp_path / "journal.sqlite"
    assert _cli("run", "--journal", str(path), "--events", "-", stdin=b'{"seat": "A", "button": "king"}\n'
                ).returncode == 0
    return path


@pytest.mark.parametrize("args, words", [
    (("demo", "--rules", "bogus"), ("unknown rule set 'bogus'",)),
    (("sim", "--rules", "bogus"), ("unknown rule set 'bogus'",)),
    (("demo", "--delay", "-1"), ("--delay",)),
    (("enroll", "--pack", "0"), ("--pack",)),
    (("enroll", "--pack", "3"), ("--pack",)),
    (("enroll", "--pad", "nosuch"), ("unknown pad",)),
    (("enroll", "--registry", str(UNWRITABLE / "tags.json")), ("tag registry",)),
    (("export", "--journal", "/nonexistent/j.sqlite"), ("no journal",)),
])
def test_bad_arguments(args: tuple[str, ...], words: tuple[str, ...]) -> None:
    _bad(_cli(*args), *words)


def test_binary_files(tmp_path: Path, binary: Path) -> None:
    _bad(_cli("run", "--journal", str(tmp_path / "j.sqlite"), "--events", str(binary)), "not UTF-8")
    _bad(_cli("enroll", "--registry", str(binary)), "not UTF-8")
    table = tmp_path / "table.toml"
    table.write_text((ROOT / "hardware/tables/simulated.toml").read_text().replace(
        "[pads]", f'registry = "{binary}"\n\n[pads]'))
    _bad(_cli("run", str(table), "--journal", str(tmp_path / "k.sqlite"), "--events", "/dev/null"), "tag registry")


def test_enroll_with_an_absent_display_goes_on(tmp_path: Path) -> None:
    table = tmp_path / "table.toml"
    table.write_text((ROOT / "hardware/tables/simulated.toml").read_text().replace('bus = "sim"', "bus = 9"))
    done = _cli("enroll", str(table), "--registry", str(tmp_path / "tags.json"))
    assert "Traceback" not in done.stderr
    assert done.returncode == 0, done.stderr
    assert "32 cards enrolled" in done.stdout


def test_enroll_against_a_missing_reader_gives_up(tmp_path: Path) -> None:
    table = tmp_path / "table.toml"
    table.write_text((ROOT / "hardware/tables/simulated.toml").read_text().replace(
        '"hand.A" = "sim"', '"hand.A" = "/dev/ttyUSB97"'))
    _bad(_cli("enroll", str(table), "--registry", str(tmp_path / "tags.json")), "no reader at /dev/ttyUSB97")


@pytest.mark.parametrize("where", ["missing_dir", "directory", "unwritable"])
def test_export_to_a_place_it_cannot_write(tmp_path: Path, journal: Path, where: str) -> None:
    target = {"missing_dir": Path("/nonexistent/x.jsonl"), "directory": tmp_path,
              "unwritable": UNWRITABLE / "x.jsonl"}[where]
    _bad(_cli("export", "--journal", str(journal), "-o", str(target)), "cannot write")


def test_export_of_a_read_only_journal(tmp_path: Path, journal: Path) -> None:
    before = sorted(p.name for p in journal.parent.iterdir())
    journal.chmod(0o444)
    journal.parent.chmod(0o555)
    try:
        done = _cli("export", "--journal", str(journal))
        status = _cli("journal", "status", "--journal", str(journal))
    finally:
        journal.parent.chmod(0o755)
    assert done.returncode == 0, done.stderr
    assert '"button": "king"' in done.stdout
    assert status.returncode == 0, status.stderr
    assert sorted(p.name for p in journal.parent.iterdir()) == before  # nothing written beside it


@pytest.mark.parametrize("command", [("demo", "--frames", "none"), ("run", "--events", "/dev/null")])
def test_png_into_a_file_or_an_unwritable_directory(tmp_path: Path, command: tuple[str, ...]) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    extra = ("--journal", str(tmp_path / "j.sqlite"))
    _bad(_cli(*command, *extra, "--png", str(afile)), "--png", "not a directory")
    _bad(_cli(*command, *extra, "--png", str(UNWRITABLE / "frames")), "--png")


def test_a_closed_pipe_is_not_an_error(tmp_path: Path) -> None:
    import random

    import engine
    from firmware_host.players.builtin import game_transcript
    from firmware_host.referee.transcript import dumps

    lines = "".join(dumps(e) + "\n" for e in game_transcript(engine.new_game("classic", dealer="A"),
                                                             random.Random(2)))
    source = tmp_path / "game.jsonl"
    source.write_text(lines)
    for command in (f"{CLI} replay {source} --json | head -3",
                    f"{CLI} run --journal {tmp_path / 'j.sqlite'} --events - --json < {source} | head -1"):
        done = subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True,
                              timeout=TIMEOUT, check=False)
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr
    # the service went on to the end of its input
    status = _cli("journal", "status", "--journal", str(tmp_path / "j.sqlite"))
    assert f"{lines.count(chr(10))} input lines" in status.stdout


def test_verbose_after_the_command_and_what_run_says_at_info(tmp_path: Path) -> None:
    done = _cli("run", "--journal", str(tmp_path / "j.sqlite"), "--events", "/dev/null", "-v")
    assert done.returncode == 0, done.stderr
    assert f"journal {tmp_path / 'j.sqlite'}" in done.stderr
    assert "table Simulated table" in done.stderr and "pads hand.A=sim" in done.stderr


def test_sim_help_is_plain_text() -> None:
    done = _cli("sim", stdin=b"help\nquit\n")
    assert done.returncode == 0
    assert "A plays KS" in done.stdout and "``" not in done.stdout


def test_docs_name_only_files_in_the_repo() -> None:
    import re

    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for name in re.findall(r"\]\(([^)#:]+)\)", doc.read_text()):
            assert (doc.parent / name).exists(), f"{doc.name} links to {name}, not in the repo"
        for name in re.findall(r"`((?:firmware_host|drivers|engine|hardware|systemd|scripts|bench|tests)/[\w./-]+)`",
                               doc.read_text()):
            assert (ROOT / name).exists(), f"{doc.name} names {name}, not in the repo"


def test_pyproject_license_is_an_spdx_expression() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_enroll_into_a_read_only_directory(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    _bad(_cli("enroll", "--registry", str(locked / "tags.json")), "cannot write")


@pytest.mark.parametrize(("argv", "env", "said"), [
    (["deck", "--language", "es", "{missing}"], {}, "no se puede leer el archivo de la mesa {missing}: no existe tal "
                                                    "archivo o carpeta"),
    (["deck", "{folder}"], {"LANG": "fr_FR.UTF-8"}, "impossible de lire le fichier de la table {folder} : un dossier, "
                                                     "pas un fichier"),
    (["deck", "--language", "fr"], {"HOME": "{home}"}, "aucun registre des puces : nommez-en un avec --registry"),
    (["deck", "{missing}"], {"LANG": "C.UTF-8", "LANGUAGE": ""}, "cannot read the table file {missing}: no such file "
                                                                 "or folder"),
])
def test_a_refusal_and_the_systems_reason_are_said_in_the_language_asked(
        argv: list[str], env: dict[str, str], said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """"cannot read the table file … No such file or directory" under --language es: the refusal and the
    OS's reason in words of the language (``--language``, else ``LANG``), with the path."""
    from cli.main import main

    names = {"missing": str(tmp_path / "nowhere.toml"), "folder": str(tmp_path), "home": str(tmp_path / "home")}
    for key in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value.format(**names))
    assert main([a.format(**names) for a in argv]) == 2
    assert said.format(**names) in capsys.readouterr().err
