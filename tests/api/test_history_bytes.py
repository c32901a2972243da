"""Operation 5's lean path (store/history_pages.py: items concatenated by SQL from the stored
documents) answers byte for byte what rendering the rows gives, over the demo index, on every
address, in both orders, across pages; and through the HTTP server too."""

from __future__ import annotations

from typing import Any

import httpx
import orjson

from snowfield.api.evm.addresses import Listing, _rendered_transactions, _transactions
from snowfield.store.database import Database
from tests.api.conftest import CHAIN


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


def test_a_missing_document_falls_back_to_the_same_bytes(filled: Database) -> None:
    """A NULL document (stale token facts, read_model.forget_naming) makes the page render
    from the rows; the bytes stay the same."""
    address = _addresses(filled)[0]
    before = _pages(filled, address, True, _transactions)
    with filled.transaction() as w:
        saved = w.query("SELECT chain_id, block_number, tx_index, document FROM transactions")
        w.execute("UPDATE transactions SET document = NULL")
    try:
        assert _pages(filled, address, True, _transactions) == before
    finally:
        with filled.transaction() as w:
            w.executemany(
                "UPDATE transactions SET document = ?"
                " WHERE chain_id = ? AND block_number = ? AND tx_index = ?",
                [(d, c, b, i) for c, b, i, d in saved],
            )


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
