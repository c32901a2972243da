"""Writes of the X-Chain index (store/x_schema.py): a batch of accepted txs with the checkpoint
in one transaction, and the unwind from a position of the tx index."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence

from snowfield.store import webhook_xchain
from snowfield.store.database import Database, Writer
from snowfield.store.x_rows import XPlace, XTxRows

# Tables whose rows the tx at position `idx` of the tx index derived.
_TABLES_BY_IDX = ("x_txs", "x_tx_addresses", "x_utxos", "x_utxo_owners", "x_imports", "x_assets")


def next_index(db: Database, xchain: str, index_name: str = "tx") -> int:
    """The next position to read of the node's X-Chain index `index_name` (tx, vtx, block)."""
    row = db.query_one(
        "SELECT next_index FROM x_tx_checkpoints WHERE xchain = ? AND index_name = ?",
        (xchain, index_name),
    )
    return 0 if row is None else int(row[0])


def write_txs(db: Database, xchain: str, txs: Sequence[XTxRows], next_at: int) -> None:
    """Writes accepted txs (in index order) and moves the checkpoint past them, atomically."""
    with db.transaction() as w:
        for tx in txs:
            _write_tx(w, xchain, tx)
        # Invariant: webhook messages commit with the rows they report (store/webhook_xchain.py).
        webhook_xchain.enqueue(w, xchain, txs, int(time.time() * 1000))
        _checkpoint(w, xchain, next_at)


def _write_tx(w: Writer, xchain: str, tx: XTxRows) -> None:
    w.execute(
        "INSERT INTO x_txs (xchain, tx_id, idx, timestamp, tx_type, memo, source_chain,"
        " destination_chain, tx_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (xchain, tx_id) DO NOTHING",
        (
            xchain,
            tx.tx_id,
            tx.index,
            tx.timestamp,
            tx.tx_type,
            tx.memo,
            tx.source_chain,
            tx.destination_chain,
            tx.tx_bytes,
        ),
    )
    w.executemany(
        "INSERT INTO x_utxos (xchain, utxo_id, tx_id, output_index, asset_id, amount, addresses,"
        " threshold, locktime, output_type, consumed_on, utxo_bytes, idx, timestamp)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (xchain, utxo_id) DO NOTHING",
        [
            (
                xchain,
                u.utxo_id,
                u.tx_id,
                u.output_index,
                u.asset_id,
                str(u.amount),
                ",".join(u.addresses),
                u.threshold,
                u.locktime,
                u.output_type,
                u.consumed_on,
                u.utxo_bytes,
                tx.index,
                tx.timestamp,
            )
            for u in tx.utxos
        ],
    )
    w.executemany(
        "INSERT INTO x_utxo_owners (xchain, address, utxo_id, idx) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (xchain, address, utxo_id) DO NOTHING",
        [(xchain, a, u.utxo_id, tx.index) for u in tx.utxos for a in u.addresses],
    )
    # The owners of what it spends are among the addresses a tx names (the sender).
    spent = sorted(set(tx.consumed))
    named = set(tx.addresses)
    for chunk in _chunks(spent):
        marks = ", ".join("?" for _ in chunk)
        rows = w.query(
            f"SELECT address FROM x_utxo_owners WHERE xchain = ? AND utxo_id IN ({marks})",
            (xchain, *chunk),
        )
        named.update(str(r[0]) for r in rows)
        w.execute(
            "UPDATE x_utxos SET consuming_tx = ?, consuming_idx = ?, consuming_timestamp = ?"
            f" WHERE xchain = ? AND utxo_id IN ({marks})",
            (tx.tx_id, tx.index, tx.timestamp, xchain, *chunk),
        )
    w.executemany(
        "INSERT INTO x_tx_addresses (xchain, address, idx, tx_id, timestamp)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (xchain, address, idx) DO NOTHING",
        [(xchain, a, tx.index, tx.tx_id, tx.timestamp) for a in sorted(named)],
    )
    w.executemany(
        "INSERT INTO x_imports (xchain, utxo_id, source_chain, tx_id, idx, timestamp)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (xchain, utxo_id) DO NOTHING",
        [(xchain, u, tx.source_chain or "", tx.tx_id, tx.index, tx.timestamp) for u in tx.imported],
    )
    if tx.asset is not None:
        a = tx.asset
        w.execute(
            "INSERT INTO x_assets (xchain, asset_id, name, symbol, denomination, cap, idx,"
            " timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (xchain, asset_id) DO NOTHING",
            (xchain, a.asset_id, a.name, a.symbol, a.denomination, a.cap, tx.index, tx.timestamp),
        )


def _chunks(items: Sequence[str], size: int = 500) -> list[Sequence[str]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _checkpoint(w: Writer, xchain: str, next_at: int, index_name: str = "tx") -> None:
    w.execute(
        "INSERT INTO x_tx_checkpoints (xchain, index_name, next_index) VALUES (?, ?, ?)"
        " ON CONFLICT (xchain, index_name) DO UPDATE SET next_index = excluded.next_index",
        (xchain, index_name, next_at),
    )


def write_places(
    db: Database, xchain: str, kind: str, places: Sequence[XPlace], next_at: int
) -> None:
    """Where txs were accepted (`kind` vertex or block), with the checkpoint of that index."""
    with db.transaction() as w:
        w.executemany(
            "INSERT INTO x_tx_places (xchain, tx_id, kind, container_id, height, timestamp, idx)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (xchain, tx_id, kind, container_id) DO NOTHING",
            [
                (xchain, p.tx_id, kind, p.container_id, p.height, p.timestamp, p.index)
                for p in places
            ],
        )
        _checkpoint(w, xchain, next_at, "vtx" if kind == "vertex" else kind)


def vertex_places(db: Database, xchain: str, start: int) -> tuple[list[XPlace], int]:
    """The places of the txs of the indexed vertices from position `start`, and the position
    after them."""
    rows = db.query(
        "SELECT idx, vertex_id, height, timestamp, txs FROM x_vertices WHERE xchain = ?"
        " AND idx >= ? ORDER BY idx",
        (xchain, start),
    )
    places = [
        XPlace(str(tx), str(r[1]), int(r[2]), int(r[3]), int(r[0]))
        for r in rows
        for tx in json.loads(r[4])
    ]
    return places, (int(rows[-1][0]) + 1 if rows else start)


def unwind(db: Database, xchain: str, from_index: int) -> None:
    """Removes what the txs at positions >= `from_index` derived, and their spends."""
    with db.transaction() as w:
        for table in _TABLES_BY_IDX:
            w.execute(f"DELETE FROM {table} WHERE xchain = ? AND idx >= ?", (xchain, from_index))
        w.execute(
            "UPDATE x_utxos SET consuming_tx = NULL, consuming_idx = NULL,"
            " consuming_timestamp = NULL WHERE xchain = ? AND consuming_idx >= ?",
            (xchain, from_index),
        )
        webhook_xchain.unwind(w, from_index, int(time.time() * 1000))
        _checkpoint(w, xchain, from_index)
