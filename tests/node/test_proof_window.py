"""eth_getProof's history rules: archive window (historical-proof-query-window) and pruning."""

from __future__ import annotations

from typing import Any

import httpx

from snowfield.testing import serve_devnet

ADDRESS = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"


def rpc(url: str, method: str, *params: Any) -> dict[str, Any]:
    reply: dict[str, Any] = httpx.post(
        url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
    ).json()
    return reply


def mine(url: str, count: int) -> int:
    for _ in range(count):
        rpc(url, "evm_mine")
    return int(rpc(url, "eth_blockNumber")["result"], 16)


def test_archive_window() -> None:
    with serve_devnet(historical_proof_query_window=5) as node:
        head = mine(node.rpc, 10)
        assert "result" in rpc(node.rpc, "eth_getProof", ADDRESS, [], hex(head - 5))
        err = rpc(node.rpc, "eth_getProof", ADDRESS, [], hex(head - 6))["error"]
        assert err["message"] == (
            f"block number {head - 6} is before the oldest allowed block number {head - 5} "
            "(window of 5 blocks)"
        )
        assert "result" in rpc(node.rpc, "eth_getBalance", ADDRESS, "0x1")


def test_window_zero_accepts_any_block() -> None:
    with serve_devnet(historical_proof_query_window=0) as node:
        mine(node.rpc, 3)
        assert "result" in rpc(node.rpc, "eth_getProof", ADDRESS, [], "0x0")


def test_pruning_node_keeps_32_blocks() -> None:
    with serve_devnet(pruning_enabled=True, historical_proof_query_window=0) as node:
        head = mine(node.rpc, 40)
        assert "result" in rpc(node.rpc, "eth_getProof", ADDRESS, [], hex(head - 32))
        err = rpc(node.rpc, "eth_getProof", ADDRESS, [], hex(head - 33))["error"]
        assert "window of 32 blocks" in err["message"]
