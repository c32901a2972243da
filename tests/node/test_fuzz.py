"""No request can crash or wedge the node: every JSON-RPC method and HTTP route answers any
input quickly, never with -32603 or a 5xx, and the node keeps answering afterwards."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from snowfield.node.vms.evm.methods.txargs import TRANSACTION_ARGS_FIELDS
from snowfield.testing import RunningNode, serve_devnet

# Any call runs out of time well before an answer counts as a hang.
EVM_TIMEOUT = 1.0
HANG = 2.0 + EVM_TIMEOUT

hexes = st.sampled_from(
    ["0x", "0x0", "0x01", "0x1", "0xzz", "latest", "pending", "0x" + "ab" * 20, "0x" + "cd" * 32]
)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=40)
    | hexes
    | st.binary(max_size=64).map(lambda b: "0x" + b.hex()),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
# Transaction objects: geth's field names with any values, valid ones likely.
tx_objects = st.dictionaries(
    st.sampled_from([f.name for f in TRANSACTION_ARGS_FIELDS]), json_values, max_size=6
)


@pytest.fixture(scope="module")
def devnet() -> Iterator[RunningNode]:
    with serve_devnet(rpc_evm_timeout=EVM_TIMEOUT) as running:
        yield running


def _answer(devnet: RunningNode, body: bytes) -> Any:
    started = time.monotonic()
    reply = asyncio.run(devnet.node.evm_rpc.handle_bytes(body))
    assert time.monotonic() - started < HANG, body[:200]
    return None if reply is None else orjson.loads(reply)


def _no_internal_error(decoded: Any) -> None:
    for item in decoded if isinstance(decoded, list) else [decoded]:
        assert ("result" in item) != ("error" in item)
        if "error" in item:
            assert item["error"]["code"] != -32603, item


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), params=json_values)
def test_every_method_answers_every_input(devnet: RunningNode, data: Any, params: Any) -> None:
    method = data.draw(st.sampled_from(sorted(devnet.node.evm_rpc.methods)), label="method")
    body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    decoded = _answer(devnet, body)
    assert decoded is not None
    _no_internal_error(decoded)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    method=st.sampled_from(
        ["eth_call", "eth_estimateGas", "eth_sendTransaction", "debug_traceCall"]
    ),
    tx=tx_objects,
    block=st.sampled_from([[], ["latest"], ["0x0"], ["pending"]]),
)
def test_transaction_objects(devnet: RunningNode, method: str, tx: Any, block: list[str]) -> None:
    body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": [tx, *block]})
    _no_internal_error(_answer(devnet, body))


@settings(max_examples=200, deadline=None)
@given(body=st.binary(max_size=200) | json_values.map(orjson.dumps))
def test_garbage_bodies(devnet: RunningNode, body: bytes) -> None:
    reply = asyncio.run(devnet.node.evm_rpc.handle_bytes(body))
    if reply is not None:
        orjson.loads(reply)


NODE_PATHS = [
    "/ext/bc/C/rpc",
    "/ext/bc/C/ws",
    "/ext/bc/C/admin",
    "/ext/bc/X/rpc",
    "/ext/index/C/block",
    "/ext/health",
    "/ext/health/liveness",
    "/ext/metrics",
    "/",
]
segments = st.text(
    st.characters(
        min_codepoint=0x21,
        max_codepoint=0x2FF,
        exclude_categories=["Cc"],
        exclude_characters="/?#%\\",
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    path=st.sampled_from(NODE_PATHS)
    | st.lists(segments, max_size=4).map(lambda s: "/" + "/".join(s)),
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"]),
    body=st.binary(max_size=100) | json_values.map(orjson.dumps),
    ctype=st.sampled_from(["application/json", "text/plain", ""]),
)
def test_node_routes(devnet: RunningNode, path: str, method: str, body: bytes, ctype: str) -> None:
    headers = {"content-type": ctype} if ctype else {}
    reply = httpx.request(method, devnet.base + path, content=body, headers=headers, timeout=HANG)
    # The health routes answer 503 when a check fails: a verdict, not a crash.
    assert reply.status_code < 500 or path.startswith("/ext/health"), (path, reply.text[:200])


def test_node_still_answers_after_the_fuzz(devnet: RunningNode) -> None:
    started = time.monotonic()
    reply = httpx.post(devnet.rpc, json={"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber"})
    assert reply.json()["result"].startswith("0x")
    assert time.monotonic() - started < 1.0
