"""Every log of every transaction, from the block's receipts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from snowfield.indexer.extract.hexnum import addr, qty
from snowfield.store.rows import LogRow


def log_rows(chain_id: int, block_number: int, receipts: Sequence[dict[str, Any]]) -> list[LogRow]:
    """The logs in block order (a reverted transaction's receipt has none)."""
    rows = []
    for tx_index, receipt in enumerate(receipts):
        tx_hash = addr(receipt["transactionHash"])
        for log in receipt.get("logs") or ():
            rows.append(
                LogRow(
                    chain_id=chain_id,
                    block_number=block_number,
                    tx_index=tx_index,
                    log_index=qty(log["logIndex"]),
                    tx_hash=tx_hash,
                    address=addr(log["address"]),
                    topics=tuple(addr(t) for t in log.get("topics") or ()),
                    data=addr(log.get("data") or "0x"),
                )
            )
    return rows
