"""The ICM messenger and relayer on a devnet: keyless deployment at one address on the C-Chain
and an L1, a message each way with a fee (delivered, executed, its receipt back, the relayer's
reward), a failed execution retried, and a restarted relayer that delivers nothing twice."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from eth_abi import decode

from snowfield.formats.icm import FEE_TYPE, MESSAGE_TYPE
from snowfield.formats.ids import ID
from snowfield.rpc.client import RpcClient
from snowfield.testing import RunningNode, serve_devnet
from snowfield.workload.contracts import call_data, load
from snowfield.workload.icm import (
    MESSENGER_ADDRESS,
    TOPICS,
    EvmAccount,
    deploy_messenger,
    send_message_data,
)
from snowfield.workload.icm_relayer import Relayer

REWARD = "0x" + "ab" * 20
FEE = 5 * 10**18


@pytest.fixture(scope="module")
def network() -> Iterator[tuple[RunningNode, str]]:
    with serve_devnet(l1=("icm",)) as node:
        (chain,) = [c for c in node.node.platform.chain.blockchains() if c.name == "icm"]
        yield node, str(chain.blockchain_id)


def _logs(receipt: dict[str, Any], name: str) -> list[dict[str, Any]]:
    topic = "0x" + TOPICS[name].hex()
    return [
        item
        for item in receipt["logs"]
        if item["address"].lower() == MESSENGER_ADDRESS and item["topics"][0] == topic
    ]


async def _view(rpc: RpcClient, to: str, data: bytes) -> bytes:
    return bytes.fromhex(
        (await rpc.call("eth_call", {"to": to, "data": "0x" + data.hex()}, "latest"))[2:]
    )


def test_messages_each_way_with_fee_receipt_and_retry(
    network: tuple[RunningNode, str], tmp_path: Path
) -> None:
    node, l1 = network
    c_id = node.node.ids.c_chain
    secret = node.node.dev_keys[0].private_key
    urls = {c_id: node.rpc, l1: f"{node.base}/ext/bc/{l1}/rpc"}

    async def flow() -> None:
        c, l1_rpc = RpcClient(urls[c_id]), RpcClient(urls[l1])
        c_acct, l1_acct = EvmAccount(c, secret), EvmAccount(l1_rpc, secret)
        assert await deploy_messenger(c, c_acct) == await deploy_messenger(l1_rpc, l1_acct)
        echo = load("IcmEcho")
        l_echo = (await l1_acct.send(None, echo.deploy_data(MESSENGER_ADDRESS), gas=2_000_000))[
            "contractAddress"
        ]
        c_echo = (await c_acct.send(None, echo.deploy_data(MESSENGER_ADDRESS), gas=2_000_000))[
            "contractAddress"
        ]
        token = load("DemoToken")
        fee_token = (
            await c_acct.send(None, token.deploy_data("Fee", "FEE", 18, 10**24), gas=3_000_000)
        )["contractAddress"]
        await c_acct.send(
            fee_token, call_data("approve(address,uint256)", MESSENGER_ADDRESS, 10**24)
        )
        relayer = Relayer(urls, node.base, secret, REWARD, tmp_path / "relayer.json")
        try:
            # C → L1 with a fee: delivered and executed
            sent = await c_acct.send(
                MESSENGER_ADDRESS,
                send_message_data(
                    ID.from_string(l1).raw, l_echo, b"hello", fee_token=fee_token, fee=FEE
                ),
            )
            (send_log,) = _logs(sent, "SendCrossChainMessage")
            first_id = send_log["topics"][1]
            assert await relayer.step() == 1
            received = decode(["bytes"], await _view(l1_rpc, l_echo, call_data("lastMessage()")))[0]
            assert received == b"hello"
            # L1 → C carries the receipt back: the fee becomes the relayer's reward
            back = await l1_acct.send(
                MESSENGER_ADDRESS, send_message_data(ID.from_string(c_id).raw, c_echo, b"back")
            )
            (back_log,) = _logs(back, "SendCrossChainMessage")
            carried, _fee = decode([MESSAGE_TYPE, FEE_TYPE], bytes.fromhex(back_log["data"][2:]))
            assert [tuple(r) for r in carried[6]] == [(1, REWARD)]  # the receipt of message 1
            assert await relayer.step() == 1
            reward = await _view(
                c,
                MESSENGER_ADDRESS,
                call_data("checkRelayerRewardAmount(address,address)", REWARD, fee_token),
            )
            assert int.from_bytes(reward, "big") == FEE
            # the receipt was logged on C for the first message
            head = int(await c.call("eth_blockNumber"), 16)
            logs = await c.call(
                "eth_getLogs",
                {
                    "fromBlock": hex(max(0, head - 5)),
                    "toBlock": "latest",
                    "address": MESSENGER_ADDRESS,
                    "topics": ["0x" + TOPICS["ReceiptReceived"].hex()],
                },
            )
            assert [x["topics"][1] for x in logs] == [first_id]
            # a failing execution, then its retry
            failing = await c_acct.send(
                MESSENGER_ADDRESS, send_message_data(ID.from_string(l1).raw, l_echo, b"fail")
            )
            (fail_send,) = _logs(failing, "SendCrossChainMessage")
            assert await relayer.step() == 1
            head = int(await l1_rpc.call("eth_blockNumber"), 16)
            failed = await l1_rpc.call(
                "eth_getLogs",
                {
                    "fromBlock": hex(head),
                    "toBlock": "latest",
                    "address": MESSENGER_ADDRESS,
                    "topics": ["0x" + TOPICS["MessageExecutionFailed"].hex()],
                },
            )
            assert [x["topics"][1] for x in failed] == [fail_send["topics"][1]]
            (failed_message,) = decode(
                ["(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes)"],
                bytes.fromhex(failed[0]["data"][2:]),
            )
            await l1_acct.send(l_echo, call_data("setFailing(bool)", False))
            retry = call_data(
                "retryMessageExecution(bytes32,(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes))",
                ID.from_string(c_id).raw,
                failed_message,
            )
            retried = await l1_acct.send(MESSENGER_ADDRESS, retry)
            assert _logs(retried, "MessageExecuted")
            assert (
                decode(["bytes"], await _view(l1_rpc, l_echo, call_data("lastMessage()")))[0]
                == b"fail"
            )
        finally:
            await relayer.close()
        # a restarted relayer (same position file) delivers nothing twice
        again = Relayer(urls, node.base, secret, REWARD, tmp_path / "relayer.json")
        again.cursor = {}  # even from the start: the messenger says what it received
        try:
            assert await again.step() == 0
        finally:
            await again.close()
        await c.aclose()
        await l1_rpc.aclose()

    asyncio.run(flow())


def test_the_node_allows_the_messengers_keyless_deployment() -> None:
    """The EVM chains accept the messenger's unprotected creation tx (its hash is pinned there)."""
    from snowfield.chains.evm.admission import ALLOWED_UNPROTECTED_TX_HASHES
    from snowfield.crypto.hashing import keccak
    from snowfield.workload.icm import KEYLESS

    assert keccak(KEYLESS.raw) in ALLOWED_UNPROTECTED_TX_HASHES
