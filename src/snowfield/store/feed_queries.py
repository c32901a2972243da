"""The latest blocks and transactions of one chain or of several merged by time (listLatest,
listLatestAllChains, allBlocks, allTransactions): newest first, keyset-paged.

The key of both feeds is (timestamp, chain id, block number[, tx index]), descending. Each chain
reads its own primary key backwards from a bound: for the chain of the last item, below that
item; for another, below its first block at (or after) the last item's time, found by one
descent of blocks_by_time. Within a chain a later block is never older, so those ranges are
exactly the items past the key; a page costs its rows, however deep.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from snowfield.store.database import Database
from snowfield.store.evm_queries import BLOCK_COLS, TX_COLS, block_of, tx_of
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.rows import BlockRow, TxRow

# listLatest's `status`: the receipt status each keeps (the service's TransactionStatus).
STATUSES = {"success": 1, "failed": 0}
# The first block of a chain at or after a time (`>=`), or after it (`>`).
_FIRST_AT = (
    "SELECT number FROM blocks WHERE chain_id = ? AND timestamp {op} ?"
    " ORDER BY timestamp, number LIMIT 1"
)


def latest_blocks(
    db: Database, chain_ids: Sequence[int], *, after: Key | None, limit: int
) -> Page[BlockRow]:
    """The newest blocks of these chains; key (timestamp, chain_id, number)."""
    branches, params = [], []
    for chain_id in sorted(set(chain_ids)):
        bound, bound_p = _bound(chain_id, after, "number")
        branches.append(
            f"SELECT * FROM (SELECT {BLOCK_COLS} FROM blocks WHERE chain_id = ?{bound}"
            " ORDER BY number DESC LIMIT ?) AS b"
        )
        params += [chain_id, *bound_p, limit + 1]
    if not branches:
        return Page([], None)
    rows = db.query(
        f"{' UNION ALL '.join(branches)} ORDER BY timestamp DESC, chain_id DESC, number DESC"
        " LIMIT ?",
        [*params, limit + 1],
    )
    return page_of(
        [block_of(r) for r in rows], limit, lambda b: (b.timestamp, b.chain_id, b.number)
    )


def latest_transactions(
    db: Database,
    chain_ids: Sequence[int],
    *,
    status: str | None,
    after: Key | None,
    limit: int,
) -> Page[TxRow]:
    """The newest transactions of these chains, all or only those of a `status` (STATUSES);
    key (block_timestamp, chain_id, block_number, tx_index)."""
    # A literal, not a parameter: `status = 0` must match transactions_failed's condition.
    kept = "" if status is None else f" AND status = {STATUSES[status]}"
    branches, params = [], []
    for chain_id in sorted(set(chain_ids)):
        bound, bound_p = _bound(chain_id, after, "block_number, tx_index")
        branches.append(
            f"SELECT * FROM (SELECT {TX_COLS} FROM transactions WHERE chain_id = ?{kept}{bound}"
            " ORDER BY block_number DESC, tx_index DESC LIMIT ?) AS t"
        )
        params += [chain_id, *bound_p, limit + 1]
    if not branches:
        return Page([], None)
    rows = db.query(
        f"{' UNION ALL '.join(branches)} ORDER BY block_timestamp DESC, chain_id DESC,"
        " block_number DESC, tx_index DESC LIMIT ?",
        [*params, limit + 1],
    )
    return page_of(
        [tx_of(r) for r in rows],
        limit,
        lambda t: (t.block_timestamp, t.chain_id, t.block_number, t.tx_index),
    )


def _bound(chain_id: int, after: Key | None, position: str) -> tuple[str, list[Any]]:
    """The condition on one chain's rows past `after` = (time, chain, block[, tx index])."""
    if after is None:
        return "", []
    time, last_chain, *last = after
    if chain_id == last_chain:
        return f" AND ({position}) < ({', '.join('?' for _ in last)})", list(last)
    # A chain sorting below the last item's keeps the blocks of its time, one above does not.
    first = _FIRST_AT.format(op=">" if chain_id < int(last_chain) else ">=")
    column = position.split(",")[0]
    return f" AND {column} < COALESCE(({first}), {2**63 - 1})", [chain_id, time]
