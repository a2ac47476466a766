"""Docs that match the code: every key the table file's loader accepts is in
docs/hardware.md's reference, every command and flag the README shows exists, and
``install.sh --help`` prints its help and nothing of its code."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from hardware import table as table_file
from venue import settings as venue_settings

ROOT = Path(__file__).resolve().parents[1]
CLI = Path(sys.executable).parent / "ecarte-table"


def _section(text: str, heading: str) -> str:
    start = text.index(f"### `{heading}`")
    end = text.find("\n### ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def _first_table_keys(section: str) -> set[str]:
    """The keys of the section's first table, read as Markdown reads it (a blank line ends it)."""
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| Key"))
    keys = set()
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        keys.update(re.findall(r"^\| `([a-z_]+)` \|", line))
    return keys


REFERENCE = {
    "[table]": table_file._TABLE_KEYS,
    "[tags]": table_file._TAGS_KEYS,
    "[buttons]": (*table_file._BUTTONS_KEYS, *table_file._SEAT_KEYS),
    "[pads]": table_file._PAD_KEYS,
    "[[displays]]": table_file._DISPLAY_KEYS,
    "[voice]": table_file._VOICE_KEYS,
    "[web]": venue_settings._WEB_KEYS,
    "[mqtt]": venue_settings._MQTT_KEYS,
}


@pytest.mark.parametrize("heading", sorted(REFERENCE))
def test_every_key_of_the_table_file_is_in_the_reference(heading: str) -> None:
    text = (ROOT / "docs" / "hardware.md").read_text(encoding="utf-8")
    section = _section(text, heading)
    keys = set(REFERENCE[heading]) - {"A", "B"}  # [buttons.A], [buttons.B]: the seats' tables
    if heading in ("[table]", "[web]", "[mqtt]", "[tags]", "[[displays]]", "[voice]"):
        missing = keys - _first_table_keys(section)
    else:
        missing = {key for key in keys if f"`{key}" not in section and f"{key} =" not in section}
    assert not missing, f"docs/hardware.md {heading} lacks {sorted(missing)}"
    assert sorted(REFERENCE) == sorted(f"[{s}]" if s != "displays" else "[[displays]]"
                                       for s in table_file._SECTIONS)


def _readme_commands() -> list[tuple[str, list[str]]]:
    """Each ``ecarte-table COMMAND --flag...`` of the README and its page of commands
    (docs/commands.md): in their code and their backticks."""
    from cli.main import COMMANDS

    names = set(COMMANDS)
    text = "\n".join((ROOT / name).read_text(encoding="utf-8") for name in ("README.md", "docs/commands.md"))
    found = []
    for line in text.splitlines():
        for match in re.finditer(r"ecarte-table ([^#`]*)", line):
            words = match.group(1).split()
            flags = re.findall(r"(?<![\w-])--[a-z][a-z-]*", match.group(1))
            if words and words[0] in names:
                found.append((words[0], flags))
            elif words and words[0].startswith("--"):
                found.append(("", flags))
    for span in re.findall(r"`([a-z]+ --[^`]+)`", text):
        words = span.split()
        if words[0] in names:
            found.append((words[0], [w for w in words[1:] if w.startswith("--")]))
    return found


def test_every_command_and_flag_in_the_readme_exists() -> None:
    from cli.main import _parser

    parser = _parser()
    commands = _readme_commands()
    assert {name for name, _ in commands} >= {"run", "demo", "review", "history", "enroll", "sim", "hub"}
    for name, flags in commands:
        command = parser.commands[name] if name else parser  # type: ignore[attr-defined]
        known = command._option_string_actions
        unknown = [flag for flag in flags if flag not in known]
        assert not unknown, f"README: `ecarte-table {name}` has no {unknown}"
    assert any(name == "enroll" and "--pack" in flags for name, flags in commands)
    assert ("run", ["--web", "--mqtt", "--pace", "--events"]) in commands


def test_the_installers_help_is_its_help() -> None:
    result = subprocess.run(["bash", str(ROOT / "systemd" / "install.sh"), "--help"], capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 0
    assert result.stdout.startswith("Install the Écarté table service")
    assert "set -euo" not in result.stdout and "PREFIX=" not in result.stdout


def test_the_readme_says_where_the_demo_keeps_its_games() -> None:
    from cli.demo import demo_journal

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"`{demo_journal().name}` in the state directory" in text
    assert "<this repository>" not in (ROOT / "docs" / "hardware.md").read_text(encoding="utf-8")


def test_the_readme_synopsis_lists_every_option_of_every_command() -> None:
    """The synopsis left out real options (demo --players/--language/--delay/--frames, sim
    --rules/--dealer, hub --listen/--venue, export --journal/-o). Every option of every command is in
    its synopsis lines (``-h`` and ``-v/--verbose``, which every command takes, said once)."""
    from cli.main import _parser

    text = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    block = text.split("## The command line\n\n```\n", 1)[1].split("```", 1)[0]
    said: dict[str, str] = {}
    current = ""
    for line in block.splitlines():
        found = re.match(r"ecarte-table ([a-z]+)", line)
        if found:
            current = found.group(1)
        elif not line.startswith(" "):
            current = ""
        if current:
            said[current] = said.get(current, "") + " " + line.split("  #", 1)[0]
    assert "-v/--verbose" in block
    parser = _parser()
    missing = []
    for name, command in parser.commands.items():  # type: ignore[attr-defined]
        assert name in said, f"README's synopsis has no `ecarte-table {name}`"
        for action in command._actions:
            flags = [f for f in action.option_strings if f not in ("-h", "--help", "-v", "--verbose")]
            if flags and not any(re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", said[name]) for f in flags):
                missing.append(f"{name} {flags[-1]}")
    assert missing == []


def test_the_docs_cite_no_file_outside_a_clone() -> None:
    """The README cited ``shared/TRANSCRIPT.md``, which is not in a clone: the format is docs/transcript.md."""
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        assert "shared/TRANSCRIPT.md" not in path.read_text(encoding="utf-8"), path.name
    assert "## Partial sight" in (ROOT / "docs" / "transcript.md").read_text(encoding="utf-8")
