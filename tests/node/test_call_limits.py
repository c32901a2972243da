"""eth_call and eth_estimateGas are bounded as geth bounds them: a gas cap and a time limit,
and slow calls never hold up the rest of the node."""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from snowfield.testing import RunningNode, serve_devnet
from tests.helpers import rpc_reply

DEV = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
INFINITE_LOOP = "0x5b600056"  # JUMPDEST PUSH1 0 JUMP
# Initcode returning the GAS it starts with: GAS PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN.
RETURN_GAS = "0x5a60005260206000f3"
HUGE_GAS = "0xffffffffffffffff"


@pytest.fixture(scope="module")
def limited() -> Iterator[RunningNode]:
    with serve_devnet(rpc_evm_timeout=1.5, rpc_gas_cap=1_000_000) as running:
        yield running


def test_call_gas_above_the_cap_is_capped(limited: RunningNode) -> None:
    reply = rpc_reply(limited.rpc, "eth_call", {"from": DEV, "data": RETURN_GAS, "gas": HUGE_GAS})
    seen = int(reply["result"], 16)
    assert 1_000_000 - 60_000 < seen < 1_000_000
    unset = rpc_reply(limited.rpc, "eth_call", {"from": DEV, "data": RETURN_GAS})
    assert int(unset["result"], 16) == seen


def test_infinite_loop_ends_with_gethes_timeout_error(limited: RunningNode) -> None:
    started = time.monotonic()
    call = {"from": DEV, "data": INFINITE_LOOP, "gas": HUGE_GAS}
    with serve_devnet(rpc_evm_timeout=1.5, rpc_gas_cap=0) as uncapped:
        reply = rpc_reply(uncapped.rpc, "eth_call", call, "latest")
    assert reply["error"] == {"code": -32000, "message": "execution aborted (timeout = 1.5s)"}
    assert time.monotonic() - started < 10


def test_estimate_uses_the_cap_as_upper_bound(limited: RunningNode) -> None:
    reply = rpc_reply(limited.rpc, "eth_estimateGas", {"from": DEV, "data": INFINITE_LOOP})
    assert reply["error"]["code"] == -32000
    assert reply["error"]["message"] in (
        "gas required exceeds allowance (1000000)",
        "execution aborted (timeout = 1.5s)",
    )
    ok = rpc_reply(limited.rpc, "eth_estimateGas", {"from": DEV, "to": DEV, "gas": HUGE_GAS})
    assert ok["result"] == "0x5208"


def _latency(client: httpx.Client, url: str, body: dict[str, object]) -> float:
    started = time.perf_counter()
    reply = client.post(url, json=body, timeout=10).json()
    assert "result" in reply, reply
    return time.perf_counter() - started


def test_slow_calls_do_not_hold_up_the_node() -> None:
    loop_call = {"from": DEV, "data": INFINITE_LOOP, "gas": HUGE_GAS}
    with (
        serve_devnet(rpc_evm_timeout=3.0, rpc_gas_cap=0) as node,
        ThreadPoolExecutor(3) as pool,
        httpx.Client() as client,
    ):
        slow = [pool.submit(rpc_reply, node.rpc, "eth_call", loop_call) for _ in range(3)]
        time.sleep(0.5)
        number = {"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []}
        latencies = [_latency(client, node.rpc, number) for _ in range(30)]
        normal = {"jsonrpc": "2.0", "id": 2, "method": "eth_call", "params": [{"to": DEV}]}
        call_latency = _latency(client, node.rpc, normal)
        running = sum(not f.done() for f in slow)
        for future in slow:
            assert future.result(timeout=15)["error"]["message"].startswith("execution aborted")
    assert running == 3, "the slow calls should have been running meanwhile"
    assert statistics.median(latencies) < 0.02, latencies
    assert call_latency < 1.0
