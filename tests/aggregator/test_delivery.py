"""End to end over the peer protocol: a message sent with sendWarpMessage on the C-Chain is
aggregated by the aggregator (operation 1's path) and getVerifiedWarpMessage on a custom EVM
chain reads it as valid."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from eth_utils import to_checksum_address

from snowfield.aggregator.aggregate import AggregationRequest
from snowfield.testing import RunningNode
from tests.aggregator.test_aggregate import aggregate, send_warp
from tests.bytecode import deploy_code
from tests.node.test_warp_evm import GET_VERIFIED, RELAY, SENDER, _access_list, _receipt
from tests.node.test_warp_evm import devnet as warp_devnet  # noqa: F401  (the fixture)


@pytest.fixture(scope="module")
def chains(warp_devnet: tuple[RunningNode, str]) -> Iterator[tuple[RunningNode, str]]:  # noqa: F811
    yield warp_devnet


def test_aggregated_message_verifies_on_another_chain(chains: tuple[RunningNode, str]) -> None:
    node, blockchain_id = chains
    payload = b"across chains, signed over p2p"
    unsigned = send_warp(node, payload)
    signed, _ = asyncio.run(aggregate(node, AggregationRequest(unsigned)))
    l1_url = f"{node.base}/ext/bc/{blockchain_id}/rpc"
    created = _receipt(l1_url, {"data": "0x" + deploy_code(RELAY).hex(), "gas": 200_000})
    relay = to_checksum_address(created["contractAddress"])
    call: dict[str, Any] = {
        "to": relay,
        "data": "0x" + (GET_VERIFIED + (0).to_bytes(32, "big")).hex(),
        "gas": 600_000,
        "accessList": _access_list(signed.encode()),
    }
    receipt = _receipt(l1_url, call)
    (out,) = receipt["logs"]
    output = bytes.fromhex(out["data"][2:])
    assert int.from_bytes(output[32:64], "big") == 1  # valid
    message = output[64:]
    assert message[44:64] == bytes.fromhex(SENDER.address[2:])
    assert message[96 + 32 : 96 + 32 + len(payload)] == payload
