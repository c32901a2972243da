"""address_txs, operation 5's keyset: clustered by its key on SQLite (WITHOUT ROWID), a plain
table on PostgreSQL; schema 9's upgrade rebuilds a store's rowid table with the same rows (and
schema 11's then empties it for the indexer to read the chain again)."""

from __future__ import annotations

from snowfield.store import evm_queries
from snowfield.store.database import Database
from snowfield.store.schema import SCHEMA_VERSION, cluster_address_txs
from tests.store.plans import last_query_plan

V8_ADDRESS_TXS = """CREATE TABLE address_txs (
        chain_id BIGINT NOT NULL,
        address TEXT NOT NULL,
        block_number BIGINT NOT NULL,
        tx_index BIGINT NOT NULL,
        document TEXT,
        PRIMARY KEY (chain_id, address, block_number, tx_index))"""
ROWS = [
    (43114, f"0x{(i * 7919) % 50:040x}", i // 3, i % 3, None if i % 4 else f'{{"n": {i}}}')
    for i in range(300)
]


INSERT = (
    "INSERT INTO address_txs (chain_id, address, block_number, tx_index, document)"
    " VALUES (?, ?, ?, ?, ?)"
)


def _stored(db: Database) -> list[tuple[object, ...]]:
    return db.query(
        "SELECT chain_id, address, block_number, tx_index, document FROM address_txs"
        " ORDER BY chain_id, address, block_number, tx_index"
    )


def _clustered(db: Database) -> bool:
    row = db.query_one("SELECT sql FROM sqlite_master WHERE name = 'address_txs'")
    return row is not None and "WITHOUT ROWID" in str(row[0])


def test_a_new_store_has_the_table_in_its_dialect(db: Database) -> None:
    with db.transaction() as w:
        w.executemany(INSERT, ROWS)
    assert _stored(db) == sorted(ROWS, key=lambda r: r[:4])
    if db.dialect == "sqlite":
        assert _clustered(db)


def test_upgrade_rebuilds_the_rowid_table_with_the_same_rows(db: Database) -> None:
    with db.transaction() as w:
        w.execute("DROP TABLE address_txs")
        w.execute(V8_ADDRESS_TXS)
        w.execute(
            "CREATE INDEX IF NOT EXISTS address_txs_by_block ON address_txs"
            " (chain_id, block_number)"
        )
        w.executemany(INSERT, ROWS)
        w.execute("UPDATE meta SET value = '8' WHERE key = 'schema_version'")
    if db.dialect == "sqlite":
        assert not _clustered(db)
    with db.transaction() as w:  # schema 9's step alone: the rows stay
        cluster_address_txs(w)
    assert _stored(db) == sorted(ROWS, key=lambda r: r[:4])
    with db.transaction() as w:
        w.execute("DROP TABLE address_txs")
        w.execute(V8_ADDRESS_TXS)
        w.executemany(INSERT, ROWS)
    db.migrate()
    assert db.meta("schema_version") == str(SCHEMA_VERSION)
    assert _stored(db) == []  # schema 11: the chains are read again from genesis
    with db.transaction() as w:
        w.executemany(INSERT, ROWS)
    if db.dialect == "sqlite":
        assert _clustered(db)
        names = {r[0] for r in db.query("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "address_txs_by_block" in names
        # Operation 5's page: one range of the table itself, no rowid lookups.
        plan = last_query_plan(
            db,
            lambda d: evm_queries.address_documents(
                d, 43114, ROWS[0][1], start_block=None, end_block=None,
                descending=True, after=None, limit=10,
            ),
        )  # fmt: skip
        assert "SEARCH a USING PRIMARY KEY (chain_id=? AND address=?)" in plan, plan
    db.migrate()  # idempotent
    assert _stored(db) == sorted(ROWS, key=lambda r: r[:4])
