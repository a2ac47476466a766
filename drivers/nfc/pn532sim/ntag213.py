"""The simulated NXP NTAG213: memory, tag states, originality and password.

The tag (:class:`Ntag213`): 45 pages, READ, FAST_READ, WRITE,
COMPATIBILITY_WRITE, GET_VERSION, READ_SIG, READ_CNT, PWD_AUTH, HLTA; a NAK
for anything else (the tag then goes idle, as a real one does). The lock bytes
and password protection are enforced (below). CRC_A
(:func:`crc_a`) is what the chip appends to answers when the host has switched
the receive CRC off, as nfcpy does for type 2 tags.

Measured facts and documented behaviour (modelled as such): ISO/IEC 14443-3
tag states: a REQA (``26``) wakes only IDLE tags, a WUPA (``52``) IDLE and HALT
ones; HLTA (``50 00``) puts the selected tag in HALT; the field switched off
resets every tag to IDLE (it loses power).

Assumption (not measured): a READY or ACTIVE tag that receives a REQA drops
back to IDLE without answering; the PN532's one activation retry
(MxRtyPassiveActivation 1) then finds it.

Originality and password (NXP NTAG213/215/216 data sheet, rev. 3.2: *Memory
organization*, *Configuration pages*, *Password verification protection*,
*Originality signature*, and the command sections *GET_VERSION*, *PWD_AUTH*,
*READ_SIG*; AN11350):

* ``GET_VERSION`` (``60``) answers ``00 04 04 02 01 00 0F 03`` (NTAG213);
  ``READ_SIG`` (``3C 00``) the 32-byte signature (``r || s``, ECDSA over the UID
  on secp128r1); a genuine tag's is given by the simulator's ``signer``.
* Configuration pages ``29``-``2C``: CFG0 (AUTH0 in byte 3, factory ``FF``:
  nothing protected), CFG1 (ACCESS, bit 7 PROT: 1 protects reading too), PWD
  (factory ``FFFFFFFF``), PACK (2 bytes). PWD and PACK read as zeros.
* ``PWD_AUTH`` (``1B`` + 4 bytes) with the right PWD answers PACK and the tag
  is authenticated until it leaves the ACTIVE state (HLTA, field off, a new
  REQA); a wrong one NAKs. WRITE and COMPATIBILITY_WRITE to a page from AUTH0 on,
  and with PROT also READ and FAST_READ, NAK unless authenticated.

* Lock bytes (*Static lock bytes*, *Dynamic lock bytes*): page 2 bytes 2-3
  are the static lock bits, one-time programmable (a WRITE only ever sets
  bits). Byte 2: bit 3 ``L-CC`` makes page 3 read-only, bits 4-7 pages 4-7;
  byte 3 bits 0-7 pages 8-15; the block-locking bits (byte 2 bit 0 ``BL-CC``,
  bit 1 ``BL 9-4``, bit 2 ``BL 15-10``) freeze the lock bits of those pages.
  Page ``28`` (40) holds the dynamic lock bytes, also OTP: byte 0 bit *n*
  locks pages 16+2n and 17+2n, byte 1 bits 0-3 pages 32-39 (NTAG213: two
  pages a bit); byte 2's block-locking bits freeze them (bit *n* freezes the
  lock bits of byte 0 for bits 2n and 2n+1 and, from bit 4, byte 1's).
  A WRITE or COMPATIBILITY_WRITE to a locked page NAKs; reading is free.
* ``AUTHLIM`` (ACCESS bits 2-0) and ``CFGLCK`` (ACCESS bit 6): with AUTHLIM
  *n* > 0, after 2**n wrong ``PWD_AUTH`` in a row the tag refuses
  every ``PWD_AUTH``, the right password too, for ever (the protected pages
  stay locked); a right password before the limit resets the count. With
  CFGLCK set, CFG0 and CFG1 (AUTH0, ACCESS) can no longer be written, even
  authenticated; PWD and PACK still can (authenticated).

Assumptions: AUTH0 takes effect at once when written (an NXP community report
says a write right after setting AUTH0 failed; the data sheet does not say), so
a tag is locked by writing PWD, PACK and ACCESS first and AUTH0 last, then
CFGLCK authenticated. The block-locking bits of byte 2 of the dynamic lock page
are modelled as read above from the NTAG213 table (not measured); the NFC
counter is not modelled (``READ_CNT`` answers zero). A
clone (a "magic" UID-writable NTAG) answers ``GET_VERSION`` as an NTAG213 and
``READ_SIG`` with 32 zero bytes (what such tags hold until someone programs a
signature, which some can: then only the deck check catches them); a
counterfeit chip NAKs ``GET_VERSION``, ``READ_SIG`` and ``PWD_AUTH``.
"""

