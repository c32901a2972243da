"""The node's registry of hosted chains: routes, block identity without the index, info."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx

from snowfield.chains.evm.customgenesis import genesis_json
from snowfield.cli.compose import build_node
from snowfield.config import NetworkSettings
from snowfield.formats.cb58 import decode_cb58
from snowfield.formats.hexcheck import decode_hex
from snowfield.formats.proposervm import parse
from snowfield.node.app import create_node_app
from snowfield.node.hosting import ChainSpec
from snowfield.node.networks import network_ids
from snowfield.node.registry import CUSTOM_EVM_VM
from snowfield.testing import RunningNode, free_port, serve_asgi, serve_devnet

GENESIS = 1_700_000_000


def call(url: str, method: str, params: Any) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    reply = httpx.post(url, json=body, timeout=30).json()
    assert "error" not in reply, reply
    return reply["result"]


def mine_three(node: RunningNode) -> None:
    for n in range(1, 4):
        call(node.rpc, "evm_mine", [GENESIS + 10 * n])


def health_last_accepted(node: RunningNode, height: int) -> str:
    deadline = time.monotonic() + 20
    while True:
        report = httpx.get(node.base + "/ext/health").json()
        consensus = report["checks"]["C"]["message"]["engine"]["consensus"]
        if consensus["lastAcceptedHeight"] == height or time.monotonic() > deadline:
            assert consensus["lastAcceptedHeight"] == height
            return str(consensus["lastAcceptedID"])
        time.sleep(0.1)


def test_block_ids_belong_to_the_chain_not_the_index() -> None:
    with serve_devnet(genesis_timestamp=GENESIS, health_check_frequency=0.1) as indexed:
        mine_three(indexed)
        last = call(indexed.base + "/ext/index/C/block", "index.getLastAccepted", {})
        assert health_last_accepted(indexed, 3) == last["id"]
    with serve_devnet(
        genesis_timestamp=GENESIS, health_check_frequency=0.1, index_enabled=False
    ) as plain:
        mine_three(plain)
        assert health_last_accepted(plain, 3) == last["id"]
        index = httpx.post(plain.base + "/ext/index/C/block", json={})
        assert index.status_code == 404


def test_routes_come_from_the_registry() -> None:
    with serve_devnet() as node:
        c_chain = node.node.ids.c_chain
        # avalanchego's names of the C-Chain: its aliases and id, and the /ext/{alias} forms.
        for prefix in ("bc/C", "bc/evm", f"bc/{c_chain}", "C", "evm"):
            reply = call(f"{node.base}/ext/{prefix}/rpc", "eth_chainId", [])
            assert reply == hex(43112)
            admin = call(f"{node.base}/ext/{prefix}/admin", "admin.getVMConfig", {})
            assert admin["config"]["chain_id"] == 43112
        unknown = httpx.post(f"{node.base}/ext/bc/Z/rpc", json={})
        assert (unknown.status_code, unknown.text) == (404, "404 page not found\n")
        assert httpx.post(f"{node.base}/ext/bc/Z/admin", json={}).status_code == 404
        assert httpx.post(f"{node.base}/ext/index/Z/block", json={}).status_code == 404
        assert httpx.post(f"{node.base}/ext/P/rpc", json={}).status_code == 404  # no P-Chain yet


def test_info_names_the_hosted_chains() -> None:
    with serve_devnet(network_id=5, chain_id=43113) as node:
        url = node.base + "/ext/info"
        fuji_c = network_ids(5).c_chain
        assert call(url, "info.getBlockchainID", {"alias": "C"}) == {"blockchainID": fuji_c}
        assert call(url, "info.getBlockchainID", {"alias": fuji_c}) == {"blockchainID": fuji_c}
        assert call(url, "info.getNetworkID", {}) == {"networkID": "5"}
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "info.getBlockchainID",
            "params": {"alias": "Q"},
        }
        error = httpx.post(url, json=body).json()["error"]
        assert error["code"] == -32000 and "there is no ID with alias" in error["message"]


def test_admin_methods_are_bound_to_their_wire_names() -> None:
    from snowfield.node.admin import Admin

    admin = Admin(None, {"x": 1})
    handlers = admin.handlers()
    assert set(handlers) == {
        "admin.startCPUProfiler",
        "admin.stopCPUProfiler",
        "admin.memoryProfile",
        "admin.lockProfile",
        "admin.setLogLevel",
        "admin.getVMConfig",
    }
    assert handlers["admin.getVMConfig"]({}) == {"config": {"x": 1}}
    assert admin.aliases()["admin_setLogLevel"] == "admin.setLogLevel"


def test_hosting_another_chain_is_one_registration() -> None:
    """An EVM L1 (no alias) registered with the node: routes, health check and info follow."""
    l1_id = "2Wpo2VrUCMzYXUbkjZ5Pfx5XqHgfEJxqKo7jYsMJCmqjXvKv3o"
    genesis = genesis_json(99_999, {}, timestamp=GENESIS)
    node = build_node(NetworkSettings(port=free_port()))
    node.host(ChainSpec(l1_id, node.ids.primary_subnet, CUSTOM_EVM_VM.id, genesis=genesis))
    with serve_asgi(create_node_app(node), port=node.settings.port) as base:
        assert call(f"{base}/ext/bc/{l1_id}/rpc", "eth_chainId", []) == hex(99_999)
        assert call(f"{base}/ext/bc/C/rpc", "eth_chainId", []) == hex(43112)
        info = call(f"{base}/ext/info", "info.getBlockchainID", {"alias": l1_id})
        assert info == {"blockchainID": l1_id}
        report = httpx.get(f"{base}/ext/health").json()
        assert report["checks"][l1_id]["message"]["engine"]["consensus"]["lastAcceptedHeight"] == 0


def test_a_late_index_gives_the_chains_own_ids(tmp_path: Path) -> None:
    """An index started on a running chain (--index-allow-incomplete) chains its first
    container to the id the chain already gave its parent."""
    data = {"data_dir": tmp_path, "genesis_timestamp": GENESIS, "health_check_frequency": 0.1}
    with serve_devnet(index_enabled=False, **data) as plain:
        mine_three(plain)
        third = health_last_accepted(plain, 3)
    with serve_devnet(index_enabled=True, index_allow_incomplete=True, **data) as late:
        call(late.rpc, "evm_mine", [GENESIS + 40])
        url = late.base + "/ext/index/C/block"
        first = call(url, "index.getContainerByIndex", {"index": 0, "encoding": "hex"})
        assert parse(decode_hex(first["bytes"])).parent_id.raw == decode_cb58(third)
        assert health_last_accepted(late, 4) == first["id"]
