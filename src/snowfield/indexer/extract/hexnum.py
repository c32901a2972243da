"""Reading the node's JSON quantities and data fields."""

from __future__ import annotations

from typing import Any


def qty(value: Any, default: int = 0) -> int:
    """A hex quantity ("0x1a") as int; absent → default."""
    if value is None:
        return default
    if isinstance(value, int):
        return value
    return int(value, 16)


def addr(value: Any) -> str:
    return str(value).lower()


def topic_address(topic: str) -> str:
    """The address in the low 20 bytes of a 32-byte topic."""
    return "0x" + topic[-40:].lower()


def data_bytes(value: str | None) -> bytes:
    if not value or value == "0x":
        return b""
    return bytes.fromhex(value[2:] if value.startswith("0x") else value)
