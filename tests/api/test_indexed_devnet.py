"""End to end: demo traffic on a real devnet, indexed by the real indexer, read back through the
data API; every body matches the OpenAPI document and agrees with the node over JSON-RPC."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from web3 import Web3

from snowfield.store.database import Database
from snowfield.testing import index_node, open_database, run_demo_rounds, serve_devnet
from tests.api.conftest import api_client, assert_matches, walk


@pytest.fixture(scope="module")
def e2e_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("e2e") / "snowfield.db"


@pytest.fixture(scope="module")
def indexed(e2e_path: Path) -> Iterator[tuple[httpx.Client, Web3, Any]]:
    with serve_devnet() as node:
        report = run_demo_rounds(node.rpc, 2)
        with open_database(str(e2e_path)) as db:
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


TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
SINGLE = "0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62"
BATCH = "0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb"


def _pages(client: httpx.Client, path: str, key: str, **params: Any) -> list[Any]:
    """Every item of a listing, following nextPageToken with small pages."""
    items: list[Any] = []
    token = None
    for _ in range(1000):
        query = {**params, **({"pageToken": token} if token else {})}
        body = client.get(path, params=query).json()
        items += body[key]
        token = body.get("nextPageToken")
        if not token:
            return items
    raise AssertionError("paging did not end")


class NodeView:
    """What the node says of the whole chain, read independently of the indexer: each
    transaction's parties in every role, transfer logs, call frames and creations."""

    def __init__(self, w3: Web3, rpc: str) -> None:
        self.txs: dict[str, dict[str, Any]] = {}
        self.parties: dict[str, set[str]] = {}
        self.logs: list[tuple[str, Any]] = []
        self.created: dict[str, set[str]] = {}  # contract -> its tx sender and factory
        for number in range(w3.eth.block_number + 1):
            for tx in w3.eth.get_block(number, full_transactions=True)["transactions"]:
                self._add(w3, rpc, tx)

    def _add(self, w3: Web3, rpc: str, tx: Any) -> None:
        h = tx["hash"].to_0x_hex()
        receipt = w3.eth.get_transaction_receipt(h)
        self.txs[h] = {"tx": tx, "receipt": receipt}
        sender = tx["from"].lower()
        parties = {sender, (tx["to"] or receipt["contractAddress"] or "").lower()}
        if receipt["status"] == 1:
            for log in receipt["logs"]:
                topics = [t.to_0x_hex() for t in log["topics"]]
                if topics and topics[0] in (TRANSFER, SINGLE, BATCH):
                    self.logs.append((h, log))
                    ends = topics[1:3] if topics[0] == TRANSFER else topics[2:4]
                    parties |= {"0x" + t[-40:] for t in ends}
            if receipt["contractAddress"]:
                self.created[receipt["contractAddress"].lower()] = {sender}
        body = {"jsonrpc": "2.0", "id": 1, "method": "debug_traceTransaction",
                "params": [h, {"tracer": "callTracer"}]}  # fmt: skip
        trace = httpx.post(rpc, json=body, timeout=30).json()["result"]
        stack = list(trace.get("calls") or [])
        while stack:
            frame = stack.pop()
            parties |= {frame["from"].lower(), frame["to"].lower()}
            stack += frame.get("calls") or []
            if frame["type"] in ("CREATE", "CREATE2") and not frame.get("error"):
                self.created[frame["to"].lower()] = {sender, frame["from"].lower()}
        self.parties[h] = parties


def test_every_transaction_transfer_balance_and_deployment_of_each_account(
    indexed: tuple[httpx.Client, Web3, Any],
) -> None:
    client, w3, report = indexed
    node = NodeView(w3, str(w3.provider.endpoint_uri))  # type: ignore[attr-defined]
    accounts = set().union(*node.parties.values())  # every address in any role
    assert len(accounts) >= 12
    for account in sorted(accounts):
        _check_history(client, node, account)
        _check_transfers(client, node, account)
        _check_holdings(client, node, w3, report.contracts["DemoNFT"], account)
        _check_deployments(client, node, account)


