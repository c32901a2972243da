"""RLP encoding of byte strings, non-negative integers and nested lists.

The generic encoder of the rlp package infers a serializer per item; block headers, block
bodies and tries are plain bytes/ints/lists, for which a direct encoder is several times
faster. Decoding stays with the rlp package."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# bytes | int | a sequence of items (recursive; typed loosely for mypy).
Item = Any


def _prefix(length: int, offset: int) -> bytes:
    if length < 56:
        return bytes([offset + length])
    size = length.to_bytes((length.bit_length() + 7) // 8, "big")
    return bytes([offset + 55 + len(size)]) + size


# Short prefixes, made once: tries and headers encode dozens of short items per block.
_SHORT_STRING = [bytes([0x80 + n]) for n in range(56)]
_SHORT_LIST = [bytes([0xC0 + n]) for n in range(56)]


def encode_bytes(data: bytes) -> bytes:
    n = len(data)
    if n < 56:
        if n == 1 and data[0] < 0x80:
            return data
        return _SHORT_STRING[n] + data
    return _prefix(n, 0x80) + data


def encode_int(value: int) -> bytes:
    if value < 0:
        raise ValueError("RLP cannot encode negative integers")
    if value == 0:
        return b"\x80"
    if value < 0x80:
        return bytes([value])
    data = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return encode_bytes(data)


def encode_list_of_encoded(items: Sequence[bytes]) -> bytes:
    """A list whose items are already RLP-encoded."""
    body = b"".join(items)
    n = len(body)
    return (_SHORT_LIST[n] if n < 56 else _prefix(n, 0xC0)) + body


def encode(item: Item) -> bytes:
    kind = item.__class__
    if kind is bytes:
        return encode_bytes(item)
    if kind is list:
        return encode_list_of_encoded([encode(i) for i in item])
    if isinstance(item, bytes | bytearray):
        return encode_bytes(bytes(item))
    if isinstance(item, int):
        return encode_int(item)
    return encode_list_of_encoded([encode(i) for i in item])
