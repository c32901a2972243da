"""The tables of the P-Chain's genesis allocations (schema 22; store/p_genesis.py says how
they are found and read)."""

from __future__ import annotations

P_GENESIS_TABLES: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS p_genesis_utxos (
        pchain TEXT NOT NULL,
        utxo_id TEXT NOT NULL,
        tx_id TEXT NOT NULL,
        output_index BIGINT NOT NULL,
        asset_id TEXT NOT NULL,
        amount TEXT NOT NULL,
        addresses TEXT NOT NULL,
        threshold BIGINT NOT NULL,
        locktime BIGINT NOT NULL,
        stakeable_locktime BIGINT,
        utxo_bytes TEXT NOT NULL,
        PRIMARY KEY (pchain, utxo_id))""",
    """CREATE TABLE IF NOT EXISTS p_genesis_probes (
        pchain TEXT NOT NULL,
        address TEXT NOT NULL,
        PRIMARY KEY (pchain, address))""",
    """CREATE TABLE IF NOT EXISTS p_genesis_cursor (
        pchain TEXT PRIMARY KEY,
        height BIGINT NOT NULL)""",
    # The addresses the blocks past the cursor named: one index range per sync.
    "CREATE INDEX IF NOT EXISTS p_tx_addresses_by_height ON p_tx_addresses (pchain, height)",
)
