"""No request body can crash the node: every input gets a JSON-RPC answer or none."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from snowfield.testing import RunningNode

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.text(max_size=40)
    | st.sampled_from(
        ["0x", "0x0", "0x01", "latest", "pending", "0x" + "ab" * 20, "0x" + "cd" * 32]
    ),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    method=st.sampled_from(
        [
            "eth_getBalance",
            "eth_call",
            "eth_getLogs",
            "eth_getBlockByNumber",
            "eth_sendRawTransaction",
            "eth_estimateGas",
            "eth_getProof",
            "eth_feeHistory",
            "debug_traceBlockByNumber",
            "eth_newFilter",
            "eth_getFilterChanges",
            "txpool_content",
            "eth_sendTransaction",
            "personal_importRawKey",
            "evm_increaseTime",
            "web3_sha3",
            "nope",
        ]
    ),
    params=json_values,
)
def test_dispatcher_answers_every_input(devnet: RunningNode, method: str, params: Any) -> None:
    body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    reply = asyncio.run(devnet.node.evm_rpc.handle_bytes(body))
    assert reply is not None
    decoded = orjson.loads(reply)
    assert ("result" in decoded) != ("error" in decoded)
    if "error" in decoded:
        assert decoded["error"]["code"] != -32603, decoded


@settings(max_examples=200, deadline=None)
@given(body=st.binary(max_size=200) | json_values.map(orjson.dumps))
def test_garbage_bodies(devnet: RunningNode, body: bytes) -> None:
    reply = asyncio.run(devnet.node.evm_rpc.handle_bytes(body))
    if reply is not None:
        orjson.loads(reply)
