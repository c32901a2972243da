"""The EVM chains' block-derived tables: blocks, transactions and what they did (transfers, logs,
internal calls, contracts, native and token balances), and the schema 11 upgrade.

Every table here is written by `writes.write_batch` with its checkpoint and unwound from a height
(`writes.unwind`); schema.py's conventions hold (chain_id first, 0x-hex TEXT, decimal TEXT for
quantities beyond 64 bits).

Schema 11 (what the data service's complete EVM half reads, issue 28) adds each transaction's
input and EIP-1559 fee caps, every log, the blocks' fees, gas cost, Granite fields and running
transaction count, and ERC-20/721/1155 balances after each block that changed them. A store
written before holds none of that for the blocks it has, and only the node does: a store
answering the complete view of an old transaction without its input or logs, or a token balance
at an old block without the history, would be wrong, not merely incomplete. So the upgrade
unwinds every EVM chain to nothing (its block-derived rows, ICM events and metrics rollups) and
deletes the checkpoints: the indexer reads every block again from genesis through the one
pipeline that writes new blocks, and the store ends with exactly the rows of a fresh index. What
no block gives is kept: chains, API keys, curated metadata, the primary network's tables, and
token and NFT facts (tokens, nfts: fetched by eth_call and from token URIs, keyed by the block
that first showed them, which the re-read shows again; NFT owners are cleared and re-derived).
A re-read needs an archive node, as the first index did (README, "The indexer").
"""

from __future__ import annotations

from typing import Any

# A SQLite table clustered by its key (WITHOUT ROWID), where a reader walks one range of a key
# prefix; PostgreSQL has no such form and gets a plain table (`schema.ddl_for`).
CLUSTERED = " WITHOUT ROWID"

# `fees_spent`: sum of gas used x effective gas price of the block's transactions;
# `cumulative_txs`: transactions of the chain up to and including this block (the writer adds
# the block's count to its parent's); `gas_cost`: Avalanche's blockGasCost header field ("0"
# where the header has none); `timestamp_ms`, `min_delay_excess`: Granite header fields, NULL
# where the header has none.
_BLOCKS = """CREATE TABLE IF NOT EXISTS blocks (
        chain_id BIGINT NOT NULL,
        number BIGINT NOT NULL,
        hash TEXT NOT NULL,
        parent_hash TEXT NOT NULL,
        timestamp BIGINT NOT NULL,
        gas_used BIGINT NOT NULL,
        gas_limit BIGINT NOT NULL,
        base_fee TEXT,
        tx_count BIGINT NOT NULL,
        miner TEXT NOT NULL,
        fees_spent TEXT NOT NULL DEFAULT '0',
        cumulative_txs BIGINT NOT NULL DEFAULT 0,
        gas_cost TEXT NOT NULL DEFAULT '0',
        timestamp_ms BIGINT,
        min_delay_excess BIGINT,
        PRIMARY KEY (chain_id, number))"""
_BLOCKS_V10_COLUMNS = (
    "fees_spent TEXT NOT NULL DEFAULT '0'",
    "cumulative_txs BIGINT NOT NULL DEFAULT 0",
    "gas_cost TEXT NOT NULL DEFAULT '0'",
    "timestamp_ms BIGINT",
    "min_delay_excess BIGINT",
)
# `document`: operation 5's nativeTransaction rendered at write time, NULL = render from the row
# (store/read_model.py). `max_fee_per_gas`, `max_priority_fee_per_gas`: the EIP-1559 caps of
# type 2+ transactions, NULL for legacy and access-list ones. The input is in tx_inputs.
_TRANSACTIONS = """CREATE TABLE IF NOT EXISTS transactions (
        chain_id BIGINT NOT NULL,
        block_number BIGINT NOT NULL,
        tx_index BIGINT NOT NULL,
        hash TEXT NOT NULL,
        block_hash TEXT NOT NULL,
        block_timestamp BIGINT NOT NULL,
        from_addr TEXT NOT NULL,
        to_addr TEXT,
        value TEXT NOT NULL,
        nonce BIGINT NOT NULL,
        gas_limit BIGINT NOT NULL,
        gas_used BIGINT NOT NULL,
        gas_price TEXT NOT NULL,
        tx_type SMALLINT NOT NULL,
        status SMALLINT NOT NULL,
        selector TEXT NOT NULL,
        created TEXT,
        document TEXT,
        max_fee_per_gas TEXT,
        max_priority_fee_per_gas TEXT,
        PRIMARY KEY (chain_id, block_number, tx_index))"""
