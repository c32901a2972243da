"""avalanchego's "hex" encoding: 0x-hex of the bytes followed by a 4-byte sha256 checksum."""

from __future__ import annotations

import hashlib

from snowfield.errors import InvalidParams


def encode_hex_checksum(data: bytes) -> str:
    return "0x" + (data + hashlib.sha256(data).digest()[-4:]).hex()


def decode_hex_checksum(text: str) -> bytes:
    if not text.startswith("0x"):
        raise InvalidParams("missing 0x prefix")
    try:
        raw = bytes.fromhex(text[2:])
    except ValueError:
        raise InvalidParams("invalid hex string") from None
    if len(raw) < 4 or hashlib.sha256(raw[:-4]).digest()[-4:] != raw[-4:]:
        raise InvalidParams("invalid input checksum")
    return raw[:-4]


def parse_encoding(value: object) -> str:
    """The `encoding` parameter: hex (default) only; json is named, anything else invalid."""
    if value is None or value == "":
        return "hex"
    if not isinstance(value, str):
        raise InvalidParams("invalid encoding")
    lowered = value.lower()
    if lowered in ("hex", "hexc"):
        return "hex"
    if lowered == "hexnc":
        return "hexnc"
    if lowered == "json":
        raise InvalidParams("unsupported encoding in method")
    raise InvalidParams("invalid encoding")
