"""Operations 11-13 end to end: a devnet's P-Chain (stakers, a delegation, a subnet with an EVM
chain) indexed over /ext/index/P/block into SQLite, served by the data API; what the API says
equals what the node says (platform.getCurrentValidators, getSubnets, getBlockchains)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from snowfield.api.app import create_data_app
from snowfield.chains.platform.chain import PlatformChain
from snowfield.crypto.keys import EWOQ_KEY
from snowfield.formats.ids import ID, PRIMARY_NETWORK_ID, NodeID
from snowfield.formats.platform.components import BaseTxFields, TransferableOutput
from snowfield.formats.platform.secp256k1fx import Input, TransferOutput
from snowfield.formats.platform.staking_txs import (
    AddPermissionlessDelegatorTx,
    AddPermissionlessValidatorTx,
    Validator,
)
from snowfield.formats.platform.subnet_txs import CreateChainTx, CreateSubnetTx
from snowfield.formats.platform.txs import Tx
from snowfield.indexer.primary import PlatformSource, PrimaryIndexer
from snowfield.store import primary
from snowfield.store.database import Database
from snowfield.store.primary_documents import render_stored
from snowfield.testing import RunningNode, serve_asgi, serve_devnet
from tests.chains.platform import test_staking
from tests.chains.platform.wallet import KEY2, Wallet, owner, pop
from tests.node.test_node_apis import service

NODE = NodeID(b"\x42" * 20)
P_ID = "11111111111111111111111111111111LpoYY"
GENESIS = {
    "config": {"chainId": 77777, "feeConfig": {"gasLimit": 8_000_000, "minBaseFee": 25}},
    "alloc": {},
    "gasLimit": "0x7a1200",
    "baseFeePerGas": "0x5d21dba00",
}


def _call(url: str, method: str, params: Any = None) -> Any:
    reply = service(url, method, params)
    assert "error" not in reply, reply
    return reply["result"]


def _issue(devnet: RunningNode, tx: Tx) -> str:
    """Issues over the API, then waits for the block: the in-process wallet reads the chain's
    state, which the node updates just after it answers (before it reads the next request)."""
    from snowfield.formats.hexcheck import encode_hex

    url = devnet.base + "/ext/bc/P"
    tx_id = str(_call(url, "platform.issueTx", {"tx": encode_hex(tx.encode())})["txID"])
    for _ in range(500):
        if _call(url, "platform.getTxStatus", {"txID": tx_id})["status"] != "Processing":
            break
    return tx_id


def _chain(devnet: RunningNode) -> PlatformChain:
    runtime = devnet.node.chains["P"].runtime
    return runtime.chain  # type: ignore[attr-defined,no-any-return]


def _wallet(devnet: RunningNode) -> Wallet:
    asset = ID.from_string(devnet.node.ids.avax_asset)
    return Wallet(_chain(devnet), asset_id=asset, network_id=devnet.node.settings.network_id)


def _stake(wallet: Wallet, amount: int) -> tuple[TransferableOutput, ...]:
    return (TransferableOutput(wallet.asset_id, TransferOutput(amount, owner(EWOQ_KEY))),)


def _validator(wallet: Wallet, end: int) -> Tx:
    weight = test_staking.VALIDATOR_STAKE

    def make(base: BaseTxFields) -> AddPermissionlessValidatorTx:
        return AddPermissionlessValidatorTx(
            base,
            Validator(NODE, 0, end, weight),
            PRIMARY_NETWORK_ID,
            pop(b"indexed validator"),
            _stake(wallet, weight),
            owner(EWOQ_KEY),
            owner(KEY2),
            100_000,
        )

    return wallet.build(make, weight)


def _delegator(wallet: Wallet, end: int) -> Tx:
    weight = test_staking.DELEGATOR_STAKE

    def make(base: BaseTxFields) -> AddPermissionlessDelegatorTx:
        return AddPermissionlessDelegatorTx(
            base,
            Validator(NODE, 0, end, weight),
            PRIMARY_NETWORK_ID,
            _stake(wallet, weight),
            owner(KEY2),
        )

    return wallet.build(make, weight)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunningNode, str]]:
    with serve_devnet() as devnet:
        db_path = tmp_path_factory.mktemp("primary") / "p.db"
        db = Database(str(db_path))
        db.migrate()
        # A first sync before the stakers: theirs is a later sync's batch, which must ask
        # their potential rewards itself (the first sync's genesis step asks every staker's).
        asyncio.run(_sync(db, PlatformSource(devnet.base)))
        wallet = _wallet(devnet)
        end = wallet.chain.timestamp + 30 * 86_400
        _issue(devnet, _validator(wallet, end))
        _issue(devnet, _delegator(wallet, end - 86_400))
        subnet = wallet.build(lambda base: CreateSubnetTx(base, owner(EWOQ_KEY)))
        _issue(devnet, subnet)

        def make(base: BaseTxFields) -> CreateChainTx:
            return CreateChainTx(
                base,
                subnet.id,
                "demo chain",
                ID(bytes(range(32))),
                (),
                json.dumps(GENESIS).encode(),
                Input((0,)),
            )

        _issue(devnet, wallet.build(make, auth=[[EWOQ_KEY]]))
        asyncio.run(_sync(db, PlatformSource(devnet.base)))
        with serve_asgi(create_data_app(db)) as api:
            _DBS[api] = db_path
            yield devnet, api
        db.close()


_DBS: dict[str, Path] = {}


def api_db(api: str) -> Path:
    return _DBS[api]


async def _sync(db: Database, source: PlatformSource, batch_size: int = 2) -> None:
    try:
        await PrimaryIndexer(db, source, batch_size=batch_size).sync()
    finally:
        await source.aclose()


def _pages(url: str, key: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    token = None
    for _ in range(50):
        query = {**params, **({"pageToken": token} if token else {})}
        got = httpx.get(url, params=query)
        assert got.status_code == 200, got.text
        body = got.json()
        items += body[key]
        token = body.get("nextPageToken")
        if not token:
            return items
    raise AssertionError("paging did not end")


def test_staking_transactions_equal_the_node_current_stakers(
    indexed: tuple[RunningNode, str],
) -> None:
    devnet, api = indexed
    node = _call(devnet.base + "/ext/bc/P", "platform.getCurrentValidators")["validators"]
    url = f"{api}/v1/networks/fuji/blockchains/p-chain/transactions:listStaking"
    txs = _pages(url, "transactions", {"pageSize": 1})
    body = httpx.get(url).json()
    assert body["chainInfo"] == {"chainName": "p-chain", "network": "fuji"}
    by_id = {t["txHash"]: t for t in txs}
    validators = {v["txID"]: v for v in node}
    for tx_id, tx in by_id.items():
        if tx["txType"] == "AddPermissionlessValidatorTx":
            v = validators[tx_id]
            assert tx["nodeId"] == v["nodeID"]
            assert tx["estimatedReward"] == v["potentialReward"]
            assert tx["startTimestamp"] == int(v["startTime"])
            assert tx["endTimestamp"] == int(v["endTime"])
            assert tx["amountStaked"][0]["amount"] == v["weight"]
            assert tx["amountStaked"][0]["symbol"] == "AVAX"
            assert tx["blsCredentials"]["publicKey"].startswith("0x")
    # Every current validator, the genesis stakers (from the genesis state) included.
    assert {t["txHash"] for t in txs if "Delegator" not in t["txType"]} == set(validators)
    assert sum("Delegator" in t["txType"] for t in txs) == 1
    assert [t["txHash"] for t in txs] == [
        t["txHash"] for t in reversed(_pages(url, "transactions", {"sortOrder": "asc"}))
    ]
    delegation = next(t for t in txs if t["txType"] == "AddPermissionlessDelegatorTx")
    assert delegation["consumedUtxos"] and delegation["emittedUtxos"]
    staked = [u for u in delegation["emittedUtxos"] if u["utxoType"] == "STAKE"]
    assert staked and all(u["staked"] for u in staked)


def test_stored_documents_are_what_the_rows_render(
    indexed: tuple[RunningNode, str], tmp_path: Path
) -> None:
    """Operation 11 answers from rows and documents the writer keeps (p_staking_txs,
    store/primary_documents.py): each document is what the rows render now, also after a
    later tx consumed one of its outputs. A store upgraded from before them (rows rebuilt from
    the txs and stakers, no documents; operation 12's owner rows from the stakers' owner
    lists) answers the same pages of operations 11 and 12."""
    _, api = indexed
    db = Database(str(api_db(api)))
    (net,) = primary.networks(db)
    rows = db.query("SELECT * FROM p_staking_txs ORDER BY timestamp, height, tx_index")
    stored = {str(r[0]): str(r[1]) for r in db.query("SELECT tx_id, document FROM p_staking_txs")}
    assert stored == render_stored(db, P_ID, net.avax_asset, list(stored))
    # Later txs spent the staking txs' change: their documents were rendered again.
    spent = [
        u
        for doc in stored.values()
        for u in json.loads(doc)["emittedUtxos"]
        if "consumingTxHash" in u
    ]
    assert spent
    path = "/v1/networks/fuji/blockchains/p-chain/transactions:listStaking"
    queries = [
        {"pageSize": 1, "sortOrder": "asc"},
        {"pageSize": 10},
        {"pageSize": 1, "addresses": _bech(EWOQ_KEY)},
        {"pageSize": 1, "addresses": _bech(EWOQ_KEY), "txTypes": "AddPermissionlessValidatorTx"},
    ]
    pages = [_pages(api + path, "transactions", q) for q in queries]
    assert {t["txHash"] for t in pages[1]} == set(stored)
    rewards = "/v1/networks/fuji/rewards:listPending"
    owners = [{"addresses": _bech(k), "pageSize": 1} for k in (EWOQ_KEY, KEY2)]
    owners.append({"addresses": f"{_bech(EWOQ_KEY)},{_bech(KEY2)}", "pageSize": 2})
    pending = [_pages(api + rewards, "pendingRewards", q) for q in owners]
    assert all(pending)
    owner_rows = db.query("SELECT * FROM p_staker_owners ORDER BY pchain, address, tx_id")
    copy = tmp_path / "schema-7.db"
    db.close()
    with sqlite3.connect(api_db(api)) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    old = Database(str(copy))
    with old.transaction() as w:
        w.execute("DROP TABLE p_staking_txs")
        w.execute("DROP TABLE p_staker_owners")
        w.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")
    old.migrate()
    rebuilt = old.query("SELECT * FROM p_staking_txs ORDER BY timestamp, height, tx_index")
    assert [r[:-1] for r in rebuilt] == [r[:-1] for r in rows]
    assert all(r[-1] is None for r in rebuilt)
    assert old.query("SELECT * FROM p_staker_owners ORDER BY pchain, address, tx_id") == (
        owner_rows
    )
    with serve_asgi(create_data_app(old)) as upgraded:
        for query, expected in zip(queries, pages, strict=True):
            assert _pages(upgraded + path, "transactions", query) == expected
        for query, expected in zip(owners, pending, strict=True):
            assert _pages(upgraded + rewards, "pendingRewards", query) == expected
    old.close()


def test_staking_filters_and_errors(indexed: tuple[RunningNode, str]) -> None:
    _, api = indexed
    url = f"{api}/v1/networks/testnet/blockchains/{P_ID}/transactions:listStaking"
    only = httpx.get(url, params=[("txTypes", "AddPermissionlessDelegatorTx")]).json()
    assert [t["txType"] for t in only["transactions"]] == ["AddPermissionlessDelegatorTx"]
    both = httpx.get(
        url,
        params=[
            ("txTypes", "AddPermissionlessDelegatorTx"),
            ("txTypes", "AddPermissionlessValidatorTx"),
        ],
    ).json()
    assert {t["txType"] for t in both["transactions"]} == {
        "AddPermissionlessDelegatorTx",
        "AddPermissionlessValidatorTx",
    }
    ewoq = _pages(url, "transactions", {"addresses": _bech(EWOQ_KEY), "pageSize": 1})
    assert len(ewoq) >= 2 and len({t["txHash"] for t in ewoq}) == len(ewoq)
    # An address with a narrower type filter, and several addresses (each tx once).
    validators = _pages(
        url,
        "transactions",
        {"addresses": _bech(EWOQ_KEY), "txTypes": "AddPermissionlessValidatorTx", "pageSize": 1},
    )
    assert validators and [t["txHash"] for t in validators] == [
        t["txHash"] for t in ewoq if t["txType"] == "AddPermissionlessValidatorTx"
    ]
    both_owners = _pages(
        url, "transactions", {"addresses": f"{_bech(EWOQ_KEY)},{_bech(KEY2)}", "pageSize": 1}
    )
    hashes = [t["txHash"] for t in both_owners]
    assert len(set(hashes)) == len(hashes) and {t["txHash"] for t in ewoq} <= set(hashes)
    assert httpx.get(url, params={"txTypes": "Bogus"}).status_code == 400
    assert httpx.get(url, params={"addresses": "P-avax1bogus"}).status_code == 400
    wrong_network = httpx.get(
        url, params={"addresses": "P-avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulre5"}
    )
    assert wrong_network.status_code == 400
    assert httpx.get(url, params={"pageSize": 101}).status_code == 400
    mainnet = httpx.get(f"{api}/v1/networks/mainnet/blockchains/p-chain/transactions:listStaking")
    assert mainnet.status_code == 404
    bad_chain = httpx.get(f"{api}/v1/networks/fuji/blockchains/x-chain/transactions:listStaking")
    assert bad_chain.status_code == 400


def test_pending_rewards(indexed: tuple[RunningNode, str]) -> None:
    devnet, api = indexed
    url = f"{api}/v1/networks/fuji/rewards:listPending"
    assert httpx.get(url).status_code == 400
    node = _call(devnet.base + "/ext/bc/P", "platform.getCurrentValidators")["validators"]
    node_id = str(NODE)
    rewards = _pages(url, "pendingRewards", {"nodeIds": node_id, "pageSize": 1})
    kinds = sorted(r["rewardType"] for r in rewards)
    assert kinds == ["DELEGATOR", "VALIDATOR", "VALIDATOR_FEE"]
    validator = next(v for v in node if v["nodeID"] == node_id)
    mine = next(r for r in rewards if r["rewardType"] == "VALIDATOR")
    assert mine["estimatedReward"]["amount"] == validator["potentialReward"]
    assert mine["amountStaked"] == validator["weight"] and 0 <= mine["progress"] <= 100
    key2 = _pages(url, "pendingRewards", {"addresses": _bech(KEY2), "pageSize": 1})
    assert sorted(r["rewardType"] for r in key2) == ["DELEGATOR", "VALIDATOR_FEE"]
    # Every staker's potential reward, the delegator's too, is the node's.
    asked = _call(
        devnet.base + "/ext/bc/P", "platform.getCurrentValidators", {"nodeIDs": [node_id]}
    )
    (detailed,) = asked["validators"]
    expected = {detailed["txID"]: detailed["potentialReward"]}
    expected |= {d["txID"]: d["potentialReward"] for d in detailed["delegators"]}
    assert len(expected) == 2
    db = Database(str(api_db(api)))
    try:
        stored = db.query(
            "SELECT tx_id, potential_reward FROM p_stakers WHERE node_id = ?", (node_id,)
        )
    finally:
        db.close()
    assert {str(t): str(r) for t, r in stored} == expected


def _bech(secret: bytes) -> str:
    from snowfield.formats.bech32 import format_bech32
    from tests.chains.platform.wallet import address

    return "P-" + format_bech32("local", address(secret).raw)


def test_subnets_equal_the_node(indexed: tuple[RunningNode, str]) -> None:
    devnet, api = indexed
    p = devnet.base + "/ext/bc/P"
    node_subnets = {s["id"] for s in _call(p, "platform.getSubnets", {})["subnets"]}
    chains = _call(p, "platform.getBlockchains")["blockchains"]
    subnets = _pages(f"{api}/v1/networks/fuji/subnets", "subnets", {"pageSize": 1})
    assert {s["subnetId"] for s in subnets} == node_subnets - {P_ID}
    (subnet,) = subnets
    assert subnet["isL1"] is False and subnet["threshold"] == 1
    (made,) = subnet["blockchains"]
    node_chain = next(c for c in chains if c["id"] == made["blockchainId"])
    assert made["blockchainName"] == node_chain["name"] == "demo chain"
    assert made["evmChainId"] == 77777
    assert made["genesisData"]["baseFeePerGas"] == 0x5D21DBA00


def test_ended_stakers_leave_with_their_reward_utxos(
    indexed: tuple[RunningNode, str], tmp_path: Path
) -> None:
    """Last in this module: moves the network's clock past the test stakers' ends."""
    devnet, api = indexed
    reply = service(devnet.base + "/ext/bc/C/rpc", "evm_increaseTime", [31 * 86_400])
    assert "error" not in reply, reply
    db = Database(str(api_db(api)))
    asyncio.run(_sync(db, PlatformSource(devnet.base)))
    url = f"{api}/v1/networks/fuji/blockchains/p-chain/transactions:listStaking"
    left = {t["nodeId"] for t in _pages(url, "transactions", {})}
    assert str(NODE) not in left and left  # the genesis stakers stay current
    pending = f"{api}/v1/networks/fuji/rewards:listPending"
    assert _pages(pending, "pendingRewards", {"nodeIds": str(NODE)}) == []
    rows = db.query(
        "SELECT tx_id, amount, reward_type FROM p_utxos WHERE reward_type IS NOT NULL"
        " ORDER BY reward_type"
    )
    paid = {(tx_id, int(amount), kind) for tx_id, amount, kind in rows}
    node_paid = set()
    for tx_id in {r[0] for r in rows}:
        got = _call(devnet.base + "/ext/bc/P", "platform.getRewardUTXOs", {"txID": tx_id})
        node_paid.add((tx_id, int(got["numFetched"])))
    assert {kind for _, _, kind in paid} == {"VALIDATOR", "VALIDATOR_FEE", "DELEGATOR"}
    assert sum(n for _, n in node_paid) == len(paid)
    # One batch of the whole chain, so several stakers' rewards in a batch: the same rows.
    whole = Database(str(tmp_path / "whole.db"))
    whole.migrate()
    asyncio.run(_sync(whole, PlatformSource(devnet.base), batch_size=256))
    rewards = "SELECT * FROM p_utxos WHERE reward_type IS NOT NULL ORDER BY utxo_id"
    assert whole.query(rewards) == db.query(rewards)
    whole.close()
    db.close()
