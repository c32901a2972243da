"""The claimed ranges of a parallel backfill in the store: the schema 18 upgrade, planning,
claims that die with their connection, the checkpoint over the written prefix, and unwinds."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from snowfield.store import backfill_ranges, writes
from snowfield.store.backfill_ranges import Claims
from snowfield.store.database import Database
from snowfield.store.schema import SCHEMA_VERSION
from snowfield.testing import database_urls, open_database

CHAIN = 43112


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    urls = database_urls(tmp_path)
    if request.param == "postgresql" and len(urls) < 2:
        pytest.skip("set SNOWFIELD_TEST_PG=1 to test PostgreSQL too")
    with open_database(urls[0 if request.param == "sqlite" else 1]) as opened:
        yield opened


def test_a_schema_11_store_gains_the_ranges_table(db: Database) -> None:
    with db.transaction() as w:
        w.execute("DROP TABLE backfill_ranges")
        w.execute("UPDATE meta SET value = '11' WHERE key = 'schema_version'")
    db.migrate()
    assert db.meta("schema_version") == str(SCHEMA_VERSION)
    assert db.query("SELECT COUNT(*) FROM backfill_ranges") == [(0,)]
    db.migrate()  # idempotent


def _pg(db: Database) -> None:
    if db.dialect != "postgresql":
        pytest.skip("claimed ranges coordinate through PostgreSQL")


def _block(db: Database, number: int, txs: int) -> None:
    with db.transaction() as w:
        w.execute(
            "INSERT INTO blocks (chain_id, number, hash, parent_hash, timestamp, gas_used,"
            " gas_limit, base_fee, tx_count, miner, fees_spent, cumulative_txs, gas_cost)"
            " VALUES (?, ?, ?, ?, ?, 0, 0, NULL, ?, ?, '0', ?, '0')",
            (CHAIN, number, f"0x{number:064x}", f"0x{number - 1:064x}", 1000 + number, txs,
             "0x" + "00" * 20, txs),
        )  # fmt: skip


def _advance(db: Database, start: int, last: int) -> None:
    with db.transaction() as w:
        backfill_ranges.advance(w, CHAIN, start, last)


def test_claims_the_checkpoint_and_unwinds(db: Database) -> None:
    _pg(db)
    assert backfill_ranges.plan(db, CHAIN, 0, 9, 4)
    assert not backfill_ranges.plan(db, CHAIN, 0, 99, 4)  # one plan per chain
    assert backfill_ranges.ranges(db, CHAIN) == [(0, 3, 0), (4, 7, 4), (8, 9, 8), (10, None, 10)]
    one, two = Claims(db), Claims(db)
    try:
        first = one.claim(CHAIN)
        second = two.claim(CHAIN)
        assert first is not None and second is not None
        assert (first.start, second.start) == (0, 4)  # each its own range
        # The later range lands first: its blocks counted from 0, no checkpoint yet.
        for n in range(4, 8):
            _block(db, n, 1)
        _advance(db, 4, 7)
        assert writes.checkpoint(db, CHAIN) is None
        for n in range(0, 4):
            _block(db, n, 2)
        _advance(db, 0, 3)
        assert writes.checkpoint(db, CHAIN) == (7, f"0x{7:064x}")
        totals = db.query("SELECT cumulative_txs FROM blocks ORDER BY number")
        assert [t[0] for t in totals] == [2, 4, 6, 8, 9, 10, 11, 12]
        # A worker gone (its connection closed): its claim is free again, from where it was.
        third = Claims(db)
        held = third.claim(CHAIN)
        assert held is not None and held.start == 8
        assert two.claim(CHAIN) is None  # 0 and 4 are written, 8 is held
        third.close()
        again = two.claim(CHAIN)
        assert again is not None and again.start == 8  # free again
        assert one.lead(CHAIN) and not two.lead(CHAIN)
        assert not backfill_ranges.backfill_done(db, CHAIN)
        writes.unwind(db, CHAIN, 6)
        assert backfill_ranges.ranges(db, CHAIN) == [
            (0, 3, 4),
            (4, 7, 6),
            (8, 9, 8),
            (10, None, 10),
        ]
        assert writes.checkpoint(db, CHAIN) == (5, f"0x{5:064x}")
        assert not backfill_ranges.finish(db, CHAIN, None, 0)  # ranges left
    finally:
        one.close()
        two.close()


def test_stores_in_two_schemas_of_one_database_claim_independently(
    db: Database, tmp_path: Path
) -> None:
    """Advisory locks are the whole database's: a store in another schema of the same database
    (the test suite's two workers, or two deployments) must not see this one's claims."""
    _pg(db)
    with open_database(database_urls(tmp_path / "other")[1]) as other:
        assert other.url.schema != db.url.schema
        for store in (db, other):
            assert backfill_ranges.plan(store, CHAIN, 1, 100, 50)
        mine, theirs = Claims(db), Claims(other)
        try:
            assert mine.lead(CHAIN) and theirs.lead(CHAIN)
            first, second = mine.claim(CHAIN), theirs.claim(CHAIN)
            assert first is not None and second is not None
            assert (first.start, second.start) == (1, 1)  # the same range, held by each store
            assert first.key != second.key
        finally:
            mine.close()
            theirs.close()
