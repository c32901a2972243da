"""Inserts of a batch's block-derived rows (evm_schema.py's tables but the balances), inside the
batch's transaction; each ignores a row already written, so a replayed batch changes nothing."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from snowfield.store import bulk
from snowfield.store.database import Writer
from snowfield.store.read_model import BatchDocuments
from snowfield.store.rows import BlockBundle, BlockRow, InternalTxRow, TxRow

# The internal transactions the service lists (listInternals, a transaction's
# internalTransactions): value-moving CALL and CALLCODE frames, and creations.
LISTED_CREATES = ("CREATE", "CREATE2")
LISTED_CALLS = ("CALL", "CALLCODE")


def listed(frame: InternalTxRow) -> bool:
    return frame.call_type in LISTED_CREATES or (
        frame.call_type in LISTED_CALLS and frame.value > 0
    )


def _text(value: int | None) -> str | None:
    return None if value is None else str(value)


def insert_rows(w: Writer, bundles: Sequence[BlockBundle], documents: BatchDocuments) -> None:
    _insert_blocks(w, [bundle.block for bundle in bundles])
    txs = [t for bundle in bundles for t in bundle.txs]
    _insert_txs(w, txs, documents)
    bulk.insert(
        w,
        "tx_inputs",
        "chain_id, block_number, tx_index, input",
        [
            (t.chain_id, t.block_number, t.tx_index, t.input)
            for t in txs
            if t.input not in (None, "0x")
        ],
        key="chain_id, block_number, tx_index",
    )
    bulk.insert(
        w,
        "logs",
        "chain_id, block_number, tx_index, log_index, tx_hash, address, topic0, topic1, topic2,"
        " topic3, data",
        [
            (
                g.chain_id,
                g.block_number,
                g.tx_index,
                g.log_index,
                g.tx_hash,
                g.address,
                *(g.topics[i] if i < len(g.topics) else None for i in range(4)),
                g.data,
            )
            for bundle in bundles
            for g in bundle.logs
        ],
        key="chain_id, block_number, tx_index, log_index",
    )
    bulk.insert(
        w,
        "transfers",
        "chain_id, block_number, tx_index, log_index, batch_index, tx_hash, block_timestamp,"
        " token, erc_type, from_addr, to_addr, token_id, value",
        [
            (
                t.chain_id,
                t.block_number,
                t.tx_index,
                t.log_index,
                t.batch_index,
                t.tx_hash,
                t.block_timestamp,
                t.token,
                t.erc_type,
                t.from_addr,
                t.to_addr,
                _text(t.token_id),
                str(t.value),
            )
            for bundle in bundles
            for t in bundle.transfers
        ],
        key="chain_id, block_number, log_index, batch_index",
    )
    bulk.insert(
        w,
        "internal_txs",
        "chain_id, block_number, tx_index, trace_index, tx_hash, from_addr, to_addr, call_type,"
        " value, gas_limit, gas_used, reverted, listed",
        [
            (
                i.chain_id,
                i.block_number,
                i.tx_index,
                i.trace_index,
                i.tx_hash,
                i.from_addr,
                i.to_addr,
                i.call_type,
                str(i.value),
                i.gas_limit,
                i.gas_used,
                int(i.reverted),
                int(listed(i)),
            )
            for bundle in bundles
            for i in bundle.internal_txs
        ],
        key="chain_id, block_number, tx_index, trace_index",
    )
    bulk.insert(
        w,
        "contracts",
        "chain_id, address, block_number, tx_index, tx_hash, deployer, factory, creation",
        [
            (
                c.chain_id,
                c.address,
                c.block_number,
                c.tx_index,
                c.tx_hash,
                c.deployer,
                c.factory,
                c.creation,
            )
            for bundle in bundles
            for c in bundle.contracts
        ],
        key="chain_id, address",
    )
    bulk.insert(
        w,
        "address_txs",
        "chain_id, address, block_number, tx_index, document, native, native_document",
        list(_address_rows(bundles, documents)),
        key="chain_id, address, block_number, tx_index",
    )


def _insert_blocks(w: Writer, blocks: Sequence[BlockRow]) -> None:
    """The blocks, each with the chain's transaction count up to it: its parent's plus its own
    (the parent is stored: batches are written in chain order; none before the first block)."""
    if not blocks:
        return
    first = blocks[0]
    parent = w.query(
        "SELECT cumulative_txs FROM blocks WHERE chain_id = ? AND number = ?",
        (first.chain_id, first.number - 1),
    )
    total = int(parent[0][0]) if parent else 0
    rows: list[tuple[Any, ...]] = []
    for b in blocks:
        total += b.tx_count
        rows.append(
            (
                b.chain_id,
                b.number,
                b.hash,
                b.parent_hash,
                b.timestamp,
                b.gas_used,
                b.gas_limit,
                _text(b.base_fee),
                b.tx_count,
                b.miner,
                str(b.fees_spent),
                total,
                str(b.gas_cost),
                b.timestamp_ms,
                b.min_delay_excess,
            )
        )
    bulk.insert(
        w,
        "blocks",
        "chain_id, number, hash, parent_hash, timestamp, gas_used, gas_limit, base_fee, tx_count,"
        " miner, fees_spent, cumulative_txs, gas_cost, timestamp_ms, min_delay_excess",
        rows,
        key="chain_id, number",
    )


def _insert_txs(w: Writer, txs: Sequence[TxRow], documents: BatchDocuments) -> None:
    bulk.insert(
        w,
        "transactions",
        "chain_id, block_number, tx_index, hash, block_hash, block_timestamp, from_addr, to_addr,"
        " value, nonce, gas_limit, gas_used, gas_price, tx_type, status, selector, created,"
        " document, max_fee_per_gas, max_priority_fee_per_gas",
        [
            (
                t.chain_id,
                t.block_number,
                t.tx_index,
                t.hash,
                t.block_hash,
                t.block_timestamp,
                t.from_addr,
                t.to_addr,
                str(t.value),
                t.nonce,
                t.gas_limit,
                t.gas_used,
                str(t.gas_price),
                t.tx_type,
                t.status,
                t.selector,
                t.created,
                documents.native[(t.block_number, t.tx_index)],
                _text(t.max_fee_per_gas),
                _text(t.max_priority_fee_per_gas),
            )
            for t in txs
        ],
        key="chain_id, block_number, tx_index",
    )


def _address_rows(
    bundles: Sequence[BlockBundle], documents: BatchDocuments
) -> Iterator[tuple[Any, ...]]:
    """address_txs rows: `native` where the address sent or received the transaction itself;
    each with its transaction's nativeTransaction document (operation 5's contiguous layout,
    store/history_pages.py)."""
    for bundle in bundles:
        number = bundle.block.number
        parties = {t.tx_index: (t.from_addr, t.to_addr or t.created) for t in bundle.txs}
        for address, tx_index in bundle.activity:
            native = address in parties.get(tx_index, ())
            sub = documents.sub[(number, address, tx_index)]
            whole = documents.native[(number, tx_index)]
            yield bundle.block.chain_id, address, number, tx_index, sub, int(native), whole
