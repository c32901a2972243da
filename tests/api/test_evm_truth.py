"""Truth is the node, read through the data API and the official client: the devnet's demo
traffic (ERC-20/721/1155 transfers, internal calls, creations by factories, a self-destruct, a
revert) and an NFT whose metadata lives at an HTTP URL the test serves, indexed into each test
database (SQLite; PostgreSQL too with SNOWFIELD_TEST_PG). Every transaction's complete view
equals eth_getTransactionByHash, eth_getTransactionReceipt and its callTracer trace; every
block equals eth_getBlockByNumber; the latest lists and the feeds hold every transaction; a
contract's deployment, a token's transfers and an NFT collection agree with the node; a reindex
request brings changed metadata in through the indexer."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry
from web3 import Web3

from snowfield.indexer.calls import Calls
from snowfield.indexer.indexer import Indexer
from snowfield.rpc.client import DocumentFetcher, RpcClient
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
from tests.api.conftest import api_client, assert_matches
from tests.bytecode import deploy_code, word
from tests.clients.chainkit import Call, Result, drive

CHAIN = 43112
BASE = f"/v1/chains/{CHAIN}"
DEV0 = Web3.to_checksum_address("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266")
TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
TRANSFER_SINGLE = "0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62"
TRANSFER_BATCH = "0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb"
TOKEN_URI = bytes.fromhex("c87b56dd")
ABI = [
    {
        "name": name,
        "type": "function",
        "stateMutability": "view",
        "inputs": [{"name": "id", "type": "uint256"}],
        "outputs": [{"name": "", "type": kind}],
    }
    for name, kind in (("ownerOf", "address"), ("tokenURI", "string"))
]


def http_nft(uri: str) -> bytes:
    """Runtime of a tiny ERC-721: tokenURI(any id) returns `uri`; any other call emits
    Transfer(0, caller, id = its first argument) (a mint)."""
    encoded = uri.encode()
    blob = word(32) + word(len(encoded)) + encoded.ljust(-(-len(encoded) // 32) * 32, b"\x00")
    size = len(blob).to_bytes(2, "big")
    head = (
        bytes.fromhex("60003560e01c63") + TOKEN_URI + bytes.fromhex("1461003d57")
        + bytes.fromhex("6004353360007f") + bytes.fromhex(TRANSFER[2:])
        + bytes.fromhex("60006000a400")
        + bytes.fromhex("5b61") + size + bytes.fromhex("61004d60003961") + size
        + bytes.fromhex("6000f3")
    )  # fmt: skip
    assert head[0x3D] == 0x5B and len(head) == 0x4D  # the jump target and the blob's offset
    return head + blob


class Documents(BaseHTTPRequestHandler):
    """Serves the NFT's metadata: whatever `Documents.body` holds now."""

    body = b"{}"

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("content-length", str(len(Documents.body)))
        self.end_headers()
        self.wfile.write(Documents.body)

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def metadata_server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Documents)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/flake.json"
    finally:
        httpd.shutdown()
        httpd.server_close()


def _node_client(rpc: str) -> Web3:
    """web3 over a session that sends a read again on a connection the node closed while it
    was idle (the official client's runs keep it idle for seconds; every call is a read)."""
    session = requests.Session()
    retry = Retry(total=3, connect=3, read=3, allowed_methods=None, backoff_factor=0.1)
    session.mount("http://", HTTPAdapter(max_retries=retry))
    return Web3(Web3.HTTPProvider(rpc, request_kwargs={"timeout": 30}, session=session))


@dataclass
class Traffic:
    node: RunningNode
    w3: Web3
    nft: str  # the HTTP-metadata NFT


@pytest.fixture(scope="module")
def traffic() -> Iterator[Traffic]:
    with serve_devnet() as node, metadata_server() as url:
        run_demo_rounds(node.rpc, 2)
        w3 = _node_client(node.rpc)
        Documents.body = b'{"name": "Flake, first"}'
        created = w3.eth.wait_for_transaction_receipt(
            w3.eth.send_transaction({"from": DEV0, "data": deploy_code(http_nft(url))})
        )
        nft = created["contractAddress"]
        w3.eth.send_transaction({"from": DEV0, "to": nft, "data": "0x40c10f19" + "00" * 31 + "01"})
        yield Traffic(node, w3, nft.lower())


@dataclass
class Indexed:
    traffic: Traffic
    db: Database
    client: httpx.Client
    base: str


