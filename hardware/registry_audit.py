"""Checks a tag registry against what its entries claim: ``ecarte-table doctor`` reports each.

- an entry that says ``genuine`` must carry a signature that verifies for its UID with the
  trusted key: one that does not is *forged* (typed in, or copied from another table's file);
- a table that requires signatures wants every entry checked and genuine;
- an entry locked with another secret than the configured one cannot be unlocked by this table;
- the pack read by NDEF (``ndef_pack``) must have no registered tags;
- a locked tag must limit wrong passwords (AUTHLIM, with CFGLCK), or a brute force finds its
  password;
- where the table has a lock secret, every entry's seal must match its UID, card and pack
  (:func:`hardware.locks.entry_seal`): a registry whose card names were swapped is caught.

    >>> from catalogue.phrase import english
    >>> from hardware.tag_registry import TagRegistry
    >>> from hardware.ntag_signature import NXP_NTAG21X_KEY
    >>> registry = TagRegistry()
    >>> _ = registry.add("04AB87F2CA1190", "KS", origin="genuine", signature="00" * 32)
    >>> [english(problem) for problem in audit_registry(registry, NXP_NTAG21X_KEY)]
    ['KS of pack 1 (tag 04AB87F2CA1190): says genuine but its signature does not verify: a forged entry']
"""

from __future__ import annotations

from catalogue.phrase import Phrase
from drivers.device_events import Origin
from hardware.locks import entry_seal
from hardware.ntag_signature import verify_signature
from hardware.tag_registry import TagRegistry


def audit_registry(
    registry: TagRegistry,
    public_key: bytes,
    *,
    require_signature: bool = False,
    lock_id: str | None = None,
    ndef_pack: int | None = None,
    secret: bytes | None = None,
) -> list[Phrase]:
    """Every problem of ``registry`` (empty: none), one phrase each (``audit.*``), worded in a reader's
    language by :func:`catalogue.phrase.said`.

    :param public_key: the table's trusted originality key.
    :param require_signature: every entry must be genuine.
    :param lock_id: the configured lock secret's fingerprint (``None``: none configured).
    :param ndef_pack: the pack the table reads by NDEF record (must have no entries).
    :param secret: the table's lock secret, which seals each entry (``None``: seals not checked).
    """
    problems = []
    for entry in registry:
        name = Phrase.of("audit.entry", card=entry.card, pack=entry.pack, uid=entry.uid)
        if entry.origin == Origin.GENUINE:
            signature = bytes.fromhex(entry.signature) if entry.signature else b""
            if not verify_signature(bytes.fromhex(entry.uid), signature, public_key):
                problems.append(Phrase.of("audit.forged", entry=name))
        elif require_signature:
            problems.append(Phrase.of("audit.refused", entry=name, origin=Phrase.of(f"audit.origin.{entry.origin}")))
        if entry.locked and lock_id is None:
            problems.append(Phrase.of("audit.no_secret", entry=name))
        elif entry.locked and entry.lock_id is not None and entry.lock_id != lock_id:
            problems.append(Phrase.of("audit.other_secret", entry=name))
        if entry.locked and not entry.auth_limit:
            problems.append(Phrase.of("audit.no_limit", entry=name))
        if secret is not None and entry.seal is None:
            problems.append(Phrase.of("audit.unsealed", entry=name))
        elif secret is not None and entry.seal != entry_seal(secret, entry.uid, entry.card, entry.pack):
            problems.append(Phrase.of("audit.seal", entry=name))
        if ndef_pack is not None and entry.pack == ndef_pack:
            problems.append(Phrase.of("audit.ndef", entry=name, pack=ndef_pack))
    return problems