_TRANSACTIONS_V10_COLUMNS = ("max_fee_per_gas TEXT", "max_priority_fee_per_gas TEXT")
# A transaction's call data, apart from the transactions rows the address listings read: only the
# complete view of one transaction reads it, and a contract's creation code (tens of kB) would
# otherwise spread every page of transactions. No row = empty input ("0x"), most native
# transfers.
_TX_INPUTS = """CREATE TABLE IF NOT EXISTS tx_inputs (
        chain_id BIGINT NOT NULL,
        block_number BIGINT NOT NULL,
        tx_index BIGINT NOT NULL,
        input TEXT NOT NULL,
        PRIMARY KEY (chain_id, block_number, tx_index))"""
# Every log of every transaction's receipt; a transaction's logs are one range of the key.
# `topic0`..`topic3`: NULL past the log's topics.
_LOGS = """CREATE TABLE IF NOT EXISTS logs (
        chain_id BIGINT NOT NULL,
        block_number BIGINT NOT NULL,
        tx_index BIGINT NOT NULL,
        log_index BIGINT NOT NULL,
        tx_hash TEXT NOT NULL,
        address TEXT NOT NULL,
        topic0 TEXT,
        topic1 TEXT,
        topic2 TEXT,
        topic3 TEXT,
        data TEXT NOT NULL,
        PRIMARY KEY (chain_id, block_number, tx_index, log_index))"""
# ERC-20/721/1155 transfers; batch_index numbers the ids of one TransferBatch log.
_TRANSFERS = """CREATE TABLE IF NOT EXISTS transfers (
        chain_id BIGINT NOT NULL,
        block_number BIGINT NOT NULL,
        tx_index BIGINT NOT NULL,
        log_index BIGINT NOT NULL,
        batch_index BIGINT NOT NULL,
        tx_hash TEXT NOT NULL,
        block_timestamp BIGINT NOT NULL,
        token TEXT NOT NULL,
        erc_type TEXT NOT NULL,
        from_addr TEXT NOT NULL,
        to_addr TEXT NOT NULL,
        token_id TEXT,
        value TEXT NOT NULL,
        PRIMARY KEY (chain_id, block_number, log_index, batch_index))"""
# Nested call frames of callTracer traces (the top-level call is the transaction itself).
# `listed` = 1 for the frames the service lists (listInternals, the complete view's
# internalTransactions): CALL and CALLCODE moving value, CREATE and CREATE2.
_INTERNAL_TXS = """CREATE TABLE IF NOT EXISTS internal_txs (
        chain_id BIGINT NOT NULL,
        block_number BIGINT NOT NULL,
        tx_index BIGINT NOT NULL,
        trace_index BIGINT NOT NULL,
        tx_hash TEXT NOT NULL,
        from_addr TEXT NOT NULL,
        to_addr TEXT NOT NULL,
        call_type TEXT NOT NULL,
        value TEXT NOT NULL,
        gas_limit BIGINT NOT NULL,
        gas_used BIGINT NOT NULL,
        reverted SMALLINT NOT NULL,
        listed SMALLINT NOT NULL DEFAULT 0,
        PRIMARY KEY (chain_id, block_number, tx_index, trace_index))"""