@pytest.fixture(
    scope="module",
    params=database_urls(Path("/nonexistent")),
    ids=lambda url: url.split(":", 1)[0] if "://" in url else "sqlite",
)
def indexed(
    request: pytest.FixtureRequest, traffic: Traffic, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Indexed]:
    url = request.param
    if "://" not in url:
        url = str(tmp_path_factory.mktemp("db") / "snowfield.db")
    with open_database(url) as db:
        upsert_chain(db, ChainRow(CHAIN, "C-Chain", "local", traffic.node.rpc))
        index_node(db, traffic.node.rpc)
        with api_client(db) as client:
            yield Indexed(traffic, db, client, str(client.base_url))


def _items(result: Result, field: str) -> list[Any]:
    return [item for page in result.all_pages() for item in page[field]]


def _lower_status(value: Any) -> Any:
    """A client's answer with indexStatus as the spec spells it (the harness upper-cases it)."""
    if isinstance(value, dict):
        return {k: v.lower() if k == "indexStatus" else _lower_status(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_lower_status(v) for v in value]
    return value


def _hex(value: Any) -> str:
    return value.to_0x_hex() if hasattr(value, "to_0x_hex") else str(value)


def _transfers(receipt: Any) -> dict[str, list[tuple[int, str, str, str]]]:
    """Each ERC kind's transfers of a receipt, decoded from its logs: (log index, from, to,
    value or token id)."""
    out: dict[str, list[tuple[int, str, str, str]]] = {"20": [], "721": [], "1155": []}
    if receipt["status"] != 1:
        return out
    for log in receipt["logs"]:
        topics = [_hex(t) for t in log["topics"]]
        data = bytes(log["data"])
        party = ["0x" + t[-40:] for t in topics[1:]]
        if topics and topics[0] == TRANSFER and len(topics) == 3:
            out["20"].append((log["logIndex"], *party[:2], str(int.from_bytes(data[:32]))))
        elif topics and topics[0] == TRANSFER and len(topics) == 4:
            out["721"].append((log["logIndex"], *party[:2], str(int(topics[3], 16))))
        elif topics and topics[0] == TRANSFER_SINGLE:
            words = [int.from_bytes(data[i : i + 32]) for i in range(0, len(data), 32)]
            out["1155"].append((log["logIndex"], party[1], party[2], f"{words[0]}:{words[1]}"))
        elif topics and topics[0] == TRANSFER_BATCH:
            words = [int.from_bytes(data[i : i + 32]) for i in range(0, len(data), 32)]
            count = words[2]
            ids, values = words[3 : 3 + count], words[4 + count : 4 + 2 * count]
            for i, v in zip(ids, values, strict=True):
                out["1155"].append((log["logIndex"], party[1], party[2], f"{i}:{v}"))
    return out


def _listed_frames(trace: dict[str, Any], reverted: bool = False) -> Iterator[tuple[Any, ...]]:
    """The frames the service lists (value-moving CALL/CALLCODE, CREATE, CREATE2), pre-order,
    with whether they or an ancestor reverted."""
    for frame in trace.get("calls") or ():
        failed = reverted or bool(frame.get("error"))
        value = int(frame.get("value", "0x0"), 16)
        kind = frame["type"]
        if kind in ("CREATE", "CREATE2") or (kind in ("CALL", "CALLCODE") and value > 0):
            yield (
                kind, frame["from"].lower(), frame["to"].lower(), str(value),
                str(int(frame["gasUsed"], 16)), str(int(frame["gas"], 16)), failed,
            )  # fmt: skip
        yield from _listed_frames(frame, failed)


def _check_view(w3: Web3, tx_hash: str, view: dict[str, Any], seen: set[str]) -> None:
    tx, receipt = w3.eth.get_transaction(tx_hash), w3.eth.get_transaction_receipt(tx_hash)
    block = w3.eth.get_block(tx["blockNumber"])
    native = view["nativeTransaction"]
    created = receipt["contractAddress"]
    assert native == native | {
        "blockNumber": str(tx["blockNumber"]),
        "blockTimestamp": block["timestamp"],
        "blockHash": _hex(tx["blockHash"]),
        "blockIndex": tx["transactionIndex"],
        "txHash": tx_hash,
        "txStatus": str(receipt["status"]),
        "txType": tx["type"],
        "gasLimit": str(tx["gas"]),
        "gasUsed": str(receipt["gasUsed"]),
        "gasPrice": str(receipt["effectiveGasPrice"]),
        "nonce": str(tx["nonce"]),
        "value": str(tx["value"]),
        "input": _hex(tx["input"]),
        "baseFeePerGas": str(block["baseFeePerGas"]),
    }
    assert native["from"]["address"] == tx["from"].lower()
    assert native["to"]["address"] == (tx["to"] or created).lower()
    for ours, theirs in (
        ("maxFeePerGas", "maxFeePerGas"),
        ("maxPriorityFeePerGas", "maxPriorityFeePerGas"),
    ):
        assert native.get(ours) == (str(tx[theirs]) if theirs in tx else None)
    assert view["receipt"] == {
        "status": str(receipt["status"]),
        "gasUsed": str(receipt["gasUsed"]),
        "cumulativeGasUsed": str(receipt["cumulativeGasUsed"]),
        "effectiveGasPrice": str(receipt["effectiveGasPrice"]),
        **({"contractAddress": created.lower()} if created else {}),
    }
    assert view["logs"] == [
        {
            "logIndex": g["logIndex"],
            "address": g["address"].lower(),
            "topics": [_hex(t) for t in g["topics"]],
            "data": _hex(g["data"]),
        }
        for g in receipt["logs"]
    ]
    decoded = _transfers(receipt)
    assert [
        (t["logIndex"], t["from"]["address"], t["to"]["address"], t["value"])
        for t in view["erc20Transfers"]
    ] == decoded["20"]
    assert [
        (t["logIndex"], t["from"]["address"], t["to"]["address"], t["erc721Token"]["tokenId"])
        for t in view["erc721Transfers"]
    ] == decoded["721"]
    assert [
        (t["logIndex"], t["from"]["address"], t["to"]["address"],
         f"{t['erc1155Token']['tokenId']}:{t['value']}")
        for t in view["erc1155Transfers"]
    ] == decoded["1155"]  # fmt: skip
    trace = w3.provider.make_request("debug_traceTransaction", [tx_hash, {"tracer": "callTracer"}])
    listed = list(_listed_frames(trace["result"], bool(trace["result"].get("error"))))
    assert [
        (i["internalTxType"], i["from"]["address"], i["to"]["address"], i["value"], i["gasUsed"],
         i["gasLimit"], i["isReverted"])
        for i in view["internalTransactions"]
    ] == listed  # fmt: skip
    seen.update(kind for kind, items in decoded.items() if items)
    seen.update(i["internalTxType"] for i in view["internalTransactions"])
    seen.update(["failed"] if receipt["status"] == 0 else [])
    seen.update(["creation"] if created else [])


def test_every_transaction_view_is_the_nodes(indexed: Indexed) -> None:
    w3 = indexed.traffic.w3
    head = w3.eth.block_number
    total = sum(w3.eth.get_block_transaction_count(n) for n in range(head + 1))
    [latest] = drive(
        [Call("data.evm.transactions.listLatest", {"pageSize": 25}, "all")], data=indexed.base
    )
    hashes = [t["txHash"] for t in _items(latest, "transactions")]
    assert len(hashes) == len(set(hashes)) == total > 40
    views = drive(
        [Call("data.evm.transactions.get", {"txHash": h}) for h in hashes], data=indexed.base
    )
    seen: set[str] = set()
    for tx_hash, theirs in zip(hashes, views, strict=True):
        response = indexed.client.get(f"{BASE}/transactions/{tx_hash}")
        ours = response.json()
        assert_matches(ours, "GetTransactionResponse")
        _check_view(w3, tx_hash, ours, seen)
        # The client reads all of it but our `logs` and `receipt`, which it drops.
        assert _lower_status(theirs.unwrap()) == {
            k: v for k, v in ours.items() if k not in ("logs", "receipt")
        }
    assert {"20", "721", "1155", "CALL", "CREATE", "CREATE2", "failed", "creation"} <= seen


def test_every_block_is_the_nodes(indexed: Indexed) -> None:
    w3 = indexed.traffic.w3
    head = w3.eth.block_number
    tip = w3.eth.get_block(head)
    results = drive(
        [
            Call("data.evm.blocks.listLatest", {"pageSize": 7}, "all"),
            Call("data.evm.blocks.get", {"blockId": _hex(tip["hash"])}),
            Call("data.evm.blocks.get", {"blockId": str(head + 1)}),
        ],
        data=indexed.base,
    )
    latest, by_hash, beyond = results
    blocks = _items(latest, "blocks")
    assert [b["blockNumber"] for b in blocks] == [str(n) for n in range(head, -1, -1)]
    assert by_hash.unwrap() == blocks[0]
    assert beyond.error["name"] == "NotFoundError"
    total = 0
    for b in reversed(blocks):
        node = w3.eth.get_block(int(b["blockNumber"]), full_transactions=True)
        receipts = [w3.eth.get_transaction_receipt(t["hash"]) for t in node["transactions"]]
        total += len(receipts)
        assert b == b | {
            "chainId": str(CHAIN),
            "blockHash": _hex(node["hash"]),
            "parentHash": _hex(node["parentHash"]),
            "blockTimestamp": node["timestamp"],
            "txCount": len(receipts),
            "baseFee": str(node.get("baseFeePerGas", 0)),
            "gasUsed": str(node["gasUsed"]),
            "gasLimit": str(node["gasLimit"]),
            "gasCost": str(int(node.get("blockGasCost", "0x0"), 16)),
            "feesSpent": str(sum(r["gasUsed"] * r["effectiveGasPrice"] for r in receipts)),
            "cumulativeTransactions": str(total),
        }
        millis = node.get("timestampMilliseconds")
        assert b.get("blockTimestampMilliseconds") == (None if millis is None else int(millis, 16))
        assert_matches(indexed.client.get(f"{BASE}/blocks/{b['blockNumber']}").json(), "EvmBlock")


def test_the_feeds_hold_every_transaction_and_block(indexed: Indexed) -> None:
    w3 = indexed.traffic.w3
    results = drive(
        [
            Call("data.evm.transactions.listLatest", {"pageSize": 100}, "all"),
            Call("data.evm.transactions.listLatestAllChains", {"pageSize": 30}, "all"),
            Call(
                "data.evm.chains.listAllLatestTransactions",
                {"pageSize": 100, "status": "failed"},
                "all",
            ),
            Call(
                "data.evm.blocks.listLatestAllChains", {"pageSize": 40, "network": "testnet"}, "all"
            ),
            Call("data.evm.chains.listAllLatestBlocks", {"network": "mainnet"}, "all"),
        ],
        data=indexed.base,
    )
    chain, feed, failed, blocks, mainnet = results
    assert _items(feed, "transactions") == _items(chain, "transactions")
    failures = [t["txHash"] for t in _items(feed, "transactions") if t["txStatus"] == "0"]
    assert [t["txHash"] for t in _items(failed, "transactions")] == failures
    assert all(w3.eth.get_transaction_receipt(h)["status"] == 0 for h in failures) and failures
    assert len(_items(blocks, "blocks")) == w3.eth.block_number + 1
    assert _items(mainnet, "blocks") == []


def test_deployments_token_transfers_and_collections(indexed: Indexed) -> None:
    w3, db = indexed.traffic.w3, indexed.db
    tokens = {
        str(a): str(k)
        for a, k in db.query("SELECT address, erc_type FROM tokens WHERE erc_type <> 'UNKNOWN'")
    }
    assert set(tokens.values()) == {"ERC-20", "ERC-721", "ERC-1155"}
    calls = [Call("data.evm.contracts.getDeploymentTransaction", {"address": a}) for a in tokens]
    calls += [
        Call("data.evm.contracts.listTransfers", {"address": a, "pageSize": 9}, "all")
        for a in tokens
    ]
    # The HTTP-metadata NFT has no ownerOf: the reindex test reads it.
    nfts = [a for a, k in tokens.items() if k == "ERC-721" and a != indexed.traffic.nft]
    calls += [Call("data.nfts.list", {"address": a, "pageSize": 3}, "all") for a in nfts]
    results = drive(calls, data=indexed.base)
    deployments, transfers = results[: len(tokens)], results[len(tokens) : 2 * len(tokens)]
    collections = results[2 * len(tokens) :]
    by_token: dict[str, int] = {}
    for tx_hash in (str(r[0]) for r in db.query("SELECT hash FROM transactions")):
        receipt = w3.eth.get_transaction_receipt(tx_hash)
        for g in receipt["logs"] if receipt["status"] == 1 else ():
            topic = _hex(g["topics"][0]) if g["topics"] else ""
            if (topic == TRANSFER and len(g["topics"]) in (3, 4)) or topic == TRANSFER_SINGLE:
                by_token[g["address"].lower()] = by_token.get(g["address"].lower(), 0) + 1
            elif topic == TRANSFER_BATCH:
                count = int.from_bytes(bytes(g["data"])[64:96])
                by_token[g["address"].lower()] = by_token.get(g["address"].lower(), 0) + count
    for (token, _), deployment, listed in zip(tokens.items(), deployments, transfers, strict=True):
        tx_hash = deployment.unwrap()["nativeTransaction"]["txHash"]
        receipt = w3.eth.get_transaction_receipt(tx_hash)
        trace = w3.provider.make_request(
            "debug_traceTransaction", [tx_hash, {"tracer": "callTracer"}]
        )
        created = {
            f["to"].lower() for f in _frames(trace["result"]) if f["type"].startswith("CREATE")
        }
        assert token == (receipt["contractAddress"] or "").lower() or token in created
        assert len(_items(listed, "transfers")) == by_token.get(token, 0)
        blocks = [int(t["blockNumber"]) for t in _items(listed, "transfers")]
        assert blocks == sorted(blocks, reverse=True)
    for token, collection in zip(nfts, collections, strict=True):
        contract = w3.eth.contract(Web3.to_checksum_address(token), abi=ABI)
        held = _items(collection, "tokens")
        assert held
        for item in held:
            token_id = int(item["tokenId"])
            assert item["ownerAddress"] == contract.functions.ownerOf(token_id).call().lower()
            assert item["tokenUri"] == contract.functions.tokenURI(token_id).call()


def _frames(frame: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for child in frame.get("calls") or ():
        yield child
        yield from _frames(child)


def test_a_reindex_brings_changed_metadata_through_the_indexer(indexed: Indexed) -> None:
    nft, rpc = indexed.traffic.nft, indexed.traffic.node.rpc
    path = f"{BASE}/nfts/collections/{nft}/tokens/1"
    before = indexed.client.get(path).json()
    assert before["metadata"]["indexStatus"] == "indexed" and before["ownerAddress"] == DEV0.lower()
    changed = f"Flake, changed at {time.time_ns()}"
    Documents.body = f'{{"name": "{changed}", "image": "https://example.invalid/f.png"}}'.encode()
    asked, again = drive(
        [
            Call("data.nfts.reindex", {"address": nft, "tokenId": "1"}),
            Call("data.nfts.reindex", {"address": nft, "tokenId": "1"}),
        ],
        data=indexed.base,
    )
    assert asked.ok and again.error["statusCode"] == 429
    assert indexed.client.get(path).json() == before  # the API never asks the node itself

    async def poll() -> int:
        fetcher = DocumentFetcher()
        try:
            async with RpcClient(rpc) as client:
                indexer = Indexer(indexed.db, Calls(client), fetcher, CHAIN)
                await indexer.sync()
                return await indexer.reindex_nfts() + await indexer.reindex_nfts()
        finally:
            await fetcher.aclose()

    started = int(time.time())
    assert asyncio.run(poll()) == 1  # done once: the second poll finds nothing pending
    after = indexed.client.get(path).json()
    assert_matches(after, "NftToken")
    assert after["metadata"]["name"] == changed
    assert after["metadata"]["imageUri"] == "https://example.invalid/f.png"
    assert after["metadata"]["metadataLastUpdatedTimestamp"] >= started
    [listed, history] = drive(
        [
            Call("data.nfts.get", {"address": nft, "tokenId": "1"}),
            Call("data.evm.address.transactions.listErc721", {"address": DEV0.lower()}, "all"),
        ],
        data=indexed.base,
    )
    assert listed.unwrap()["metadata"]["name"] == changed
    # Operation 5's stored documents embedded the old metadata: they were cleared, and the
    # address's history shows the new.
    entries = indexed.client.get(
        f"{BASE}/addresses/{DEV0.lower()}/transactions", params={"pageSize": 100}
    ).json()
    minted = [
        t
        for e in entries["transactions"]
        for t in e["erc721Transfers"]
        if t["erc721Token"]["address"] == nft
    ]
    assert [t["erc721Token"]["metadata"]["name"] for t in minted] == [changed]
    assert [
        t["erc721Token"]["metadata"]["name"]
        for t in _items(history, "transactions")
        if t["erc721Token"]["address"] == nft
    ] == [changed]
