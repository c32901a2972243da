"""Operation 5's read model: the stored documents are exactly what rendering the rows gives,
and they step aside (NULL → render from the rows) whenever they could be stale."""

from __future__ import annotations

from typing import Any

import httpx
import orjson
import pytest

from snowfield.api.evm.addresses import Listing, _items, _rendered_transactions
from snowfield.store import history_pages
from snowfield.store.database import Database, upgrade
from snowfield.store.pagination import Page
from snowfield.store.rows import BlockBundle, BlockRow, TokenRow, TxRow
from snowfield.store.schema import SCHEMA_VERSION
from snowfield.store.writes import unwind, write_batch
from tests.api.conftest import ALICE, CHAIN, ChainBuilder, add_chains, api_client

LATE = "0x" + "1a" * 20  # funded in block 1, a token deployed there in block 2


def _listing(address: str, descending: bool, size: int, after: Any = None) -> Listing:
    return Listing(CHAIN, address, None, None, descending, after, size)


def _transactions(db: Database, q: Listing) -> tuple[Any, Page[Any]]:
    """A page as operation 5 answers it: the stored documents joined as bytes, or rendered
    from the rows when one is missing (api/evm/addresses.py's list_transactions)."""
    page = _items(db, q)
    body = history_pages.transactions_document(page, b"}")
    if body is None:
        return _rendered_transactions(db, q)
    return orjson.loads(body)["transactions"], page


def _walk(db: Database, address: str, descending: bool, fn: Any) -> list[Any]:
    """Every item of every page, as plain JSON values."""
    items: list[Any] = []
    after = None
    for _ in range(100):
        page_items, page = fn(db, _listing(address, descending, 3, after))
        items += orjson.loads(orjson.dumps(page_items))
        if page.next_key is None:
            return items
        after = page.next_key
    raise AssertionError("more than 100 pages")


def test_documents_equal_rendering_the_rows(db: Database) -> None:
    add_chains(db)
    ChainBuilder(db).add(12)
    addresses = [r[0] for r in db.query("SELECT DISTINCT address FROM address_txs")]
    missing = db.query(
        "SELECT (SELECT COUNT(*) FROM transactions WHERE document IS NULL),"
        " (SELECT COUNT(*) FROM address_txs WHERE document IS NULL)"
    )
    assert missing == [(0, 0)]
    seen: set[str] = set()
    for address in addresses:
        for descending in (True, False):
            stored = _walk(db, address, descending, _transactions)
            assert stored == _walk(db, address, descending, _rendered_transactions)
            seen.update(k for item in stored for k, v in item.items() if v)
    # The builder's chain has every kind of sub-list, so all of them were compared.
    assert seen >= {"erc20Transfers", "erc721Transfers", "erc1155Transfers"}
    assert "internalTransactions" in seen


def _bundle(n: int, tx: TxRow | None) -> BlockBundle:
    block = BlockRow(CHAIN, n, f"0x{n:064x}", f"0x{n - 1:064x}", 1_700_000_000 + n, 21_000,
                     15_000_000, 25 * 10**9, 1 if tx else 0, ALICE)  # fmt: skip
    if tx is None:
        return BlockBundle(block, (), (), (), (), (), ())
    return BlockBundle(block, (tx,), (), (), (), (), ((ALICE, 0), (LATE, 0)))


def _funding(n: int) -> TxRow:
    return TxRow(CHAIN, n, 0, f"0x{n:064x}", f"0x{n:064x}", 1_700_000_000 + n, ALICE, LATE,
                 10**18, 0, 21_000, 21_000, 25 * 10**9, 2, 1, "", None)  # fmt: skip


def _to_of_funding(client: httpx.Client) -> dict[str, Any]:
    body = client.get(f"/v1/chains/{CHAIN}/addresses/{ALICE}/transactions").json()
    [entry] = [e for e in body["transactions"] if e["nativeTransaction"]["blockNumber"] == "1"]
    return dict(entry["nativeTransaction"]["to"])


def test_token_facts_written_later_reach_earlier_transactions(db: Database) -> None:
    add_chains(db)
    late = TokenRow(CHAIN, LATE, "ERC-20", "Late", "LTE", 9, 2)
    write_batch(db, CHAIN, [_bundle(1, _funding(1))])
    with api_client(db) as client:
        assert _to_of_funding(client) == {"address": LATE}
        write_batch(db, CHAIN, [_bundle(2, None)], [late])  # a later batch learns the token
        expected = {"address": LATE, "name": "Late", "symbol": "LTE", "decimals": 9}
        assert _to_of_funding(client) == expected
        assert db.query("SELECT document FROM transactions WHERE block_number = 1") == [(None,)]


def test_an_unwind_takes_token_facts_out_of_earlier_documents(db: Database) -> None:
    add_chains(db)
    late = TokenRow(CHAIN, LATE, "ERC-20", "Late", "LTE", 9, 2)
    write_batch(db, CHAIN, [_bundle(1, _funding(1)), _bundle(2, None)], [late])  # one batch
    with api_client(db) as client:
        assert _to_of_funding(client)["name"] == "Late"
        unwind(db, CHAIN, 2)  # the block that created the token is gone, and the token with it
        assert _to_of_funding(client) == {"address": LATE}


def test_a_schema_1_store_upgrades_and_renders_from_the_rows(db: Database) -> None:
    if db.dialect != "sqlite":
        pytest.skip("the upgrade statements are the same on both; dropping columns is the setup")
    add_chains(db)
    ChainBuilder(db).add(4)
    before = _walk(db, ALICE, True, _transactions)
    with db.transaction() as w:
        w.execute("ALTER TABLE transactions DROP COLUMN document")
        w.execute("ALTER TABLE address_txs DROP COLUMN document")
        upgrade(w, 2)  # its steps alone: schema 11 then empties every EVM chain's rows
    assert db.query("SELECT COUNT(*) FROM transactions WHERE document IS NOT NULL") == [(0,)]
    assert _walk(db, ALICE, True, _transactions) == before
    with db.transaction() as w:
        w.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    db.migrate()
    assert db.meta("schema_version") == str(SCHEMA_VERSION)
    assert db.query("SELECT COUNT(*) FROM transactions") == [(0,)]
