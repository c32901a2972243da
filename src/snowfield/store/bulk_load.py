"""A bulk load's deferred indexes (PostgreSQL): the secondary indexes of the tables the writer
fills per block are dropped while a large history is written and built again at its end, one
sort each, rather than kept up to date row by row.

Safe to use with the ordinary writer: only non-unique indexes are deferred. Primary keys (which
ON CONFLICT names) and unique indexes (say, one transaction per hash) stay and check every row
as it is written, so the rows stored are the same; only reads that would use a deferred index
are slower meanwhile. A load that dies before the end leaves those indexes missing; every
index's DDL is `CREATE INDEX IF NOT EXISTS`, run by `Database.migrate` at each start, so the
next start builds them (and `build` does it at once). SQLite keeps its indexes: its writer was
not measured slow enough to need this."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

from snowfield.store.database import Database
from snowfield.store.schema import AFTER_UPGRADES, TABLES, ddl_for

# The tables write_batch fills per block (store/block_writes.py, token_balances.py, writes.py).
BULK_TABLES = frozenset((
    "blocks", "transactions", "tx_inputs", "logs", "transfers", "internal_txs", "contracts",
    "address_txs", "balances", "token_balance_history", "token_balances",
))  # fmt: skip
_INDEX = re.compile(r"CREATE INDEX IF NOT EXISTS (\w+)\s+ON (\w+)")
# Memory of one index build's sort (the server's default, 64 MB, spills most of them to disk).
SORT_MEMORY = "256MB"


def deferrable() -> dict[str, str]:
    """Index name -> its DDL, for the non-unique indexes of the bulk tables."""
    found = {}
    for ddl in (*TABLES, *AFTER_UPGRADES):
        match = _INDEX.match(ddl)
        if match and match.group(2) in BULK_TABLES:
            found[match.group(1)] = ddl
    return found


@contextlib.contextmanager
def deferred_indexes(db: Database) -> Iterator[None]:
    """The body runs with the deferrable indexes dropped (PostgreSQL; on SQLite it just runs);
    they are built again when it ends, also when it raises."""
    if db.dialect != "postgresql":
        yield
        return
    with db.transaction() as w:
        for name in deferrable():
            w.execute(f"DROP INDEX IF EXISTS {name}")
    try:
        yield
    finally:
        build(db)


def build(db: Database) -> None:
    """Builds the deferrable indexes that are missing (all of them after `deferred_indexes`)."""
    with db.transaction() as w:
        if db.dialect == "postgresql":
            w.execute(f"SET LOCAL maintenance_work_mem = '{SORT_MEMORY}'")
        for ddl in deferrable().values():
            w.execute(ddl_for(db.dialect, ddl))
