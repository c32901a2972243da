"""Truth is the node, through the data API: the devnet's demo traffic (ERC-20/721/1155 transfers,
internal calls, a self-destruct, a revert) indexed into each test database (SQLite; PostgreSQL
too with SNOWFIELD_TEST_PG). For every address it touched, at three heights, every balance
operation equals what the node answers at that block (eth_getBalance, and balanceOf, ownerOf
and balanceOf(id) through eth_call); listNative and listInternals hold what the node's blocks
and callTracer traces say each address sent or received; the official client reads them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from web3 import Web3
from web3.exceptions import ContractLogicError

from snowfield.store.database import Database
from snowfield.store.rows import ChainRow
from snowfield.store.writes import upsert_chain
from snowfield.testing import (
    RunningNode,
    database_urls,
    index_node,
    open_database,
    run_demo_rounds,
    serve_devnet,
)
from tests.api.conftest import api_client, assert_error, walk
from tests.clients.chainkit import Call, drive
from tests.truth import ABI, call_frames, touched_addresses

CHAIN = 43112
BASE = f"/v1/chains/{CHAIN}"


@pytest.fixture(scope="module")
def devnet() -> Iterator[tuple[RunningNode, Web3]]:
    with serve_devnet() as node:
        run_demo_rounds(node.rpc, 2)
        yield node, Web3(Web3.HTTPProvider(node.rpc, request_kwargs={"timeout": 30}))


@dataclass
class Indexed:
    w3: Web3
    db: Database
    client: httpx.Client
    base: str
    head: int


@pytest.fixture(
    scope="module",
    params=database_urls(Path("/nonexistent")),
    ids=lambda url: url.split(":", 1)[0] if "://" in url else "sqlite",
)
def indexed(
    request: pytest.FixtureRequest,
    devnet: tuple[RunningNode, Web3],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Indexed]:
    node, w3 = devnet
    url = request.param
    if "://" not in url:
        url = str(tmp_path_factory.mktemp("db") / "snowfield.db")
    with open_database(url) as db:
        upsert_chain(db, ChainRow(CHAIN, "C-Chain", "local", node.rpc))
        index_node(db, node.rpc)
        head = w3.eth.block_number
        with api_client(db) as client:
            yield Indexed(w3, db, client, str(client.base_url), head)


def _tokens(db: Database, erc_type: str) -> list[tuple[str, int | None]]:
    rows = db.query(
        "SELECT DISTINCT token, token_id FROM transfers WHERE erc_type = ?"
        " ORDER BY token, token_id",
        (erc_type,),
    )
    return [(str(t), None if i is None else int(i)) for t, i in rows]


def _balances(indexed: Indexed, address: str, height: int) -> dict[str, Any]:
    """Everything the balance operations list for `address` at `height`, paged small."""
    client, at = indexed.client, {"blockNumber": str(height)}
    native = client.get(f"{BASE}/addresses/{address}/balances:getNative", params=at).json()
    base = f"{BASE}/addresses/{address}/balances"
    erc20 = walk(
        client, f"{base}:listErc20", "erc20TokenBalances", "ListErc20BalancesResponse",
        {**at, "pageSize": 2, "filterSpamTokens": "false"},
    )  # fmt: skip
    erc1155 = walk(
        client, f"{base}:listErc1155", "erc1155TokenBalances", "ListErc1155BalancesResponse",
        {**at, "pageSize": 2},
    )  # fmt: skip
    collectibles = walk(
        client, f"{base}:listCollectibles", "collectibleBalances",
        "ListCollectibleBalancesResponse", {**at, "pageSize": 3},
    )  # fmt: skip
    assert [c for c in collectibles if c["ercType"] == "ERC-1155"] == erc1155
    return {
        "native": int(native["nativeTokenBalance"]["balance"]),
        "erc20": {t["address"]: int(t["balance"]) for t in erc20},
        "erc1155": {(t["address"], int(t["tokenId"])): int(t["balance"]) for t in erc1155},
        "erc721": [(t["address"], int(t["tokenId"])) for t in collectibles if "balance" not in t],
    }


def test_every_balance_at_three_heights_is_the_nodes(indexed: Indexed) -> None:
    w3, db, head = indexed.w3, indexed.db, indexed.head
    addresses = touched_addresses(db)
    erc20, erc721, erc1155 = (_tokens(db, k) for k in ("ERC-20", "ERC-721", "ERC-1155"))
    assert len(addresses) > 10 and erc20 and erc721 and erc1155
    contracts = {
        t: w3.eth.contract(Web3.to_checksum_address(t), abi=ABI)
        for t, _ in (*erc20, *erc721, *erc1155)
    }
    checked = 0
    for height in (head // 3, 2 * head // 3, head):
        owners: dict[tuple[str, int], str] = {}
        for address in addresses:
            who = Web3.to_checksum_address(address)
            listed = _balances(indexed, address, height)
            assert listed["native"] == w3.eth.get_balance(who, height), (address, height)
            for token, _ in erc20:
                read = contracts[token].get_function_by_signature("balanceOf(address)")
                node = read(who).call(block_identifier=height)
                assert listed["erc20"].get(token, 0) == node, (address, token, height)
                checked += 1
            for token, token_id in erc1155:
                assert token_id is not None
                read = contracts[token].get_function_by_signature("balanceOf(address,uint256)")
                node = read(who, token_id).call(block_identifier=height)
                assert listed["erc1155"].get((token, token_id), 0) == node, (address, height)
                checked += 1
            for key in listed["erc721"]:
                assert key not in owners
                owners[key] = address
        for token, token_id in erc721:
            assert token_id is not None
            try:
                owner = contracts[token].functions.ownerOf(token_id).call(block_identifier=height)
            except ContractLogicError:  # not minted yet at that height, or burnt
                owner = None
            assert owners.get((token, token_id)) == (owner.lower() if owner else None)
            checked += 1
    assert checked > 100


def test_the_latest_balance_is_the_heads(indexed: Indexed) -> None:
    for address in touched_addresses(indexed.db)[:8]:
        now = indexed.client.get(f"{BASE}/addresses/{address}/balances:getNative").json()
        at_head = _balances(indexed, address, indexed.head)["native"]
        assert int(now["nativeTokenBalance"]["balance"]) == at_head
    beyond = {"blockNumber": str(indexed.head + 1)}
    reply = indexed.client.get(f"{BASE}/addresses/{address}/balances:getNative", params=beyond)
    assert_error(reply, 400, "beyond")


def test_address_histories_are_the_nodes(indexed: Indexed) -> None:
    """listNative: every transaction an address sent or received (a creation: the created
    contract); listInternals: every value-moving CALL/CALLCODE and every CREATE/CREATE2 frame
    it sent or received, from the node's blocks and callTracer traces."""
    w3 = indexed.w3
    native: dict[str, list[tuple[int, int, str]]] = {}
    internal: dict[str, list[tuple[int, str]]] = {}
    for number in range(indexed.head + 1):
        block = w3.eth.get_block(number, full_transactions=True)
        for tx in block["transactions"]:
            tx_hash = tx["hash"].to_0x_hex()
            to = tx["to"] or w3.eth.get_transaction_receipt(tx_hash)["contractAddress"]
            for who in {tx["from"].lower(), to.lower()}:
                native.setdefault(who, []).append((number, tx["transactionIndex"], tx_hash))
            trace = w3.provider.make_request(
                "debug_traceTransaction", [tx_hash, {"tracer": "callTracer"}]
            )["result"]
            for f in call_frames(trace):
                value = int(f.get("value", "0x0"), 16)
                if f["type"] in ("CREATE", "CREATE2") or (
                    f["type"] in ("CALL", "CALLCODE") and value > 0
                ):
                    for who in {f["from"].lower(), f["to"].lower()}:
                        internal.setdefault(who, []).append((number, tx_hash))
    assert native and internal
    for address, txs in native.items():
        listed = walk(
            indexed.client, f"{BASE}/addresses/{address}/transactions:listNative",
            "transactions", "ListNativeTransactionsResponse", {"pageSize": 4},
        )  # fmt: skip
        assert [t["txHash"] for t in listed] == [h for _, _, h in sorted(txs, reverse=True)]
    for address, frames in internal.items():
        listed = walk(
            indexed.client, f"{BASE}/addresses/{address}/transactions:listInternals",
            "transactions", "ListInternalTransactionsResponse", {"pageSize": 3},
        )  # fmt: skip
        assert sorted((int(t["blockNumber"]), t["txHash"]) for t in listed) == sorted(frames)


