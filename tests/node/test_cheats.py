"""Cheat codes and snapshots: journaled so a restart (kill -9 too) finds what they left."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from web3 import AsyncWeb3
from web3.providers.persistent import WebSocketProvider

from snowfield.crypto.hashing import keccak
from snowfield.testing import DevnetProcess, RunningNode, free_port, serve_anvil, serve_devnet
from tests.bytecode import STORE, STORE_TOPIC, word
from tests.helpers import rpc_reply, signed_transfer

A = "0x00000000000000000000000000000000000000a1"
B = "0x00000000000000000000000000000000000000b2"
TO = "0x3333333333333333333333333333333333333333"
DEV0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
WORD_7 = "0x" + "00" * 31 + "07"


def hb(value: bytes) -> str:
    return "0x" + value.hex()


def dump(root: bytes, nodes: dict[bytes, bytes]) -> str:
    body = {"format": "snowfield-state/1", "root": hb(root), "nodes": {}}
    body["nodes"] = {hb(k): hb(v) for k, v in nodes.items()}
    return hb(json.dumps(body).encode())


MISSING_ROOT = dump(b"\xab" * 32, {})
GARBAGE_ROOT = dump(keccak(b"\x00"), {keccak(b"\x00"): b"\x00"})
FORGED_NODE = dump(b"\xab" * 32, {b"\xab" * 32: bytes.fromhex("c0")})


def rpc(url: str, method: str, *params: Any) -> Any:
    reply = rpc_reply(url, method, *params)
    if "error" in reply:
        raise RuntimeError(reply["error"])
    return reply["result"]


def account(url: str, address: str) -> dict[str, Any]:
    return {
        "balance": rpc(url, "eth_getBalance", address, "latest"),
        "nonce": rpc(url, "eth_getTransactionCount", address, "latest"),
        "code": rpc(url, "eth_getCode", address, "latest"),
        "slot1": rpc(url, "eth_getStorageAt", address, "0x1", "latest"),
    }


def edit(url: str, balance: int) -> None:
    rpc(url, "anvil_setBalance", A, hex(balance))
    rpc(url, "hardhat_setNonce", A, "0x9")
    rpc(url, "anvil_setCode", A, "0x600160005260206000f3")
    rpc(url, "hardhat_setStorageAt", A, "0x1", WORD_7)


def chain_view(node: DevnetProcess, hashes: list[str]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "index.getLastAccepted", "params": {}}
    last = httpx.post(node.base + "/ext/index/C/block", json=body).json()["result"]
    return {
        "head": rpc(node.rpc, "eth_getBlockByNumber", "latest", False),
        "a": account(node.rpc, A),
        "b": account(node.rpc, B),
        "receipts": [rpc(node.rpc, "eth_getTransactionReceipt", h) for h in hashes],
        "index": (last["index"], last["id"]),
    }


def test_cheat_codes_and_reverts_survive_kill_9(tmp_path: Path) -> None:
    node = DevnetProcess(tmp_path / "data", free_port())
    node.start()
    try:
        url = node.rpc
        edit(url, 10**18)
        rpc(url, "anvil_setBalance", B, hex(10**18))
        rpc(url, "anvil_impersonateAccount", B)
        kept = rpc(url, "eth_sendTransaction", {"from": B, "to": TO, "value": "0x5"})
        snap = rpc(url, "evm_snapshot")
        cut = [rpc(url, "eth_sendRawTransaction", signed_transfer(n, to=TO)) for n in range(2)]
        rpc(url, "anvil_setBalance", A, "0x1")
        assert rpc(url, "evm_revert", snap) is True
        assert int(rpc(url, "eth_blockNumber"), 16) == 1
        again = rpc(url, "eth_sendRawTransaction", signed_transfer(0, to=TO, value=2))
        hashes = [kept, *cut, again]
        before = chain_view(node, hashes)
        assert before["a"] == {
            "balance": hex(10**18),
            "nonce": "0x9",
            "code": "0x600160005260206000f3",
            "slot1": WORD_7,
        }
        assert [r is not None for r in before["receipts"]] == [True, False, False, True]
        assert before["receipts"][0]["from"] == B
        node.kill9()
        node.start()
        assert chain_view(node, hashes) == before
        # The impersonated transaction replays and traces as sent by B.
        trace = rpc(url, "debug_traceTransaction", kept, {"tracer": "callTracer"})
        assert (trace["from"], trace.get("error")) == (B, None)
        # An edit with no block after it is journaled too.
        rpc(url, "anvil_setBalance", A, "0x2a")
        node.kill9()
        node.start()
        assert rpc(url, "eth_getBalance", A, "latest") == "0x2a"
        assert rpc(url, "eth_getTransactionReceipt", again)["status"] == "0x1"
    finally:
        node.stop()


def test_reset_survives_a_restart(tmp_path: Path) -> None:
    node = DevnetProcess(tmp_path / "data", free_port())
    node.start()
    try:
        genesis = rpc(node.rpc, "eth_getBlockByNumber", "0x0", False)["hash"]
        rpc(node.rpc, "eth_sendRawTransaction", signed_transfer(0, to=TO))
        edit(node.rpc, 5)
        rpc(node.rpc, "anvil_reset")
        node.stop()
        node.start()
        assert rpc(node.rpc, "eth_blockNumber") == "0x0"
        assert rpc(node.rpc, "eth_getBlockByNumber", "latest", False)["hash"] == genesis
        assert account(node.rpc, A)["balance"] == "0x0"
        rpc(node.rpc, "eth_sendRawTransaction", signed_transfer(0, to=TO))
        assert rpc(node.rpc, "eth_blockNumber") == "0x1"
    finally:
        node.stop()


@pytest.fixture
def devnet() -> Iterator[RunningNode]:
    with serve_devnet() as running:
        yield running


def test_revert_restores_pool_filters_and_clock(devnet: RunningNode) -> None:
    url = devnet.rpc
    rpc(url, "evm_setAutomine", False)
    waiting = rpc(url, "eth_sendRawTransaction", signed_transfer(0, to=TO))
    snap = rpc(url, "evm_snapshot")
    rpc(url, "evm_increaseTime", 1000)
    blocks = rpc(url, "eth_newBlockFilter")
    rpc(url, "anvil_mine", "0x2")
    assert rpc(url, "txpool_status")["pending"] == "0x0"
    assert len(rpc(url, "eth_getFilterChanges", blocks)) == 2
    assert rpc(url, "evm_revert", snap) is True
    assert rpc(url, "txpool_status")["pending"] == "0x1"
    assert rpc(url, "eth_getTransactionByHash", waiting)["blockNumber"] is None
    rpc(url, "evm_mine")
    head = rpc(url, "eth_getBlockByNumber", "latest", False)
    # The replacement block is new to the filter; the clock lost the increase.
    assert rpc(url, "eth_getFilterChanges", blocks) == [head["hash"]]
    assert head["transactions"] == [waiting]
    genesis = rpc(url, "eth_getBlockByNumber", "0x0", False)
    assert int(head["timestamp"], 16) - int(genesis["timestamp"], 16) < 1000
    assert rpc(url, "evm_revert", snap) is False


def test_snapshots_after_the_reverted_one_are_consumed(devnet: RunningNode) -> None:
    url = devnet.rpc
    first, second, third = (rpc(url, "evm_snapshot") for _ in range(3))
    assert (first, second, third) == ("0x1", "0x2", "0x3")
    assert rpc(url, "evm_revert", second) is True
    assert rpc(url, "evm_revert", third) is False
    assert rpc(url, "evm_revert", first) is True
    assert rpc(url, "evm_revert", "0x99") is False
    assert rpc(url, "evm_snapshot") == "0x4"


def test_index_api_follows_a_revert(devnet: RunningNode) -> None:
    url = devnet.rpc
    index = devnet.rpc.replace("/ext/bc/C/rpc", "/ext/index/C/block")

    def last() -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "id": 1, "method": "index.getLastAccepted", "params": {}}
        result: dict[str, Any] = httpx.post(index, json=body).json()["result"]
        return result

    rpc(url, "anvil_mine", "0x1")
    snap = rpc(url, "evm_snapshot")
    before = last()
    rpc(url, "anvil_mine", "0x3")
    assert last()["index"] == str(int(before["index"]) + 3)
    rpc(url, "evm_revert", snap)
    assert last() == before
    rpc(url, "anvil_mine", "0x1")
    assert last()["index"] == str(int(before["index"]) + 1)


def test_blocks_built_on_edited_state_trace_from_it(devnet: RunningNode) -> None:
    url = devnet.rpc
    rpc(url, "anvil_setBalance", B, hex(10**18))
    rpc(url, "anvil_setCode", A, "0x60016000526001601ff3")  # returns 0x01
    rpc(url, "anvil_impersonateAccount", B)
    sent = rpc(url, "eth_sendTransaction", {"from": B, "to": A, "data": "0x"})
    trace = rpc(url, "debug_traceTransaction", sent, {"tracer": "callTracer"})
    assert (trace["from"], trace["output"], trace.get("error")) == (B, "0x01", None)


def test_impersonated_senders_get_distinct_hashes(devnet: RunningNode) -> None:
    url = devnet.rpc
    rpc(url, "anvil_autoImpersonateAccount", True)
    hashes = set()
    for sender in (A, B):
        rpc(url, "anvil_setBalance", sender, hex(10**18))
        args = {"from": sender, "to": TO, "value": "0x1", "gas": "0x5208"}
        hashes.add(rpc(url, "eth_sendTransaction", args))
    assert len(hashes) == 2
    rpc(url, "anvil_autoImpersonateAccount", False)
    refused = rpc_reply(url, "eth_sendTransaction", {"from": A, "to": TO, "value": "0x1"})
    assert refused["error"]["message"] == "unknown account"


@pytest.mark.parametrize(
    ("method", "params", "code"),
    [
        ("anvil_setBalance", ["0x12", "0x1"], -32602),
        ("anvil_setBalance", [A, "12"], -32602),
        ("anvil_setStorageAt", [A, "0x1", "0x07"], -32602),
        ("hardhat_setNonce", [A, "0x" + "f" * 17], -32602),
        ("evm_revert", ["xyz"], -32602),
        ("anvil_mine", ["0x" + "f" * 16], -32000),
        ("evm_setBlockGasLimit", ["0x0"], -32000),
        ("anvil_loadState", ["0x1234"], -32000),
        ("anvil_loadState", [MISSING_ROOT], -32000),
        ("anvil_loadState", [GARBAGE_ROOT], -32000),
        ("anvil_loadState", [FORGED_NODE], -32000),
        ("anvil_reset", [{"forking": {"jsonRpcUrl": "http://127.0.0.1:1"}}], -32000),
        ("hardhat_setMinGasPrice", ["0x1"], -32602),
    ],
)
def test_bad_input_gets_a_clear_error(
    devnet: RunningNode, method: str, params: list[Any], code: int
) -> None:
    reply = rpc_reply(devnet.rpc, method, *params)
    assert reply["error"]["code"] == code, reply
    assert rpc(devnet.rpc, "eth_blockNumber") == "0x0"


def test_revert_tells_log_subscribers_which_logs_were_removed(devnet: RunningNode) -> None:
    url = devnet.rpc
    rpc(url, "anvil_setCode", A, "0x" + STORE.hex())

    async def scenario() -> list[Any]:
        async with AsyncWeb3(WebSocketProvider(devnet.ws)) as aw3:
            sub = await aw3.eth.subscribe("logs", {"address": A, "topics": [STORE_TOPIC]})
            snap = rpc(url, "evm_snapshot")
            tx = rpc(url, "eth_sendTransaction", {"from": DEV0, "to": A, "data": hb(word(5))})
            assert rpc(url, "evm_revert", snap) is True
            got = []
            async for message in aw3.socket.process_subscriptions():
                assert message["subscription"] == sub
                got.append(message["result"])
                if len(got) == 2:
                    break
            assert [bytes(m["transactionHash"]) for m in got] == [bytes.fromhex(tx[2:])] * 2
            return [m["removed"] for m in got]

    assert asyncio.run(asyncio.wait_for(scenario(), timeout=20)) == [False, True]


def test_state_file_is_dumped_on_exit_and_loaded_on_start(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    first = DevnetProcess(tmp_path / "one", free_port(), extra=("--state", str(state)))
    first.start()
    try:
        edit(first.rpc, 77)
        edited = account(first.rpc, A)
    finally:
        first.stop()
    assert state.exists()
    second = DevnetProcess(tmp_path / "two", free_port(), extra=("--load-state", str(state)))
    second.start()
    try:
        assert account(second.rpc, A) == edited
    finally:
        second.stop()


def test_anvil_dump_loads_into_the_devnet(devnet: RunningNode) -> None:
    with serve_anvil() as anvil:
        edit(anvil, 99)
        expected = account(anvil, A)
        blob = rpc(anvil, "anvil_dumpState")
    assert rpc(devnet.rpc, "anvil_loadState", blob) is True
    assert account(devnet.rpc, A) == expected


def test_interval_mining_and_automine_switch(devnet: RunningNode) -> None:
    url = devnet.rpc
    rpc(url, "evm_setIntervalMining", 1)
    assert rpc(url, "anvil_getAutomine") is False
    sent = rpc(url, "eth_sendRawTransaction", signed_transfer(0, to=TO))
    assert rpc(url, "eth_getTransactionReceipt", sent) is None
    deadline = time.monotonic() + 10
    while rpc(url, "eth_getTransactionReceipt", sent) is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert rpc(url, "eth_getTransactionReceipt", sent)["status"] == "0x1"
    rpc(url, "anvil_setAutomine", True)
    assert rpc(url, "hardhat_getAutomine") is True
    now = rpc(url, "eth_sendRawTransaction", signed_transfer(1, to=TO))
    assert rpc(url, "eth_getTransactionReceipt", now)["status"] == "0x1"
    head = rpc(url, "eth_blockNumber")
    time.sleep(1.5)
    assert rpc(url, "eth_blockNumber") == head  # the timer stopped


def test_calls_traces_and_simulations_see_edited_state(devnet: RunningNode) -> None:
    url = devnet.rpc
    rpc(url, "anvil_setCode", A, "0x60016000526001601ff3")  # returns 0x01
    call = {"from": DEV0, "to": A}
    assert rpc(url, "eth_call", call, "latest") == "0x01"
    traced = rpc(url, "debug_traceCall", call, "latest", {"tracer": "callTracer"})
    assert traced["output"] == "0x01"
    simulated = rpc(url, "eth_simulateV1", {"blockStateCalls": [{"calls": [call]}]}, "latest")
    assert simulated[0]["calls"][0]["returnData"] == "0x01"
