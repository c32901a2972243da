"""Read queries of EVM chain history: address activity (operations 5, 6, 7, listNative,
listInternals) and blocks (9).

Every listing is keyset-paged (fetch `limit + 1`, never OFFSET) and returns a `Page` whose
`next_key` is the position of its last item; callers turn that into a signed page token.
Rows come back as the dataclasses of `store.rows`, with decimal TEXT turned back into int.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.rows import BlockRow, InternalTxRow, TransferRow, TxRow
from snowfield.store.sql import MAX_BIGINT, between, chunks, in_list, keyset, order

BLOCK_COLS = (
    "chain_id, number, hash, parent_hash, timestamp, gas_used, gas_limit, base_fee, tx_count, "
    "miner, fees_spent, gas_cost, timestamp_ms, min_delay_excess, cumulative_txs"
)
TX_COLS = (
    "chain_id, block_number, tx_index, hash, block_hash, block_timestamp, from_addr, to_addr, "
    "value, nonce, gas_limit, gas_used, gas_price, tx_type, status, selector, created, "
    "max_fee_per_gas, max_priority_fee_per_gas"
)
TRANSFER_COLS = (
    "chain_id, block_number, tx_index, log_index, batch_index, tx_hash, block_timestamp, token, "
    "erc_type, from_addr, to_addr, token_id, value"
)
INTERNAL_COLS = (
    "chain_id, block_number, tx_index, trace_index, tx_hash, from_addr, to_addr, call_type, "
    "value, gas_limit, gas_used, reverted"
)


# -- row conversion ----------------------------------------------------------------------------


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def block_of(r: tuple[Any, ...]) -> BlockRow:
    """A BlockRow from the columns BLOCK_COLS names."""
    return BlockRow(
        r[0], r[1], r[2], r[3], r[4], r[5], r[6], _int(r[7]), r[8], r[9], int(r[10]), int(r[11]),
        r[12], r[13], r[14],
    )  # fmt: skip


def tx_of(r: tuple[Any, ...]) -> TxRow:
    """A TxRow from the columns TX_COLS names (its input is not read)."""
    return TxRow(
        r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], int(r[8]), r[9], r[10], r[11],
        int(r[12]), r[13], r[14], r[15], r[16], _int(r[17]), _int(r[18]),
    )  # fmt: skip


def transfer_of(r: tuple[Any, ...]) -> TransferRow:
    token_id = None if r[11] is None else int(r[11])
    return TransferRow(
        r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], token_id, int(r[12])
    )


def internal_of(r: tuple[Any, ...]) -> InternalTxRow:
    return InternalTxRow(
        r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], int(r[8]), r[9], r[10], bool(r[11])
    )


# -- address activity (operations 5, 6, 7) -----------------------------------------------------


def address_transactions(
    db: Database,
    chain_id: int,
    address: str,
    *,
    start_block: int | None,
    end_block: int | None,
    descending: bool,
    after: Key | None,
    limit: int,
) -> Page[TxRow]:
    """Transactions that involve `address` in any role; key (block_number, tx_index)."""
    rng, rng_p = between("a.block_number", start_block, end_block)
    ks, ks_p = keyset("a.block_number, a.tx_index", descending, after)
    cols = ", ".join("t." + c.strip() for c in TX_COLS.split(","))
    rows = db.query(
        f"SELECT {cols} FROM address_txs a JOIN transactions t"
        " ON t.chain_id = a.chain_id AND t.block_number = a.block_number"
        " AND t.tx_index = a.tx_index"
        f" WHERE a.chain_id = ? AND a.address = ?{rng}{ks}"
        f"{order('a.block_number, a.tx_index', descending)} LIMIT ?",
        [chain_id, address, *rng_p, *ks_p, limit + 1],
    )
    return page_of([tx_of(r) for r in rows], limit, lambda t: (t.block_number, t.tx_index))


def address_documents(
    db: Database,
    chain_id: int,
    address: str,
    *,
    start_block: int | None,
    end_block: int | None,
    descending: bool,
    after: Key | None,
    limit: int,
) -> Page[tuple[int, int, str | None, str | None]]:
    """The page `address_transactions` would give, as (block, tx index, nativeTransaction
    document, sub-lists document) from operation 5's read model (store/read_model.py)."""
    rng, rng_p = between("a.block_number", start_block, end_block)
    sql = _documents_sql(rng, after is not None, descending)
    rows = db.query(sql, [chain_id, address, *rng_p, *(after or ()), limit + 1])
    return page_of(rows, limit, lambda r: (r[0], r[1]))


