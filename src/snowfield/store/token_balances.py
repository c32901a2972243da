"""The token balance tables' writes (history and current rows, in the batch's transaction), their
unwind, and what the indexer reads back: each (holder, token, id)'s balance before a block."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from snowfield.store import bulk
from snowfield.store.database import Database, Writer
from snowfield.store.rows import TOKEN_KINDS, TokenBalanceRow
from snowfield.store.sql import chunks

# (holder, kind, token, token id or None): one balance the tables keep.
TokenKey = tuple[str, int, str, int | None]
_KEY = "holder = ? AND kind = ? AND token = ? AND token_id = ?"
_COLUMNS = "chain_id, holder, kind, token, token_id, block_number, balance"
_CURRENT_KEY = "chain_id, holder, kind, token, token_id"
_HISTORY_KEY = f"{_CURRENT_KEY}, block_number"


def _id_text(token_id: int | None) -> str:
    return "" if token_id is None else str(token_id)


def _key_params(key: TokenKey) -> tuple[Any, ...]:
    holder, kind, token, token_id = key
    return holder, kind, token, _id_text(token_id)


def insert(w: Writer, rows: Sequence[TokenBalanceRow]) -> None:
    """History rows, and each key's newest as its current row (never moved back by a replay)."""
    bulk.insert(w, "token_balance_history", _COLUMNS, [_values(r) for r in rows], key=_HISTORY_KEY)
    newest: dict[tuple[int, TokenKey], TokenBalanceRow] = {}
    for r in rows:  # in block order
        newest[(r.chain_id, (r.holder, r.kind, r.token, r.token_id))] = r
    bulk.insert(
        w,
        "token_balances",
        _COLUMNS,
        [_values(r) for r in newest.values()],
        key=_CURRENT_KEY,
        update="DO UPDATE SET block_number = excluded.block_number, balance = excluded.balance"
        " WHERE excluded.block_number >= token_balances.block_number",
    )


def _values(r: TokenBalanceRow) -> tuple[Any, ...]:
    return (
        r.chain_id, r.holder, r.kind, r.token, _id_text(r.token_id), r.block_number,
        str(r.balance),
    )  # fmt: skip


def unwind(w: Writer, chain_id: int, height: int) -> None:
    """Removes the rows of blocks >= height; a key's current row falls back to its newest
    remaining one. Runs before the transfers of those blocks are deleted: every history row is
    the effect of a transfer, so they name every key the unwind touches."""
    found = w.query(
        "SELECT from_addr, erc_type, token, token_id FROM transfers"
        " WHERE chain_id = ? AND block_number >= ?"
        " UNION SELECT to_addr, erc_type, token, token_id FROM transfers"
        " WHERE chain_id = ? AND block_number >= ?",
        (chain_id, height, chain_id, height),
    )
    keys = [
        (chain_id, holder, TOKEN_KINDS[kind], token, token_id or "")
        for holder, kind, token, token_id in found
        if kind in TOKEN_KINDS
    ]
    w.executemany(
        f"DELETE FROM token_balance_history WHERE chain_id = ? AND {_KEY} AND block_number >= ?",
        [(*key, height) for key in keys],
    )
    w.executemany(f"DELETE FROM token_balances WHERE chain_id = ? AND {_KEY}", keys)
    w.executemany(
        "INSERT INTO token_balances (chain_id, holder, kind, token, token_id, block_number,"
        " balance) SELECT chain_id, holder, kind, token, token_id, block_number, balance"
        f" FROM token_balance_history WHERE chain_id = ? AND {_KEY}"
        " ORDER BY block_number DESC LIMIT 1",
        keys,
    )


def balances_before(
    db: Database, chain_id: int, keys: Iterable[TokenKey], before: int
) -> dict[TokenKey, int]:
    """Each key's balance after its newest row below block `before` (absent: no row yet)."""
    wanted = sorted(set(keys), key=lambda k: (k[0], k[1], k[2], _id_text(k[3])))
    found: dict[TokenKey, int] = {}
    late: list[TokenKey] = []
    by_text = {_key_params(k): k for k in wanted}
    for part in chunks(wanted):
        rows = db.query(
            "SELECT holder, kind, token, token_id, block_number, balance FROM token_balances"
            " WHERE chain_id = ? AND (holder, kind, token, token_id) IN"
            f" (VALUES {', '.join('(?, ?, ?, ?)' for _ in part)})",
            [chain_id, *(v for k in part for v in _key_params(k))],
        )
        for holder, kind, token, token_id, block, balance in rows:
            key = by_text[(holder, kind, token, token_id)]
            if block < before:  # the newest row: the usual case, batches come in order
                found[key] = int(balance)
            else:
                late.append(key)
    for key in late:  # rows at or past `before` (a batch read again): the history has it
        row = db.query_one(
            f"SELECT balance FROM token_balance_history WHERE chain_id = ? AND {_KEY}"
            " AND block_number < ? ORDER BY block_number DESC LIMIT 1",
            (chain_id, *_key_params(key), before),
        )
        if row is not None:
            found[key] = int(row[0])
    return found
