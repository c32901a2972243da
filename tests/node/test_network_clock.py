"""One network clock: the EVM time controls move it for the node, not just the C-Chain."""

from __future__ import annotations

from typing import Any

import httpx

from snowfield.chains.clock import NetworkClock
from snowfield.testing import serve_devnet


def _rpc(base: str, method: str, params: list[Any]) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    reply = httpx.post(f"{base}/ext/bc/C/rpc", json=body).json()
    assert "error" not in reply, reply
    return reply["result"]


def test_clock_moves_forward_only() -> None:
    wall = [1000.0]
    clock = NetworkClock(lambda: wall[0])
    assert clock.increase(30) == 30 and clock() == 1030.0
    clock.advance_to(1500)
    assert clock() == 1500.0
    clock.advance_to(1200)
    assert clock() == 1500.0
    wall[0] += 5
    assert clock() == 1505.0


def test_time_controls_move_the_network_clock() -> None:
    with serve_devnet(validators=2) as node:
        clock = node.node.clock
        assert node.node.c.chain.clock is clock
        before = clock()
        assert _rpc(node.base, "evm_increaseTime", [3600]) == hex(3600)
        assert clock() - before >= 3600
        target = int(clock()) + 86_400
        _rpc(node.base, "evm_setNextBlockTimestamp", [target])
        _rpc(node.base, "evm_mine", [])
        assert clock() >= target
        block = _rpc(node.base, "eth_getBlockByNumber", ["latest", False])
        assert int(block["timestamp"], 16) == target
        later = target + 86_400
        _rpc(node.base, "evm_mine", [later])
        assert clock() >= later


def test_uptime_follows_network_time() -> None:
    with serve_devnet(validators=2) as node:
        validators = node.node.validators
        other = validators.validators[1]
        validators.stop(str(other.node_id))
        _rpc(node.base, "evm_increaseTime", [1000])
        validators.start(str(other.node_id))
        _rpc(node.base, "evm_increaseTime", [1000])
        assert 45.0 < validators.uptime(other) < 55.0
        assert validators.uptime(validators.own) == 100.0


def test_time_past_year_9999_is_refused_and_the_node_keeps_answering() -> None:
    """Found by the method fuzzer: a huge evm_increaseTime made the next block's timestamp
    overflow 64 bits, and anvil_nodeInfo then failed to encode it."""
    with serve_devnet() as devnet:
        for method, value in (
            ("evm_increaseTime", hex(2**62)),
            ("evm_setNextBlockTimestamp", hex(2**62)),
            ("evm_mine", hex(253_402_300_800)),
        ):
            body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": [value]}
            error = httpx.post(f"{devnet.base}/ext/bc/C/rpc", json=body).json()["error"]
            assert "the latest time the network can represent" in error["message"], method
        _rpc(devnet.base, "evm_mine", [])
        info = _rpc(devnet.base, "anvil_nodeInfo", [])
        assert info["currentBlockTimestamp"] < 253_402_300_800
        body = {"jsonrpc": "2.0", "id": 1, "method": "platform.getTimestamp", "params": {}}
        assert "result" in httpx.post(f"{devnet.base}/ext/bc/P", json=body).json()
