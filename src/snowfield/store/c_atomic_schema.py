"""The C-Chain's atomic txs' tables (schema 13; store/c_atomic.py writes them): each import and
export with its block, the UTXOs an export put into shared memory for the X- or P-Chain
(`consumed_on`), the UTXOs an import took from it, and the checkpoint of the block index.
Every row carries the C-Chain block number (`height`) that derived it; a tx its block's EVM hash
(`block_id`, 0x hex, since schema 22) and the AVAX it burned as its fee (`fee`, nAVAX: its AVAX
inputs less its AVAX outputs)."""

from __future__ import annotations

C_ATOMIC_TABLES: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS c_atomic_txs (
        cchain TEXT NOT NULL,
        tx_id TEXT NOT NULL,
        tx_type TEXT NOT NULL,
        height BIGINT NOT NULL,
        block_id TEXT NOT NULL,
        timestamp BIGINT NOT NULL,
        chain TEXT NOT NULL,
        tx_bytes TEXT NOT NULL,
        fee BIGINT NOT NULL,
        PRIMARY KEY (cchain, tx_id))""",
    "CREATE INDEX IF NOT EXISTS c_atomic_txs_by_height ON c_atomic_txs (cchain, height)",
    # Exported UTXOs: `consumed_on` is the destination chain (X or P).
    """CREATE TABLE IF NOT EXISTS c_atomic_utxos (
        cchain TEXT NOT NULL,
        utxo_id TEXT NOT NULL,
        tx_id TEXT NOT NULL,
        output_index BIGINT NOT NULL,
        asset_id TEXT NOT NULL,
        amount TEXT NOT NULL,
        addresses TEXT NOT NULL,
        threshold BIGINT NOT NULL,
        locktime BIGINT NOT NULL,
        consumed_on TEXT NOT NULL,
        utxo_bytes TEXT NOT NULL,
        height BIGINT NOT NULL,
        timestamp BIGINT NOT NULL,
        PRIMARY KEY (cchain, utxo_id))""",
    "CREATE INDEX IF NOT EXISTS c_atomic_utxos_by_height ON c_atomic_utxos (cchain, height)",
    """CREATE TABLE IF NOT EXISTS c_atomic_imports (
        cchain TEXT NOT NULL,
        utxo_id TEXT NOT NULL,
        source_chain TEXT NOT NULL,
        tx_id TEXT NOT NULL,
        height BIGINT NOT NULL,
        timestamp BIGINT NOT NULL,
        PRIMARY KEY (cchain, utxo_id))""",
    "CREATE INDEX IF NOT EXISTS c_atomic_imports_by_height ON c_atomic_imports (cchain, height)",
    """CREATE TABLE IF NOT EXISTS c_atomic_checkpoints (
        cchain TEXT PRIMARY KEY,
        next_index BIGINT NOT NULL)""",
)