@functools.lru_cache(maxsize=16)
def _documents_sql(rng: str, paged: bool, descending: bool) -> str:
    """Built once per shape: this is the service's hottest read."""
    ks = keyset("a.block_number, a.tx_index", descending, (0, 0) if paged else None)[0]
    return (
        "SELECT a.block_number, a.tx_index, t.document, a.document FROM address_txs a"
        " JOIN transactions t ON t.chain_id = a.chain_id AND t.block_number = a.block_number"
        " AND t.tx_index = a.tx_index"
        f" WHERE a.chain_id = ? AND a.address = ?{rng}{ks}"
        f"{order('a.block_number, a.tx_index', descending)} LIMIT ?"
    )


def transfers_in_txs(
    db: Database, chain_id: int, address: str, txs: Sequence[tuple[int, int]]
) -> list[TransferRow]:
    """Token transfers of the given (block_number, tx_index) transactions sent or received by
    `address`, in log order."""
    rows = _rows_of_txs(
        db,
        "transfers",
        TRANSFER_COLS,
        "block_number, log_index, batch_index",
        chain_id,
        address,
        txs,
    )
    return [transfer_of(r) for r in rows]


def internal_txs_in_txs(
    db: Database, chain_id: int, address: str, txs: Sequence[tuple[int, int]]
) -> list[InternalTxRow]:
    """Internal transactions of the given transactions where `address` is `from` or `to`."""
    rows = _rows_of_txs(
        db,
        "internal_txs",
        INTERNAL_COLS,
        "block_number, tx_index, trace_index",
        chain_id,
        address,
        txs,
    )
    return [internal_of(r) for r in rows]


def _rows_of_txs(
    db: Database,
    table: str,
    cols: str,
    sort: str,
    chain_id: int,
    address: str,
    txs: Sequence[tuple[int, int]],
) -> list[tuple[Any, ...]]:
    """Rows of `table` in the given transactions where `address` is `from` or `to`."""
    if not txs:
        return []
    pairs = ", ".join("(?, ?)" for _ in txs)
    blocks = sorted({b for b, _ in txs})
    # `block_number IN` lets the primary key find the blocks; tx_index is not in that key.
    return db.query(
        f"SELECT {cols} FROM {table} WHERE chain_id = ?"
        f" AND block_number IN {in_list(blocks)} AND (block_number, tx_index) IN (VALUES {pairs})"
        f" AND (from_addr = ? OR to_addr = ?) ORDER BY {sort}",
        [chain_id, *blocks, *(v for tx in txs for v in tx), address, address],
    )


def address_transfers(
    db: Database,
    chain_id: int,
    address: str,
    erc_type: str,
    *,
    start_block: int | None,
    end_block: int | None,
    descending: bool,
    after: Key | None,
    limit: int,
) -> Page[TransferRow]:
    """Transfers of one ERC type sent or received by `address`;
    key (block_number, log_index, batch_index)."""
    rng, rng_p = between("block_number", start_block, end_block)
    key_cols = "block_number, log_index, batch_index"
    ks, ks_p = keyset(key_cols, descending, after)
    sort = order(key_cols, descending)
    # One index scan per role, merged: an OR over two columns would defeat both indexes.
    branch = (
        f"SELECT {TRANSFER_COLS} FROM transfers WHERE chain_id = ? AND {{role}} = ?"
        f" AND erc_type = ?{rng}{ks}{sort} LIMIT ?"
    )
    params = [chain_id, address, erc_type, *rng_p, *ks_p, limit + 1]
    rows = db.query(
        f"SELECT * FROM ({branch.format(role='from_addr')}) AS f"
        f" UNION SELECT * FROM ({branch.format(role='to_addr')}) AS t{sort} LIMIT ?",
        [*params, *params, limit + 1],
    )
    return page_of(
        [transfer_of(r) for r in rows],
        limit,
        lambda t: (t.block_number, t.log_index, t.batch_index),
    )


def block_hashes(db: Database, chain_id: int, numbers: Sequence[int]) -> dict[int, str]:
    """Hashes of those blocks among `numbers` that are stored."""
    unique = sorted(set(numbers))
    if not unique:
        return {}
    rows = db.query(
        f"SELECT number, hash FROM blocks WHERE chain_id = ? AND number IN {in_list(unique)}",
        [chain_id, *unique],
    )
    return {int(r[0]): str(r[1]) for r in rows}


# -- blocks (operation 9) ----------------------------------------------------------------------


