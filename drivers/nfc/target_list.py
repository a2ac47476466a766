"""InListPassiveTarget's bytes at 106 kbps type A (UM0701-02, §7.3.5): the InitiatorData that names one
card by its UID, and the UIDs an answer lists. :class:`~drivers.nfc.pn532_reader.NfcpyReader` sends the one
and reads the other."""

from __future__ import annotations

__all__ = ["listed_uids", "select_request"]


def select_request(uid: str) -> bytearray:
    """InListPassiveTarget's InitiatorData naming card ``uid`` (hex), as nfcpy's ``sense_tta`` builds it.

    The PN532 takes the UID cascade level by cascade level (UM0701-02, §7.3.5): a 7-byte UID
    goes with its cascade tag ``88`` first (``88 UID0 UID1 UID2 UID3 UID4 UID5 UID6``), a 10-byte
    UID with one before each of its first two levels, a 4-byte UID as it is.

    >>> select_request("04A224B2C31D80").hex(" ").upper()
    '88 04 A2 24 B2 C3 1D 80'
    """
    sel = bytearray.fromhex(uid)
    if len(sel) > 4:
        sel = bytearray(b"\x88") + sel
    if len(sel) > 8:
        sel = sel[0:4] + bytearray(b"\x88") + sel[4:]
    return sel


def listed_uids(data: bytes | None) -> list[str]:
    """The UIDs in an InListPassiveTarget answer for 106 kbps type A.

    ``NbTg`` then per target: ``Tg SENS_RES(2) SEL_RES NFCID1-length NFCID1``
    (and ``ATS-length ATS`` for an ISO-DEP tag, SEL_RES bit 6).

    >>> listed_uids(bytes.fromhex("01 01 0044 00 04 0A0B0C0D"))
    ['0A0B0C0D']
    """
    if not data:
        return []
    uids, at = [], 1
    for _ in range(data[0]):
        if at + 5 > len(data):
            break
        sel_res, size = data[at + 3], data[at + 4]
        uids.append(bytes(data[at + 5 : at + 5 + size]).hex().upper())
        at += 5 + size
        if sel_res & 0x20 and at < len(data):
            at += data[at]  # the ATS, its length byte first
    return uids
