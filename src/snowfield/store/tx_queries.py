"""One transaction as the complete view shows it (GET …/transactions/{txHash}, a contract's
deployment), and the transfers of one token contract (…/tokens/{address}/transfers)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from snowfield.store.database import Database
from snowfield.store.evm_queries import (
    BLOCK_COLS,
    INTERNAL_COLS,
    TRANSFER_COLS,
    TX_COLS,
    block_of,
    internal_of,
    transfer_of,
    tx_of,
)
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.rows import BlockRow, InternalTxRow, LogRow, TransferRow, TxRow
from snowfield.store.sql import between, keyset, order

_LOG_COLS = (
    "chain_id, block_number, tx_index, log_index, tx_hash, address, topic0, topic1, topic2, "
    "topic3, data"
)


@dataclass(frozen=True, slots=True)
class TransactionView:
    """A transaction with its input, its block (baseFeePerGas, Granite fields), and all it did:
    token transfers in log order, every internal call frame in trace order (block_writes.listed
    tells the ones the service lists), and its receipt's logs."""

    tx: TxRow
    block: BlockRow
    transfers: list[TransferRow]
    internal_txs: list[InternalTxRow]
    logs: list[LogRow]


def find_transaction(db: Database, chain_id: int, tx_hash: str) -> TransactionView | None:
    """The transaction with this 0x hash (lower case), or None."""
    row = db.query_one(
        f"SELECT {TX_COLS} FROM transactions WHERE chain_id = ? AND hash = ?", (chain_id, tx_hash)
    )
    return None if row is None else _view(db, tx_of(row))


def deployment_transaction(db: Database, chain_id: int, contract: str) -> TransactionView | None:
    """The transaction that created `contract` (top level or through a factory), or None."""
    cols = ", ".join("t." + c.strip() for c in TX_COLS.split(","))
    row = db.query_one(
        f"SELECT {cols} FROM contracts c JOIN transactions t ON t.chain_id = c.chain_id"
        " AND t.block_number = c.block_number AND t.tx_index = c.tx_index"
        " WHERE c.chain_id = ? AND c.address = ?",
        (chain_id, contract),
    )
    return None if row is None else _view(db, tx_of(row))


def _view(db: Database, tx: TxRow) -> TransactionView:
    at = (tx.chain_id, tx.block_number, tx.tx_index)
    where = "WHERE chain_id = ? AND block_number = ? AND tx_index = ?"
    data = db.query_one(f"SELECT input FROM tx_inputs {where}", at)
    block = db.query_one(
        f"SELECT {BLOCK_COLS} FROM blocks WHERE chain_id = ? AND number = ?", at[:2]
    )
    if block is None:  # Invariant: a transaction's block is written with it
        raise LookupError(f"block {tx.block_number} of {tx.hash} is missing")
    transfers = db.query(
        f"SELECT {TRANSFER_COLS} FROM transfers {where} ORDER BY log_index, batch_index", at
    )
    internals = db.query(
        f"SELECT {INTERNAL_COLS} FROM internal_txs {where} ORDER BY trace_index", at
    )
    logs = db.query(f"SELECT {_LOG_COLS} FROM logs {where} ORDER BY log_index", at)
    return TransactionView(
        tx=dataclasses.replace(tx, input="0x" if data is None else str(data[0])),
        block=block_of(block),
        transfers=[transfer_of(r) for r in transfers],
        internal_txs=[internal_of(r) for r in internals],
        logs=[
            LogRow(r[0], r[1], r[2], r[3], r[4], r[5], tuple(t for t in r[6:10] if t), r[10])
            for r in logs
        ],
    )


def cumulative_gas_used(db: Database, tx: TxRow) -> int:
    """The gas its block's transactions used up to and including `tx` (the receipt's
    cumulativeGasUsed)."""
    row = db.query_one(
        "SELECT SUM(gas_used) FROM transactions WHERE chain_id = ? AND block_number = ?"
        " AND tx_index <= ?",
        (tx.chain_id, tx.block_number, tx.tx_index),
    )
    return int(row[0]) if row is not None and row[0] is not None else 0


def token_transfers(
    db: Database,
    chain_id: int,
    token: str,
    *,
    start_block: int | None,
    end_block: int | None,
    descending: bool,
    after: Key | None,
    limit: int,
) -> Page[TransferRow]:
    """The transfers of one token contract, of any ERC type; key (block_number, log_index,
    batch_index)."""
    rng, rng_p = between("block_number", start_block, end_block)
    key_cols = "block_number, log_index, batch_index"
    ks, ks_p = keyset(key_cols, descending, after)
    rows = db.query(
        f"SELECT {TRANSFER_COLS} FROM transfers WHERE chain_id = ? AND token = ?{rng}{ks}"
        f"{order(key_cols, descending)} LIMIT ?",
        [chain_id, token, *rng_p, *ks_p, limit + 1],
    )
    return page_of(
        [transfer_of(r) for r in rows],
        limit,
        lambda t: (t.block_number, t.log_index, t.batch_index),
    )
