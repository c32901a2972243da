"""The server-level request timeout (`--http-write-timeout`): a request still running at the
limit is answered with -32002 `request timed out`, as avalanchego's EVM RPC answers it, on every
JSON-RPC API; in a batch, every call not answered by then; the node keeps serving."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest

from snowfield.rpc.service import ServiceDispatcher
from snowfield.testing import RunningNode, serve_devnet

LOOP = "0x5b600056"  # JUMPDEST PUSH1 0 JUMP: runs until its gas or the EVM timeout ends it
TARGET = "0x" + "42" * 20


@pytest.fixture(scope="module")
def devnet() -> Iterator[RunningNode]:
    with serve_devnet(validators=1, http_write_timeout=0.5, rpc_evm_timeout=3.0) as node:
        yield node


def _slow_call(ident: int) -> dict[str, Any]:
    call = {"to": TARGET, "data": "0x", "gas": hex(40_000_000)}
    params = [call, "latest", {TARGET: {"code": LOOP}}]
    return {"jsonrpc": "2.0", "id": ident, "method": "eth_call", "params": params}


def test_a_call_past_the_limit_is_answered_request_timed_out(devnet: RunningNode) -> None:
    started = time.monotonic()
    reply = httpx.post(devnet.rpc, json=_slow_call(7), timeout=30).json()
    elapsed = time.monotonic() - started
    assert reply == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {"code": -32002, "message": "request timed out"},
    }
    assert 0.4 < elapsed < 2.5  # at the server's limit, not the EVM's 3 s
    # the node still answers, and quick calls are not affected
    quick = {"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []}
    assert httpx.post(devnet.rpc, json=quick).json()["result"] == "0xa868"


def test_a_batch_answers_what_finished_and_times_out_the_rest(devnet: RunningNode) -> None:
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []},
        _slow_call(2),
        {"jsonrpc": "2.0", "method": "eth_blockNumber", "params": []},  # a notification
        {"jsonrpc": "2.0", "id": 4, "method": "eth_blockNumber", "params": []},
    ]
    replies = httpx.post(devnet.rpc, json=batch, timeout=30).json()
    assert replies[0] == {"jsonrpc": "2.0", "id": 1, "result": "0xa868"}
    timed_out = {"code": -32002, "message": "request timed out"}
    assert replies[1:] == [
        {"jsonrpc": "2.0", "id": 2, "error": timed_out},
        {"jsonrpc": "2.0", "id": 4, "error": timed_out},
    ]


def test_gorilla_services_answer_the_timeout_in_their_shape() -> None:
    """The avalanchego-style services (platform, avm, info, index, health …) share the
    transport: a handler still running at the limit gets gorilla's error object."""

    async def slow(_: dict[str, Any]) -> dict[str, str]:
        await asyncio.sleep(5)
        return {"late": "yes"}

    async def fast(_: dict[str, Any]) -> dict[str, str]:
        return {"ok": "yes"}

    service = ServiceDispatcher({"test.slow": slow, "test.fast": fast})

    async def run() -> tuple[Any, Any, float]:
        body = b'{"jsonrpc":"2.0","id":3,"method":"test.slow","params":{}}'
        started = time.monotonic()
        late = orjson.loads(await service.handle_bytes(body, timeout=0.2))
        elapsed = time.monotonic() - started
        body = b'{"jsonrpc":"2.0","id":4,"method":"test.fast","params":{}}'
        quick = orjson.loads(await service.handle_bytes(body, timeout=0.2))
        return late, quick, elapsed

    late, quick, elapsed = asyncio.run(run())
    assert late == {
        "jsonrpc": "2.0",
        "error": {"code": -32002, "message": "request timed out", "data": None},
        "id": 3,
    }
    assert elapsed < 1.0
    assert quick["result"] == {"ok": "yes"}


def test_no_limit_with_zero() -> None:
    with serve_devnet(validators=1, http_write_timeout=0, rpc_evm_timeout=0.6) as node:
        reply = httpx.post(node.rpc, json=_slow_call(1), timeout=30).json()
        assert reply["error"]["code"] != -32002  # the EVM's own limit ends it
