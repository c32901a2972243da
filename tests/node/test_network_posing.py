"""`--network-id 1` and `5` pose as mainnet and Fuji end to end: the C-Chain's EVM chain id is
avalanchego's genesis one for the network (43114, 43113, else 43112), `net_version` is 1 there,
and `snowfield index` lists the chain under that id on the network the node names."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from snowfield.api.app import create_data_app
from snowfield.cli.compose import data_api_error
from snowfield.config.network import NetworkSettings, c_chain_evm_id
from snowfield.store.database import Database
from snowfield.testing import serve_asgi, serve_devnet


def rpc(url: str, method: str) -> Any:
    reply = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": []})
    return reply.json()["result"]


@pytest.mark.parametrize(
    ("network_id", "chain_id"), [(1, 43114), (5, 43113), (12345, 43112), (10, 43112)]
)
def test_c_chain_evm_id_by_network(network_id: int, chain_id: int) -> None:
    assert c_chain_evm_id(network_id) == chain_id
    assert NetworkSettings(network_id=network_id).c_chain.chain_id == chain_id
    assert NetworkSettings(network_id=network_id, chain_id=7).c_chain.chain_id == 7


@pytest.mark.parametrize(
    ("network_id", "chain_id", "net_version", "network"),
    [(1, 43114, "1", "mainnet"), (5, 43113, "1", "testnet"), (12345, 43112, "43112", "testnet")],
)
def test_network_id_poses_end_to_end(
    tmp_path: Path, network_id: int, chain_id: int, net_version: str, network: str
) -> None:
    with serve_devnet(network_id=network_id, validators=1) as node:
        assert int(rpc(node.rpc, "eth_chainId"), 16) == chain_id
        assert rpc(node.rpc, "net_version") == net_version
        info = httpx.post(
            node.base + "/ext/info",
            json={"jsonrpc": "2.0", "id": 1, "method": "info.getNetworkID"},
        ).json()
        assert info["result"] == {"networkID": str(network_id)}
        path = tmp_path / "snowfield.db"
        cmd = [sys.executable, "-m", "snowfield", "index", "--rpc", node.rpc, "--db", str(path),
               "--no-follow", "--log-level", "warn"]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr.decode()[-3000:]
    db = Database(str(path))
    try:
        with serve_asgi(create_data_app(db), name="data", render=data_api_error) as data:
            chains = httpx.get(f"{data}/v1/chains").json()["chains"]
            [chain] = [c for c in chains if c["chainName"] == "C-Chain"]
            assert chain["chainId"] == str(chain_id)
            assert chain["isTestnet"] is (network == "testnet")
            listed = httpx.get(f"{data}/v1/chains", params={"network": network}).json()
            assert str(chain_id) in [c["chainId"] for c in listed["chains"]]
    finally:
        db.close()