def find_block(db: Database, chain_id: int, ref: int | str) -> BlockRow | None:
    """A block by number (int) or by 0x hash (str)."""
    if isinstance(ref, int):
        if ref > MAX_BIGINT:
            return None
        row = db.query_one(
            f"SELECT {BLOCK_COLS} FROM blocks WHERE chain_id = ? AND number = ?", (chain_id, ref)
        )
    else:
        row = db.query_one(
            f"SELECT {BLOCK_COLS} FROM blocks WHERE chain_id = ? AND hash = ?", (chain_id, ref)
        )
    return None if row is None else block_of(row)


def block_transactions(
    db: Database, chain_id: int, number: int, *, after: Key | None, limit: int | None
) -> Page[TxRow]:
    """Transactions of one block in index order; `limit` None means the whole block."""
    ks, ks_p = keyset("tx_index", False, after)
    sql = (
        f"SELECT {TX_COLS} FROM transactions WHERE chain_id = ? AND block_number = ?{ks}"
        " ORDER BY tx_index"
    )
    params: list[Any] = [chain_id, number, *ks_p]
    if limit is None:
        return Page([tx_of(r) for r in db.query(sql, params)], None)
    rows = db.query(sql + " LIMIT ?", [*params, limit + 1])
    return page_of([tx_of(r) for r in rows], limit, lambda t: (t.tx_index,))


def blocks_by_number(db: Database, chain_id: int, numbers: Sequence[int]) -> dict[int, BlockRow]:
    """The stored blocks among `numbers` (a page's block hashes and times)."""
    unique = sorted(set(numbers))
    found: dict[int, BlockRow] = {}
    for part in chunks(unique):
        rows = db.query(
            f"SELECT {BLOCK_COLS} FROM blocks WHERE chain_id = ? AND number IN {in_list(part)}",
            [chain_id, *part],
        )
        found.update((b.number, b) for b in map(block_of, rows))
    return found


# -- listNative and listInternals --------------------------------------------------------------


def address_native_transactions(
    db: Database,
    chain_id: int,
    address: str,
    *,
    start_block: int | None,
    end_block: int | None,
    descending: bool,
    after: Key | None,
    limit: int,
) -> Page[TxRow]:
    """Transactions `address` sent or received (the created contract receives its creation);
    key (block_number, tx_index)."""
    rng, rng_p = between("a.block_number", start_block, end_block)
    ks, ks_p = keyset("a.block_number, a.tx_index", descending, after)
    cols = ", ".join("t." + c.strip() for c in TX_COLS.split(","))
    # `native = 1` repeats the partial index's condition (address_txs_native).
    rows = db.query(
        f"SELECT {cols} FROM address_txs a JOIN transactions t"
        " ON t.chain_id = a.chain_id AND t.block_number = a.block_number"
        " AND t.tx_index = a.tx_index"
        f" WHERE a.chain_id = ? AND a.address = ? AND a.native = 1{rng}{ks}"
        f"{order('a.block_number, a.tx_index', descending)} LIMIT ?",
        [chain_id, address, *rng_p, *ks_p, limit + 1],
    )
    return page_of([tx_of(r) for r in rows], limit, lambda t: (t.block_number, t.tx_index))


def address_internal_txs(
    db: Database,
    chain_id: int,
    address: str,
    *,
    start_block: int | None,
    end_block: int | None,
    descending: bool,
    after: Key | None,
    limit: int,
) -> Page[InternalTxRow]:
    """The listed internal transactions (block_writes.listed: value-moving CALL and CALLCODE,
    CREATE and CREATE2, reverted ones too) `address` sent or received; key (block_number,
    tx_index, trace_index)."""
    rng, rng_p = between("block_number", start_block, end_block)
    key_cols = "block_number, tx_index, trace_index"
    ks, ks_p = keyset(key_cols, descending, after)
    sort = order(key_cols, descending)
    # One index range per role, merged; `listed = 1` repeats the partial indexes' condition.
    branch = (
        f"SELECT {INTERNAL_COLS} FROM internal_txs WHERE chain_id = ? AND {{role}} = ?"
        f" AND listed = 1{rng}{ks}{sort} LIMIT ?"
    )
    params = [chain_id, address, *rng_p, *ks_p, limit + 1]
    rows = db.query(
        f"SELECT * FROM ({branch.format(role='from_addr')}) AS f"
        f" UNION SELECT * FROM ({branch.format(role='to_addr')}) AS t{sort} LIMIT ?",
        [*params, *params, limit + 1],
    )
    return page_of(
        [internal_of(r) for r in rows], limit, lambda i: (i.block_number, i.tx_index, i.trace_index)
    )
