"""base58 and cb58: the node's vectors, round-trips, and checksum failures."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snowfield.errors import InvalidParams
from snowfield.formats.cb58 import decode_base58, decode_cb58, encode_base58, encode_cb58

CB58_VECTORS = [
    (bytes(32), "11111111111111111111111111111111LpoYY"),
    (bytes(20), "111111111111111111116DBWJs"),
    # avalanchego utils/cb58/cb58_test.go.
    (b"", "45PJLL"),
    (b"\x00", "1c7hwa"),
    (bytes([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 255]), "1NVSVezva3bAtJesnUj"),
    (bytes(range(1, 33)), "SkB92YpWm4Q2ijQHH34cqbKkCZWszsiQgHVjtNeFF2HdvDQU"),
]

BASE58_VECTORS = [
    (b"", ""),
    (b"\x00", "1"),
    (b"\x00\x00\x01", "112"),
    (b"hello world", "StV1DL6CwTryKyV"),
    # Bitcoin's base58 test vector (base58_encode_decode.json).
    (
        bytes.fromhex("00eb15231dfceb60925886b67d065299925915aeb172c06647"),
        "1NS17iag9jJgTHD1VXjvLCEnZuQ3rJDE9L",
    ),
]


@pytest.mark.parametrize(("raw", "text"), CB58_VECTORS)
def test_cb58_vectors(raw: bytes, text: str) -> None:
    assert encode_cb58(raw) == text
    assert decode_cb58(text) == raw


@pytest.mark.parametrize(("raw", "text"), BASE58_VECTORS)
def test_base58_vectors(raw: bytes, text: str) -> None:
    assert encode_base58(raw) == text
    assert decode_base58(text) == raw


@given(st.binary(max_size=80))
def test_base58_round_trip(raw: bytes) -> None:
    assert decode_base58(encode_base58(raw)) == raw


@given(st.binary(max_size=80))
def test_cb58_round_trip(raw: bytes) -> None:
    assert decode_cb58(encode_cb58(raw)) == raw


@given(st.binary(min_size=1, max_size=40), st.data())
def test_cb58_rejects_any_single_character_change(raw: bytes, data: st.DataObject) -> None:
    text = encode_cb58(raw)
    index = data.draw(st.integers(0, len(text) - 1))
    replacement = data.draw(
        st.sampled_from("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")
    )
    changed = text[:index] + replacement + text[index + 1 :]
    if changed != text:
        # A different digit means different bytes; a 4-byte checksum misses that 1 time in 2**32.
        with pytest.raises(InvalidParams):
            decode_cb58(changed)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "base58 decoding error: zero length string"),
        ("0OIl", "base58 decoding error"),
        ("1111111111111111111111111111111LpoYY ", "base58 decoding error"),
        ("1", "input string is smaller than the checksum size"),
        ("11111111111111111111111111111111LpoYZ", "invalid input checksum"),
    ],
)
def test_cb58_errors(text: str, message: str) -> None:
    with pytest.raises(InvalidParams) as raised:
        decode_cb58(text)
    assert raised.value.message == message
