"""Interval block production (--block-time), the txpool API and time control."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from web3 import Web3

from snowfield.testing import RunningNode, serve_devnet

DEV0 = Web3.to_checksum_address("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266")
DEV1 = Web3.to_checksum_address("0x70997970c51812dc3a010c7d01b50e0d17dc79c8")


@pytest.fixture(scope="module")
def slow() -> Iterator[RunningNode]:
    with serve_devnet(block_time=1.0) as running:
        yield running


def test_transactions_wait_in_the_pool_until_the_block(slow: RunningNode) -> None:
    w3 = Web3(Web3.HTTPProvider(slow.rpc))
    start = w3.eth.block_number
    nonce = w3.eth.get_transaction_count(DEV0)
    hashes = [
        w3.eth.send_transaction(
            {"from": DEV0, "to": DEV1, "value": 1, "nonce": nonce + i, "gas": 21000}
        )
        for i in range(3)
    ]
    future = w3.eth.send_transaction(
        {"from": DEV0, "to": DEV1, "value": 1, "nonce": nonce + 10, "gas": 21000}
    )
    status = w3.provider.make_request("txpool_status", [])["result"]
    assert status == {"pending": "0x3", "queued": "0x1"}
    content = w3.provider.make_request("txpool_content", [])["result"]
    assert sorted(content["pending"][DEV0]) == [str(nonce + i) for i in range(3)]
    assert list(content["queued"][DEV0]) == [str(nonce + 10)]
    inspect = w3.provider.make_request("txpool_inspect", [])["result"]
    assert inspect["pending"][DEV0][str(nonce)].startswith(f"{DEV1}: 1 wei + 21000 gas")
    assert w3.eth.get_transaction_count(DEV0, "pending") == nonce + 3
    receipts = [w3.eth.wait_for_transaction_receipt(h, timeout=10) for h in hashes]
    assert {r["blockNumber"] for r in receipts} == {start + 1}
    assert w3.eth.get_transaction(future)["blockNumber"] is None
    assert w3.provider.make_request("txpool_status", [])["result"] == {
        "pending": "0x0",
        "queued": "0x1",
    }


def test_time_control(slow: RunningNode) -> None:
    w3 = Web3(Web3.HTTPProvider(slow.rpc))
    now = w3.eth.get_block("latest")["timestamp"]
    w3.provider.make_request("evm_setNextBlockTimestamp", [now + 86_400])
    w3.provider.make_request("evm_mine", [])
    assert w3.eth.get_block("latest")["timestamp"] == now + 86_400
    w3.provider.make_request("evm_increaseTime", [3600])
    w3.provider.make_request("evm_mine", [])
    assert w3.eth.get_block("latest")["timestamp"] >= int(time.time()) + 3600 - 5
    err = w3.provider.make_request("evm_setNextBlockTimestamp", [now])["error"]
    assert "before the latest block" in err["message"]
