"""Originality of NTAG21x tags: NXP's ECC signature over the UID, and what a tag's answers prove.

Every NXP NTAG213/215/216 holds a 32-byte signature written at the factory: ECDSA on the curve
secp128r1 over the tag's 7-byte UID, with no hash (the UID itself is the number signed), read with
``READ_SIG`` (``3C 00``) and given as ``r || s`` (16 bytes each). Only NXP holds the private key;
the public key is published (AN11350, *NTAG21x originality signature validation*)::

    >>> uid = bytes.fromhex("04AB87F2CA1190")   # a genuine NTAG's UID and signature
    >>> signature = bytes.fromhex("67B1750BCCEB1174F9A33BF20E0226551A6366939B31F949848C3C087350FA90")
    >>> verify_signature(uid, signature, NXP_NTAG21X_KEY)
    True
    >>> verify_signature(uid, bytes(32), NXP_NTAG21X_KEY)
    False

(That pair is the known-good example in the public test of the ``nxp_originality_verifier``
package; this module checks it in its doctest.) The verification is ``ecdsa``'s, a maintained
library that knows secp128r1 (``ecdsa.SECP128r1``): no curve arithmetic of ours.

What the signature proves, and what it does not (``docs/nfc.md``, *Cards that cannot be faked*):
a blank "magic" tag written with a copied UID has no valid signature (its maker lacks NXP's private
key), nor has a counterfeit chip, which also answers ``GET_VERSION`` wrongly or not at all. The
signature is not a challenge-response, though: an emulator or a magic tag whose ``READ_SIG`` answer
can be programmed replays a genuine tag's signature, and then only the deck check (the same UID
seen twice) and the table's knowledge of where each card is can catch it.

The simulated table signs its tags with a TEST key derived from a public seed
(:func:`drivers.nfc.pn532sim.tag_signer.sim_signing_key`): anyone can make tags that pass it, so a
real table trusts ``nxp``.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from catalogue.phrase import Phrase, WordedError
from drivers.nfc.originality import Origin, TagFacts
from drivers.nfc.pn532sim.tag_signer import TEST_PUBLIC_KEY

if TYPE_CHECKING:  # imported where a tag is judged: a table starts without it (bench/instructions.py --startup)
    import ecdsa

NXP_NTAG21X_KEY = bytes.fromhex("04494E1A386D3D3CFE3DC10E5DE68A499B1C202DB5B132393E89ED19FE5BE8BC61")
"""NXP's NTAG21x originality public key (uncompressed point on secp128r1), from AN11350."""

NTAG21X_VERSIONS: dict[bytes, str] = {
    bytes.fromhex("0004040201000F03"): "NTAG213",
    bytes.fromhex("0004040201001103"): "NTAG215",
    bytes.fromhex("0004040201001303"): "NTAG216",
}
"""``GET_VERSION`` answers of the NTAG21x stickers a table uses (datasheet, *GET_VERSION*)."""

SIGNATURE_BYTES = 32
UID_BYTES = 7
"""An NTAG21x's UID (the number its originality signature signs)."""

_HEX_KEY = re.compile(r"^04[0-9A-Fa-f]{64}$")


class OriginalityError(WordedError):
    """A trusted key that is not a secp128r1 public key."""


def trusted_key(name: str) -> bytes:
    """The public key a table trusts: ``"nxp"``, ``"test"`` or an uncompressed point in hex (``04`` and 64 digits).

    >>> trusted_key("nxp") == NXP_NTAG21X_KEY
    True

    :raises OriginalityError: any other text, or a point not on secp128r1.
    """
    if name == "nxp":
        return NXP_NTAG21X_KEY
    if name == "test":
        return TEST_PUBLIC_KEY
    if not _HEX_KEY.match(name):
        raise OriginalityError(Phrase.of("signature.not_key", name=repr(name), nxp='"nxp"', test='"test"'))
    key = bytes.fromhex(name)
    import ecdsa

    try:
        ecdsa.VerifyingKey.from_string(key, curve=ecdsa.SECP128r1)
    except (ecdsa.MalformedPointError, ValueError) as error:
        raise OriginalityError(Phrase.of("signature.not_point", name=name)) from error
    return key


