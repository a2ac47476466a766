"""The commands on a table whose cards are registered: ``run`` refuses what ``doctor`` fails (quoting
it), a registry whose seals do not match, and a stream that names its cards; ``deck`` checks
signatures; ``enroll`` locks, seals and writes badges; ``deck_check_first`` before the first deal.
Each command run as a process, as a person runs it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from signed_tags import SIGNER, TABLE, signed_registry, write_table

from firmware_host.players.simtable import sim_uid
from hardware import locks
from hardware.tag_registry import CARDS, TagRegistry


def _cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=Path(__file__).resolve().parents[2])


def _secret(tmp_path: Path) -> bytes:
    secret = b"a table secret of 32 bytes......"
    (tmp_path / "lock.key").write_bytes(secret)
    (tmp_path / "lock.key").chmod(0o600)
    return secret


def test_run_refuses_a_configuration_doctor_fails_quoting_doctor(tmp_path: Path) -> None:
    registry = signed_registry()  # both packs registered
    table_file = write_table(tmp_path, registry, "ndef_pack = 2")  # ... and pack 2 read by NDEF record
    (tmp_path / "none.jsonl").write_text("")
    doctor = _cli("doctor", str(table_file))
    line = next(x for x in doctor.stdout.splitlines() if x.startswith("[FAIL] tag registry"))
    assert "read by NDEF record (ndef_pack) but has registered tags" in line
    run = _cli("run", str(table_file), "--events", str(tmp_path / "none.jsonl"), "--journal", str(tmp_path / "j.db"))
    assert run.returncode == 2, run.stderr
    assert line in run.stderr and "Traceback" not in run.stderr


def _sealed_registry(secret: bytes) -> TagRegistry:
    """Pack 1, enrolled genuine with its TEST signatures, each entry sealed with ``secret``."""
    registry = TagRegistry()
    for card in CARDS:
        uid = sim_uid(card)
        registry.add(uid, card, 1, origin="genuine", signature=SIGNER(bytes.fromhex(uid)).hex(),
                     seal=locks.entry_seal(secret, uid, card, 1))
    return registry


def test_a_registry_with_two_cards_swapped_is_caught_by_its_seals(tmp_path: Path) -> None:
    table_file = write_table(tmp_path, _sealed_registry(_secret(tmp_path)), 'lock_secret_file = "lock.key"')
    assert _cli("doctor", str(table_file)).stdout.splitlines()[1].startswith("[ok  ] tag registry")
    data = json.loads((tmp_path / "tags.json").read_text())
    first, second = data["tags"][0], data["tags"][31]  # K♠ and 7♣
    first["card"], second["card"] = second["card"], first["card"]
    (tmp_path / "tags.json").write_text(json.dumps(data))
    doctor = _cli("doctor", str(table_file))
    assert doctor.returncode != 0
    assert "7C of pack 1 (tag 04ECA701075A80): its seal does not match" in doctor.stdout
    run = _cli("run", str(table_file), "--events", "-", "--journal", str(tmp_path / "j.db"))
    assert run.returncode == 2 and "its seal does not match" in run.stderr


@pytest.mark.parametrize("line", [
    '{"zone": "turnup", "card": "KS"}',
    '{"setup": {"tags": {"04ECA701075A80": "7C"}}}',
])
def test_where_a_registry_is_loaded_the_stream_may_not_name_cards(tmp_path: Path, line: str) -> None:
    table_file = write_table(tmp_path, signed_registry())
    (tmp_path / "events.jsonl").write_text(line + "\n")
    run = _cli("run", str(table_file), "--events", str(tmp_path / "events.jsonl"), "--journal", str(tmp_path / "j.db"),
               "--json")
    assert run.returncode == 2, run.stderr
    assert "names its cards by their tags" in run.stderr + run.stdout
    assert '"card": "KS"' not in run.stdout and '"card": "7C"' not in run.stdout  # nothing refereed


def test_deck_on_the_command_line_checks_signatures_and_catches_a_pack_of_clones(tmp_path: Path) -> None:
    table_file = write_table(tmp_path, signed_registry())
    clones = _cli("deck", str(table_file), "--pack", "1", *(arg for card in CARDS for arg in ("--clone", card)))
    assert clones.returncode == 1, clones.stderr
    assert "Pack 1: 32 cards OK" not in clones.stdout
    said = clones.stdout.splitlines()
    assert sum(line.startswith("Not genuine: ") and "it gave no signature" in line for line in said) == 32
    assert "Not genuine: KS: it gave no signature (K♠)" in said
    assert not (tmp_path / "deck_checks.json").exists()
    doctor = _cli("doctor", str(table_file)).stdout
    assert "pack 1 NEVER CHECKED" in doctor and "pack 2 NEVER CHECKED" in doctor
    whole = _cli("deck", str(table_file))
    assert whole.returncode == 0 and whole.stdout.splitlines()[-1] == "Pack 1: 32 cards OK"
    assert "32/32" in whole.stdout  # the OLED's progress, printed too
    doctor = _cli("doctor", str(table_file)).stdout
    assert re.search(r"pack 1 checked \w{3} \d+, 20\d\d", doctor) and "pack 2 NEVER CHECKED" in doctor  # a date


def test_enroll_badge_checks_locks_and_writes_the_badges_file(tmp_path: Path) -> None:
    table_file = write_table(tmp_path, _sealed_registry(_secret(tmp_path)), 'lock_secret_file = "lock.key"')
    done = _cli("enroll", str(table_file), "--badge", "Anne", "--lock")
    assert done.returncode == 0, done.stderr
    badges = json.loads((tmp_path / "badges.json").read_text())["badges"]
    assert list(badges.values()) == ["player:Anne"]
    uid = next(iter(badges))
    assert f"badge player:Anne: tag {uid} (genuine, locked)" in done.stdout
    rule = _cli("enroll", str(table_file), "--badge", "target:7")
    assert rule.returncode == 0 and sorted(json.loads((tmp_path / "badges.json").read_text())["badges"].values()) == [
        "player:Anne", "target:7"]
    assert _cli("enroll", str(table_file), "--badge", "target:x").returncode == 2


def test_the_table_file_can_ask_for_the_deck_check_before_the_first_deal(tmp_path: Path) -> None:
    table_file = write_table(tmp_path, signed_registry(), "deck_check_first = true")
    (tmp_path / "events.jsonl").write_text(json.dumps({"zone": "hand.A", "uid": sim_uid("KS")}) + "\n")
    assert "deck_check_first" in _cli("doctor", str(table_file)).stdout
    run = _cli("run", str(table_file), "--events", str(tmp_path / "events.jsonl"), "--journal",
               str(tmp_path / "j.db"), "--json")
    assert run.returncode == 0, run.stderr
    assert "1" in json.loads((tmp_path / "deck_checks.json").read_text())["packs"]  # written when it passed
    # then the table referees: a tag named by UID on the stream goes through the registry and the
    # pack guard, and nothing vouches for its signature there
    assert "counterfeit_card" in run.stdout


def test_enroll_lock_sets_authlim_and_seals_and_doctor_reports_them(tmp_path: Path) -> None:
    secret = _secret(tmp_path)
    table_file = write_table(tmp_path, TagRegistry(), 'lock_secret_file = "lock.key"')
    (tmp_path / "tags.json").unlink()
    done = _cli("enroll", str(table_file), "--lock")
    assert done.returncode == 0, done.stderr
    registry = TagRegistry.load(tmp_path / "tags.json")
    assert len(registry) == 32
    assert all(e.locked and e.auth_limit == 8 and e.origin == "genuine" for e in registry)
    assert all(e.seal == locks.entry_seal(secret, e.uid, e.card, e.pack) for e in registry)
    line = next(x for x in _cli("doctor", str(table_file)).stdout.splitlines() if "tag registry" in x)
    assert line.startswith("[ok  ]") and "8 wrong passwords (AUTHLIM" in line and "CFGLCK" in line
    assert "32 sealed" in line
    data = json.loads((tmp_path / "tags.json").read_text())
    for item in data["tags"]:
        del item["auth_limit"]  # as a tag locked before AUTHLIM was set
    (tmp_path / "tags.json").write_text(json.dumps(data))
    line = next(x for x in _cli("doctor", str(table_file)).stdout.splitlines() if "tag registry" in x)
    assert line.startswith("[FAIL]") and "locked without a limit on wrong passwords (AUTHLIM)" in line


def test_deck_check_first_without_a_registry_fails_doctor_and_run_refuses(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(TABLE.replace('registry = "tags.json"\n', "").format(extra="deck_check_first = true"))
    doctor = _cli("doctor", str(path))
    line = next(x for x in doctor.stdout.splitlines() if x.startswith("[FAIL] deck check"))
    run = _cli("run", str(path), "--events", "-", "--journal", str(tmp_path / "j.db"))
    assert run.returncode == 2 and line in run.stderr
