"""The X-Chain's genesis in its index: the genesis CreateAssetTx of AVAX (whose id is the AVAX
asset id) holds the X-Chain's genesis allocations as its initial state. Its UTXOs and its asset
go into x_utxos / x_utxo_owners / x_assets at position -1 (before the node's tx index, which
does not list genesis txs; an unwind never reaches it). It is not a row of x_txs: the tx
listings hold the txs the node accepted."""

from __future__ import annotations

from snowfield.store.database import Database
from snowfield.store.x_rows import XTxRows

GENESIS_IDX = -1


def genesis_done(db: Database, xchain: str) -> bool:
    row = db.query_one("SELECT 1 FROM x_assets WHERE xchain = ? AND idx = ?", (xchain, GENESIS_IDX))
    return row is not None


def write_genesis(db: Database, xchain: str, tx: XTxRows) -> None:
    """The genesis tx's UTXOs (unspent: the txs that spend them are read after it) and its
    asset, at position -1 and the genesis time."""
    with db.transaction() as w:
        w.executemany(
            "INSERT INTO x_utxos (xchain, utxo_id, tx_id, output_index, asset_id, amount,"
            " addresses, threshold, locktime, output_type, consumed_on, utxo_bytes, idx,"
            " timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (xchain, utxo_id) DO NOTHING",
            [
                (
                    xchain, u.utxo_id, u.tx_id, u.output_index, u.asset_id, str(u.amount),
                    ",".join(u.addresses), u.threshold, u.locktime, u.output_type,
                    u.consumed_on, u.utxo_bytes, GENESIS_IDX, tx.timestamp,
                )
                for u in tx.utxos
            ],
        )  # fmt: skip
        w.executemany(
            "INSERT INTO x_utxo_owners (xchain, address, utxo_id, idx) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (xchain, address, utxo_id) DO NOTHING",
            [(xchain, a, u.utxo_id, GENESIS_IDX) for u in tx.utxos for a in u.addresses],
        )
        if tx.asset is not None:
            a = tx.asset
            w.execute(
                "INSERT INTO x_assets (xchain, asset_id, name, symbol, denomination, cap, idx,"
                " timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (xchain, asset_id) DO NOTHING",
                (xchain, a.asset_id, a.name, a.symbol, a.denomination, a.cap, GENESIS_IDX,
                 tx.timestamp),
            )  # fmt: skip


def genesis_time(db: Database, pchain: str) -> int:
    """The primary network's genesis time: the P-Chain's genesis block's (0 before it is
    indexed)."""
    row = db.query_one("SELECT timestamp FROM p_blocks WHERE pchain = ? AND height = 0", (pchain,))
    return 0 if row is None else int(row[0])
