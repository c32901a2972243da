"""Reading the node's JSON quantities and data fields."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
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


def successful_logs(
    receipts: Sequence[dict[str, Any]],
) -> Iterator[tuple[int, dict[str, Any], dict[str, Any]]]:
    """(tx index, receipt, log) of every log of the transactions that succeeded (a reverted
    transaction's logs never happened)."""
    for tx_index, receipt in enumerate(receipts):
        if qty(receipt.get("status"), 1) == 0:
            continue
        for log in receipt.get("logs") or ():
            yield tx_index, receipt, log
