"""store/bulk_load.py: a load with deferred indexes writes the same rows, and the store has
every index again afterwards: at its end, when it fails, and (a load killed midway) at the next
migrate."""

from __future__ import annotations

import pytest

from snowfield.store import bulk_load
from snowfield.store.database import Database
from snowfield.store.dump import dump
from snowfield.store.rows import BalanceRow, BlockBundle, BlockRow, TxRow
from snowfield.store.writes import write_batch

CHAIN = 43112


def _indexes(db: Database) -> set[str]:
    if db.dialect == "sqlite":
        rows = db.query("SELECT name FROM sqlite_master WHERE type = 'index'")
    else:
        rows = db.query("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()")
    return {str(r[0]) for r in rows}


def _bundles(first: int, count: int) -> list[BlockBundle]:
    out = []
    for n in range(first, first + count):
        block = BlockRow(CHAIN, n, f"0x{n:064x}", f"0x{n - 1:064x}", 1_700_000_000 + n,
                         21_000, 15_000_000, 25, 1, "0x" + "11" * 20)  # fmt: skip
        tx = TxRow(CHAIN, n, 0, f"0x{n:02x}{n:062x}", block.hash, block.timestamp,
                   "0x" + "aa" * 20, "0x" + "bb" * 20, n, n, 21_000, 21_000, 25, 2, n % 2, "",
                   None)  # fmt: skip
        out.append(
            BlockBundle(
                block,
                (tx,),
                balances=(BalanceRow(CHAIN, tx.from_addr, n, 10**18 - n),),
                activity=((tx.from_addr, 0), (str(tx.to_addr), 0)),
            )
        )
    return out


def test_defers_the_secondary_indexes_and_builds_them_at_the_end(db: Database) -> None:
    every = _indexes(db)
    assert set(bulk_load.deferrable()) <= every
    with bulk_load.deferred_indexes(db):
        during = _indexes(db)
        write_batch(db, CHAIN, _bundles(0, 5))
        write_batch(db, CHAIN, _bundles(5, 5))
    assert _indexes(db) == every
    if db.dialect == "postgresql":
        assert not during & set(bulk_load.deferrable())
        assert "transactions_by_hash" in during  # unique: still checks every row
    else:
        assert during == every


def test_writes_the_rows_of_a_load_with_indexes(db: Database) -> None:
    with bulk_load.deferred_indexes(db):
        write_batch(db, CHAIN, _bundles(0, 6))
    deferred = dump(db)
    for table in ("blocks", "transactions", "balances", "address_txs", "checkpoints"):
        with db.transaction() as w:
            w.execute(f"DELETE FROM {table}")
    write_batch(db, CHAIN, _bundles(0, 6))
    assert dump(db) == deferred


def test_a_failed_load_and_a_killed_one_get_their_indexes_back(db: Database) -> None:
    every = _indexes(db)
    with pytest.raises(RuntimeError), bulk_load.deferred_indexes(db):
        raise RuntimeError("the load fails")
    assert _indexes(db) == every
    if db.dialect == "postgresql":  # a load killed midway: its drops done, its builds never run
        with db.transaction() as w:
            for name in bulk_load.deferrable():
                w.execute(f"DROP INDEX {name}")
        assert not _indexes(db) & set(bulk_load.deferrable())
    db.migrate()
    assert _indexes(db) == every


def test_postgresql_reads_run_on_their_generic_plan(db: Database) -> None:
    """Operation 5's page read, prepared by psycopg from its fifth run, is planned once: on
    the skewed stores of bench/scale.py PostgreSQL's default kept planning it per run
    (database.py)."""
    if db.dialect != "postgresql":
        pytest.skip("a PostgreSQL setting")
    from snowfield.store import history_pages

    write_batch(db, CHAIN, _bundles(1, 30))
    for n in range(20):
        history_pages.address_items(db, CHAIN, "0x" + "aa" * 20, start_block=None,
                                    end_block=None, descending=n % 2 == 0, after=None,
                                    limit=11)  # fmt: skip
    plans = db.query(
        "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
        " WHERE statement LIKE '%address_txs%' AND generic_plans + custom_plans > 0"
    )
    assert plans and all(int(c) == 0 and int(g) > 0 for g, c in plans), plans
