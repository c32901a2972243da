"""Operation 5's lean path (store/history_pages.py: items joined as bytes from the stored
documents) answers byte for byte what rendering the rows gives, over the demo index, on every
address, in both orders, across pages; and through the HTTP server too."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import httpx
import orjson

from snowfield.api.evm import address_history
from snowfield.api.evm.address_history import _rendered_native
from snowfield.api.evm.addresses import Listing, _items, _rendered_transactions
from snowfield.store import history_pages
from snowfield.store.database import PAGE_SIZE, Database
from snowfield.store.pagination import Page
from snowfield.store.schema import SCHEMA_VERSION
from snowfield.store.writes import unwind
from tests.api.conftest import CHAIN, ChainBuilder, add_chains

_HEAD = b'{"transactions":'


def _transactions(db: Database, q: Listing) -> tuple[Any, Page[Any]]:
    """Operation 5's page as its handler makes it: the answer's bytes joined from the stored
    documents (its array embedded here), rendered from the rows when one is missing."""
    page = _items(db, q)
    body = history_pages.transactions_document(page, b"}")
    if body is None:
        return _rendered_transactions(db, q)
    assert body.startswith(_HEAD) and body.endswith(b"}")
    return orjson.Fragment(body[len(_HEAD) : -1]), page


def _native(db: Database, q: Listing) -> tuple[Any, Page[Any]]:
    """listNative's page as its handler makes it (as `_transactions`)."""
    page = address_history._native(db, q)
    body = history_pages.natives_document(page, b"}")
    if body is None:
        return _rendered_native(db, q)
    assert body.startswith(_HEAD) and body.endswith(b"}")
    return orjson.Fragment(body[len(_HEAD) : -1]), page


def _pages(db: Database, address: str, descending: bool, fn: Any) -> list[bytes]:
    """Each page's items serialized as the service serializes them, with its next key."""
    out: list[bytes] = []
    after = None
    for _ in range(200):
        items, page = fn(db, Listing(CHAIN, address, None, None, descending, after, 3))
        out.append(orjson.dumps({"transactions": items, "next": page.next_key}))
        if page.next_key is None:
            return out
        after = page.next_key
    raise AssertionError("more than 200 pages")


def _addresses(db: Database) -> list[str]:
    return [str(r[0]) for r in db.query("SELECT DISTINCT address FROM address_txs ORDER BY 1")]


def test_lean_pages_are_the_rendered_bytes(filled: Database) -> None:
    addresses = _addresses(filled)
    assert len(addresses) > 3
    compared = 0
    for address in addresses:
        for descending in (True, False):
            lean = _pages(filled, address, descending, _transactions)
            assert lean == _pages(filled, address, descending, _rendered_transactions)
            compared += len(lean)
    assert compared > len(addresses) * 2  # some addresses span several pages


def test_lean_native_pages_are_the_rendered_bytes(filled: Database) -> None:
    """listNative on the same layout: the stored documents, byte for byte the rendering."""
    compared = 0
    for address in _addresses(filled):
        for descending in (True, False):
            lean = _pages(filled, address, descending, _native)
            assert lean == _pages(filled, address, descending, _rendered_native)
            compared += lean[0] != b'{"transactions":[],"next":null}'
    assert compared > 4


def test_a_missing_document_falls_back_to_the_same_bytes(filled: Database) -> None:
    """A NULL document (stale token facts, read_model.forget_naming) makes the page render
    from the rows; the bytes stay the same."""
    address = _addresses(filled)[0]
    before = _pages(filled, address, True, _transactions)
    native = _pages(filled, address, True, _native)
    key = "chain_id, address, block_number, tx_index"
    with filled.transaction() as w:  # where SQLite (the copy) and PostgreSQL (the join) read
        saved = w.query(f"SELECT native_document, {key} FROM address_txs")
        kept = w.query("SELECT document, chain_id, block_number, tx_index FROM transactions")
        w.execute("UPDATE address_txs SET native_document = NULL")
        w.execute("UPDATE transactions SET document = NULL")
    try:
        assert not _lean(filled, address)
        assert _pages(filled, address, True, _transactions) == before
        assert _pages(filled, address, True, _native) == native
    finally:
        with filled.transaction() as w:
            w.executemany(
                "UPDATE address_txs SET native_document = ? WHERE chain_id = ? AND address = ?"
                " AND block_number = ? AND tx_index = ?",
                saved,
            )
            w.executemany(
                "UPDATE transactions SET document = ?"
                " WHERE chain_id = ? AND block_number = ? AND tx_index = ?",
                kept,
            )
    assert _lean(filled, address)


def _lean(db: Database, address: str) -> bool:
    """Whether the first page is served from the stored documents (no NULL item)."""
    listing = Listing(CHAIN, address, None, None, True, None, 3)
    page = history_pages.address_items(db, CHAIN, address, **listing.window())
    return history_pages.transactions_document(page, b"}") is not None


def test_the_server_sends_the_rendered_bytes(filled: Database, api: httpx.Client) -> None:
    for address in _addresses(filled):
        response = api.get(f"/v1/chains/{CHAIN}/addresses/{address}/transactions?pageSize=100")
        assert response.status_code == 200
        body = orjson.loads(response.content)
        listing = Listing(CHAIN, address, None, None, True, None, 100)
        items, _ = _rendered_transactions(filled, listing)
        expected = orjson.dumps(items)
        assert response.content.startswith(b'{"transactions":' + expected)
        assert len(body["transactions"]) == len(items)