from __future__ import annotations

from drivers.nfc.pn532sim.ndef_text import ndef_text_message, parse_ndef_text


def crc_a(data: bytes) -> bytes:
    """ISO/IEC 14443-3 CRC_A of ``data``, two bytes, least significant first.

    >>> crc_a(bytes([0x30, 0x00])).hex()
    '02a8'
    """
    reg = 0x6363
    for octet in data:
        for pos in range(8):
            bit = (reg ^ (octet >> pos)) & 1
            reg >>= 1
            if bit:
                reg ^= 0x8408
    return bytes([reg & 0xFF, reg >> 8])


class Ntag213:
    """An NXP NTAG213: 45 pages of 4 bytes, a 7-byte UID, and its state.

    ``state`` follows ISO/IEC 14443-3: ``idle`` (powered, answers REQA and
    WUPA), ``ready`` (answered, taking part in anticollision), ``active``
    (selected: answers type 2 commands) or ``halt`` (after HLTA: answers WUPA
    only). The reader field going off resets it to ``idle``.

    :raises ValueError: ``uid`` is not 7 bytes.
    """

    PAGES = 45
    USER_PAGES = range(4, 40)
    VERSION = bytes.fromhex("0004040201000F03")
    ATQA = bytes.fromhex("0044")
    SAK = 0x00
    CC = bytes.fromhex("E1101200")
    CFG0_PAGE, CFG1_PAGE, PWD_PAGE, PACK_PAGE = 0x29, 0x2A, 0x2B, 0x2C
    DYNAMIC_LOCK_PAGE = 0x28
    CFGLCK = 0x40
    """ACCESS bit 6: the configuration pages (CFG0, CFG1) are locked for ever."""
    AUTHLIM = 0x07
    """ACCESS bits 2-0: 2 to this power wrong passwords lock the tag for ever (0: no limit)."""

    KINDS = ("genuine", "clone", "counterfeit")
    """What a tag is: an NXP NTAG213 (signed if the simulator has a signing key), a
    clone (a blank "magic" NTAG written with a copied UID: its ``READ_SIG`` answers 32
    zero bytes) or a counterfeit chip (no ``GET_VERSION``, ``READ_SIG`` or ``PWD_AUTH``:
    it answers NAK)."""

    def __init__(
        self,
        uid: bytes | str,
        *,
        ndef_text: str | None = None,
        signature: bytes = bytes(32),
        kind: str = "genuine",
    ) -> None:
        uid = bytes.fromhex(uid) if isinstance(uid, str) else bytes(uid)
        if len(uid) != 7:
            raise ValueError(f"an NTAG213 UID is 7 bytes, not {len(uid)}: {uid.hex().upper()}")
        if kind not in self.KINDS:
            raise ValueError(f"a tag is one of {', '.join(self.KINDS)}, not {kind!r}")
        if len(signature) != 32:
            raise ValueError(f"an originality signature is 32 bytes, not {len(signature)}")
        self.uid = uid
        self.kind = kind
        self.state = "idle"
        self.authenticated = False
        self.failed_auths = 0
        """Wrong ``PWD_AUTH`` in a row (the chip's internal counter; not readable)."""
        self.signature = signature if kind == "genuine" else bytes(32)
        self.memory = bytearray(self.PAGES * 4)
        bcc0 = 0x88 ^ uid[0] ^ uid[1] ^ uid[2]
        bcc1 = uid[3] ^ uid[4] ^ uid[5] ^ uid[6]
        self.memory[0:12] = uid[0:3] + bytes([bcc0]) + uid[3:7] + bytes([bcc1, 0x48, 0, 0])
        self.memory[12:16] = self.CC
        self.memory[40 * 4 : 41 * 4] = bytes([0x00, 0x00, 0x00, 0xBD])  # dynamic lock bytes, RFUI BD
        self.memory[41 * 4 : 42 * 4] = bytes([0x04, 0x00, 0x00, 0xFF])  # CFG0: AUTH0 = FF
        self.memory[43 * 4 : 44 * 4] = b"\xff\xff\xff\xff"  # PWD: factory default FFFFFFFF
        self.set_ndef_text(ndef_text)

    @property
    def uid_hex(self) -> str:
        """The UID in upper-case hex, as the tag registry keys it."""
        return self.uid.hex().upper()

    def set_ndef_text(self, text: str | None) -> None:
        """Store an NDEF text record (or an empty NDEF message) from page 4.

        :raises ValueError: the record does not fit in the 144 user bytes.
        """
        message = ndef_text_message(text) if text is not None else b""
        if len(message) < 255:
            tlv = bytes([0x03, len(message)]) + message + b"\xfe"
        else:
            tlv = b"\x03\xff" + len(message).to_bytes(2, "big") + message + b"\xfe"
        user = 4 * len(self.USER_PAGES)
        if len(tlv) > user:
            raise ValueError(f"NDEF message of {len(message)} bytes does not fit in {user}")
        self.memory[16 : 16 + user] = tlv + bytes(user - len(tlv))

    def ndef_message(self) -> bytes | None:
        """The NDEF message in the first NDEF TLV of the user memory, if any."""
        at, end = 16, 16 + 4 * len(self.USER_PAGES)
        while at < end:
            kind = self.memory[at]
            if kind == 0x00:
                at += 1
                continue
            if kind == 0xFE:
                return None
            size, head = self.memory[at + 1], 2
            if size == 0xFF:
                size, head = int.from_bytes(self.memory[at + 2 : at + 4], "big"), 4
            if kind == 0x03:
                return bytes(self.memory[at + head : at + head + size])
            at += head + size
        return None

    def ndef_text(self) -> str | None:
        """The text of the NDEF text record on the tag, if there is one."""
        message = self.ndef_message()
        return parse_ndef_text(message) if message else None

    def reqa(self) -> bytes | None:
        """A REQA (7-bit ``26``): the ATQA if the tag is ``idle``, else ``None``.

        A halted tag stays silent and halted; a ``ready`` or ``active`` tag
        takes the frame as unexpected and drops back to ``idle`` (silent).
        """
        self.authenticated = False  # lost with the ACTIVE state (HLTA, power, a new REQA)
        if self.state == "idle":
            self.state = "ready"
            return self.ATQA
        if self.state != "halt":
            self.state = "idle"
        return None

    def wupa(self) -> bytes | None:
        """A WUPA (7-bit ``52``): the ATQA if ``idle`` or ``halt``, else ``None``."""
        self.authenticated = False
        if self.state in ("idle", "halt"):
            self.state = "ready"
            return self.ATQA
        self.state = "idle"
        return None

    def answer(self, command: bytes) -> bytes | None:
        """The tag's answer to a type 2 command (CRC excluded), ``None`` if silent.

        A one-byte answer is a 4-bit ACK (``0A``) or NAK (``00``).
        """
        if self.state != "active" or not command:
            return None
        code, args = command[0], command[1:]
        if code == 0x30 and len(args) >= 1:  # READ
            if args[0] >= self.PAGES or not self._may_read(args[0]):
                return self._nak()
            return self._read(args[0])
        if code == 0x3A and len(args) >= 2:  # FAST_READ
            first, last = args[0], args[1]
            if first > last or last >= self.PAGES or not self._may_read(last):
                return self._nak()
            return bytes(self.memory[4 * first : 4 * last + 4])
        if code == 0xA2 and len(args) >= 5:  # WRITE
            return self._write(args[0], args[1:5])
        if code == 0xA0 and len(args) >= 1:  # COMPATIBILITY_WRITE, first part
            return b"\x0a" if 2 <= args[0] < 40 and self._may_write(args[0]) and not self.page_locked(args[0]) \
                else self._nak()
        if code in (0x60, 0x3C, 0x1B) and self.kind == "counterfeit":
            return self._nak()
        if code == 0x60:  # GET_VERSION
            return self.VERSION
        if code == 0x3C:  # READ_SIG
            return self.signature
        if code == 0x39:  # READ_CNT
            return bytes(3)
        if code == 0x1B and len(args) >= 4:  # PWD_AUTH: PACK if the password matches
            if self.auth_exhausted:
                return self._nak()
            if bytes(args[:4]) != self.memory[4 * self.PWD_PAGE : 4 * self.PWD_PAGE + 4]:
                self.failed_auths += 1
                return self._nak()
            self.failed_auths = 0
            self.authenticated = True
            return bytes(self.memory[4 * self.PACK_PAGE : 4 * self.PACK_PAGE + 2])
        if code == 0x50:  # HLTA
            self.state = "halt"
            return None
        return self._nak()

    def _nak(self) -> bytes:
        self.state = "idle"
        self.authenticated = False
        return b"\x00"

    @property
    def auth0(self) -> int:
        """The first page the password protects (CFG0 byte 3; ``FF``: none)."""
        return self.memory[4 * self.CFG0_PAGE + 3]

    @property
    def read_protected(self) -> bool:
        """Whether the password also protects reading (ACCESS bit 7, PROT)."""
        return bool(self.memory[4 * self.CFG1_PAGE] & 0x80)

    @property
    def auth_limit(self) -> int:
        """How many wrong passwords in a row lock the tag for ever (0: no limit; ACCESS AUTHLIM)."""
        exponent = self.memory[4 * self.CFG1_PAGE] & self.AUTHLIM
        return 1 << exponent if exponent else 0

    @property
    def config_locked(self) -> bool:
        """Whether CFG0 and CFG1 are locked for ever (ACCESS CFGLCK)."""
        return bool(self.memory[4 * self.CFG1_PAGE] & self.CFGLCK)

    @property
    def auth_exhausted(self) -> bool:
        """Whether the wrong passwords reached AUTHLIM: no ``PWD_AUTH`` is ever accepted again."""
        return 0 < self.auth_limit <= self.failed_auths

    def page_locked(self, page: int) -> bool:
        """Whether the lock bytes (static on page 2, dynamic on page 40) make ``page`` read-only."""
        static = self.memory[10] | self.memory[11] << 8  # bit n: page n (bits 3-15)
        if 3 <= page <= 15:
            return bool(static >> page & 1)
        dynamic = self.memory[4 * self.DYNAMIC_LOCK_PAGE] | self.memory[4 * self.DYNAMIC_LOCK_PAGE + 1] << 8
        if 16 <= page <= 39:
            return bool(dynamic >> ((page - 16) // 2) & 1)
        return False

    @property
    def locked(self) -> bool:
        """Whether part of the memory is password protected (AUTH0 within the memory)."""
        return self.auth0 < self.PAGES

    def _may_write(self, page: int) -> bool:
        return self.authenticated or page < self.auth0

    def _may_read(self, page: int) -> bool:
        return self.authenticated or not self.read_protected or page < self.auth0

    def _read(self, page: int) -> bytes:
        out = bytearray()
        for offset in range(4):
            at = (page + offset) % self.PAGES
            # PWD and PACK always read as zeros.
            out += bytes(4) if at >= 43 else self.memory[4 * at : 4 * at + 4]
        return bytes(out)

    def _write(self, page: int, data: bytes) -> bytes:
        if page < 2 or page >= self.PAGES or not self._may_write(page) or self.page_locked(page):
            return self._nak()
        if page in (self.CFG0_PAGE, self.CFG1_PAGE) and self.config_locked:
            return self._nak()
        at = 4 * page
        if page == 2:  # only the static lock bytes, only ever set bits, unless block-locked
            byte2 = self.memory[at + 2]
            frozen2 = (0x08 if byte2 & 0x01 else 0) | (0xF0 if byte2 & 0x02 else 0)
            frozen3 = (0x03 if byte2 & 0x02 else 0) | (0xFC if byte2 & 0x04 else 0)
            self.memory[at + 2] |= data[2] & ~frozen2 & 0xFF
            self.memory[at + 3] |= data[3] & ~frozen3 & 0xFF
        elif page == self.DYNAMIC_LOCK_PAGE:  # OTP, unless block-locked (byte 2)
            block = self.memory[at + 2]
            frozen0 = sum(0x03 << 2 * bit for bit in range(4) if block >> bit & 1)
            frozen1 = 0x0F if block & 0x10 else 0
            self.memory[at] |= data[0] & ~frozen0 & 0xFF
            self.memory[at + 1] |= data[1] & 0x0F & ~frozen1
            self.memory[at + 2] |= data[2]
        elif page == 3:  # capability container: one-time programmable
            for i in range(4):
                self.memory[at + i] |= data[i]
        else:
            self.memory[at : at + 4] = data
        return b"\x0a"


def uid_key(uid: str | bytes) -> str:
    """A UID (hex or bytes) as the upper-case hex the simulator keys its tags by."""
    return (bytes.fromhex(uid) if isinstance(uid, str) else bytes(uid)).hex().upper()
