"""Every table of the store, documented; the DDL runs unchanged on SQLite and PostgreSQL.

Conventions: `chain_id` is the EVM chain id and leads every key of chain data (the `chains`
table itself is keyed by blockchain id); addresses and hashes are lower-case 0x-hex TEXT;
quantities that can exceed 64 bits (values, balances, prices, token ids) are decimal TEXT;
booleans are SMALLINT 0/1. Every block-derived table carries `block_number`
so that an unwind is `DELETE ... WHERE block_number >= h`. The EVM chains' block-derived
tables are in evm_schema.py, the primary network's in primary_schema.py.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from snowfield.store import icm_counts, l1_fee_schema, staking_rollups
from snowfield.store.c_atomic_schema import C_ATOMIC_TABLES
from snowfield.store.evm_schema import (
    ADDRESS_TXS_BY_BLOCK,
    ADDRESS_TXS_V9,
    CLUSTERED,
    EVM_INDEXES,
    EVM_TABLES,
    copy_native_documents,
    fill_native_documents,
    reread_evm_chains,
)
from snowfield.store.migration import Schema
from snowfield.store.ops_schema import (
    EXPORT_TABLES,
    META,
    REQUEST_LOG_TABLES_24,
    USAGE_TABLES,
    copy_request_log,
    move_request_log,
)
from snowfield.store.p_genesis_schema import P_GENESIS_OWNERS, P_GENESIS_TABLES, fill_owners
from snowfield.store.p_holdings_schema import P_BALANCE_ROWS, P_HOLDINGS
from snowfield.store.p_holdings_schema import rebuild as rebuild_p_holdings
from snowfield.store.primary_schema import (
    P_STAKER_OWNERS,
    P_STAKING_ROWS,
    P_STAKING_TXS,
    PRIMARY_TABLES,
    fill_staker_owners,
)
from snowfield.store.request_batches import pack_request_log
from snowfield.store.validator_schema import (
    NETWORK_INDEXES,
    P_BLOCK_DETAILS,
    P_VALIDATOR_DOCUMENTS,
    P_VALIDATOR_DOCUMENTS_FILL,
    VALIDATOR_STATE_TABLES,
)
from snowfield.store.webhook_schema import WEBHOOK_TABLES
from snowfield.store.webhook_validator_schema import VALIDATOR_WEBHOOK_TABLES
from snowfield.store.x_schema import X_TABLES

SCHEMA_VERSION = 29

# Indexed chains and their operator configuration (operation 3), keyed by blockchain id.
# `chain_id` is the EVM chain id of an EVM chain (NULL for other VMs), unique. A chain whose
# node names no blockchain id (a plain EVM node such as anvil) is keyed by the id derived
# from its EVM chain id (`evm-<chain id>`, writes.derived_blockchain_id), `derived_id` = 1.
_CHAINS = """CREATE TABLE IF NOT EXISTS chains (
    blockchain_id TEXT PRIMARY KEY,
    derived_id SMALLINT NOT NULL,
    chain_id BIGINT,
    name TEXT NOT NULL,
    network TEXT NOT NULL,
    rpc_url TEXT NOT NULL,
    ws_url TEXT,
    subnet_id TEXT,
    vm_id TEXT,
    description TEXT NOT NULL,
    explorer_url TEXT,
    token_name TEXT NOT NULL,
    token_symbol TEXT NOT NULL,
    token_decimals BIGINT NOT NULL,
    token_logo TEXT,
    chain_logo TEXT,
    features TEXT NOT NULL,
    private SMALLINT NOT NULL,
    multicall TEXT)"""
_CHAINS_BY_EVM_ID = "CREATE UNIQUE INDEX IF NOT EXISTS chains_by_evm_id ON chains (chain_id)"
CHAIN_COLUMNS = (
    "name, network, rpc_url, ws_url, subnet_id, vm_id, description, explorer_url, token_name,"
    " token_symbol, token_decimals, token_logo, chain_logo, features, private, multicall"
)

# ICM messenger events (operation 16), joined across chains by message id at read time.
# `peer_chain`: the other side's blockchain id (cb58); `receipts`: JSON [[nonce, address]].
_ICM = (
    """CREATE TABLE IF NOT EXISTS icm_events (
        chain_id BIGINT NOT NULL,
        block_number BIGINT NOT NULL,
        tx_index BIGINT NOT NULL,
        log_index BIGINT NOT NULL,
        tx_hash TEXT NOT NULL,
        block_timestamp BIGINT NOT NULL,
        gas_spent BIGINT NOT NULL,
        contract TEXT NOT NULL,
        kind TEXT NOT NULL,
        message_id TEXT NOT NULL,
        peer_chain TEXT,
        nonce TEXT,
        origin TEXT,
        destination_chain TEXT,
        destination TEXT,
        payload TEXT,
        receipts TEXT,
        fee_token TEXT,
        fee_amount TEXT,
        deliverer TEXT,
        reward_redeemer TEXT,
        PRIMARY KEY (chain_id, block_number, log_index))""",
    "CREATE INDEX IF NOT EXISTS icm_events_by_message ON icm_events (message_id)",
)
# Operation 16 finds an address's messages as their sender or their destination: one index
# range per side, covering what the listing reads (no row lookups).
_ICM_BY_ADDRESS = (
    """CREATE INDEX IF NOT EXISTS icm_events_by_origin_key
        ON icm_events (origin, kind, chain_id, message_id, block_timestamp)""",
    """CREATE INDEX IF NOT EXISTS icm_events_by_destination_key
        ON icm_events (destination, kind, chain_id, message_id, block_timestamp)""",
)
# From schema 7 on, operation 16 reads an address's messages in time order from one index
# range of their own table instead: a page costs its rows, not every message of the address (a
# bridge sends millions). One row per (address, message, chain): the message's earliest send
# or receive on that chain that names the address as sender or destination; a message's time
# is its earliest row on the chains a request may see. The writer keeps it (write_batch,
# unwind); ICM_ADDRESS_ROWS rebuilds rows from the events.
_ICM_ADDRESS_MESSAGES = (
    """CREATE TABLE IF NOT EXISTS icm_address_messages (
        address TEXT NOT NULL,
        message_id TEXT NOT NULL,
        chain_id BIGINT NOT NULL,
        first_seen BIGINT NOT NULL,
        PRIMARY KEY (address, message_id, chain_id))""",
    """CREATE INDEX IF NOT EXISTS icm_address_messages_by_time
        ON icm_address_messages (address, first_seen, message_id, chain_id)""",
    # The probe for a message's other rows, covering (without it SQLite's planner probes by
    # address alone on the time index: every row of the address for each row of a page).
    """CREATE INDEX IF NOT EXISTS icm_address_messages_by_message
        ON icm_address_messages (address, message_id, chain_id, first_seen)""",
)
# GET /v1/icm/messages reads every message newest first (store/icm_listing.py).
ICM_BY_TIME = (
    "CREATE INDEX IF NOT EXISTS icm_events_by_time ON icm_events (block_timestamp, message_id)"
)
ICM_NAMING_KINDS = ("send", "receive")  # the events that give a message its time
_NAMING = "(" + ", ".join(f"'{kind}'" for kind in ICM_NAMING_KINDS) + ")"
# `{where}`: a further condition on the events (empty: all of them).
ICM_ADDRESS_ROWS = (
    "INSERT INTO icm_address_messages (address, message_id, chain_id, first_seen)"
    " SELECT address, message_id, chain_id, MIN(ts) FROM ("
    "SELECT origin AS address, message_id, chain_id, block_timestamp AS ts FROM icm_events"
    f" WHERE kind IN {_NAMING} AND origin IS NOT NULL{{where}}"
    " UNION ALL SELECT destination, message_id, chain_id, block_timestamp FROM icm_events"
    f" WHERE kind IN {_NAMING} AND destination IS NOT NULL{{where}}"
    ") named GROUP BY address, message_id, chain_id"
)


def ddl_for(dialect: str, ddl: str) -> str:
    """A statement of this module as `dialect` runs it: SQLite's clustered tables are plain
    tables on PostgreSQL."""
    return ddl if dialect == "sqlite" else ddl.replace(CLUSTERED, "")


def cluster_address_txs(w: Any) -> None:
    """Rebuilds a SQLite store's address_txs as the clustered table (rows unchanged)."""
    if w.dialect != "sqlite":
        return
    w.execute("ALTER TABLE address_txs RENAME TO address_txs_rowid")
    w.execute("DROP INDEX IF EXISTS address_txs_by_block")
    w.execute(ADDRESS_TXS_V9)
    w.execute(
        "INSERT INTO address_txs (chain_id, address, block_number, tx_index, document)"
        " SELECT chain_id, address, block_number, tx_index, document FROM address_txs_rowid"
        " ORDER BY chain_id, address, block_number, tx_index"
    )
    w.execute("DROP TABLE address_txs_rowid")
    w.execute(ADDRESS_TXS_BY_BLOCK)


