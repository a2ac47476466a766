"""NDEF text records (NFC Forum RTD Text), as the simulated tags store them."""

from __future__ import annotations


def ndef_text_message(text: str, language: str = "en") -> bytes:
    """An NDEF message holding one well-known text record (UTF-8).

    >>> ndef_text_message("ecarte:KS").hex()
    'd1010c5402656e6563617274653a4b53'
    """
    body = text.encode()
    payload = bytes([len(language)]) + language.encode("ascii") + body
    if len(payload) < 256:
        return bytes([0xD1, 0x01, len(payload)]) + b"T" + payload
    return bytes([0xC1, 0x01]) + len(payload).to_bytes(4, "big") + b"T" + payload


def parse_ndef_text(message: bytes) -> str | None:
    """The text of the first record of ``message`` if it is a text record."""
    if len(message) < 3:
        return None
    header, type_length = message[0], message[1]
    short = bool(header & 0x10)
    if short:
        size, at = message[2], 3
    else:
        size, at = int.from_bytes(message[2:6], "big"), 6
    if header & 0x08:  # ID length present
        at += 1
    record_type = message[at : at + type_length]
    payload = message[at + type_length : at + type_length + size]
    if header & 0x07 != 0x01 or record_type != b"T" or not payload:
        return None
    lang = payload[0] & 0x3F
    encoding = "utf-16" if payload[0] & 0x80 else "utf-8"
    return payload[1 + lang :].decode(encoding, errors="replace")