def test_served_pages_are_what_orjson_writes_and_page_on(
    filled: Database, api: httpx.Client
) -> None:
    """The answers made as bytes (`Body`), with and without a nextPageToken: the bytes orjson
    writes for the same object, and every item reached through the tokens, once."""
    for path in ("transactions", "transactions:listNative"):
        for address in _addresses(filled):
            url = f"/v1/chains/{CHAIN}/addresses/{address}/{path}?pageSize=2"
            listed, token, pages = [], None, 0
            while pages < 100:
                response = api.get(url + (f"&pageToken={token}" if token else ""))
                assert response.status_code == 200
                body = orjson.loads(response.content)
                assert response.content == orjson.dumps(body)
                assert set(body) <= {"transactions", "nextPageToken"}
                listed += body["transactions"]
                pages += 1
                token = body.get("nextPageToken")
                if token is None:
                    break
                assert len(body["transactions"]) == 2
            everything = api.get(url.replace("pageSize=2", "pageSize=100")).json()
            assert listed == everything["transactions"]


def _all_pages(db: Database) -> dict[str, list[bytes]]:
    """Operation 5's and listNative's pages of every address."""
    return {
        a: [*_pages(db, a, True, _transactions), *_pages(db, a, True, _native)]
        for a in _addresses(db)
    }


def test_an_upgrade_writes_the_documents_beside_each_row(db: Database) -> None:
    """A schema-11 store (no native_document) upgrades to the layout: every row gains its
    document and the pages stay byte for byte the same, now served from the documents."""
    add_chains(db)
    ChainBuilder(db).add(8)
    before = _all_pages(db)
    with db.transaction() as w:
        w.execute("ALTER TABLE address_txs DROP COLUMN native_document")
        w.execute("UPDATE meta SET value = '11' WHERE key = 'schema_version'")
    db.migrate()
    assert db.meta("schema_version") == str(SCHEMA_VERSION)
    if db.dialect == "sqlite":  # the layout, in the pages a new store gets
        assert db.query("PRAGMA page_size") == [(PAGE_SIZE,)]
    assert _uncopied(db) == 0
    assert _all_pages(db) == before
    assert all(_lean(db, a) for a in before)


def _uncopied(db: Database) -> int:
    """address_txs rows without the copy of their transaction's document."""
    return int(
        db.query(
            "SELECT COUNT(*) FROM address_txs a JOIN transactions t ON t.chain_id = a.chain_id"
            " AND t.block_number = a.block_number AND t.tx_index = a.tx_index"
            " WHERE a.native_document IS NULL OR a.native_document <> t.document"
        )[0][0]
    )


def test_a_postgresql_store_of_26_gets_the_copies(db: Database) -> None:
    """Before schema 27 PostgreSQL wrote no copies and read through the join; its upgrade
    copies every document, and the pages stay byte for byte the same, now from the copies.
    (SQLite's rows have had them since 19: its step changes nothing, checked too.)"""
    add_chains(db)
    ChainBuilder(db).add(8)
    before = _all_pages(db)
    if db.dialect != "sqlite":  # as 26 wrote them
        with db.transaction() as w:
            w.execute("UPDATE address_txs SET native_document = NULL")
        assert not any(_lean(db, a) for a in before)  # rendered from the rows meanwhile
        assert _all_pages(db) == before
    with db.transaction() as w:
        w.execute("UPDATE meta SET value = '26' WHERE key = 'schema_version'")
    db.migrate()
    assert db.meta("schema_version") == str(SCHEMA_VERSION)
    assert _uncopied(db) == 0
    assert _all_pages(db) == before
    assert all(_lean(db, a) for a in before)


def test_an_unwind_removes_the_documents_of_unwound_blocks(db: Database) -> None:
    add_chains(db)
    ChainBuilder(db).add(10)
    unwind(db, CHAIN, 6)
    assert db.query(
        "SELECT COUNT(*) FROM address_txs WHERE chain_id = ? AND block_number >= 6", (CHAIN,)
    ) == [(0,)]
    for address in _addresses(db):
        lean = _pages(db, address, True, _transactions)
        assert lean == _pages(db, address, True, _rendered_transactions)
        assert _pages(db, address, True, _native) == _pages(db, address, True, _rendered_native)


def test_an_upgraded_sqlite_store_is_rewritten_in_the_new_page_size(tmp_path: Path) -> None:
    """A store of 4 KiB pages (schema 11) upgrades into 16 KiB ones, pages unchanged."""
    path = tmp_path / "old.db"
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA page_size=4096")
    raw.execute("CREATE TABLE early (a)")  # fixes the page size before Database opens it
    raw.close()
    db = Database(str(path))
    try:
        db.migrate()
        add_chains(db)
        ChainBuilder(db).add(6)
        before = _all_pages(db)
        with db.transaction() as w:
            w.execute("ALTER TABLE address_txs DROP COLUMN native_document")
            w.execute("UPDATE meta SET value = '11' WHERE key = 'schema_version'")
        assert db.query("PRAGMA page_size") == [(4096,)]
        db.migrate()
        assert db.query("PRAGMA page_size") == [(PAGE_SIZE,)]
        assert db.query("PRAGMA journal_mode") == [("wal",)]
        db.query("PRAGMA wal_checkpoint(TRUNCATE)")  # no statement of the rewrite left active
        assert _all_pages(db) == before
        assert all(_lean(db, a) for a in before)
    finally:
        db.close()
