"""Subscriptions over the C-Chain WebSocket with web3.py's WebSocketProvider."""

from __future__ import annotations

import asyncio
from typing import Any

from web3 import AsyncWeb3, Web3
from web3.providers.persistent import WebSocketProvider

from snowfield.testing import RunningNode
from tests.bytecode import STORE, STORE_TOPIC, deploy_code, word

DEV0 = Web3.to_checksum_address("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266")


async def _collect(w3: AsyncWeb3[Any], count: int) -> list[Any]:
    got = []
    async for message in w3.socket.process_subscriptions():
        got.append(message)
        if len(got) == count:
            break
    return got


def test_new_heads_logs_and_pending(devnet: RunningNode, w3: Web3) -> None:
    address = w3.eth.wait_for_transaction_receipt(
        w3.eth.send_transaction({"from": DEV0, "data": deploy_code(STORE)})
    )["contractAddress"]

    async def scenario() -> list[Any]:
        async with AsyncWeb3(WebSocketProvider(devnet.ws)) as aw3:
            assert await aw3.eth.chain_id == 43112
            heads = await aw3.eth.subscribe("newHeads")
            logs = await aw3.eth.subscribe("logs", {"address": address, "topics": [STORE_TOPIC]})
            pending = await aw3.eth.subscribe("newPendingTransactions")
            tx = await aw3.eth.send_transaction({"from": DEV0, "to": address, "data": word(5)})
            messages = await asyncio.wait_for(_collect(aw3, 3), timeout=20)
            by_sub = {m["subscription"]: m["result"] for m in messages}
            assert by_sub[pending] in (tx, tx.to_0x_hex())
            assert bytes(by_sub[logs]["transactionHash"]) == bytes(tx)
            assert bytes(by_sub[logs]["data"]) == word(5)
            block = await aw3.eth.get_block("latest")
            assert Web3.to_bytes(hexstr=str(by_sub[heads]["hash"])) == bytes(block["hash"])
            assert await aw3.eth.unsubscribe(heads) is True
            again = await aw3.provider.make_request("eth_unsubscribe", [heads])
            assert again["result"] is False
            return messages

    assert len(asyncio.run(scenario())) == 3


def test_polling_filters(w3: Web3) -> None:
    address = w3.eth.wait_for_transaction_receipt(
        w3.eth.send_transaction({"from": DEV0, "data": deploy_code(STORE)})
    )["contractAddress"]
    block_filter = w3.eth.filter("latest")
    log_filter = w3.eth.filter({"address": address})
    pending_filter = w3.eth.filter("pending")
    tx = w3.eth.send_transaction({"from": DEV0, "to": address, "data": word(3)})
    receipt = w3.eth.wait_for_transaction_receipt(tx)
    assert block_filter.get_new_entries() == [receipt["blockHash"]]
    assert block_filter.get_new_entries() == []
    (entry,) = log_filter.get_new_entries()
    assert entry["transactionHash"] == tx
    assert log_filter.get_new_entries() == []
    assert len(w3.eth.get_filter_logs(log_filter.filter_id)) == 1
    assert pending_filter.get_new_entries() == [tx]
    assert w3.eth.uninstall_filter(block_filter.filter_id) is True
    reply = w3.provider.make_request("eth_getFilterChanges", [block_filter.filter_id])
    assert reply["error"]["message"] == "filter not found"
