"""The C-Chain's atomic txs (schema 13): each import and export with its block, the UTXOs an
export put into shared memory, the UTXOs an import took from it; written with the checkpoint of
the node's C-Chain block index. An unwind from a block number deletes what it and later blocks
derived."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from snowfield.store.c_atomic_schema import C_ATOMIC_TABLES
from snowfield.store.database import Database
from snowfield.store.x_rows import XUtxoRow

__all__ = ["C_ATOMIC_TABLES", "next_index", "unwind", "write_atomic"]


class AtomicTxRows(Protocol):
    @property
    def tx_id(self) -> str: ...
    @property
    def tx_type(self) -> str: ...
    @property
    def height(self) -> int: ...
    @property
    def block_id(self) -> str: ...
    @property
    def timestamp(self) -> int: ...
    @property
    def chain(self) -> str: ...
    @property
    def tx_bytes(self) -> str: ...
    @property
    def fee(self) -> int: ...
    @property
    def exported(self) -> list[XUtxoRow]: ...
    @property
    def imported(self) -> list[str]: ...


def next_index(db: Database, cchain: str) -> int:
    row = db.query_one("SELECT next_index FROM c_atomic_checkpoints WHERE cchain = ?", (cchain,))
    return 0 if row is None else int(row[0])


def write_atomic(db: Database, cchain: str, txs: Sequence[AtomicTxRows], next_at: int) -> None:
    """Writes a batch's atomic txs and moves the checkpoint past its blocks, atomically."""
    with db.transaction() as w:
        w.executemany(
            "INSERT INTO c_atomic_txs (cchain, tx_id, tx_type, height, block_id, timestamp,"
            " chain, tx_bytes, fee) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (cchain, tx_id) DO NOTHING",
            [
                (
                    cchain,
                    t.tx_id,
                    t.tx_type,
                    t.height,
                    t.block_id,
                    t.timestamp,
                    t.chain,
                    t.tx_bytes,
                    t.fee,
                )
                for t in txs
            ],
        )
        w.executemany(
            "INSERT INTO c_atomic_utxos (cchain, utxo_id, tx_id, output_index, asset_id, amount,"
            " addresses, threshold, locktime, consumed_on, utxo_bytes, height, timestamp)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (cchain, utxo_id)"
            " DO NOTHING",
            [
                (
                    cchain, u.utxo_id, u.tx_id, u.output_index, u.asset_id, str(u.amount),
                    ",".join(u.addresses), u.threshold, u.locktime, u.consumed_on, u.utxo_bytes,
                    t.height, t.timestamp,
                )
                for t in txs
                for u in t.exported
            ],
        )  # fmt: skip
        w.executemany(
            "INSERT INTO c_atomic_imports (cchain, utxo_id, source_chain, tx_id, height,"
            " timestamp) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (cchain, utxo_id) DO NOTHING",
            [(cchain, u, t.chain, t.tx_id, t.height, t.timestamp) for t in txs for u in t.imported],
        )
        w.execute(
            "INSERT INTO c_atomic_checkpoints (cchain, next_index) VALUES (?, ?)"
            " ON CONFLICT (cchain) DO UPDATE SET next_index = excluded.next_index",
            (cchain, next_at),
        )


def unwind(db: Database, cchain: str, from_height: int, next_index: int) -> None:
    """Removes what blocks from `from_height` on derived; the block index resumes at
    `next_index`."""
    with db.transaction() as w:
        for table in ("c_atomic_txs", "c_atomic_utxos", "c_atomic_imports"):
            w.execute(
                f"DELETE FROM {table} WHERE cchain = ? AND height >= ?", (cchain, from_height)
            )
        w.execute(
            "UPDATE c_atomic_checkpoints SET next_index = ? WHERE cchain = ?", (next_index, cchain)
        )
