"""Paging: pages add up to the whole list with no duplicates (also while blocks arrive), tokens
cannot be altered or moved to another query, page sizes are bounded, block ranges are exact."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from snowfield.store.database import Database
from tests.api.conftest import (
    ALICE,
    BOB,
    CHAIN,
    FACTORY,
    ChainBuilder,
    add_chains,
    api_client,
    assert_error,
    walk,
)

BASE = f"/v1/chains/{CHAIN}"
Key = Callable[[dict[str, Any]], Any]


def _tx_key(entry: dict[str, Any]) -> tuple[int, int]:
    native = entry["nativeTransaction"]
    return int(native["blockNumber"]), native["blockIndex"]


def _transfer_key(item: dict[str, Any]) -> tuple[int, int]:
    return int(item["blockNumber"]), item["logIndex"]


# path, list field, response schema, key of an item, extra query
LISTS: list[tuple[str, str, str, Key, dict[str, Any]]] = [
    (
        f"{BASE}/addresses/{ALICE}/transactions",
        "transactions",
        "ListTransactionsResponse",
        _tx_key,
        {},
    ),
    (
        f"{BASE}/addresses/{ALICE}/transactions",
        "transactions",
        "ListTransactionsResponse",
        _tx_key,
        {"sortOrder": "asc"},
    ),
    (
        f"{BASE}/addresses/{BOB}/transactions:listErc20",
        "transactions",
        "ListErc20TransactionsResponse",
        _transfer_key,
        {},
    ),
    (
        f"{BASE}/addresses/{BOB}/transactions:listErc721",
        "transactions",
        "ListErc721TransactionsResponse",
        _transfer_key,
        {},
    ),
    (
        f"{BASE}/contracts/{ALICE}/deployments",
        "contracts",
        "ListContractsResponse",
        lambda c: c["address"],
        {},
    ),
    (
        f"{BASE}/blocks/6/transactions",
        "transactions",
        "ListBlockTransactionsResponse",
        lambda t: t["blockIndex"],
        {},
    ),
]


@pytest.fixture
def growing(db: Database) -> ChainBuilder:
    add_chains(db)
    builder = ChainBuilder(db)
    builder.add(8)
    return builder


@pytest.mark.parametrize("size", [1, 3, 7])
@pytest.mark.parametrize("case", LISTS, ids=lambda c: c[0].split("/")[-1] + str(c[4]))
def test_pages_add_up_while_blocks_arrive(
    db: Database, growing: ChainBuilder, case: tuple[Any, ...], size: int
) -> None:
    path, field, schema, key, extra = case
    with api_client(db) as client:
        before = walk(client, path, field, schema, {"pageSize": 100, **extra})
        assert before, "the builder should give every list some items"
        arrivals = iter(range(3))  # a few blocks arrive while paging, then the chain rests

        def arrive() -> None:
            if next(arrivals, None) is not None:
                growing.add(1)

        paged = walk(client, path, field, schema, {"pageSize": size, **extra}, arrive)
        after = walk(client, path, field, schema, {"pageSize": 100, **extra})
    keys = [key(i) for i in paged]
    assert len(keys) == len(set(keys)), "an item appeared on two pages"
    if len(before) > size and "deployments" not in path and "blocks" not in path:
        assert len(after) > len(before), "blocks should have arrived during the walk"
    if extra.get("sortOrder") == "asc":
        # Oldest first: blocks that arrived during the walk join its end.
        assert paged == after
    else:
        # Newest first: the walk is exactly the list as it stood when it began.
        assert paged == before
    ordered = sorted(keys, reverse=extra.get("sortOrder") != "asc" and "blocks" not in path)
    if "deployments" not in path:
        assert keys == ordered


def test_erc721_holdings_page_up_to_the_whole_list(db: Database, growing: ChainBuilder) -> None:
    growing.add(30)  # ALICE holds the last mint; BOB every earlier even id
    path = f"{BASE}/addresses/{BOB}/balances:listErc721"
    with api_client(db) as client:
        whole = walk(
            client, path, "erc721TokenBalances", "ListErc721BalancesResponse", {"pageSize": 500}
        )
        paged = walk(
            client, path, "erc721TokenBalances", "ListErc721BalancesResponse", {"pageSize": 4}
        )
    assert paged == whole
    assert sorted(int(t["tokenId"]) for t in whole) == list(range(2, 38, 2))


def _first_token(client: httpx.Client, path: str, **params: Any) -> str:
    body = client.get(path, params={"pageSize": 1, **params}).json()
    token: str = body["nextPageToken"]
    return token


def test_altered_and_foreign_tokens_are_refused(db: Database, growing: ChainBuilder) -> None:
    alice = f"{BASE}/addresses/{ALICE}/transactions"
    with api_client(db) as client:
        token = _first_token(client, alice)
        assert client.get(alice, params={"pageToken": token}).status_code == 200
        body, mac = token.split(".")
        flipped = body[:-2] + ("A" if body[-2] != "A" else "B") + body[-1]
        for bad in (f"{flipped}.{mac}", f"{body}.{mac[::-1]}", "garbage", "", "a.b.c"):
            assert_error(client.get(alice, params={"pageToken": bad}), 400, "pageToken")
        foreign = [
            (f"{BASE}/addresses/{BOB}/transactions", {}),
            (alice, {"sortOrder": "asc"}),
            (alice, {"startBlock": 1}),
            (alice, {"endBlock": 100}),
            (f"{BASE}/addresses/{ALICE}/transactions:listErc20", {}),
            (f"{BASE}/contracts/{ALICE}/deployments", {}),
        ]
        for path, params in foreign:
            response = client.get(path, params={"pageToken": token, **params})
            assert_error(response, 400, "pageToken")
        # A token of one query never answers another, even with the other's parameters.
        erc20 = _first_token(client, f"{BASE}/addresses/{ALICE}/transactions:listErc20")
        assert_error(client.get(alice, params={"pageToken": erc20}), 400, "pageToken")


def test_tokens_of_another_database_are_refused(
    db: Database, growing: ChainBuilder, tmp_path: Any
) -> None:
    from snowfield.testing import open_database

    with open_database(str(tmp_path / "other.db")) as other:
        add_chains(other)
        ChainBuilder(other).add(8)
        with api_client(other) as client:
            token = _first_token(client, f"{BASE}/addresses/{ALICE}/transactions")
    with api_client(db) as client:
        response = client.get(f"{BASE}/addresses/{ALICE}/transactions", params={"pageToken": token})
        assert_error(response, 400, "pageToken")


BOUNDS = [
    (f"{BASE}/addresses/{ALICE}/transactions", 1, 100),
    (f"{BASE}/addresses/{ALICE}/transactions:listErc20", 1, 100),
    (f"{BASE}/addresses/{ALICE}/transactions:listErc721", 1, 100),
    (f"{BASE}/addresses/{ALICE}/balances:listErc721", 1, 500),
    (f"{BASE}/blocks/2/transactions", 0, 100),
    (f"{BASE}/contracts/{ALICE}/deployments", 1, 100),
]


def test_page_size_bounds(db: Database, growing: ChainBuilder) -> None:
    with api_client(db) as client:
        for path, low, high in BOUNDS:
            for ok in (low, high):
                assert client.get(path, params={"pageSize": ok}).status_code == 200, (path, ok)
            for bad in (low - 1, high + 1, "ten", "1.5", "-1", "", "99999999999999999999999"):
                assert_error(client.get(path, params={"pageSize": bad}), 400, "pageSize")


def _blocks(client: httpx.Client, **params: Any) -> list[int]:
    response = client.get(
        f"{BASE}/addresses/{BOB}/transactions:listErc20", params={"pageSize": 100, **params}
    )
    assert response.status_code == 200, response.text
    return [int(t["blockNumber"]) for t in response.json()["transactions"]]


def test_block_ranges_are_start_inclusive_end_exclusive(
    db: Database, growing: ChainBuilder
) -> None:
    with api_client(db) as client:
        assert _blocks(client, startBlock=3, endBlock=6) == [5, 4, 3]
        assert _blocks(client, startBlock=6) == [8, 7, 6]
        assert _blocks(client, endBlock=3) == [2, 1]
        assert _blocks(client, startBlock=4, endBlock=4) == []
        assert _blocks(client) == list(range(8, 0, -1))
        response = client.get(
            f"{BASE}/addresses/{ALICE}/transactions",
            params={"startBlock": 4, "endBlock": 5, "sortOrder": "asc"},
        )
        entries = response.json()["transactions"]
        assert {e["nativeTransaction"]["blockNumber"] for e in entries} == {"4"}
        assert [e["nativeTransaction"]["blockIndex"] for e in entries] == [0, 1, 2]
        assert_error(
            client.get(
                f"{BASE}/addresses/{BOB}/transactions", params={"startBlock": 5, "endBlock": 2}
            ),
            400,
            "endBlock",
        )
        for name in ("startBlock", "endBlock"):
            for bad in ("-1", "x", "0x10", str(2**63)):
                response = client.get(f"{BASE}/addresses/{BOB}/transactions", params={name: bad})
                assert_error(response, 400, name)


def test_deployments_page_token_binds_the_deployer(db: Database, growing: ChainBuilder) -> None:
    with api_client(db) as client:
        token = _first_token(client, f"{BASE}/contracts/{ALICE}/deployments")
        response = client.get(
            f"{BASE}/contracts/{FACTORY}/deployments", params={"pageToken": token}
        )
        assert_error(response, 400, "pageToken")
