"""The 4-byte Avalanche checksum (last four bytes of sha256) used by cb58 and checked hex."""

from __future__ import annotations

import hashlib

from snowfield.errors import InvalidParams

CHECKSUM_LEN = 4


def checksum(data: bytes) -> bytes:
    """The last four bytes of sha256(data)."""
    return hashlib.sha256(data).digest()[-CHECKSUM_LEN:]


def append_checksum(data: bytes) -> bytes:
    """data ‖ checksum(data)."""
    return data + checksum(data)


def strip_checksum(checked: bytes) -> bytes:
    """The payload of payload ‖ checksum, after verifying the checksum (node error texts)."""
    if len(checked) < CHECKSUM_LEN:
        raise InvalidParams("input string is smaller than the checksum size")
    payload, tail = checked[:-CHECKSUM_LEN], checked[-CHECKSUM_LEN:]
    if checksum(payload) != tail:
        raise InvalidParams("invalid input checksum")
    return payload
