"""store/bulk.py: the writer's many-row inserts keep the row-by-row statements' outcome on both
dialects (COPY through a staging table on PostgreSQL): a row already stored is skipped or
updated by the same rule, rows of one call sharing a key keep the first, and a transaction may
stage the same table twice."""

from __future__ import annotations

from snowfield.store import bulk
from snowfield.store.database import Database

COLUMNS = "chain_id, address, block_number, balance"
KEY = "chain_id, address, block_number"
NEWER = (
    "DO UPDATE SET block_number = excluded.block_number, balance = excluded.balance"
    " WHERE excluded.block_number >= token_balances.block_number"
)
CURRENT = "chain_id, holder, kind, token, token_id, block_number, balance"


def _balances(db: Database) -> list[tuple[object, ...]]:
    return db.query("SELECT chain_id, address, block_number, balance FROM balances ORDER BY 2, 3")


def test_skips_stored_rows_and_keeps_the_first_of_a_repeated_key(db: Database) -> None:
    with db.transaction() as w:
        bulk.insert(w, "balances", COLUMNS, [(1, "0xa", 1, "10"), (1, "0xb", 1, "20")], key=KEY)
    with db.transaction() as w:
        rows = [(1, "0xa", 1, "99"), (1, "0xc", 2, "30"), (1, "0xc", 2, "31"), (1, "0xa", 2, "\t")]
        bulk.insert(w, "balances", COLUMNS, rows, key=KEY)
    assert _balances(db) == [
        (1, "0xa", 1, "10"),  # stored before: skipped
        (1, "0xa", 2, "\t"),  # text COPY escapes what its format uses
        (1, "0xb", 1, "20"),
        (1, "0xc", 2, "30"),  # the first of the two
    ]


def test_a_transaction_stages_one_table_twice(db: Database) -> None:
    with db.transaction() as w:
        bulk.insert(w, "balances", COLUMNS, [(1, "0xa", 1, "10")], key=KEY)
        bulk.insert(w, "balances", COLUMNS, [(1, "0xb", 1, "20")], key=KEY)
        bulk.insert(w, "balances", COLUMNS, [], key=KEY)
    assert [r[1] for r in _balances(db)] == ["0xa", "0xb"]


def test_a_rolled_back_batch_leaves_nothing_staged(db: Database) -> None:
    try:
        with db.transaction() as w:
            bulk.insert(w, "balances", COLUMNS, [(1, "0xa", 1, "10")], key=KEY)
            raise RuntimeError("the batch fails")
    except RuntimeError:
        pass
    with db.transaction() as w:
        bulk.insert(w, "balances", COLUMNS, [(1, "0xb", 1, "20")], key=KEY)
    assert [r[1] for r in _balances(db)] == ["0xb"]


def test_updates_by_the_conflict_rule_in_row_order(db: Database) -> None:
    key = "chain_id, holder, kind, token, token_id"
    with db.transaction() as w:
        bulk.insert(w, "token_balances", CURRENT, [(1, "0xa", 20, "0xt", "", 5, "50")], key=key)
    with db.transaction() as w:
        rows = [(1, "0xa", 20, "0xt", "", 4, "40"), (1, "0xb", 20, "0xt", "", 4, "7")]
        bulk.insert(w, "token_balances", CURRENT, rows, key=key, update=NEWER)
    with db.transaction() as w:
        # A repeated key: applied one row after another, the later (newer) row wins.
        rows = [(1, "0xb", 20, "0xt", "", 6, "8"), (1, "0xb", 20, "0xt", "", 7, "9")]
        bulk.insert(w, "token_balances", CURRENT, rows, key=key, update=NEWER)
    assert db.query("SELECT holder, block_number, balance FROM token_balances ORDER BY 1") == [
        ("0xa", 5, "50"),  # the older row did not move it back
        ("0xb", 7, "9"),
    ]


def test_a_column_left_out_takes_its_default_on_either_path(db: Database) -> None:
    columns = "chain_id, address, block_number, tx_index, document"
    key = "chain_id, address, block_number, tx_index"
    with db.transaction() as w:  # nothing stored: straight into the table
        bulk.insert(w, "address_txs", columns, [(1, "0xa", 1, 0, "")], key=key)
    with db.transaction() as w:  # a stored row: through the staging table
        rows = [(1, "0xa", 1, 0, "x"), (1, "0xa", 2, 0, "")]
        bulk.insert(w, "address_txs", columns, rows, key=key)
    assert db.query("SELECT block_number, document, native FROM address_txs ORDER BY 1") == [
        (1, "", 0),
        (2, "", 0),
    ]