def verify_signature(uid: bytes, signature: bytes, public_key: bytes) -> bool:
    """Whether ``signature`` (``r || s``, 32 bytes) is ``public_key``'s ECDSA signature of ``uid``.

    ``uid`` must be 7 bytes, as every NTAG21x's is: the UID is signed as a number, so without this
    check a 10-byte UID of three zero bytes and a genuine tag's UID (``00000004AB87…``) would share
    its signature.

    >>> good = bytes.fromhex("67B1750BCCEB1174F9A33BF20E0226551A6366939B31F949848C3C087350FA90")
    >>> verify_signature(bytes.fromhex("00000004AB87F2CA1190"), good, NXP_NTAG21X_KEY)
    False

    :raises OriginalityError: ``public_key`` is not a point on secp128r1.
    """
    if len(uid) != UID_BYTES or len(signature) != SIGNATURE_BYTES or not any(signature):
        return False
    import ecdsa
    from ecdsa.util import sigdecode_string

    key = _verifying_key(public_key)
    try:
        return bool(key.verify_digest(signature, uid, sigdecode=sigdecode_string))
    except ecdsa.BadSignatureError:
        return False


@functools.lru_cache(maxsize=4)
def _verifying_key(public_key: bytes) -> ecdsa.VerifyingKey:
    """``public_key`` as ``ecdsa``'s key, its multiples precomputed once (a verification then takes
    about an eighth of the time: it lies on the way of each checked tag's arrival). ``ecdsa``'s own
    ``precompute`` needs the point's order, which ``from_string`` leaves out: secp128r1's cofactor is
    1 (SEC 2), so every point on it has the curve's order.

    :raises OriginalityError: ``public_key`` is not a point on secp128r1.
    """
    import ecdsa
    from ecdsa.ellipticcurve import PointJacobi

    curve = ecdsa.SECP128r1
    try:
        point = ecdsa.VerifyingKey.from_string(public_key, curve=curve).pubkey.point
    except (ecdsa.MalformedPointError, ValueError) as error:
        raise OriginalityError(Phrase.of("signature.not_public", key=public_key.hex())) from error
    ordered = PointJacobi(curve.curve, point.x(), point.y(), 1, curve.order, generator=True)
    key = ecdsa.VerifyingKey.from_public_point(ordered, curve=curve)
    key.precompute()
    return key


def judge(uid: str, facts: TagFacts | None, public_key: bytes) -> Origin:
    """The originality verdict on tag ``uid`` (hex) from what it answered (``None``: it left first).

    >>> judge("04AB87F2CA1190", TagFacts(bytes.fromhex("0004040201000F03"), bytes(32)), NXP_NTAG21X_KEY)
    <Origin.NO_SIGNATURE: 'no_signature'>
    >>> judge("04AB87F2CA1190", TagFacts(None, None), NXP_NTAG21X_KEY)
    <Origin.COUNTERFEIT: 'counterfeit'>

    ``version`` ``None`` with a signature that is not zeros: ``GET_VERSION`` was not asked (a
    pad asks ``READ_SIG`` first, :meth:`drivers.nfc.pn532_reader.NfcpyReader.poll`), and the signature
    decides: ``genuine`` if it verifies, else ``bad_signature``.

    >>> good = bytes.fromhex("67B1750BCCEB1174F9A33BF20E0226551A6366939B31F949848C3C087350FA90")
    >>> judge("04AB87F2CA1190", TagFacts(None, good), NXP_NTAG21X_KEY)
    <Origin.GENUINE: 'genuine'>
    >>> judge("04AB87F2CA1191", TagFacts(None, good), NXP_NTAG21X_KEY)
    <Origin.BAD_SIGNATURE: 'bad_signature'>
    """
    if facts is None:
        return Origin.UNREADABLE
    if facts.version is None and facts.signature is not None and any(facts.signature):
        # GET_VERSION not asked (the pads ask READ_SIG first): the signature decides alone, NXP's
        # over this UID or not, whatever the chip (AN11350: the signature is the originality proof)
        verified = verify_signature(bytes.fromhex(uid), facts.signature, public_key)
        return Origin.GENUINE if verified else Origin.BAD_SIGNATURE
    if facts.version is None or facts.version not in NTAG21X_VERSIONS:
        return Origin.COUNTERFEIT
    if not facts.signature or not any(facts.signature):
        return Origin.NO_SIGNATURE
    if verify_signature(bytes.fromhex(uid), facts.signature, public_key):
        return Origin.GENUINE
    return Origin.BAD_SIGNATURE