def _check_history(client: httpx.Client, node: NodeView, account: str) -> None:
    """Operation 5: every transaction involving the account in any role, each as the node
    has it, sub-lists limited to the account."""
    url = f"/v1/chains/43112/addresses/{account}/transactions"
    entries = _pages(client, url, "transactions", pageSize=7)
    hashes = [e["nativeTransaction"]["txHash"] for e in entries]
    assert len(hashes) == len(set(hashes))
    assert set(hashes) == {h for h, p in node.parties.items() if account in p}
    for entry in entries:
        native = entry["nativeTransaction"]
        tx, receipt = node.txs[native["txHash"]]["tx"], node.txs[native["txHash"]]["receipt"]
        assert native["blockNumber"] == str(tx["blockNumber"])
        assert native["blockIndex"] == tx["transactionIndex"]
        assert native["from"]["address"] == tx["from"].lower()
        assert native["value"] == str(tx["value"])
        assert native["gasUsed"] == str(receipt["gasUsed"])
        assert native["gasPrice"] == str(receipt["effectiveGasPrice"])
        assert native["txStatus"] == str(receipt["status"])
        for sub in ("erc20Transfers", "erc721Transfers", "erc1155Transfers"):
            for t in entry.get(sub, []):
                assert account in (t["from"]["address"], t["to"]["address"])


def _check_transfers(client: httpx.Client, node: NodeView, account: str) -> None:
    """Operations 6 and 7: every ERC-20 and ERC-721 transfer the logs show for the account."""
    for op, erc721 in (("listErc20", False), ("listErc721", True)):
        url = f"/v1/chains/43112/addresses/{account}/transactions:{op}"
        listed = _pages(client, url, "transactions", pageSize=3)
        expected = {
            (h, log["logIndex"])
            for h, log in node.logs
            if log["topics"][0].to_0x_hex() == TRANSFER
            and (len(log["topics"]) == 4) == erc721
            and account in {"0x" + t.to_0x_hex()[-40:] for t in log["topics"][1:3]}
        }
        assert {(t["txHash"], t["logIndex"]) for t in listed} == expected


OWNER_OF = [
    {
        "name": "ownerOf",
        "type": "function",
        "stateMutability": "view",
        "inputs": [{"name": "id", "type": "uint256"}],
        "outputs": [{"name": "", "type": "address"}],
    }
]


def _check_holdings(
    client: httpx.Client, node: NodeView, w3: Web3, nft_address: str, account: str
) -> None:
    """Operation 8: the native balance and every ERC-721 the account holds now."""
    url = f"/v1/chains/43112/addresses/{account}/balances:listErc721"
    holdings = client.get(url, params={"pageSize": 500}).json()
    balance = w3.eth.get_balance(Web3.to_checksum_address(account))
    assert holdings["nativeTokenBalance"]["balance"] == str(balance)
    nft = w3.eth.contract(address=Web3.to_checksum_address(nft_address), abi=OWNER_OF)
    minted = {
        int(log["topics"][3].to_0x_hex(), 16)
        for _, log in node.logs
        if len(log["topics"]) == 4 and log["topics"][0].to_0x_hex() == TRANSFER
    }
    owned = {i for i in minted if nft.functions.ownerOf(i).call().lower() == account}
    assert {int(t["tokenId"]) for t in holdings["erc721TokenBalances"]} == owned


def _check_deployments(client: httpx.Client, node: NodeView, account: str) -> None:
    """Operation 10: every contract the account deployed, directly or through a factory."""
    url = f"/v1/chains/43112/contracts/{account}/deployments"
    deployed = {c["address"] for c in _pages(client, url, "contracts", pageSize=4)}
    assert deployed == {c for c, deployers in node.created.items() if account in deployers}


def test_read_model_equals_rendering_the_rows(
    indexed: tuple[httpx.Client, Web3, Any], e2e_path: Path, tmp_path: Path
) -> None:
    """Every address of the demo traffic (tokens, NFTs, internal calls, creations): operation 5
    from the stored documents equals operation 5 rendered from the rows of a copy without them."""
    client, _, _ = indexed
    copy = tmp_path / "rows.db"
    with sqlite3.connect(e2e_path) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    with open_database(str(copy)) as db:
        with db.transaction() as w:
            w.execute("UPDATE transactions SET document = NULL")
            w.execute("UPDATE address_txs SET document = NULL")
        addresses = [str(r[0]) for r in db.query("SELECT DISTINCT address FROM address_txs")]
        kinds: set[str] = set()
        with api_client(db) as from_rows:
            for address in addresses:
                path = f"/v1/chains/43112/addresses/{address}/transactions"
                args = (path, "transactions", "ListTransactionsResponse", {"pageSize": 7})
                entries = walk(client, *args)
                assert entries == walk(from_rows, *args), address
                kinds.update(k for e in entries for k, v in e.items() if v)
    assert len(addresses) > 10
    assert kinds >= {"erc20Transfers", "erc721Transfers", "internalTransactions"}, kinds
