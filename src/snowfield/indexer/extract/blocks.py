"""Blocks and transactions, from a full block and its receipts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from snowfield.indexer.extract.hexnum import addr, qty
from snowfield.store.rows import BlockRow, TxRow


def block_row(chain_id: int, block: dict[str, Any], txs: Sequence[TxRow] = ()) -> BlockRow:
    """The block's header fields; `txs` (its transaction rows) give the fees it spent."""
    base_fee = block.get("baseFeePerGas")
    millis, excess = block.get("timestampMilliseconds"), block.get("minDelayExcess")
    return BlockRow(
        chain_id=chain_id,
        number=qty(block["number"]),
        hash=addr(block["hash"]),
        parent_hash=addr(block["parentHash"]),
        timestamp=qty(block["timestamp"]),
        gas_used=qty(block["gasUsed"]),
        gas_limit=qty(block["gasLimit"]),
        base_fee=None if base_fee is None else qty(base_fee),
        tx_count=len(block.get("transactions") or ()),
        miner=addr(block.get("miner") or "0x" + "00" * 20),
        fees_spent=sum(tx.gas_used * tx.gas_price for tx in txs),
        # Avalanche headers since Apricot phase 4 (coreth, subnet-evm); Granite adds the
        # millisecond timestamp and the minimum block delay excess.
        gas_cost=qty(block.get("blockGasCost")),
        timestamp_ms=None if millis is None else qty(millis),
        min_delay_excess=None if excess is None else qty(excess),
    )


def tx_rows(
    chain_id: int, block: dict[str, Any], receipts: Sequence[dict[str, Any]]
) -> list[TxRow]:
    """One row per transaction; receipts are in transaction order."""
    number = qty(block["number"])
    block_hash = addr(block["hash"])
    timestamp = qty(block["timestamp"])
    rows = []
    for index, (tx, receipt) in enumerate(zip(block["transactions"], receipts, strict=True)):
        data = tx.get("input") or tx.get("data") or "0x"
        to = tx.get("to")
        created = receipt.get("contractAddress")
        max_fee, max_tip = tx.get("maxFeePerGas"), tx.get("maxPriorityFeePerGas")
        rows.append(
            TxRow(
                chain_id=chain_id,
                block_number=number,
                tx_index=index,
                hash=addr(tx["hash"]),
                block_hash=block_hash,
                block_timestamp=timestamp,
                from_addr=addr(tx["from"]),
                to_addr=None if to is None else addr(to),
                value=qty(tx.get("value")),
                nonce=qty(tx.get("nonce")),
                gas_limit=qty(tx.get("gas")),
                gas_used=qty(receipt.get("gasUsed")),
                gas_price=qty(receipt.get("effectiveGasPrice") or tx.get("gasPrice")),
                tx_type=qty(tx.get("type")),
                # Receipts before Byzantium carry a state root instead of a status.
                status=qty(receipt.get("status"), 1),
                selector=data[:10].lower() if len(data) >= 10 else "",
                created=None if to is not None or created is None else addr(created),
                max_fee_per_gas=None if max_fee is None else qty(max_fee),
                max_priority_fee_per_gas=None if max_tip is None else qty(max_tip),
                input=data.lower(),
            )
        )
    return rows
