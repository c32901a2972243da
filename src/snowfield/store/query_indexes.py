"""Indexes the data API's keyset listings need beyond those of the schema; created idempotently.

The schema's transfers_by_from/_to stop at log_index, so a keyset ending in batch_index cannot be
read from them in order and SQLite instead walks the whole chain's transfers by primary key.
These supersede them (same prefix, plus batch_index); they belong in the schema proper.
"""

from __future__ import annotations

from snowfield.store.database import Database

QUERY_INDEXES: tuple[str, ...] = (
    """CREATE INDEX IF NOT EXISTS transfers_by_from_key
        ON transfers (chain_id, from_addr, erc_type, block_number, log_index, batch_index)""",
    """CREATE INDEX IF NOT EXISTS transfers_by_to_key
        ON transfers (chain_id, to_addr, erc_type, block_number, log_index, batch_index)""",
)


def add_query_indexes(db: Database) -> None:
    """Creates the missing query indexes; safe to run at every start, after `migrate`."""
    with db.transaction() as w:
        for ddl in QUERY_INDEXES:
            w.execute(ddl)
