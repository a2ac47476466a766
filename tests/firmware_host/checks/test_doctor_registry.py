"""``ecarte-table doctor``'s check of a tag registry: genuine, forged, unchecked where signatures are
required, locked with another secret than the table's."""

from __future__ import annotations

import json
from pathlib import Path

from signed_tags import SIGNER, signed_registry, write_table

from firmware_host.checks.doctor import run_checks
from firmware_host.players.simtable import sim_uid
from hardware import locks
from hardware.tag_registry import TagRegistry


def _registry_check(tmp_path: Path, registry: TagRegistry, extra: str = "") -> str:
    path = write_table(tmp_path, registry, extra)
    from hardware.table import load_table

    check = next(c for c in run_checks(load_table(path)) if c.name == "tag registry")
    return ("ok " if check.ok else "FAIL ") + check.detail


def test_doctor_passes_a_genuine_registry(tmp_path: Path) -> None:
    assert _registry_check(tmp_path, signed_registry()).startswith("ok ")


def test_doctor_reports_a_forged_entry(tmp_path: Path) -> None:
    registry = signed_registry((1,))
    data = json.loads(registry.to_json())
    data["tags"].append({"uid": "04DEADBEEF0001", "card": "KS", "pack": 2, "origin": "genuine",
                         "signature": data["tags"][0]["signature"]})  # another tag's signature
    forged = TagRegistry.from_json(json.dumps(data))
    detail = _registry_check(tmp_path, forged)
    assert detail.startswith("FAIL ") and "KS of pack 2 (tag 04DEADBEEF0001)" in detail and "forged" in detail


def test_doctor_reports_unchecked_tags_where_signatures_are_required(tmp_path: Path) -> None:
    registry = TagRegistry()
    registry.add(sim_uid("KS"), "KS")
    detail = _registry_check(tmp_path, registry)
    assert detail.startswith("FAIL ") and "unchecked" in detail


def test_doctor_reports_a_lock_secret_that_is_not_the_one_used(tmp_path: Path) -> None:
    registry = TagRegistry()
    uid = sim_uid("KS")
    registry.add(uid, "KS", origin="genuine", signature=SIGNER(bytes.fromhex(uid)).hex(), locked=True,
                 lock_id=locks.lock_id(b"the secret used at enrolment..."))
    secret = tmp_path / "lock.key"
    secret.write_bytes(b"another secret, 32 bytes long..")
    secret.chmod(0o600)
    detail = _registry_check(tmp_path, registry, 'lock_secret_file = "lock.key"')
    assert detail.startswith("FAIL ") and "another secret" in detail
