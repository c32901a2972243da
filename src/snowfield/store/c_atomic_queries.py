"""Reads of the C-Chain's atomic txs (store/c_atomic_schema.py): one by id, and a page of them
in block order, filtered by type, time and the addresses their shared-memory UTXOs name."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from snowfield.store.database import Database
from snowfield.store.p_address_queries import TxFilter
from snowfield.store.pagination import Key, Page, page_of


@dataclass(frozen=True, slots=True)
class CTx:
    tx_id: str
    tx_type: str  # ImportTx | ExportTx
    height: int
    block_hash: str
    timestamp: int
    chain: str  # the source (import) or destination (export) chain
    tx_bytes: str


_COLUMNS = "tx_id, tx_type, height, block_id, timestamp, chain, tx_bytes"


def _tx(r: Sequence[Any]) -> CTx:
    return CTx(str(r[0]), str(r[1]), int(r[2]), str(r[3]), int(r[4]), str(r[5]), str(r[6]))


def tx(db: Database, cchain: str, tx_id: str) -> CTx | None:
    row = db.query_one(
        f"SELECT {_COLUMNS} FROM c_atomic_txs WHERE cchain = ? AND tx_id = ?", (cchain, tx_id)
    )
    return None if row is None else _tx(row)


def exports_owned(db: Database, cchain: str, addresses: Sequence[str]) -> set[str]:
    """The export txs whose exported UTXOs one of `addresses` owns."""
    out: set[str] = set()
    for a in addresses:
        rows = db.query(
            "SELECT DISTINCT tx_id FROM c_atomic_utxos WHERE cchain = ?"
            " AND (',' || addresses || ',') LIKE ?",
            (cchain, f"%,{a},%"),
        )
        out.update(str(r[0]) for r in rows)
    return out


def tx_page(
    db: Database,
    cchain: str,
    f: TxFilter,
    only: Sequence[str] | None,
    after: Key | None,
    limit: int,
) -> Page[CTx]:
    """A page of atomic txs by (block number, tx id): all, or those among `only`."""
    sql = [f"SELECT {_COLUMNS} FROM c_atomic_txs WHERE cchain = ?"]
    args: list[Any] = [cchain]
    if only is not None:
        if not only:
            return Page([], None)
        sql.append(f" AND tx_id IN ({', '.join('?' for _ in only)})")
        args += list(only)
    if f.tx_types:
        sql.append(f" AND tx_type IN ({', '.join('?' for _ in f.tx_types)})")
        args += list(f.tx_types)
    if f.start is not None:
        sql.append(" AND timestamp >= ?")
        args.append(f.start)
    if f.end is not None:
        sql.append(" AND timestamp <= ?")
        args.append(f.end)
    op, order = ("<", "DESC") if f.desc else (">", "ASC")
    if after is not None:
        sql.append(f" AND (height, tx_id) {op} (?, ?)")
        args += list(after)
    sql.append(f" ORDER BY height {order}, tx_id {order} LIMIT ?")
    args.append(limit + 1)
    rows = [_tx(r) for r in db.query("".join(sql), args)]
    return page_of(rows, limit, lambda t: (t.height, t.tx_id))


def export_events(
    db: Database, cchain: str, addresses: Sequence[str]
) -> list[tuple[int, int, str, str]]:
    """(time, block number, tx, UTXO) of each UTXO the C-Chain exported to one of `addresses`."""
    out = []
    for a in addresses:
        out += [
            (int(r[0]), int(r[1]), str(r[2]), str(r[3]))
            for r in db.query(
                "SELECT timestamp, height, tx_id, utxo_id FROM c_atomic_utxos WHERE cchain = ?"
                " AND (',' || addresses || ',') LIKE ?",
                (cchain, f"%,{a},%"),
            )
        ]
    return out


def heights(db: Database, cchain: str, tx_ids: Sequence[str]) -> dict[str, int]:
    """The block number of each of these atomic txs."""
    if not tx_ids:
        return {}
    rows = db.query(
        "SELECT tx_id, height FROM c_atomic_txs WHERE cchain = ?"
        f" AND tx_id IN ({', '.join('?' for _ in tx_ids)})",
        (cchain, *tx_ids),
    )
    return {str(r[0]): int(r[1]) for r in rows}
