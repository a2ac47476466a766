"""The simulator's TEST originality key: how its genuine tags are signed.

A real NTAG21x carries NXP's ECDSA signature over its UID (secp128r1, no hash: AN11350); only NXP
holds that key, so the simulated chips sign with a TEST key derived from a public seed. Anyone can
sign with it: a table trusts it only when its file says ``trusted_key = "test"``, never on a real
table (``hardware.ntag_signature.trusted_key``). The key lives with the simulator, below the
table's files that name it (``hardware`` imports the drivers, never the other way).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when a key is made: a simulated table starts without it
    import ecdsa

TEST_KEY_SEED = b"ecarte-table TEST originality key: never trust it on a real table"
"""The public seed of the simulator's TEST signing key (:func:`sim_signing_key`)."""

TEST_PUBLIC_KEY = bytes.fromhex("04E3A06CC309C03FC863B418D6A4DAD953A4D107D97485706055036BCD442D705A")
"""The public key of the TEST signing key (:func:`sim_public_key` of :data:`TEST_KEY_SEED`), written
out as NXP's is: a table on simulated pads trusts it from its start without deriving it (ecdsa's
import and a point multiplication, a twentieth of ``run``'s start-up; ``bench/instructions.py
--startup``). A test derives it again from the seed."""


def sim_signing_key(seed: bytes = TEST_KEY_SEED) -> ecdsa.SigningKey:
    """A TEST signing key on secp128r1, the same for the same ``seed`` (for the simulator only).

    The seed is public: whoever reads this file can sign with it. Never trust its public key
    (``trusted_key = "test"``) on a real table.
    """
    import ecdsa

    order = ecdsa.SECP128r1.order
    secret = int.from_bytes(hashlib.sha256(seed).digest(), "big") % (order - 1) + 1
    return ecdsa.SigningKey.from_secret_exponent(secret, curve=ecdsa.SECP128r1)


def sim_public_key(seed: bytes = TEST_KEY_SEED) -> bytes:
    """The uncompressed public key of :func:`sim_signing_key` (33 bytes, ``04`` first)."""
    return bytes(sim_signing_key(seed).get_verifying_key().to_string("uncompressed"))


def sim_signer(seed: bytes = TEST_KEY_SEED) -> SimSigner:
    """Signs UIDs as the simulator's genuine tags are signed (deterministic signatures, RFC 6979)."""
    return SimSigner(seed)


class SimSigner:
    """Callable ``uid → r || s`` with a TEST key (see :func:`sim_signer`), derived from ``seed`` at the
    first signature: a simulated table starts without ecdsa, and signs when a reader asks a tag's
    ``READ_SIG``."""

    def __init__(self, seed: bytes = TEST_KEY_SEED) -> None:
        self._seed = seed
        self._key: ecdsa.SigningKey | None = None

    def __call__(self, uid: bytes) -> bytes:
        """The 32-byte signature of ``uid``."""
        import ecdsa.util

        if self._key is None:  # two threads asking at once derive the same key twice: no harm
            self._key = sim_signing_key(self._seed)
        return bytes(self._key.sign_digest_deterministic(uid, hashfunc=hashlib.sha256,
                                                         sigencode=ecdsa.util.sigencode_string))
