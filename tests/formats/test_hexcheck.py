"""Checked and unchecked hex, and the `encoding` parameter, with the node's error texts."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snowfield.errors import InvalidParams
from snowfield.formats.hexcheck import (
    Encoding,
    decode,
    decode_hex,
    decode_hexnc,
    encode,
    encode_hex,
    encode_hexnc,
    parse_encoding,
)

HEX_VECTORS = [
    # avalanchego utils/formatting/encoding_test.go.
    (b"", "0x7852b855"),
    (b"\x00", "0x0017afa01d"),
    (bytes([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 255]), "0x00010203040506070809ff4482539c"),
    (
        bytes(range(1, 33)),
        "0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20b7a612c9",
    ),
]


@pytest.mark.parametrize(("raw", "text"), HEX_VECTORS)
def test_hex_vectors(raw: bytes, text: str) -> None:
    assert encode_hex(raw) == text
    assert decode_hex(text) == raw


def test_checksum_is_sha256_tail() -> None:
    assert encode_hex(b"abc") == "0x616263" + hashlib.sha256(b"abc").hexdigest()[-8:]


@given(st.binary(max_size=200))
def test_hex_round_trip(raw: bytes) -> None:
    text = encode_hex(raw)
    assert text == text.lower() and text.startswith("0x")
    assert decode_hex(text) == raw
    assert decode_hex("0x" + text[2:].upper()) == raw


@given(st.binary(max_size=200))
def test_hexnc_round_trip(raw: bytes) -> None:
    assert encode_hexnc(raw) == "0x" + raw.hex()
    assert decode_hexnc(encode_hexnc(raw)) == raw


@given(st.binary(max_size=100), st.sampled_from(list(Encoding)))
def test_generic_round_trip(raw: bytes, encoding: Encoding) -> None:
    assert decode(encode(raw, encoding), encoding) == raw


def test_hexc_is_hex_on_the_wire() -> None:
    assert encode(b"\x01", Encoding.HEXC) == encode_hex(b"\x01")


def test_empty_string_decodes_to_nothing() -> None:
    # The node returns no bytes for "" without checking prefix or checksum.
    assert decode_hex("") == b""
    assert decode_hexnc("") == b""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0x", "input string is smaller than the checksum size"),
        ("0x000102", "input string is smaller than the checksum size"),
        ("0x7852b856", "invalid input checksum"),
        ("7852b855", "missing 0x prefix to hex encoding"),
        ("0X7852b855", "missing 0x prefix to hex encoding"),
        ("0x7852b85", "encoding/hex: odd length hex string"),
        ("0x7852g855", "encoding/hex: invalid byte: U+0067 'g'"),
        ("0x7852 b855", "encoding/hex: invalid byte: U+0020 ' '"),
        ("0x7852\nb85", "encoding/hex: invalid byte: U+000A"),
        # The node's own invalid inputs (TestDecodeHexInvalid).
        ("0", "missing 0x prefix to hex encoding"),
        ("x", "missing 0x prefix to hex encoding"),
        ("0xg", "encoding/hex: invalid byte: U+0067 'g'"),
        ("0x0017afa0Zd", "encoding/hex: invalid byte: U+005A 'Z'"),
        ("0xafafafafaf", "invalid input checksum"),
    ],
)
def test_decode_hex_errors(text: str, message: str) -> None:
    with pytest.raises(InvalidParams) as raised:
        decode_hex(text)
    assert raised.value.message == message


def test_hexnc_skips_the_checksum() -> None:
    assert decode_hexnc("0x7852b856") == bytes.fromhex("7852b856")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, Encoding.HEX),
        ("hex", Encoding.HEX),
        ("HEX", Encoding.HEX),
        ("Hex", Encoding.HEX),
        ("hexnc", Encoding.HEXNC),
        ("HexNC", Encoding.HEXNC),
        ("hexc", Encoding.HEXC),
        ("HEXC", Encoding.HEXC),
    ],
)
def test_parse_encoding(value: object, expected: Encoding) -> None:
    assert parse_encoding(value) is expected
    assert str(parse_encoding(value)) == expected.value


@pytest.mark.parametrize("value", ["json", "JSON", "Json"])
def test_json_is_unsupported(value: str) -> None:
    with pytest.raises(InvalidParams) as raised:
        parse_encoding(value)
    assert raised.value.message == "unsupported encoding in method"


@pytest.mark.parametrize("value", ["", "cb58", "base64", " hex", 1, True, ["hex"]])
def test_other_encodings_are_invalid(value: object) -> None:
    with pytest.raises(InvalidParams) as raised:
        parse_encoding(value)
    assert raised.value.message == "invalid encoding"