def test_the_official_client_reads_the_demo(indexed: Indexed) -> None:
    holders = indexed.db.query(
        "SELECT holder, COUNT(*) FROM token_balances WHERE balance <> '0' GROUP BY holder"
        " ORDER BY COUNT(*) DESC, holder LIMIT 1"
    )
    holder = str(holders[0][0])
    at = str(indexed.head // 2)
    results = drive(
        [
            Call("data.evm.address.balances.getNative", {"address": holder, "blockNumber": at}),
            Call(
                "data.evm.address.balances.listErc20",
                {"address": holder, "pageSize": 1, "filterSpamTokens": False},
                "all",
            ),
            Call(
                "data.evm.address.balances.listErc1155", {"address": holder, "pageSize": 1}, "all"
            ),
            Call(
                "data.evm.address.balances.listCollectibles",
                {"address": holder, "pageSize": 1},
                "all",
            ),
            Call(
                "data.evm.address.transactions.listNative",
                {"address": holder, "pageSize": 3},
                "all",
            ),
            Call("data.evm.address.chains.list", {"address": holder}),
        ],
        data=indexed.base,
    )
    native, erc20, erc1155, collectibles, history, chains = results
    mine = _balances(indexed, holder, indexed.head)
    assert int(native.unwrap()["nativeTokenBalance"]["balance"]) == indexed.w3.eth.get_balance(
        Web3.to_checksum_address(holder), int(at)
    )
    pages = erc20.all_pages()
    assert {t["address"]: int(t["balance"]) for p in pages for t in p["erc20TokenBalances"]} == (
        mine["erc20"]
    )
    listed = [t for p in erc1155.all_pages() for t in p["erc1155TokenBalances"]]
    assert {(t["address"], int(t["tokenId"])): int(t["balance"]) for t in listed} == mine["erc1155"]
    held = [t for p in collectibles.all_pages() for t in p["collectibleBalances"]]
    assert len(held) == len(mine["erc721"]) + len(mine["erc1155"]) > 1
    ours = walk(
        indexed.client, f"{BASE}/addresses/{holder}/transactions:listNative", "transactions",
        "ListNativeTransactionsResponse", {"pageSize": 100},
    )  # fmt: skip
    theirs = [t["txHash"] for p in history.all_pages() for t in p["transactions"]]
    assert theirs == [t["txHash"] for t in ours] and len(theirs) > 1
    assert [c["chainId"] for c in chains.unwrap()["indexedChains"]] == [str(CHAIN)]
