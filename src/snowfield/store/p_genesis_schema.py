"""The tables of the P-Chain's genesis allocations (schema 22; store/p_genesis.py says how
they are found and read), and their owners (schema 26)."""

from __future__ import annotations

from typing import Any

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

# Each genesis UTXO's owners, one row each (schema 26): an address's allocations are one index
# range. Before, every balance and UTXO page matched the address in every row's owner list
# (a scan of the whole table, per request, growing with a real network's genesis).
P_GENESIS_OWNERS = """CREATE TABLE IF NOT EXISTS p_genesis_owners (
    pchain TEXT NOT NULL,
    address TEXT NOT NULL,
    utxo_id TEXT NOT NULL,
    PRIMARY KEY (pchain, address, utxo_id))"""

OWNER_INSERT = (
    "INSERT INTO p_genesis_owners (pchain, address, utxo_id) VALUES (?, ?, ?)"
    " ON CONFLICT (pchain, address, utxo_id) DO NOTHING"
)


def owner_rows(pchain: str, utxo_id: str, addresses: str) -> list[tuple[str, str, str]]:
    """The owner rows of a genesis UTXO whose owners are stored as `addresses` (a list)."""
    return [(pchain, a, utxo_id) for a in dict.fromkeys(addresses.split(",")) if a]


def fill_owners(w: Any) -> None:
    """Schema 26: owner rows for the genesis UTXOs already stored (a writer; typed Any, as
    store/p_holdings_schema.py's step: this module may not import store/database.py)."""
    rows = w.query("SELECT pchain, utxo_id, addresses FROM p_genesis_utxos")
    w.executemany(OWNER_INSERT, [o for r in rows for o in owner_rows(*map(str, r))])
