"""Tag passwords: each tag's NTAG21x PWD and PACK, derived from the table's secret and its UID.

``ecarte-table enroll --lock`` password-protects each tag's memory against writing (a phone can
then no longer rewrite its ``ecarte:KS`` record; anyone still reads it). The password is never
stored: it is ``HMAC-SHA256(secret, UID)``, cut to the 4-byte PWD and 2-byte PACK, so the table
that holds the secret can unlock its tags again and nothing else needs to. The registry records
only that a tag is locked and :func:`lock_id`, a tag-independent fingerprint of the secret that
says whether the configured secret is the one the tags were locked with.

    >>> secret = b"0123456789abcdef0123456789abcdef"
    >>> tag_password(secret, "04ECA701075A80").hex()
    '4a3475f97d01'
    >>> len(lock_id(secret))
    8

The same secret seals the registry (:func:`entry_seal`): each entry carries a keyed checksum of
its UID, card and pack, so whoever can write the registry but not read the secret (it lives in
``/etc/ecarte-table``, outside the state directory) cannot swap two cards' names unnoticed.
``enroll --lock`` also sets AUTHLIM (:data:`AUTHLIM`) and CFGLCK on each tag.

The secret lives in a file named by the table file (``[tags] lock_secret_file``), readable by the
service's user only, at least 16 bytes (``head -c 32 /dev/urandom | base64 > lock.key``). Note what
the lock is worth: PWD_AUTH sends the password in clear over the air, so a reader near the table
while it unlocks a tag (enrolment only: play never does) could learn that one tag's password.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from pathlib import Path
from typing import Any

from hardware.limits import FileProblem, read_bytes

MIN_SECRET_BYTES = 16
MAX_SECRET_BYTES = 4096
"""The largest lock secret file read (a secret is 16 to a few hundred bytes)."""
AUTHLIM = 3
"""The AUTHLIM ``enroll --lock`` sets: 2**3 = 8 wrong passwords in a row lock a tag for ever
(a brute force of the 2**32 passwords stops there); CFGLCK is set with it."""
_PASSWORD_LABEL = b"ecarte-table tag password v1:"
_ID_LABEL = b"ecarte-table lock id v1"
_SEAL_LABEL = b"ecarte-table registry seal v1:"


class LockSecretError(ValueError):
    """The lock secret file is missing, unreadable, too short or open to others (``msgid`` and
    ``values``, where given, word it for a person in the catalogue)."""

    def __init__(self, message: str, *, msgid: str | None = None, **values: Any) -> None:
        super().__init__(message)
        self.msgid = msgid
        self.values = values


def tag_password(secret: bytes, uid: str) -> bytes:
    """Tag ``uid``'s 6 bytes: PWD (4) then PACK (2)."""
    digest = hmac.new(secret, _PASSWORD_LABEL + bytes.fromhex(uid), hashlib.sha256).digest()
    return digest[:6]


def lock_id(secret: bytes) -> str:
    """A fingerprint of ``secret`` (8 hex digits) for the registry: same secret, same id."""
    return hmac.new(secret, _ID_LABEL, hashlib.sha256).hexdigest()[:8]


def auth_attempts(authlim: int = AUTHLIM) -> int:
    """The wrong passwords a tag with AUTHLIM ``authlim`` takes (0: no limit).

    >>> auth_attempts()
    8
    """
    return 1 << authlim if authlim else 0


def entry_seal(secret: bytes, uid: str, card: str, pack: int) -> str:
    """The registry's seal of one entry: a keyed checksum binding tag ``uid`` to ``card`` of
    ``pack`` (16 hex digits). Without the secret nobody can make one, so a registry whose card
    names were swapped or edited no longer matches its seals.

    >>> secret = b"0123456789abcdef0123456789abcdef"
    >>> entry_seal(secret, "04ECA701075A80", "KS", 1) == entry_seal(secret, "04ECA701075A80", "7C", 1)
    False
    """
    message = _SEAL_LABEL + f"{uid.upper()}:{card}:{pack}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:16]


def load_secret(path: str | os.PathLike[str]) -> bytes:
    """The lock secret in file ``path`` (surrounding white space stripped).

    :raises LockSecretError: no such file, unreadable, shorter than 16 bytes, or readable by
        group or others (``chmod 600`` it).
    """
    file = Path(path)
    try:
        mode = file.stat().st_mode
        secret = read_bytes(file, limit=MAX_SECRET_BYTES).strip()
    except FileProblem as error:
        raise LockSecretError(f"lock secret {error}") from None
    except OSError as error:
        raise LockSecretError(f"lock secret {file}: {error.strerror or error}", msgid="lock.unreadable", path=file,
                              reason=error) from error
    if mode & 0o077:
        raise LockSecretError(f"lock secret {file} is open to other users: chmod 600 {file}", msgid="lock.open",
                              path=file)
    if len(secret) < MIN_SECRET_BYTES:
        raise LockSecretError(
            f"lock secret {file} has {len(secret)} bytes: write at least {MIN_SECRET_BYTES} random ones",
            msgid="lock.short", path=file, n=len(secret), least=MIN_SECRET_BYTES)
    return secret
