"""End to end: demo traffic on a real devnet, indexed by the real indexer, read back through the
data API; every body matches the OpenAPI document and agrees with the node over JSON-RPC."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from web3 import Web3

from snowfield.store.database import Database
from snowfield.testing import index_node, open_database, run_demo_rounds, serve_devnet
from tests.api.conftest import api_client, assert_matches


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[httpx.Client, Web3, Any]]:
    with serve_devnet() as node:
        report = run_demo_rounds(node.rpc, 2)
        path: Path = tmp_path_factory.mktemp("e2e") / "snowfield.db"
        with open_database(str(path)) as db:
            _record_chain(db, node.rpc)
            index_node(db, node.rpc)
            w3 = Web3(Web3.HTTPProvider(node.rpc, request_kwargs={"timeout": 30}))
            with api_client(db) as client:
                yield client, w3, report


def _record_chain(db: Database, rpc: str) -> None:
    from snowfield.store.rows import ChainRow
    from snowfield.store.writes import upsert_chain

    upsert_chain(db, ChainRow(chain_id=43112, name="C-Chain", network="local", rpc_url=rpc))


def _get(client: httpx.Client, path: str, schema: str, **params: Any) -> Any:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    body = response.json()
    assert_matches(body, schema)
    return body


def test_every_sender_history_matches_the_node(indexed: tuple[httpx.Client, Web3, Any]) -> None:
    client, w3, _ = indexed
    sender = w3.eth.get_block(w3.eth.block_number, full_transactions=True)["transactions"][0][
        "from"
    ]
    sender = sender.lower()
    entries = _get(
        client,
        f"/v1/chains/43112/addresses/{sender}/transactions",
        "ListTransactionsResponse",
        pageSize=100,
    )["transactions"]
    assert entries
    kinds = {e["nativeTransaction"]["method"]["callType"] for e in entries}
    assert "CONTRACT_CALL" in kinds
    for entry in entries[:10]:
        native = entry["nativeTransaction"]
        tx = w3.eth.get_transaction(native["txHash"])
        receipt = w3.eth.get_transaction_receipt(native["txHash"])
        assert native["blockNumber"] == str(tx["blockNumber"])
        assert native["value"] == str(tx["value"]) and native["nonce"] == str(tx["nonce"])
        assert native["txStatus"] == str(receipt["status"])
        assert native["gasUsed"] == str(receipt["gasUsed"])
        if tx["to"] is None:
            assert native["to"]["address"] == receipt["contractAddress"].lower()


def test_blocks_transfers_holdings_and_contracts(indexed: tuple[httpx.Client, Web3, Any]) -> None:
    client, w3, _ = indexed
    head = w3.eth.block_number
    block = _get(
        client, f"/v1/chains/43112/blocks/{head}/transactions", "ListBlockTransactionsResponse"
    )
    assert len(block["transactions"]) == len(w3.eth.get_block(head)["transactions"])
    deployer = w3.eth.get_transaction(w3.eth.get_block(1)["transactions"][0])["from"].lower()
    contracts = _get(
        client,
        f"/v1/chains/43112/contracts/{deployer}/deployments",
        "ListContractsResponse",
        pageSize=100,
    )["contracts"]
    assert contracts
    types = {c["ercType"] for c in contracts}
    assert {"ERC-20", "ERC-721"} <= types
    for contract in contracts:
        metadata = _get(
            client, f"/v1/chains/43112/addresses/{contract['address']}", "ContractMetadata"
        )
        assert metadata == contract
    erc20 = _get(
        client,
        f"/v1/chains/43112/addresses/{deployer}/transactions:listErc20",
        "ListErc20TransactionsResponse",
    )
    assert erc20["transactions"]
    for address in {t["to"]["address"] for t in erc20["transactions"]}:
        _get(
            client,
            f"/v1/chains/43112/addresses/{address}/balances:listErc721",
            "ListErc721BalancesResponse",
        )
        _get(
            client,
            f"/v1/chains/43112/addresses/{address}/transactions:listErc721",
            "ListErc721TransactionsResponse",
        )
