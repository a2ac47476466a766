"""What the table keeps in a tag's memory, on a tag nfcpy activated: the NDEF text record that
names a card, and the password that keeps it from being written over (NTAG213/215/216 data sheet,
*Password verification protection* and *Configuration pages*: PWD, PACK, ACCESS, AUTH0).

The reader (:class:`drivers.nfc.pn532_reader.NfcpyReader`) selects and activates the tag; these
functions only talk to it, through nfcpy's Type 2 tag (``nfc.tag.tt2_nxp.NTAG21x``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import ndef
import nfc.tag
import nfc.tag.tt2_nxp

from drivers.nfc.reader import TagWriteError

logger = logging.getLogger(__name__)


def first_text(tag: Any, uid: str, where: str) -> str | None:
    """The first NDEF text record on ``tag`` (card ``uid`` on the reader ``where``), ``None`` if none
    or unreadable (said at DEBUG)."""
    try:
        if tag.ndef is None:
            return None
        for record in tag.ndef.records:
            if isinstance(record, ndef.TextRecord):
                return str(record.text)
    except (nfc.tag.TagCommandError, ndef.DecodeError) as error:
        logger.debug("%s: NDEF of %s unreadable: %s", where, uid, error)
    return None


def write_text(tag: Any, uid: str, text: str) -> None:
    """One NDEF text record ``text`` on ``tag`` (card ``uid``), formatting a blank tag first.

    :raises TagWriteError: the tag cannot be formatted for NDEF, is read-only, or the write failed.
    """
    try:
        if tag.ndef is None and not tag.format():
            raise TagWriteError(f"tag {uid} cannot be formatted for NDEF")
        if tag.ndef is None or not tag.ndef.is_writeable:
            raise TagWriteError(f"tag {uid} is read-only")
        tag.ndef.records = [ndef.TextRecord(text)]
    except (nfc.tag.TagCommandError, ndef.EncodeError, AttributeError, ValueError) as error:
        raise TagWriteError(f"writing tag {uid} failed: {error}") from error


def authenticate(tag: Any, uid: str, password: bytes, where: str) -> bool:
    """``PWD_AUTH`` with ``password`` (4 bytes of PWD, 2 of PACK): whether ``tag`` (an NTAG21x) answered
    the PACK. Any other tag has no password: False."""
    if not isinstance(tag, nfc.tag.tt2_nxp.NTAG21x):
        return False
    ok = bool(tag.authenticate(bytes(password)))
    logger.debug("%s: tag %s password %s", where, uid, "accepted" if ok else "refused")
    return ok


def check_lock(password: bytes, protect_from: int, auth_limit: int) -> None:
    """A lock's values, checked before any tag is touched (:func:`lock`).

    :raises ValueError: ``password`` is not 6 bytes, ``protect_from`` not a page 3–255, ``auth_limit``
        not 0–7.
    """
    if len(password) != 6:
        raise ValueError(f"a lock is 4 bytes of PWD and 2 of PACK, not {len(password)} bytes")
    if not 3 <= protect_from <= 255:
        raise ValueError(f"protection starts at a page from 3 to 255, not {protect_from}")
    if not 0 <= auth_limit <= 7:
        raise ValueError(f"AUTHLIM is 0 to 7, not {auth_limit}")


def lock(tag: Any, uid: str, password: bytes, *, protect_from: int, auth_limit: int,
         again: Callable[[], Any], where: str) -> None:
    """Password-protect ``tag``'s memory (card ``uid``) from page ``protect_from`` against writing.

    Writes PWD (``password[:4]``), PACK (``password[4:6]``), ACCESS (PROT 0: reading stays free, so
    the table and any phone still read the NDEF record; AUTHLIM ``auth_limit``) and AUTH0 last, then
    has the tag selected again (``again()``: the tag activated anew, or None) and checks that
    ``PWD_AUTH`` answers the PACK and, with an ``auth_limit``, sets CFGLCK (the configuration can then
    never be changed: nobody can lift the limit or move AUTH0). A tag locked already with the same
    password gets the limit and CFGLCK if it lacks them. The values are checked first (:func:`check_lock`).

    :raises TagWriteError: the tag is not an NTAG21x, is locked with another password, or a write failed.
    """
    config = getattr(tag, "_cfgpage", None)
    if not isinstance(tag, nfc.tag.tt2_nxp.NTAG21x) or config is None:
        raise TagWriteError(f"tag {uid} is not an NTAG21x: it cannot be locked")
    try:
        cfg = tag.read(config)  # CFG0, CFG1, PWD (reads 0), PACK (reads 0)
        locked = cfg[3] < 0xFF
        if locked:
            if not authenticate(tag, uid, password, where):
                raise TagWriteError(f"tag {uid} is locked with another password")
        else:
            tag.write(config + 2, bytes(password[:4]))
            tag.write(config + 3, bytes(password[4:6]) + b"\x00\x00")
            tag.write(config + 1, bytes([cfg[4] & 0x3F & ~0x07 | auth_limit]) + bytes(cfg[5:8]))
            tag.write(config, bytes(cfg[0:3]) + bytes([protect_from]))
    except nfc.tag.TagCommandError as error:
        raise TagWriteError(f"locking tag {uid} failed: {error}") from error
    if not locked:  # newly locked: select it again and check the new password
        tag = again()
        if tag is None or not authenticate(tag, uid, password, where):
            raise TagWriteError(f"tag {uid} did not confirm its new password")
    if auth_limit:
        _lock_config(tag, uid, config, auth_limit)


def _lock_config(tag: Any, uid: str, config: int, auth_limit: int) -> None:
    """Set AUTHLIM and CFGLCK on an authenticated tag (a no-op once set)."""
    try:
        cfg = tag.read(config)
        if cfg[4] & 0x40:
            if cfg[4] & 0x07 != auth_limit:
                raise TagWriteError(f"tag {uid}: its configuration is locked with AUTHLIM {cfg[4] & 0x07}")
            return
        tag.write(config + 1, bytes([cfg[4] & ~0x07 & 0xFF | auth_limit | 0x40]) + bytes(cfg[5:8]))
    except nfc.tag.TagCommandError as error:
        raise TagWriteError(f"locking the configuration of tag {uid} failed: {error}") from error
