"""The few ABI encodings the indexer's eth_calls need: a selector with uint256 arguments, and
string / uint / bool return values (with the bytes32 strings some old tokens return)."""

from __future__ import annotations


def call_data(selector: str, *args: int) -> str:
    return selector + "".join(f"{a:064x}" for a in args)


def as_uint(result: bytes) -> int | None:
    return int.from_bytes(result[:32], "big") if len(result) >= 32 else None


def as_bool(result: bytes) -> bool:
    return as_uint(result) == 1 and len(result) == 32


def as_string(result: bytes) -> str | None:
    """A dynamic `string` return, or a NUL-padded bytes32; None when neither decodes."""
    if len(result) == 32:
        raw = result.rstrip(b"\0")
        return _text(raw)
    if len(result) < 64:
        return None
    offset = int.from_bytes(result[:32], "big")
    if offset + 32 > len(result):
        return None
    length = int.from_bytes(result[offset : offset + 32], "big")
    if offset + 32 + length > len(result):
        return None
    return _text(result[offset + 32 : offset + 32 + length])


def _text(raw: bytes) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    # NUL cannot be stored in PostgreSQL TEXT and is never meaningful in a name.
    return text.replace("\0", "")
