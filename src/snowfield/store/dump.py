"""Every row of every table in a canonical order: for tests that compare whole stores."""

from __future__ import annotations

from typing import Any

from snowfield.store.database import Database

# Tables the indexer fills, with their natural keys (the canonical order).
INDEXED: dict[str, str] = {
    "blocks": "chain_id, number",
    "transactions": "chain_id, block_number, tx_index",
    "tx_inputs": "chain_id, block_number, tx_index",
    "logs": "chain_id, block_number, tx_index, log_index",
    "transfers": "chain_id, block_number, log_index, batch_index",
    "internal_txs": "chain_id, block_number, tx_index, trace_index",
    "address_txs": "chain_id, address, block_number, tx_index",
    "contracts": "chain_id, address",
    "tokens": "chain_id, address",
    "nfts": "chain_id, token, token_id",
    "balances": "chain_id, address, block_number",
    "token_balance_history": "chain_id, holder, kind, token, token_id, block_number",
    "token_balances": "chain_id, holder, kind, token, token_id",
    "icm_events": "chain_id, block_number, log_index",
    "icm_address_messages": "address, message_id, chain_id",
    "icm_rollups": "span, bucket, chain_id, src, dest, kind",
    "checkpoints": "chain_id",
}


# The primary network's index (the node's clock of the last sync, primary_networks.chain_time,
# is left out: it differs between any two runs).
PRIMARY: dict[str, str] = {
    "p_blocks": "pchain, height",
    "p_txs": "pchain, tx_id",
    "p_staking_txs": "pchain, timestamp, height, tx_index",
    "p_tx_addresses": "pchain, address, tx_id",
    "p_utxos": "pchain, utxo_id",
    "p_stakers": "pchain, tx_id",
    "staking_deltas": "pchain, subnet_id, metric, day",
    "p_staker_owners": "pchain, address, start_time, tx_id",
    "p_subnets": "pchain, subnet_id",
    "p_chains": "pchain, blockchain_id",
    "p_checkpoints": "pchain",
    "l1_fee_events": "pchain, height, seq",
    "l1_fee_ledger": "pchain",
    "l1_fee_balances": "pchain, validation_id",
    "l1_fee_days": "pchain, scope, member, day",
    "p_holdings": "pchain, address, block_timestamp, utxo_id",
    "p_balance_rows": "pchain, address, asset_id, staked, staker_ended, utxo_start,"
    " stakeable_locktime, locktime",
}


def dump(db: Database, tables: dict[str, str] = INDEXED) -> dict[str, list[tuple[Any, ...]]]:
    return {name: db.query(f"SELECT * FROM {name} ORDER BY {key}") for name, key in tables.items()}
