"""The node's `encoding` parameter and hex forms: `0x` + hex of bytes ‖ checksum, or unchecked."""

from __future__ import annotations

import enum

from snowfield.errors import InvalidParams
from snowfield.formats.checksum import append_checksum, strip_checksum

_HEX_ALPHABET = b"0123456789abcdefABCDEF"
_HEX_DIGITS = frozenset(_HEX_ALPHABET)


class Encoding(enum.StrEnum):
    """A byte encoding the node accepts; the value is what responses echo as `"encoding"`."""

    HEX = "hex"  # with the 4-byte checksum
    HEXC = "hexc"  # same bytes on the wire as HEX
    HEXNC = "hexnc"  # no checksum


def parse_encoding(value: object) -> Encoding:
    """The `encoding` request parameter: omitted/None → hex; case-insensitive; json is refused."""
    if value is None:
        return Encoding.HEX
    name = value.lower() if isinstance(value, str) else ""
    if name == "json":
        # The node knows json but cannot return raw bytes in it, hence its own message.
        raise InvalidParams("unsupported encoding in method")
    try:
        return Encoding(name)
    except ValueError:
        raise InvalidParams("invalid encoding") from None


def wants_json(value: object) -> bool:
    """Whether `encoding` asks for JSON, which only the methods serving a tx or block accept
    (platform.getTx/getBlock, avm.getTx/getBlock …); every other method refuses it."""
    return isinstance(value, str) and value.lower() == "json"


def encode(data: bytes, encoding: Encoding) -> str:
    """data in the given encoding."""
    return encode_hexnc(data) if encoding is Encoding.HEXNC else encode_hex(data)


def decode(text: str, encoding: Encoding) -> bytes:
    """Inverse of encode; checked forms verify the checksum."""
    return decode_hexnc(text) if encoding is Encoding.HEXNC else decode_hex(text)


def encode_hex(data: bytes) -> str:
    """`0x` + lower-case hex of data ‖ sha256(data)[-4:]."""
    return "0x" + append_checksum(data).hex()


def decode_hex(text: str) -> bytes:
    """Inverse of encode_hex; InvalidParams with the node's texts (`invalid input checksum`)."""
    # The node returns no bytes for an empty string before any prefix or checksum check.
    if not text:
        return b""
    return strip_checksum(_unhex(text))


def encode_hexnc(data: bytes) -> str:
    """`0x` + lower-case hex of data, no checksum."""
    return "0x" + data.hex()


def decode_hexnc(text: str) -> bytes:
    """Inverse of encode_hexnc."""
    if not text:
        return b""
    return _unhex(text)


def _unhex(text: str) -> bytes:
    if not text.startswith("0x"):
        raise InvalidParams("missing 0x prefix to hex encoding")
    # Validate by hand: bytes.fromhex would also accept whitespace, which Go's decoder rejects.
    digits = text[2:].encode()
    if digits.translate(None, _HEX_ALPHABET):  # some byte is no hex digit: name the first
        byte = next(b for b in digits if b not in _HEX_DIGITS)
        raise InvalidParams(f"encoding/hex: invalid byte: {_go_rune(byte)}")
    if len(digits) % 2:
        raise InvalidParams("encoding/hex: odd length hex string")
    return bytes.fromhex(digits.decode())


def _go_rune(byte: int) -> str:
    """Go's %#U of a byte taken as a rune: `U+0067 'g'`, or just `U+000A` when not printable."""
    char = chr(byte)
    return f"U+{byte:04X} '{char}'" if char.isprintable() else f"U+{byte:04X}"
