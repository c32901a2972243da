"""Tables of the primary network's index (operations 11-13): P-Chain blocks, txs, UTXOs,
stakers, subnets and chains, keyed by the P-Chain's blockchain id (`pchain`).

The P-Chain never reorganises (its index serves accepted blocks only), so rows are written
forward with their checkpoint and never unwound."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

# Operation 11's read model: one row per staking tx, keyed in listing order (the position
# p_tx_addresses also holds, so an address's page reads it by clustered keys, not by random tx
# ids: flat from 10k to 500k staking txs), with its staker's state (kept beside p_stakers by
# the writer) and its document as the rows render it (store/primary_documents.py; NULL:
# render from the rows at read time).
P_STAKING_TXS = (
    """CREATE TABLE IF NOT EXISTS p_staking_txs (
        pchain TEXT NOT NULL,
        timestamp BIGINT NOT NULL,
        height BIGINT NOT NULL,
        tx_index BIGINT NOT NULL,
        tx_id TEXT NOT NULL,
        end_time BIGINT NOT NULL,
        ended_tx TEXT,
        potential_reward TEXT,
        document TEXT,
        PRIMARY KEY (pchain, timestamp, height, tx_index))""",
    "CREATE INDEX IF NOT EXISTS p_staking_txs_by_tx ON p_staking_txs (pchain, tx_id)",
)
# Operation 12 by address: each staker's reward and fee owners, in start order per address.
P_STAKER_OWNERS = """CREATE TABLE IF NOT EXISTS p_staker_owners (
    pchain TEXT NOT NULL,
    address TEXT NOT NULL,
    start_time BIGINT NOT NULL,
    tx_id TEXT NOT NULL,
    PRIMARY KEY (pchain, address, start_time, tx_id))"""
OWNER_INSERT = (
    "INSERT INTO p_staker_owners (pchain, address, start_time, tx_id) VALUES (?, ?, ?, ?)"
    " ON CONFLICT (pchain, address, start_time, tx_id) DO NOTHING"
)


class _Writes(Protocol):
    def query(self, sql: str, params: Any = ...) -> list[tuple[Any, ...]]: ...
    def executemany(self, sql: str, rows: Any) -> None: ...


def split_list(text: str | None) -> tuple[str, ...]:
    """The items of a comma-joined list column (address lists: no item holds a comma)."""
    return tuple(a for a in (text or "").split(",") if a)


def owner_rows(
    pchain: str, tx_id: str, start: int, reward: Sequence[str], fee: Sequence[str]
) -> list[tuple[str, str, int, str]]:
    """One staker's p_staker_owners rows (OWNER_INSERT's values): each owner once."""
    return [(pchain, address, start, tx_id) for address in dict.fromkeys((*reward, *fee))]


def fill_staker_owners(w: _Writes) -> None:
    """The owners of the stakers a store held before p_staker_owners: their owner lists are
    comma-joined text, which no SQL both databases share can split."""
    rows = w.query(
        "SELECT pchain, tx_id, start_time, reward_addresses, fee_addresses FROM p_stakers"
    )
    w.executemany(
        OWNER_INSERT,
        [
            row
            for pchain, tx_id, start, reward, fee in rows
            for row in owner_rows(pchain, tx_id, start, split_list(reward), split_list(fee))
        ],
    )


# A store written before the table: its rows from the txs and stakers, documents left NULL.
P_STAKING_ROWS = (
    "INSERT INTO p_staking_txs (pchain, timestamp, height, tx_index, tx_id, end_time, ended_tx,"
    " potential_reward) SELECT t.pchain, t.timestamp, t.height, t.tx_index, t.tx_id, s.end_time,"
    " s.ended_tx, s.potential_reward FROM p_txs t JOIN p_stakers s ON s.pchain = t.pchain"
    " AND s.tx_id = t.tx_id ON CONFLICT (pchain, timestamp, height, tx_index) DO NOTHING"
)

PRIMARY_TABLES: tuple[str, ...] = (
    # The primary network an indexer follows: network id, its bech32 HRP, its chains' ids.
    """CREATE TABLE IF NOT EXISTS primary_networks (
        pchain TEXT PRIMARY KEY,
        network_id BIGINT NOT NULL,
        hrp TEXT NOT NULL,
        xchain TEXT,
        cchain TEXT,
        avax_asset TEXT NOT NULL,
        genesis_done SMALLINT NOT NULL DEFAULT 0,
        chain_time BIGINT)""",
    # The last container of /ext/index/P/block written, with its rows.
    """CREATE TABLE IF NOT EXISTS p_checkpoints (
        pchain TEXT PRIMARY KEY,
        next_index BIGINT NOT NULL,
        height BIGINT NOT NULL,
        block_id TEXT NOT NULL,
        timestamp BIGINT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS p_blocks (
        pchain TEXT NOT NULL,
        height BIGINT NOT NULL,
        block_id TEXT NOT NULL,
        parent_id TEXT NOT NULL,
        timestamp BIGINT NOT NULL,
        tx_count BIGINT NOT NULL,
        PRIMARY KEY (pchain, height))""",
    # `details`: the type-specific fields of the Staking transaction resource (JSON).
    """CREATE TABLE IF NOT EXISTS p_txs (
        pchain TEXT NOT NULL,
        tx_id TEXT NOT NULL,
        height BIGINT NOT NULL,
        tx_index BIGINT NOT NULL,
        block_id TEXT NOT NULL,
        timestamp BIGINT NOT NULL,
        tx_type TEXT NOT NULL,
        memo TEXT NOT NULL,
        details TEXT NOT NULL,
        PRIMARY KEY (pchain, tx_id))""",
    "CREATE INDEX IF NOT EXISTS p_txs_by_time ON p_txs (pchain, timestamp, height, tx_index)",
    *P_STAKING_TXS,
    # Every address a tx names (outputs, reward owners, owners of the UTXOs it consumes), with
    # the tx's position so that a page of one address is one index range.
    """CREATE TABLE IF NOT EXISTS p_tx_addresses (
        pchain TEXT NOT NULL,
        address TEXT NOT NULL,
        tx_id TEXT NOT NULL,
        timestamp BIGINT NOT NULL,
        height BIGINT NOT NULL,
        tx_index BIGINT NOT NULL,
        PRIMARY KEY (pchain, address, tx_id))""",
    "CREATE INDEX IF NOT EXISTS p_tx_addresses_by_time"
    " ON p_tx_addresses (pchain, address, timestamp, height, tx_index)",
    # UTXOs emitted (or consumed from genesis / another chain), with their consumption.
    """CREATE TABLE IF NOT EXISTS p_utxos (
        pchain TEXT NOT NULL,
        utxo_id TEXT NOT NULL,
        tx_id TEXT NOT NULL,
        output_index BIGINT NOT NULL,
        asset_id TEXT NOT NULL,
        amount TEXT NOT NULL,
        addresses TEXT NOT NULL,
        threshold BIGINT,
        locktime BIGINT,
        stakeable_locktime BIGINT,
        staked SMALLINT NOT NULL,
        created_on TEXT NOT NULL,
        consumed_on TEXT NOT NULL,
        utxo_bytes TEXT,
        reward_type TEXT,
        utxo_start BIGINT,
        utxo_end BIGINT,
        block_height BIGINT,
        block_timestamp BIGINT,
        consuming_tx TEXT,
        consuming_height BIGINT,
        consuming_timestamp BIGINT,
        PRIMARY KEY (pchain, utxo_id))""",
    "CREATE INDEX IF NOT EXISTS p_utxos_by_tx ON p_utxos (pchain, tx_id)",
    "CREATE INDEX IF NOT EXISTS p_utxos_by_consumer ON p_utxos (pchain, consuming_tx)",
    # Stakers: `ended_tx` is the RewardValidatorTx / RemoveSubnetValidatorTx that ended one;
    # `potential_reward` is the node's latest figure while it is current.
    """CREATE TABLE IF NOT EXISTS p_stakers (
        pchain TEXT NOT NULL,
        tx_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        node_id TEXT NOT NULL,
        subnet_id TEXT NOT NULL,
        start_time BIGINT NOT NULL,
        end_time BIGINT NOT NULL,
        amount TEXT NOT NULL,
        reward_addresses TEXT NOT NULL,
        fee_addresses TEXT NOT NULL,
        delegation_fee BIGINT,
        ended_tx TEXT,
        potential_reward TEXT,
        PRIMARY KEY (pchain, tx_id))""",
    "CREATE INDEX IF NOT EXISTS p_stakers_by_node ON p_stakers (pchain, node_id)",
    P_STAKER_OWNERS,
    """CREATE TABLE IF NOT EXISTS p_subnets (
        pchain TEXT NOT NULL,
        subnet_id TEXT NOT NULL,
        height BIGINT NOT NULL,
        timestamp BIGINT NOT NULL,
        owner_addresses TEXT NOT NULL,
        threshold BIGINT NOT NULL,
        locktime BIGINT NOT NULL,
        conversion_tx TEXT,
        manager_chain TEXT,
        manager_address TEXT,
        PRIMARY KEY (pchain, subnet_id))""",
    "CREATE INDEX IF NOT EXISTS p_subnets_by_time ON p_subnets (pchain, timestamp, subnet_id)",
    """CREATE TABLE IF NOT EXISTS p_chains (
        pchain TEXT NOT NULL,
        blockchain_id TEXT NOT NULL,
        subnet_id TEXT NOT NULL,
        height BIGINT NOT NULL,
        timestamp BIGINT NOT NULL,
        name TEXT NOT NULL,
        vm_id TEXT NOT NULL,
        evm_chain_id BIGINT,
        genesis TEXT,
        PRIMARY KEY (pchain, blockchain_id))""",
    "CREATE INDEX IF NOT EXISTS p_chains_by_subnet ON p_chains (pchain, subnet_id)",
    # X-Chain vertices of the DAG phase (/ext/index/X/vtx), by their index position.
    """CREATE TABLE IF NOT EXISTS x_vertices (
        xchain TEXT NOT NULL,
        idx BIGINT NOT NULL,
        vertex_id TEXT NOT NULL,
        height BIGINT NOT NULL,
        timestamp BIGINT NOT NULL,
        parents TEXT NOT NULL,
        txs TEXT NOT NULL,
        size BIGINT NOT NULL,
        PRIMARY KEY (xchain, idx))""",
    "CREATE INDEX IF NOT EXISTS x_vertices_by_height ON x_vertices (xchain, height, idx)",
    """CREATE TABLE IF NOT EXISTS x_checkpoints (
        xchain TEXT PRIMARY KEY,
        next_index BIGINT NOT NULL)""",
)