# Which transactions involve an address, in any role (operation 5's keyset). `document`: the
# transaction's sub-lists limited to the address, "" when all are empty, NULL = render from the
# rows (store/read_model.py). `native` = 1 where the address is the transaction's sender or its
# receiver (the created contract of a creation): listNative's rows. Clustered by its key on
# SQLite: an address's page is one range of the table, where a rowid table scattered its rows in
# write order (operation 5, 2M txs: +11% requests/s, bench/api.py). `native_document` (schema
# 19): a copy of the transaction's `nativeTransaction` (transactions.document) beside each of
# its addresses' rows, so that a page of operation 5 is one range of this table with no lookup
# into `transactions` (store/history_pages.py; PostgreSQL since schema 27); NULL = render from
# the rows.
ADDRESS_TXS = """CREATE TABLE IF NOT EXISTS address_txs (
        chain_id BIGINT NOT NULL,
        address TEXT NOT NULL,
        block_number BIGINT NOT NULL,
        tx_index BIGINT NOT NULL,
        document TEXT,
        native SMALLINT NOT NULL DEFAULT 0,
        native_document TEXT,
        PRIMARY KEY (chain_id, address, block_number, tx_index)) WITHOUT ROWID"""
# The table as schema 9 clustered it (its upgrade step rebuilds a rowid table in this shape).
ADDRESS_TXS_V9 = """CREATE TABLE IF NOT EXISTS address_txs (
        chain_id BIGINT NOT NULL,
        address TEXT NOT NULL,
        block_number BIGINT NOT NULL,
        tx_index BIGINT NOT NULL,
        document TEXT,
        PRIMARY KEY (chain_id, address, block_number, tx_index)) WITHOUT ROWID"""
ADDRESS_TXS_BY_BLOCK = (
    "CREATE INDEX IF NOT EXISTS address_txs_by_block ON address_txs (chain_id, block_number)"
)
_CONTRACTS = """CREATE TABLE IF NOT EXISTS contracts (
        chain_id BIGINT NOT NULL,
        address TEXT NOT NULL,
        block_number BIGINT NOT NULL,
        tx_index BIGINT NOT NULL,
        tx_hash TEXT NOT NULL,
        deployer TEXT NOT NULL,
        factory TEXT,
        creation TEXT NOT NULL,
        PRIMARY KEY (chain_id, address))"""
# Native balance of an address after each block that touched it (the newest row is the current
# balance; history makes an unwind exact and answers a balance at a past block).
_BALANCES = """CREATE TABLE IF NOT EXISTS balances (
        chain_id BIGINT NOT NULL,
        address TEXT NOT NULL,
        block_number BIGINT NOT NULL,
        balance TEXT NOT NULL,
        PRIMARY KEY (chain_id, address, block_number))"""
# A holder's token balance after each block whose transfers changed it: `kind` 20, 721 or 1155
# (rows.TOKEN_KINDS; numbers so that a holder's collectibles, 721 and 1155, are one range);
# `token_id` the decimal id, '' for ERC-20; an ERC-721 balance is 1 (owns it) or 0. Computed
# from the transfers and checked against the node's balanceOf (indexer/token_balances.py).
# Clustered: a balance at block N is one descent of the key to the holder's token, then the
# newest row at or below N. No index by block: an unwind finds its rows through the transfers
# of the blocks it removes (each row is a transfer's effect).
_TOKEN_BALANCE_HISTORY = """CREATE TABLE IF NOT EXISTS token_balance_history (
        chain_id BIGINT NOT NULL,
        holder TEXT NOT NULL,
        kind SMALLINT NOT NULL,
        token TEXT NOT NULL,
        token_id TEXT NOT NULL,
        block_number BIGINT NOT NULL,
        balance TEXT NOT NULL,
        PRIMARY KEY (chain_id, holder, kind, token, token_id, block_number)) WITHOUT ROWID"""
# Each (holder, token, id) the history has, with its newest row: the current balances in listing
# order, and the list of what a holder ever held that a balance at a past block walks (zero
# balances stay: a token emptied now may have been held then).
_TOKEN_BALANCES = """CREATE TABLE IF NOT EXISTS token_balances (
        chain_id BIGINT NOT NULL,
        holder TEXT NOT NULL,
        kind SMALLINT NOT NULL,
        token TEXT NOT NULL,
        token_id TEXT NOT NULL,
        block_number BIGINT NOT NULL,
        balance TEXT NOT NULL,
        PRIMARY KEY (chain_id, holder, kind, token, token_id)) WITHOUT ROWID"""

