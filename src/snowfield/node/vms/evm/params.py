"""Decoders for EVM JSON-RPC arguments, with geth's error texts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from snowfield.errors import InvalidParams

TAGS = ("latest", "earliest", "pending", "safe", "finalized", "accepted")


def _hex_body(value: Any) -> str:
    if not isinstance(value, str):
        raise InvalidParams(f"cannot unmarshal {json_kind(value)} into hex value")
    if not value.startswith(("0x", "0X")):
        raise InvalidParams("hex string without 0x prefix")
    return value[2:]


def quantity(value: Any, bits: int = 256) -> int:
    body = _hex_body(value)
    if not body:
        raise InvalidParams('hex string "0x"')
    if len(body) > 1 and body[0] == "0":
        raise InvalidParams("hex number with leading zero digits")
    try:
        number = int(body, 16)
    except ValueError:
        raise InvalidParams("invalid hex string") from None
    if number.bit_length() > bits:
        raise InvalidParams(f"hex number > {bits} bits")
    return number


def uint64(value: Any) -> int:
    return quantity(value, 64)


def number_or_hex(value: Any) -> int:
    """A count given as a JSON number or a hex quantity (eth_feeHistory's blockCount)."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return uint64(value)


def data(value: Any) -> bytes:
    body = _hex_body(value)
    if len(body) % 2:
        raise InvalidParams("hex string of odd length")
    try:
        return bytes.fromhex(body)
    except ValueError:
        raise InvalidParams("invalid hex string") from None


def _fixed(value: Any, size: int, kind: str) -> bytes:
    raw = data(value)
    if len(raw) != size:
        got = len(_hex_body(value))
        raise InvalidParams(f"hex string has length {got}, want {size * 2} for {kind}")
    return raw


def address(value: Any) -> bytes:
    return _fixed(value, 20, "common.Address")


def hash32(value: Any) -> bytes:
    return _fixed(value, 32, "common.Hash")


def storage_key(value: Any) -> int:
    """A storage slot: geth accepts any hex up to 32 bytes, padded on the left."""
    body = _hex_body(value)
    if len(body) > 64:
        raise InvalidParams("hex string too long, want at most 32 bytes")
    try:
        return int(body or "0", 16)
    except ValueError:
        raise InvalidParams("invalid hex string") from None


@dataclass(frozen=True, slots=True)
class BlockRef:
    """A block named by tag, number or hash."""

    tag: str | None = None
    number: int | None = None
    hash: bytes | None = None


LATEST = BlockRef(tag="latest")


def block_number(value: Any) -> BlockRef:
    if isinstance(value, str) and value in TAGS:
        return BlockRef(tag=value)
    if isinstance(value, str) and not value.startswith(("0x", "0X")):
        raise InvalidParams(f"invalid block number {value!r}")
    return BlockRef(number=quantity(value, 63))


def block_number_or_hash(value: Any) -> BlockRef:
    if isinstance(value, dict):
        if "blockHash" in value and "blockNumber" in value:
            raise InvalidParams(
                "cannot specify both BlockHash and BlockNumber, choose one or the other"
            )
        if "blockHash" in value:
            return BlockRef(hash=hash32(value["blockHash"]))
        if "blockNumber" in value:
            return block_number(value["blockNumber"])
        raise InvalidParams("invalid block number or hash")
    if isinstance(value, str) and len(value) == 66:
        return BlockRef(hash=hash32(value))
    return block_number(value)


def boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise InvalidParams(f"cannot unmarshal {json_kind(value)} into bool")
    return value


def string(value: Any) -> str:
    if not isinstance(value, str):
        raise InvalidParams(f"cannot unmarshal {json_kind(value)} into string")
    return value


def obj(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidParams(f"cannot unmarshal {json_kind(value)} into object")
    return value


def string_list(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidParams("expected an array of strings")
    return value


def float_list(value: Any) -> list[float]:
    if not isinstance(value, list) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in value
    ):
        raise InvalidParams("expected an array of numbers")
    floats = [float(v) for v in value]
    for i, v in enumerate(floats):
        if not 0 <= v <= 100 or (i and v < floats[i - 1]):
            raise InvalidParams(f"invalid reward percentile: {v}")
    return floats


def json_kind(value: Any) -> str:
    """The JSON type of a decoded value, as Go's decoder names it in errors."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    if value is None:
        return "null"
    return "string"
