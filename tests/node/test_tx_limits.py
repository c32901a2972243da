"""Size limits on transactions and calls (EIP-3860 initcode, the pool's), and a block builder
that one bad transaction cannot stop."""

from __future__ import annotations

import httpx
from eth_account import Account

from snowfield.chains.evm.execution.transactions import decode_tx
from snowfield.testing import RunningNode, serve_devnet
from tests.helpers import KEY0, rpc_reply, signed_transfer

KEY1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
DEV = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
TO = "0x" + "22" * 20


def _create(size: int, nonce: int = 0) -> str:
    tx = {
        "data": "0x" + "00" * size,
        "gas": 1_000_000,
        "maxFeePerGas": 10**11,
        "maxPriorityFeePerGas": 10**9,
        "nonce": nonce,
        "chainId": 43112,
        "type": 2,
        "value": 0,
    }
    return "0x" + bytes(Account.sign_transaction(tx, KEY0).raw_transaction).hex()


def test_initcode_over_the_limit_is_refused_at_admission(devnet: RunningNode) -> None:
    reply = rpc_reply(devnet.rpc, "eth_sendRawTransaction", _create(49_153))
    assert reply["error"] == {
        "code": -32000,
        "message": "max initcode size exceeded: code size 49153, limit 49152",
    }
    nonce = int(rpc_reply(devnet.rpc, "eth_getTransactionCount", DEV, "pending")["result"], 16)
    assert "result" in rpc_reply(devnet.rpc, "eth_sendRawTransaction", _create(49_152, nonce))
    assert "result" in rpc_reply(devnet.rpc, "evm_mine")


def test_oversized_transaction_is_refused(devnet: RunningNode) -> None:
    raw = signed_transfer(0, to=TO, data="0x" + "01" * 140_000, gas=5_000_000)
    reply = rpc_reply(devnet.rpc, "eth_sendRawTransaction", raw)
    assert reply["error"]["code"] == -32000
    assert reply["error"]["message"].startswith("oversized data: transaction size 1401")
    assert reply["error"]["message"].endswith(", limit 131072")


def test_a_transaction_that_cannot_run_is_dropped_not_the_block() -> None:
    with serve_devnet() as node:
        chain = node.node.c.chain
        bad = decode_tx(bytes.fromhex(_create(49_153)[2:]))
        chain.mempool.add(bad)  # as if admitted by an older, laxer node
        good = rpc_reply(node.rpc, "eth_sendRawTransaction", signed_transfer(0, to=TO, key=KEY1))
        receipt = rpc_reply(node.rpc, "eth_getTransactionReceipt", good["result"])["result"]
        assert receipt["status"] == "0x1"
        assert bad.hash not in chain.mempool.by_hash
        assert "result" in rpc_reply(node.rpc, "evm_mine")
        assert int(rpc_reply(node.rpc, "eth_blockNumber")["result"], 16) == 2


def test_calls_with_oversize_initcode_answer_the_real_error(devnet: RunningNode) -> None:
    for method in ("eth_call", "eth_estimateGas"):
        reply = rpc_reply(devnet.rpc, method, {"from": DEV, "data": "0x" + "00" * 49_153})
        assert reply["error"] == {
            "code": -32000,
            "message": "max initcode size exceeded: code size 49153 limit 49152",
        }


def test_call_with_megabytes_of_calldata_answers(devnet: RunningNode) -> None:
    data = "0x" + "01" * 2_400_000
    reply = rpc_reply(devnet.rpc, "eth_call", {"from": DEV, "to": TO, "data": data})
    assert reply == {"jsonrpc": "2.0", "id": 1, "result": "0x"}
    create = rpc_reply(devnet.rpc, "eth_call", {"from": DEV, "data": data})
    assert create["error"]["code"] == -32000
    body = {"jsonrpc": "2.0", "id": 1, "method": "eth_call", "params": [{"data": data * 3}]}
    too_big = httpx.post(devnet.rpc, json=body, timeout=30)
    assert too_big.status_code == 413  # geth's answer to a body over its limit