EVM_TABLES: tuple[str, ...] = (
    _BLOCKS,
    "CREATE UNIQUE INDEX IF NOT EXISTS blocks_by_hash ON blocks (chain_id, hash)",
    # The latest blocks and transactions of several chains, merged by time: where each chain's
    # blocks of a time begin.
    "CREATE INDEX IF NOT EXISTS blocks_by_time ON blocks (chain_id, timestamp, number)",
    _TRANSACTIONS,
    "CREATE UNIQUE INDEX IF NOT EXISTS transactions_by_hash ON transactions (chain_id, hash)",
    # The latest failed transactions: few, so a small index of their own (partial: a
    # condition of the query must repeat `status = 0`).
    """CREATE INDEX IF NOT EXISTS transactions_failed
        ON transactions (chain_id, block_number, tx_index) WHERE status = 0""",
    _TX_INPUTS,
    _LOGS,
    _TRANSFERS,
    # Keyset listings (operations 6 and 7, listErc1155) read these in (block, log, batch) order.
    """CREATE INDEX IF NOT EXISTS transfers_by_from_key
        ON transfers (chain_id, from_addr, erc_type, block_number, log_index, batch_index)""",
    """CREATE INDEX IF NOT EXISTS transfers_by_to_key
        ON transfers (chain_id, to_addr, erc_type, block_number, log_index, batch_index)""",
    # Superseded by the two above (same prefix, without batch_index).
    "DROP INDEX IF EXISTS transfers_by_from",
    "DROP INDEX IF EXISTS transfers_by_to",
    """CREATE INDEX IF NOT EXISTS transfers_by_token_id
        ON transfers (chain_id, token, token_id, block_number)""",
    # The transfers of one token contract in (block, log, batch) order.
    """CREATE INDEX IF NOT EXISTS transfers_by_token_key
        ON transfers (chain_id, token, block_number, log_index, batch_index)""",
    _INTERNAL_TXS,
    ADDRESS_TXS,
    ADDRESS_TXS_BY_BLOCK,
    _CONTRACTS,
    # Operation 10's keyset: (block, tx index, address).
    """CREATE INDEX IF NOT EXISTS contracts_by_deployer_key
        ON contracts (chain_id, deployer, block_number, tx_index, address)""",
    """CREATE INDEX IF NOT EXISTS contracts_by_factory_key
        ON contracts (chain_id, factory, block_number, tx_index, address)""",
    "DROP INDEX IF EXISTS contracts_by_deployer",
    "DROP INDEX IF EXISTS contracts_by_factory",
    "CREATE INDEX IF NOT EXISTS contracts_by_block ON contracts (chain_id, block_number)",
    _BALANCES,
    "CREATE INDEX IF NOT EXISTS balances_by_block ON balances (chain_id, block_number)",
    _TOKEN_BALANCE_HISTORY,
    _TOKEN_BALANCES,
)

# Indexes over schema 11's columns of older tables: created after the upgrades, which add those
# columns to a store written before (the tables above are created before them).
EVM_INDEXES: tuple[str, ...] = (
    # listNative: an address's transactions as sender or receiver, one range (partial: a
    # condition of the query must repeat `native = 1`).
    """CREATE INDEX IF NOT EXISTS address_txs_native
        ON address_txs (chain_id, address, block_number, tx_index) WHERE native = 1""",
    # listInternals: an address's listed internal transactions, one range per role.
    """CREATE INDEX IF NOT EXISTS internal_txs_from_key
        ON internal_txs (chain_id, from_addr, block_number, tx_index, trace_index)
        WHERE listed = 1""",
    """CREATE INDEX IF NOT EXISTS internal_txs_to_key
        ON internal_txs (chain_id, to_addr, block_number, tx_index, trace_index)
        WHERE listed = 1""",
)

