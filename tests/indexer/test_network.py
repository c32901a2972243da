"""One `snowfield index` process follows every EVM chain of the network: the C-Chain it was
pointed at and the L1 the P-Chain lists, each with its own checkpoint; the data API serves both
by EVM chain id and by blockchain id, and the metrics aggregates span them."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from snowfield.api.app import create_data_app
from snowfield.api.metrics.service import create_metrics_app
from snowfield.cli.compose import data_api_error, metrics_api_error
from snowfield.indexer.network import ChainTarget, NetworkFollower, discover
from snowfield.store import writes
from snowfield.store.database import Database
from snowfield.testing import RunningNode, serve_asgi, serve_devnet
from tests.node.test_l1_hosting import genesis, issue_chain

DEV = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
TO = "0x" + "cd" * 20
L1_NAME = "snowfield demo L1"


def call(url: str, method: str, params: Any) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    reply = httpx.post(url, json=body, timeout=30).json()
    assert "error" not in reply, reply
    return reply["result"]


@dataclass
class Network:
    node: RunningNode
    l1_id: str
    l1_rpc: str
    l1_txs: list[str]
    c_txs: list[str]
    db: Database
    data: str
    metrics: str


def index(rpc: str, db: Path, *extra: str) -> None:
    cmd = [sys.executable, "-m", "snowfield", "index", "--rpc", rpc, "--db", str(db),
           "--no-follow", "--network", "testnet", "--log-level", "warn", *extra]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()[-3000:]


@pytest.fixture(scope="module")
def network(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Network]:
    with serve_devnet(l1=(L1_NAME,)) as node:
        l1_id = str(next(c.blockchain_id for c in node.node.chains if c.vm.name == "subnet-evm"))
        l1_rpc = f"{node.base}/ext/bc/{l1_id}/rpc"
        send = {"from": DEV, "to": TO, "value": "0x5"}
        l1_txs = [call(l1_rpc, "eth_sendTransaction", [send]) for _ in range(3)]
        c_txs = [call(node.rpc, "eth_sendTransaction", [send])]
        path = tmp_path_factory.mktemp("network") / "snowfield.db"
        index(node.rpc, path)
        db = Database(str(path))
        try:
            with (
                serve_asgi(create_data_app(db), name="data", render=data_api_error) as data,
                serve_asgi(
                    create_metrics_app(db), name="metrics", render=metrics_api_error
                ) as metrics,
            ):
                yield Network(node, l1_id, l1_rpc, l1_txs, c_txs, db, data, metrics)
        finally:
            db.close()


def test_each_chain_has_its_own_checkpoint(network: Network) -> None:
    assert writes.checkpoint(network.db, 99999)[0] == 3  # type: ignore[index]
    assert writes.checkpoint(network.db, 43112)[0] == 1  # type: ignore[index]


def test_operation_3_lists_the_l1_with_its_p_chain_facts(network: Network) -> None:
    chains = httpx.get(f"{network.data}/v1/chains").json()["chains"]
    by_id = {c["chainId"]: c for c in chains}
    assert set(by_id) == {"43112", "99999"}
    l1 = by_id["99999"]
    subnet = next(
        c["subnetID"]
        for c in call(f"{network.node.base}/ext/bc/P", "platform.getBlockchains", {})["blockchains"]
        if c["id"] == network.l1_id
    )
    assert l1["chainName"] == L1_NAME
    assert l1["platformChainId"] == network.l1_id and l1["subnetId"] == subnet
    assert l1["vmId"] == "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"
    assert l1["vmName"] == "EVM" and l1["rpcUrl"] == network.l1_rpc
    assert l1["wsUrl"] == network.l1_rpc.replace("http://", "ws://")[: -len("/rpc")] + "/ws"
    assert l1["networkToken"]["symbol"] == "SDL" and l1["isTestnet"] is True


@pytest.mark.parametrize("key", ["99999", "blockchain id"])
def test_the_l1_is_served_by_evm_chain_id_and_blockchain_id(network: Network, key: str) -> None:
    chain = network.l1_id if key == "blockchain id" else key
    block = httpx.get(f"{network.data}/v1/chains/{chain}/blocks/1/transactions").json()
    assert [t["txHash"] for t in block["transactions"]] == [network.l1_txs[0]]
    listed = httpx.get(f"{network.data}/v1/chains/{chain}/addresses/{TO}/transactions").json()
    assert sorted(t["nativeTransaction"]["txHash"] for t in listed["transactions"]) == sorted(
        network.l1_txs
    )
    # The C-Chain's transaction is the C-Chain's only.
    c_listed = httpx.get(f"{network.data}/v1/chains/43112/addresses/{TO}/transactions").json()
    assert [t["nativeTransaction"]["txHash"] for t in c_listed["transactions"]] == network.c_txs


def test_metrics_aggregates_span_the_l1(network: Network) -> None:
    def tx_count(chain: str) -> int:
        reply = httpx.get(
            f"{network.metrics}/v2/chains/{chain}/metrics/txCount",
            params={"timeInterval": "day", "pageSize": 1},
        ).json()
        return sum(int(r["value"]) for r in reply["results"])

    assert tx_count("99999") == 3 and tx_count("43112") == 1
    assert tx_count("total") == tx_count("testnet") == 4
    assert tx_count("mainnet") == 0


def test_a_chain_created_while_following_is_picked_up(network: Network) -> None:
    """The follower looks for new chains while it runs (a CreateChainTx can start one)."""

    async def go() -> list[ChainTarget]:
        stop = asyncio.Event()
        seen: list[ChainTarget] = []

        async def follow(target: ChainTarget) -> None:
            seen.append(target)

        async def find() -> list[ChainTarget]:
            # The P-Chain lists the C-Chain too; the indexer follows it as its main chain.
            return [t for t in await discover(network.node.rpc) if t.chain_id != 43112]

        task = asyncio.create_task(NetworkFollower(follow, find, rediscover=0.05).run(stop))
        for _ in range(200):
            if seen:
                break
            await asyncio.sleep(0.05)
        await asyncio.to_thread(issue_chain, network.node, "late chain", genesis(4242))
        for _ in range(200):
            if len(seen) == 2:
                break
            await asyncio.sleep(0.05)
        stop.set()
        await task
        return seen

    first, late = asyncio.run(go())
    assert (first.chain_id, first.name) == (99999, L1_NAME)
    assert (late.chain_id, late.name) == (4242, "late chain")
    assert late.rpc_url == f"{network.node.base}/ext/bc/{late.blockchain_id}/rpc"
    assert late.vm_id == "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"


def test_chains_named_on_the_command_line(network: Network, tmp_path: Path) -> None:
    """`--no-discover --chain-rpc URL`: the named chain beside --rpc's, nothing else."""
    path = tmp_path / "named.db"
    index(network.node.rpc, path, "--no-discover", "--chain-rpc", network.l1_rpc)
    db = Database(str(path))
    try:
        assert writes.checkpoint(db, 99999)[0] >= 3  # type: ignore[index]
        assert writes.checkpoint(db, 43112) is not None
        assert writes.checkpoint(db, 4242) is None  # the late chain was not named
    finally:
        db.close()
