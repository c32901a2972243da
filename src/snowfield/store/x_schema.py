"""The X-Chain's index (schema 13): its accepted txs (vertex era and block era alike, by their
position `idx` in the node's tx index), the addresses each names, its UTXOs with their
consumption, its assets, and the checkpoint of the tx index. Keyed by the X-Chain's id.

An unwind from position n is `DELETE ... WHERE idx >= n` (and the consumptions at or after n
cleared): every row carries the position of the tx that derived it."""

from __future__ import annotations

X_TABLES: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS x_txs (
        xchain TEXT NOT NULL,
        tx_id TEXT NOT NULL,
        idx BIGINT NOT NULL,
        timestamp BIGINT NOT NULL,
        tx_type TEXT NOT NULL,
        memo TEXT NOT NULL,
        source_chain TEXT,
        destination_chain TEXT,
        tx_bytes TEXT NOT NULL,
        PRIMARY KEY (xchain, tx_id))""",
    "CREATE UNIQUE INDEX IF NOT EXISTS x_txs_by_idx ON x_txs (xchain, idx)",
    # Every address a tx names: its outputs' owners and the owners of the UTXOs it consumes.
    """CREATE TABLE IF NOT EXISTS x_tx_addresses (
        xchain TEXT NOT NULL,
        address TEXT NOT NULL,
        idx BIGINT NOT NULL,
        tx_id TEXT NOT NULL,
        timestamp BIGINT NOT NULL,
        PRIMARY KEY (xchain, address, idx))""",
    "CREATE INDEX IF NOT EXISTS x_tx_addresses_by_idx ON x_tx_addresses (xchain, idx)",
    # UTXOs a tx created: `consumed_on` is the X-Chain, or the chain an ExportTx sent it to.
    """CREATE TABLE IF NOT EXISTS x_utxos (
        xchain TEXT NOT NULL,
        utxo_id TEXT NOT NULL,
        tx_id TEXT NOT NULL,
        output_index BIGINT NOT NULL,
        asset_id TEXT NOT NULL,
        amount TEXT NOT NULL,
        addresses TEXT NOT NULL,
        threshold BIGINT NOT NULL,
        locktime BIGINT NOT NULL,
        output_type TEXT NOT NULL,
        consumed_on TEXT NOT NULL,
        utxo_bytes TEXT NOT NULL,
        idx BIGINT NOT NULL,
        timestamp BIGINT NOT NULL,
        consuming_tx TEXT,
        consuming_idx BIGINT,
        consuming_timestamp BIGINT,
        PRIMARY KEY (xchain, utxo_id))""",
    "CREATE INDEX IF NOT EXISTS x_utxos_by_tx ON x_utxos (xchain, tx_id)",
    "CREATE INDEX IF NOT EXISTS x_utxos_by_idx ON x_utxos (xchain, idx)",
    # An asset's transactions (…/assets/{assetId}/transactions).
    "CREATE INDEX IF NOT EXISTS x_utxos_by_asset ON x_utxos (xchain, asset_id)",
    # One row per owner address of a UTXO: an address's UTXOs are one index range.
    """CREATE TABLE IF NOT EXISTS x_utxo_owners (
        xchain TEXT NOT NULL,
        address TEXT NOT NULL,
        utxo_id TEXT NOT NULL,
        idx BIGINT NOT NULL,
        PRIMARY KEY (xchain, address, utxo_id))""",
    "CREATE INDEX IF NOT EXISTS x_utxo_owners_by_idx ON x_utxo_owners (xchain, idx)",
    # UTXOs an ImportTx took from shared memory (created on another chain).
    """CREATE TABLE IF NOT EXISTS x_imports (
        xchain TEXT NOT NULL,
        utxo_id TEXT NOT NULL,
        source_chain TEXT NOT NULL,
        tx_id TEXT NOT NULL,
        idx BIGINT NOT NULL,
        timestamp BIGINT NOT NULL,
        PRIMARY KEY (xchain, utxo_id))""",
    "CREATE INDEX IF NOT EXISTS x_imports_by_idx ON x_imports (xchain, idx)",
    """CREATE TABLE IF NOT EXISTS x_assets (
        xchain TEXT NOT NULL,
        asset_id TEXT NOT NULL,
        name TEXT NOT NULL,
        symbol TEXT NOT NULL,
        denomination BIGINT NOT NULL,
        cap TEXT NOT NULL,
        idx BIGINT NOT NULL,
        timestamp BIGINT NOT NULL,
        PRIMARY KEY (xchain, asset_id))""",
    # Where a tx was accepted: in a vertex (DAG era; a tx may be in several) or in a block
    # (linear era). `idx` is the container's position in its index (vtx or block).
    """CREATE TABLE IF NOT EXISTS x_tx_places (
        xchain TEXT NOT NULL,
        tx_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        container_id TEXT NOT NULL,
        height BIGINT NOT NULL,
        timestamp BIGINT NOT NULL,
        idx BIGINT NOT NULL,
        PRIMARY KEY (xchain, tx_id, kind, container_id))""",
    # The next position to read of each of the node's X-Chain indexes (`tx`, `vtx`, `block`).
    """CREATE TABLE IF NOT EXISTS x_tx_checkpoints (
        xchain TEXT NOT NULL,
        index_name TEXT NOT NULL,
        next_index BIGINT NOT NULL,
        PRIMARY KEY (xchain, index_name))""",
)