# Rows every EVM chain's index re-derives from its blocks (schema 11 empties them).
_REREAD = (
    "blocks", "transactions", "tx_inputs", "logs", "transfers", "internal_txs", "address_txs",
    "contracts", "balances", "token_balance_history", "token_balances", "icm_events",
    "icm_address_messages", "rollups", "rollup_members", "rollup_first_seen", "rollup_runs",
    "checkpoints",
)  # fmt: skip


def reread_evm_chains(w: Any) -> None:
    """Schema 11: the columns it adds to older tables, then every EVM chain unwound to nothing
    for the indexer to read again (the module's docstring says why)."""
    for table, columns in (
        ("blocks", _BLOCKS_V10_COLUMNS),
        ("transactions", _TRANSACTIONS_V10_COLUMNS),
        ("internal_txs", ("listed SMALLINT NOT NULL DEFAULT 0",)),
        ("address_txs", ("native SMALLINT NOT NULL DEFAULT 0",)),
    ):
        for column in columns:
            if not _has_column(w, table, column.split()[0]):
                w.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
    for table in _REREAD:
        # Whole tables: only EVM chains have rows in them. PostgreSQL empties a table at once.
        w.execute(f"TRUNCATE {table}" if w.dialect == "postgresql" else f"DELETE FROM {table}")
    w.execute("UPDATE nfts SET owner = NULL, owner_block = NULL, owner_log = NULL")


def copy_native_documents(w: Any) -> None:
    """Schema 19: each address_txs row gains its transaction's nativeTransaction document (the
    contiguous layout of operation 5); a NULL document stays NULL (render from the rows).
    SQLite rebuilds the table in key order: growing its rows in place split the clustered
    pages until they held under two rows each (2.9x the store's size at 100k transactions,
    bench/api.py's store), where rows written in order fill them."""
    copied = (
        "(SELECT t.document FROM transactions t WHERE t.chain_id = a.chain_id"
        " AND t.block_number = a.block_number AND t.tx_index = a.tx_index)"
    )
    if w.dialect != "sqlite":  # filled by schema 27 (fill_native_documents)
        w.execute("ALTER TABLE address_txs ADD COLUMN IF NOT EXISTS native_document TEXT")
        return
    w.execute("ALTER TABLE address_txs RENAME TO address_txs_v11")
    w.execute("DROP INDEX IF EXISTS address_txs_by_block")
    w.execute("DROP INDEX IF EXISTS address_txs_native")
    w.execute(ADDRESS_TXS)
    columns = "chain_id, address, block_number, tx_index, document, native"
    w.execute(
        f"INSERT INTO address_txs ({columns}, native_document) SELECT {columns}, {copied}"
        " FROM address_txs_v11 a ORDER BY chain_id, address, block_number, tx_index"
    )
    w.execute("DROP TABLE address_txs_v11")
    w.execute(ADDRESS_TXS_BY_BLOCK)


def fill_native_documents(w: Any) -> None:
    """Schema 27: PostgreSQL takes up the contiguous layout too (it measured better there:
    store/history_pages.py): each row without its copy gets its transaction's document (a
    NULL one stays NULL: rendered from the rows). SQLite's rows have had theirs since 19."""
    if w.dialect == "sqlite":
        return
    w.execute(
        "UPDATE address_txs a SET native_document = t.document FROM transactions t"
        " WHERE t.chain_id = a.chain_id AND t.block_number = a.block_number"
        " AND t.tx_index = a.tx_index AND a.native_document IS NULL"
        " AND t.document IS NOT NULL"
    )


def _has_column(w: Any, table: str, column: str) -> bool:
    if w.dialect == "sqlite":
        return any(r[1] == column for r in w.query(f"PRAGMA table_info({table})"))
    return bool(
        w.query(
            "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()"
            " AND table_name = ? AND column_name = ?",
            (table, column),
        )
    )
