"""Network identity flags: posing as mainnet or the test network."""

from __future__ import annotations

import httpx
import pytest

from snowfield.node.networks import network_ids
from snowfield.testing import serve_devnet


@pytest.mark.parametrize(("network_id", "chain_id"), [(1, 43114), (5, 43113)])
def test_mainnet_and_fuji_like_setups(network_id: int, chain_id: int) -> None:
    with serve_devnet(network_id=network_id, chain_id=chain_id) as node:
        c_chain = network_ids(network_id).c_chain
        url = f"{node.base}/ext/bc/{c_chain}/rpc"
        batch = [
            {"jsonrpc": "2.0", "id": 1, "method": "eth_chainId"},
            {"jsonrpc": "2.0", "id": 2, "method": "net_version"},
        ]
        replies = httpx.post(url, json=batch).json()
        assert [r["result"] for r in replies] == [hex(chain_id), "1"]
