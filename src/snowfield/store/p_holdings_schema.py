"""The table of the P-Chain's unspent UTXOs by owner (schema 22; store/p_holdings.py keeps and
reads it). Apart from its writer so that store/schema.py can name it without importing the
store's reads (a cycle through store/database.py)."""

from __future__ import annotations

from typing import Any

from snowfield.store.evm_schema import CLUSTERED

# `document`: the UTXO's resource (primary_documents.utxo) while unspent; NULL where the
# network (its AVAX asset id) was not recorded when it was written: read from p_utxos then.
P_HOLDINGS = (
    """CREATE TABLE IF NOT EXISTS p_holdings (
        pchain TEXT NOT NULL,
        address TEXT NOT NULL,
        block_timestamp BIGINT NOT NULL,
        utxo_id TEXT NOT NULL,
        tx_id TEXT NOT NULL,
        asset_id TEXT NOT NULL,
        amount TEXT NOT NULL,
        staked SMALLINT NOT NULL,
        stakeable_locktime BIGINT,
        locktime BIGINT,
        utxo_start BIGINT,
        document TEXT,
        PRIMARY KEY (pchain, address, block_timestamp, utxo_id))"""
    + CLUSTERED,
    "CREATE INDEX IF NOT EXISTS p_holdings_by_utxo ON p_holdings (pchain, utxo_id)",
)

# An address's balance rows: its unspent UTXOs summed by what judges their kind at a time
# (api/primary/balances.py p_kind: asset, stake, its staker's end, start and locktimes; NULL
# times as 0), so that a balance reads one row per asset and kind, not one per UTXO.
P_BALANCE_ROWS = (
    """CREATE TABLE IF NOT EXISTS p_balance_rows (
        pchain TEXT NOT NULL,
        address TEXT NOT NULL,
        asset_id TEXT NOT NULL,
        staked SMALLINT NOT NULL,
        staker_ended SMALLINT NOT NULL,
        utxo_start BIGINT NOT NULL,
        stakeable_locktime BIGINT NOT NULL,
        locktime BIGINT NOT NULL,
        amount TEXT NOT NULL,
        utxo_count BIGINT NOT NULL,
        PRIMARY KEY (pchain, address, asset_id, staked, staker_ended, utxo_start,
                     stakeable_locktime, locktime))"""
    + CLUSTERED,
)


def rebuild(w: Any) -> None:
    """Schema 22: the rows of a store written before the table (store/p_holdings.py)."""
    from snowfield.store import p_holdings  # at upgrade time: it imports store/database.py

    p_holdings.rebuild(w)
