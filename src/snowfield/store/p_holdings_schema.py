"""The tables of the P-Chain's unspent UTXOs by owner and of its balance rows (schema 23;
store/p_holdings.py and p_balance_rows.py keep and read them), and their upgrade step: apart
from the writer, so that store/schema.py names them without importing the store's reads (a
cycle through store/database.py)."""

from __future__ import annotations

from typing import Any

from snowfield.store import p_balance_rows
from snowfield.store.evm_schema import CLUSTERED
from snowfield.store.primary_schema import split_list

# `document`: the UTXO's resource (primary_documents.utxo) while unspent; NULL where the
# network (its AVAX asset id) was not recorded when it was written, or the upgrade wrote the
# row: read from p_utxos then.
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
    # The rows an upgrade left without a document, for the writer to fill.
    "CREATE INDEX IF NOT EXISTS p_holdings_undocumented ON p_holdings (pchain, utxo_id)"
    " WHERE document IS NULL",
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

HOLDINGS_INSERT = (
    "INSERT INTO p_holdings (pchain, address, block_timestamp, utxo_id, tx_id, asset_id, amount,"
    " staked, stakeable_locktime, locktime, utxo_start, document)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (pchain, address, block_timestamp, utxo_id) DO UPDATE"
    " SET document = excluded.document"
)


def rebuild(w: Any) -> None:
    """Schema 23: the rows of a store written before the tables, from its unspent UTXOs (in key
    order: rows written in order fill SQLite's clustered pages), then its balance rows. The
    documents are left NULL (this step may not import the store's reads): such a page is read
    from p_utxos, and the writer fills them in, a batch at a time (p_holdings.fill_documents)."""
    for (pchain,) in w.query("SELECT pchain FROM primary_networks"):
        found = w.query(
            "SELECT utxo_id, tx_id, asset_id, amount, addresses, staked, stakeable_locktime,"
            " locktime, utxo_start, block_timestamp FROM p_utxos WHERE pchain = ?"
            " AND consuming_tx IS NULL AND consumed_on = pchain",
            (pchain,),
        )
        rows = [
            (pchain, address, timestamp or 0, utxo_id, tx_id, asset, amount, staked, lock, plain,
             start, None)
            for utxo_id, tx_id, asset, amount, owners, staked, lock, plain, start, timestamp
            in found
            for address in dict.fromkeys(split_list(owners))
        ]  # fmt: skip
        w.executemany(HOLDINGS_INSERT, sorted(rows, key=lambda r: (r[1], r[2], r[3])))
        p_balance_rows.rebuild(w, str(pchain))
