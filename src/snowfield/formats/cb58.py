"""base58 (Bitcoin alphabet) and cb58: base58 of the bytes followed by a 4-byte sha256 checksum."""

from __future__ import annotations

import hashlib

from snowfield.errors import InvalidParams

ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_INDEX = {c: i for i, c in enumerate(ALPHABET)}


def b58encode(data: bytes) -> str:
    number = int.from_bytes(data, "big")
    out = []
    while number:
        number, rem = divmod(number, 58)
        out.append(ALPHABET[rem])
    zeros = len(data) - len(data.lstrip(b"\x00"))
    return "1" * zeros + "".join(reversed(out))


def b58decode(text: str) -> bytes:
    number = 0
    for char in text:
        if char not in _INDEX:
            raise InvalidParams(f"invalid base58 character {char!r}")
        number = number * 58 + _INDEX[char]
    zeros = len(text) - len(text.lstrip("1"))
    body = number.to_bytes((number.bit_length() + 7) // 8, "big") if number else b""
    return b"\x00" * zeros + body


def cb58_encode(data: bytes) -> str:
    return b58encode(data + hashlib.sha256(data).digest()[-4:])


def cb58_decode(text: str) -> bytes:
    raw = b58decode(text)
    if len(raw) < 4:
        raise InvalidParams("cb58 string too short")
    data, checksum = raw[:-4], raw[-4:]
    if hashlib.sha256(data).digest()[-4:] != checksum:
        raise InvalidParams("invalid input checksum")
    return data