# Claimed block ranges of a parallel backfill (store/backfill_ranges.py says how they are used).
# `end_block` NULL: the tip's row, followed by one process (the head follower) from the plan's
# end on. Invariant: start_block <= next_block; a range is done when next_block > end_block.
BACKFILL_RANGES = """CREATE TABLE IF NOT EXISTS backfill_ranges (
    chain_id BIGINT NOT NULL,
    start_block BIGINT NOT NULL,
    end_block BIGINT,
    next_block BIGINT NOT NULL,
    PRIMARY KEY (chain_id, start_block))"""

TABLES: tuple[str, ...] = (
    META,
    _CHAINS,
    _CHAINS_BY_EVM_ID,
    # The last block whose rows are all written, per chain; moves in the same transaction.
    """CREATE TABLE IF NOT EXISTS checkpoints (
        chain_id BIGINT PRIMARY KEY,
        height BIGINT NOT NULL,
        hash TEXT NOT NULL)""",
    *EVM_TABLES,
    # ERC type and token metadata of contracts, from eth_call at first sight.
    """CREATE TABLE IF NOT EXISTS tokens (
        chain_id BIGINT NOT NULL,
        address TEXT NOT NULL,
        erc_type TEXT NOT NULL,
        name TEXT,
        symbol TEXT,
        decimals BIGINT,
        first_block BIGINT NOT NULL,
        PRIMARY KEY (chain_id, address))""",
    # ERC-721/1155 token ids: URI, metadata (JSON text) and, for ERC-721, the current owner.
    """CREATE TABLE IF NOT EXISTS nfts (
        chain_id BIGINT NOT NULL,
        token TEXT NOT NULL,
        token_id TEXT NOT NULL,
        erc_type TEXT NOT NULL,
        token_uri TEXT NOT NULL,
        index_status TEXT NOT NULL,
        metadata TEXT NOT NULL,
        metadata_updated BIGINT,
        first_block BIGINT NOT NULL,
        owner TEXT,
        owner_block BIGINT,
        owner_log BIGINT,
        PRIMARY KEY (chain_id, token, token_id))""",
    "CREATE INDEX IF NOT EXISTS nfts_by_owner ON nfts (chain_id, owner, token, token_id)",
    # Requests to fetch an NFT's metadata again (POST …/tokens/{tokenId}:reindex): the data
    # service records them, the chain's indexer carries them out (store/nft_reindex.py). One row
    # per token id: `requested` (Unix seconds) is the last accepted request, at most one an hour;
    # `done` when the indexer stored the new metadata, NULL while pending. A table created at
    # any start (CREATE IF NOT EXISTS), so a store of this schema version gains it unchanged.
    """CREATE TABLE IF NOT EXISTS nft_reindex_requests (
        chain_id BIGINT NOT NULL,
        token TEXT NOT NULL,
        token_id TEXT NOT NULL,
        requested BIGINT NOT NULL,
        done BIGINT,
        PRIMARY KEY (chain_id, token, token_id))""",
    "CREATE INDEX IF NOT EXISTS nft_reindex_pending ON nft_reindex_requests (chain_id, requested)"
    " WHERE done IS NULL",
    # Operator-curated contract metadata (operation 4), one JSON object per contract.
    """CREATE TABLE IF NOT EXISTS contract_metadata (
        chain_id BIGINT NOT NULL,
        address TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (chain_id, address))""",
    # API keys of the data service; only the SHA-256 of a key is stored.
    """CREATE TABLE IF NOT EXISTS api_keys (
        id TEXT PRIMARY KEY,
        key_hash TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        created BIGINT NOT NULL,
        revoked BIGINT,
        chains TEXT,
        rate_per_minute BIGINT)""",
    # Metrics rollups (docs/metrics.md): one row per chain, interval (`span`) and bucket start. Sums
    # that can exceed 64 bits are decimal TEXT; max TPS/GPS are kept as exact fractions.
    """CREATE TABLE IF NOT EXISTS rollups (
        chain_id BIGINT NOT NULL,
        span TEXT NOT NULL,
        bucket BIGINT NOT NULL,
        blocks BIGINT NOT NULL,
        txs BIGINT NOT NULL,
        gas_used TEXT NOT NULL,
        block_gas TEXT NOT NULL,
        contracts BIGINT NOT NULL,
        fees TEXT NOT NULL,
        price_sum TEXT NOT NULL,
        price_max TEXT NOT NULL,
        tps_num BIGINT NOT NULL,
        tps_den BIGINT NOT NULL,
        gps_num TEXT NOT NULL,
        gps_den BIGINT NOT NULL,
        first_ts BIGINT NOT NULL,
        last_ts BIGINT NOT NULL,
        prev_ts BIGINT,
        addresses BIGINT NOT NULL,
        senders BIGINT NOT NULL,
        deployers BIGINT NOT NULL,
        new_addresses BIGINT NOT NULL,
        new_deployers BIGINT NOT NULL,
        PRIMARY KEY (chain_id, span, bucket))""",
    # Who was active in a bucket (kind: address | sender | deployer), for distinct counts
    # that grow incrementally and for unions across chains.
    """CREATE TABLE IF NOT EXISTS rollup_members (
        chain_id BIGINT NOT NULL,
        kind TEXT NOT NULL,
        span TEXT NOT NULL,
        bucket BIGINT NOT NULL,
        member TEXT NOT NULL,
        PRIMARY KEY (chain_id, kind, span, bucket, member))""",
    # The day each address (or deployer) was first seen on a chain: cumulative counts.
    """CREATE TABLE IF NOT EXISTS rollup_first_seen (
        chain_id BIGINT NOT NULL,
        kind TEXT NOT NULL,
        member TEXT NOT NULL,
        day BIGINT NOT NULL,
        PRIMARY KEY (chain_id, kind, member))""",
    # When the rollups of a chain last changed (lastRun) and a counter that moves with every
    # change, so that readers can tell whether several statements saw one state.
    """CREATE TABLE IF NOT EXISTS rollup_runs (
        chain_id BIGINT PRIMARY KEY,
        last_run BIGINT NOT NULL,
        version BIGINT NOT NULL)""",
    # Page tokens of the metrics service: a random UUID names a cursor for 24 hours.
    """CREATE TABLE IF NOT EXISTS metric_page_tokens (
        token TEXT PRIMARY KEY,
        created BIGINT NOT NULL,
        scope TEXT NOT NULL,
        cursor BIGINT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS metric_page_tokens_by_age ON metric_page_tokens (created)",
    *PRIMARY_TABLES,
    *_ICM,
    *_ICM_ADDRESS_MESSAGES,
    *WEBHOOK_TABLES,
    *VALIDATOR_WEBHOOK_TABLES,
    icm_counts.TABLE,
    ICM_BY_TIME,
    staking_rollups.TABLE,
    *l1_fee_schema.TABLES,
    *P_BLOCK_DETAILS,
    *VALIDATOR_STATE_TABLES,
    *NETWORK_INDEXES,
    BACKFILL_RANGES,
    *EXPORT_TABLES,
    *X_TABLES,
    *C_ATOMIC_TABLES,
    *P_GENESIS_TABLES,
    P_GENESIS_OWNERS,
    *P_HOLDINGS,
    *P_BALANCE_ROWS,
    *P_VALIDATOR_DOCUMENTS,
)

# The commit block that paid a reward UTXO (its tx id is the staking tx's).
_PAID_BY = (
    "SELECT {column} FROM p_stakers s"
    " JOIN p_txs r ON r.pchain = s.pchain AND r.tx_id = s.ended_tx"
    " JOIN p_blocks b ON b.pchain = r.pchain AND b.height = r.height + 1"
    " WHERE s.pchain = p_utxos.pchain AND s.tx_id = p_utxos.tx_id"
)

# formats/icm.MESSENGER_ADDRESSES when schema 15 came (store may not import formats; a test
# holds them equal).
MESSENGERS_AT_15 = (
    "0x253b2784c75e510dd0ff1da844684a1ac0aa5fcf",
    "0x382fadd0b6cefa004c90eeea48b1e99dc168ffc4",
)
# Statements that bring a store written by an older schema up to the next version; a new
# store gets the current DDL above and never runs them.
# A step is SQL, or a function of the open transaction where SQL cannot say it.
UPGRADES: dict[int, tuple[str | Callable[[Any], None], ...]] = {
    2: (
        "ALTER TABLE transactions ADD COLUMN document TEXT",
        "ALTER TABLE address_txs ADD COLUMN document TEXT",
    ),
    # chains: keyed by EVM chain id before, by blockchain id from here (rebuilt: neither
    # SQLite nor PostgreSQL-portable DDL can change a primary key in place).
    3: (
        "ALTER TABLE chains RENAME TO chains_v2",
        "DROP INDEX IF EXISTS chains_by_evm_id",
        _CHAINS,
        _CHAINS_BY_EVM_ID,
        f"INSERT INTO chains (blockchain_id, derived_id, chain_id, {CHAIN_COLUMNS})"
        f" SELECT COALESCE(blockchain_id, 'evm-' || chain_id),"
        f" CASE WHEN blockchain_id IS NULL THEN 1 ELSE 0 END, chain_id, {CHAIN_COLUMNS}"
        " FROM chains_v2",
        "DROP TABLE chains_v2",
    ),
    4: PRIMARY_TABLES,  # the primary network's index (operations 11-13)
    5: _ICM,  # ICM messenger events (operation 16)
    6: (
        "DROP INDEX IF EXISTS icm_events_by_origin",
        "DROP INDEX IF EXISTS icm_events_by_destination",
        *_ICM_BY_ADDRESS,
    ),
    7: (
        "DROP INDEX IF EXISTS icm_events_by_origin_key",
        "DROP INDEX IF EXISTS icm_events_by_destination_key",
        *_ICM_ADDRESS_MESSAGES,
        ICM_ADDRESS_ROWS.format(where=""),
    ),
    # Operation 11's read model (the txs written before render from the rows); operation 12's
    # stakers by owner.
    8: (*P_STAKING_TXS, P_STAKING_ROWS, P_STAKER_OWNERS, fill_staker_owners),
    9: (cluster_address_txs,),  # operation 5's address ranges, clustered on SQLite
    # Reward UTXOs carried the height and time of their batch's last block, not of the commit
    # block that paid them (the one after the proposal whose RewardValidatorTx ended the staker).
    10: (
        f"UPDATE p_utxos SET block_height = ({_PAID_BY.format(column='b.height')}),"
        f" block_timestamp = ({_PAID_BY.format(column='b.timestamp')})"
        f" WHERE reward_type IS NOT NULL AND EXISTS ({_PAID_BY.format(column='1')})",
    ),
    # What the complete EVM half reads (issue 28): the EVM chains are read again from genesis
    # (store/evm_schema.py says why).
    11: (reread_evm_chains,),
    12: WEBHOOK_TABLES,  # webhooks and their outbox (store/webhook_schema.py)
    # The P-Chain's blocks, validators and L1 validators (issue 30, part 2). Blocks indexed
    # before have no details row: they are not listed by the block operations.
    # The X-Chain's txs, UTXOs and assets; the C-Chain's atomic txs (issue 30, part 3).
    13: (*X_TABLES, *C_ATOMIC_TABLES),
    14: (*P_BLOCK_DETAILS, *VALIDATOR_STATE_TABLES, *NETWORK_INDEXES),
    # Only the messenger's own events count (indexer/extract/icm.py): a store's events from
    # other emitters go, with the rows derived from them; the ICM message counts of the
    # metrics start from the events that remain.
    15: (
        "DELETE FROM icm_events WHERE contract NOT IN"
        f" ({', '.join(repr(a) for a in MESSENGERS_AT_15)})",
        "DELETE FROM icm_address_messages",
        ICM_ADDRESS_ROWS.format(where=""),
        icm_counts.TABLE,
        ICM_BY_TIME,
        icm_counts.rebuild,
        # The staking metrics (validator and delegator count and weight per subnet and day).
        staking_rollups.TABLE,
        staking_rollups.rebuild,
    ),
    # Export jobs and their files, the request log (store/ops_schema.py).
    16: (*EXPORT_TABLES, *USAGE_TABLES),
    18: (BACKFILL_RANGES,),  # claimed block ranges of a parallel backfill (backfill_ranges.py)
    # Operation 5's contiguous layout: a page is one range of address_txs (store/history_pages.py).
    19: (copy_native_documents,),
    # The L1 validator fee ledger and its days (store/l1_fees.py). It starts empty: the
    # primary indexer replays it from the node's blocks (l1_fees.lag) at its next sync.
    20: l1_fee_schema.TABLES,
    # The L1 validations the blocks register, for validator_activity webhooks
    # (store/webhook_validator_schema.py); a store written before fills it from the blocks to come,
    # and finds older validations in the observed p_l1_validators.
    21: VALIDATOR_WEBHOOK_TABLES,
    # The C-Chain's atomic txs name their block by its EVM hash from here (the data API's
    # blockHash), no longer by the index's container id, and keep their fee; the X-Chain's
    # index starts with its genesis allocations (store/x_genesis.py), which the txs after them
    # spend. Both are read again from the node. The P-Chain's genesis allocations
    # (store/p_genesis.py).
    22: (
        "DROP TABLE IF EXISTS c_atomic_txs",  # it gains `fee`
        *C_ATOMIC_TABLES,
        "DELETE FROM c_atomic_utxos",
        "DELETE FROM c_atomic_imports",
        "DELETE FROM c_atomic_checkpoints",
        *P_GENESIS_TABLES,
        *(
            f"DELETE FROM {table}"
            for table in (
                "x_txs",
                "x_tx_addresses",
                "x_utxos",
                "x_utxo_owners",
                "x_imports",
                "x_assets",
                "x_tx_places",
                "x_tx_checkpoints",
            )
        ),
    ),
    # The P-Chain's unspent UTXOs by owner and their balance rows (store/p_holdings.py).
    23: (*P_HOLDINGS, *P_BALANCE_ROWS, rebuild_p_holdings),
    # The request log as compact rows beside their shared contexts (store/usage_log.py): the
    # rows of api_requests move over, keeping their log ids.
    24: (*REQUEST_LOG_TABLES_24, copy_request_log),
    # Each validation's entry in the validators list, kept by the writer
    # (store/validator_documents.py): every validation to render at the next chain time.
    25: (*P_VALIDATOR_DOCUMENTS, P_VALIDATOR_DOCUMENTS_FILL),
    # Each genesis UTXO's owners, one row each (store/p_genesis_schema.py).
    26: (P_GENESIS_OWNERS, fill_owners),
    # PostgreSQL's address_txs rows get their copies of the nativeTransaction too
    # (store/history_pages.py).
    27: (fill_native_documents,),
    # The request log packed: one row per API key, second and flush (store/request_batches.py).
    28: (*USAGE_TABLES, pack_request_log),
    # SQLite: the request log moves to the store's companion file (store/ops_schema.py says
    # why); PostgreSQL keeps its tables where they are.
    29: (move_request_log,),
}

# Statements run after the upgrades (indexes over columns an upgrade adds to older tables).
AFTER_UPGRADES: tuple[str, ...] = EVM_INDEXES


def keep_page_token_secret(w: Any) -> None:
    """The secret that signs page tokens, made once per store."""
    w.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
        ("page_token_secret", secrets.token_hex(32)),
    )


STORE = Schema(
    "schema_version", SCHEMA_VERSION, TABLES, UPGRADES, (*AFTER_UPGRADES, keep_page_token_secret)
)
